"""The live state of the fabric, derived from every device's running-config and the cabling.

Nothing here is stored: link state, LLDP neighbours, BGP sessions, OSPF
adjacencies and MLAG peering are computed from both ends' configurations each
time a show command asks, so changing a config (or a fault) changes what the
neighbours see at once.

Rules:

* a physical link is up when both ends exist, neither is ``shutdown``, no
  ``link-down`` fault is set on either end and the far end is a server or a
  device that is reachable (a server end is always up);
* a Port-Channel is up when one of its members (``channel-group N``) is up;
  an SVI is up when its VLAN exists (or ``no autostate``); loopbacks and
  management interfaces are up unless shut;
* a BGP session is Established when both ends name each other (the peer's
  interface address is a ``neighbor``), each ``remote-as`` is the other's
  ASN, neither neighbour is shut and the interfaces carrying the addresses
  are up and adjacent (:meth:`Fabric.adjacent`); loopback addresses count as
  reachable;
* an OSPF neighbour appears when both interfaces are up, on the same
  subnet, OSPF-enabled (``network`` or ``ip ospf area``), not passive, in
  the same area, with the same network type; it is ``full`` with the same
  MTU and stuck in ``exchStart`` otherwise.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from lab.configtree import Config, ConfigLine


@dataclass(frozen=True)
class Link:
    """A cable between two ports; a server end has the server's name and a NIC name."""

    a_device: str
    a_port: str
    b_device: str
    b_port: str


class DeviceView(Protocol):
    """What the topology needs from a device."""

    name: str
    running: Config

    def physical_ports(self) -> list[str]: ...

    def has_physical_port(self, port: str) -> bool: ...

    def is_reachable(self) -> bool: ...

    def links_down(self) -> set[str]: ...


# --------------------------------------------------------------------------- config readers


def hostname(config: Config, default: str = "localhost") -> str:
    """The configured hostname (EOS shows ``localhost`` without one)."""
    value = config.value(None, "hostname ")
    return value or default


def interface_blocks(config: Config) -> dict[str, ConfigLine]:
    """Configured interfaces by name."""
    return config.interfaces()


def has_line(block: ConfigLine | None, text: str) -> bool:
    return block is not None and any(c.text == text for c in block.children)


def line_value(block: ConfigLine | None, prefix: str) -> str | None:
    if block is None:
        return None
    for child in block.children:
        if child.text.startswith(prefix):
            return child.text[len(prefix) :]
    return None


def admin_up(block: ConfigLine | None) -> bool:
    return not has_line(block, "shutdown")


def interface_addresses(block: ConfigLine | None) -> list[ipaddress.IPv4Interface]:
    """Primary first, then secondaries."""
    if block is None:
        return []
    out = []
    for child in block.children:
        m = re.fullmatch(r"ip address (\S+/\d+)( secondary)?", child.text)
        if m:
            out.append(ipaddress.IPv4Interface(m.group(1)))
    out.sort(key=lambda a: 1 if has_line(block, f"ip address {a.with_prefixlen} secondary") else 0)
    return out


def speed_bps(block: ConfigLine | None, default: int = 100_000_000_000) -> int:
    """Bandwidth in bit/s from a ``speed`` line (``100g``, ``forced 40gfull``, ``100g-4``)."""
    value = line_value(block, "speed ")
    if value:
        m = re.search(r"(\d+)(g|m)", value)
        if m:
            return int(m.group(1)) * (10**9 if m.group(2) == "g" else 10**6)
    return default


# --------------------------------------------------------------------------- fabric view


@dataclass
class Fabric:
    """All devices and cables; answers the questions show commands ask."""

    devices: Mapping[str, DeviceView]
    links: list[Link] = field(default_factory=list)
    #: Bumped on every configuration change; cached views are rebuilt when it moves.
    generation: int = 0
    _ends: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict, repr=False)
    #: Device -> its cabled ports (the ends of :attr:`_ends` on it).
    _cabled: dict[str, list[str]] = field(default_factory=dict, repr=False)
    _addresses: tuple[int, dict[ipaddress.IPv4Address, tuple[str, str, ipaddress.IPv4Interface]]] | None = field(
        default=None, repr=False
    )

    def __post_init__(self) -> None:
        self.set_links(self.links)

    def set_links(self, links: Iterable[Link]) -> None:
        """Recable the fabric (a mis-cabled port is a different list of links)."""
        self.links = list(links)
        self._ends = {}
        for link in self.links:
            self._ends[(link.a_device, link.a_port)] = (link.b_device, link.b_port)
            self._ends[(link.b_device, link.b_port)] = (link.a_device, link.a_port)
        self._cabled = {}
        for device, port in self._ends:
            self._cabled.setdefault(device, []).append(port)

    def swap_cables(self, device: str, port_a: str, port_b: str) -> None:
        """Plug the cable of ``device:port_a`` into ``port_b`` and vice versa (a mis-cabling)."""
        swapped = []
        for link in self.links:
            ends = [(link.a_device, link.a_port), (link.b_device, link.b_port)]
            for i, (dev, port) in enumerate(ends):
                if dev == device and port in (port_a, port_b):
                    ends[i] = (dev, port_b if port == port_a else port_a)
            swapped.append(Link(ends[0][0], ends[0][1], ends[1][0], ends[1][1]))
        self.set_links(swapped)

    def bump(self) -> None:
        """A configuration changed somewhere."""
        self.generation += 1

    def peer_of(self, device: str, port: str) -> tuple[str, str] | None:
        """The far end of the cable plugged into ``device:port``."""
        return self._ends.get((device, port))

    # -- link state
    def port_exists(self, dev: DeviceView, port: str) -> bool:
        if dev.has_physical_port(port):
            return True
        return port in interface_blocks(dev.running) and port.startswith("Ethernet")

    def link_up(self, dev: DeviceView, port: str) -> bool:
        """Physical link state of an Ethernet port."""
        blocks = interface_blocks(dev.running)
        if not self.port_exists(dev, port) or not admin_up(blocks.get(port)):
            return False
        if port in dev.links_down():
            return False
        peer = self.peer_of(dev.name, port)
        if peer is None:
            return False
        other = self.devices.get(peer[0])
        if other is None:
            return True  # a server: its NIC is always up
        if not other.is_reachable() or peer[1] in other.links_down():
            return False
        return self.port_exists(other, peer[1]) and admin_up(interface_blocks(other.running).get(peer[1]))

    def oper_up(self, dev: DeviceView, name: str) -> bool:
        """Operational state of any interface."""
        blocks = interface_blocks(dev.running)
        block = blocks.get(name)
        if not admin_up(block):
            return False
        if name.startswith("Ethernet"):
            return self.link_up(dev, name)
        if name.startswith("Management"):
            # An uncabled management port stays up (as on cEOS): the lab is reached through it.
            return self.peer_of(dev.name, name) is None or self.link_up(dev, name)
        if name.startswith("Port-Channel"):
            number = name.removeprefix("Port-Channel")
            members = [
                n
                for n, b in blocks.items()
                if n.startswith("Ethernet") and (line_value(b, "channel-group ") or "").split(" ")[0] == number
            ]
            return any(self.link_up(dev, m) for m in members)
        if name.startswith("Vlan"):
            vlan = name.removeprefix("Vlan")
            exists = any(n.text == f"vlan {vlan}" for n in dev.running.root.children)
            return exists or has_line(block, "no autostate")
        return True

    def adjacent(self, dev: DeviceView, name: str, other: DeviceView, oname: str) -> bool:
        """Whether two L3 interfaces can reach each other over the cabling.

        Routed Ethernet ports must be cabled to each other; SVIs and Port-Channels need
        some up cable between the two devices (the peer-link); management interfaces
        share the out-of-band network.
        """
        if name.startswith("Management") or oname.startswith("Management"):
            return True
        if name.startswith("Ethernet") and oname.startswith("Ethernet"):
            return self.peer_of(dev.name, name) == (other.name, oname)
        for port in dev.physical_ports():
            far = self.peer_of(dev.name, port)
            if far is not None and far[0] == other.name and self.link_up(dev, port):
                return True
        return False

    # -- addressing
    def address_index(self) -> dict[ipaddress.IPv4Address, tuple[str, str, ipaddress.IPv4Interface]]:
        """Every configured IPv4 address -> (device, interface, address with mask)."""
        if self._addresses is not None and self._addresses[0] == self.generation:
            return self._addresses[1]
        index = {}
        for dev in self.devices.values():
            for name, block in interface_blocks(dev.running).items():
                for addr in interface_addresses(block):
                    index[addr.ip] = (dev.name, name, addr)
        self._addresses = (self.generation, index)
        return index

    def local_interface_for(self, dev: DeviceView, peer_ip: ipaddress.IPv4Address) -> str | None:
        """Our interface whose subnet holds ``peer_ip``."""
        for name, block in interface_blocks(dev.running).items():
            for addr in interface_addresses(block):
                if peer_ip in addr.network and addr.ip != peer_ip:
                    return name
        return None

    # -- LLDP
    def lldp_neighbors(self, dev: DeviceView) -> list[tuple[str, str, str, str]]:
        """(local port, neighbour name, neighbour port, neighbour port description)."""
        if dev.running.has_top("no lldp run"):
            return []
        out = []
        # Only a cabled port can be up (link_up): its cabled ports, not every port it has.
        for port in sorted_ports(self._cabled.get(dev.name, ())):
            if not port.startswith(("Ethernet", "Management")) or not self.link_up(dev, port):
                continue
            peer = self.peer_of(dev.name, port)
            assert peer is not None
            other = self.devices.get(peer[0])
            if other is None:
                out.append((port, peer[0], peer[1], ""))
                continue
            if other.running.has_top("no lldp run"):
                continue
            desc = line_value(interface_blocks(other.running).get(peer[1]), "description ") or ""
            out.append((port, hostname(other.running), peer[1], desc))
        return out


def sorted_ports(names: Iterable[str]) -> list[str]:
    from lab.printer import interface_sort_key

    return sorted(set(names), key=interface_sort_key)


# --------------------------------------------------------------------------- BGP


@dataclass(frozen=True)
class BgpPeer:
    """One configured neighbour, with what the far end makes of it."""

    vrf: str
    address: str
    local_asn: str
    remote_asn: str
    description: str
    state: str
    idle_reason: str
    remote_router_id: str
    address_families: tuple[str, ...]


def bgp_process(config: Config) -> tuple[str, ConfigLine] | None:
    """(ASN, block) of ``router bgp``."""
    for node in config.root.children:
        if node.text.startswith("router bgp "):
            return node.text.split()[2], node
    return None


def router_id(config: Config, block: ConfigLine | None) -> str:
    rid = line_value(block, "router-id ")
    if rid:
        return rid
    loop = interface_addresses(interface_blocks(config).get("Loopback0"))
    return str(loop[0].ip) if loop else "0.0.0.0"


def _neighbors(block: ConfigLine) -> dict[str, dict[str, str]]:
    """Neighbour address -> settings, peer-group settings folded in."""
    raw: dict[str, dict[str, str]] = {}
    for child in block.children:
        words = child.text.split()
        negated = words[0] == "no"
        if negated:
            words = words[1:]
        if len(words) < 3 or words[0] != "neighbor":
            continue
        name, attr = words[1], words[2]
        entry = raw.setdefault(name, {})
        if attr == "peer" and len(words) == 4:
            entry["is-group"] = "yes"
        elif attr == "peer" and len(words) == 5:
            entry["group"] = words[4]
        elif attr in ("remote-as", "description"):
            entry[attr] = " ".join(words[3:])
        elif attr == "shutdown" and not negated:
            entry["shutdown"] = "yes"
    out = {}
    for name, entry in raw.items():
        if entry.get("is-group"):
            continue
        merged = dict(raw.get(entry.get("group", ""), {}))
        merged.update(entry)
        out[name] = merged
    return out


def _address_families(block: ConfigLine, neighbor: str) -> tuple[str, ...]:
    afs = []
    default_v4 = not has_line(block, "no bgp default ipv4-unicast")
    for child in block.children:
        if not child.text.startswith("address-family "):
            continue
        af = child.text.split(" ", 1)[1]
        group = _neighbors(block).get(neighbor, {}).get("group", "")
        if has_line(child, f"neighbor {neighbor} activate") or (
            group and has_line(child, f"neighbor {group} activate")
        ):
            afs.append(af)
    if default_v4 and "ipv4" not in afs:
        afs.insert(0, "ipv4")
    return tuple(afs)


def bgp_peers(fabric: Fabric, dev: DeviceView) -> list[BgpPeer]:
    """Every configured neighbour of ``dev`` with its derived session state."""
    proc = bgp_process(dev.running)
    if proc is None:
        return []
    asn, block = proc
    index = fabric.address_index()
    peers = []
    scopes: list[tuple[str, ConfigLine]] = [("default", block)]
    scopes += [(c.text.split()[1], c) for c in block.children if c.text.startswith("vrf ")]
    for vrf, scope in scopes:
        for address, settings in _neighbors(scope).items():
            state, reason, rid = _session_state(fabric, dev, asn, address, settings, index)
            peers.append(
                BgpPeer(
                    vrf,
                    address,
                    asn,
                    settings.get("remote-as", ""),
                    settings.get("description", ""),
                    state,
                    reason,
                    rid,
                    _address_families(scope, address),
                )
            )
    return peers


def _session_state(  # noqa: PLR0911 - each unmet condition ends the check
    fabric: Fabric,
    dev: DeviceView,
    asn: str,
    address: str,
    settings: dict[str, str],
    index: Mapping[ipaddress.IPv4Address, tuple[str, str, ipaddress.IPv4Interface]],
) -> tuple[str, str, str]:
    if settings.get("shutdown"):
        return "Idle", "Administratively shut down", "0.0.0.0"
    try:
        peer_ip = ipaddress.IPv4Address(address)
    except ValueError:
        return "Active", "", "0.0.0.0"
    owner = index.get(peer_ip)
    if owner is None:
        return "Active", "", "0.0.0.0"
    other = fabric.devices[owner[0]]
    if not other.is_reachable():
        return "Active", "", "0.0.0.0"
    far = bgp_process(other.running)
    if far is None or settings.get("remote-as") != far[0]:
        return "Active", "", "0.0.0.0"
    # The far end must name one of our addresses with our ASN.
    ours = {str(a.ip) for b in interface_blocks(dev.running).values() for a in interface_addresses(b)}
    far_neighbors = _neighbors(far[1])
    for scope in far[1].children:
        if scope.text.startswith("vrf "):
            far_neighbors.update(_neighbors(scope))
    back = [s for a, s in far_neighbors.items() if a in ours]
    if not back or back[0].get("remote-as") != asn or back[0].get("shutdown"):
        return "Active", "", "0.0.0.0"
    if not owner[1].startswith("Loopback"):
        local = fabric.local_interface_for(dev, peer_ip)
        if (
            local is None
            or not fabric.oper_up(dev, local)
            or not fabric.oper_up(other, owner[1])
            or not fabric.adjacent(dev, local, other, owner[1])
        ):
            return "Active", "", "0.0.0.0"
    return "Established", "", router_id(other.running, far[1])


# --------------------------------------------------------------------------- OSPF


@dataclass(frozen=True)
class OspfNeighbor:
    instance: str
    vrf: str
    interface: str
    neighbor_router_id: str
    neighbor_address: str
    state: str
    area: str = "0.0.0.0"


def _ospf(config: Config) -> tuple[str, ConfigLine] | None:
    for node in config.root.children:
        if node.text.startswith("router ospf "):
            return node.text.split()[2], node
    return None


def _ospf_area(config: Config, proc: ConfigLine, name: str, block: ConfigLine) -> str | None:
    """The area an interface runs OSPF in, or None when it does not."""
    area = line_value(block, "ip ospf area ")
    if area:
        return area
    for addr in interface_addresses(block):
        for child in proc.children:
            m = re.fullmatch(r"network (\S+) area (\S+)", child.text)
            if m and addr.ip in ipaddress.IPv4Network(m.group(1), strict=False):
                return m.group(2)
    return None


def _dotted_area(area: str) -> str:
    """EOS shows areas dotted: ``0`` -> ``0.0.0.0``."""
    return str(ipaddress.IPv4Address(int(area))) if area.isdigit() else area


def _ospf_passive(proc: ConfigLine, name: str) -> bool:
    if has_line(proc, f"passive-interface {name}"):
        return True
    return has_line(proc, "passive-interface default") and not has_line(proc, f"no passive-interface {name}")


def ospf_neighbors(fabric: Fabric, dev: DeviceView) -> list[OspfNeighbor]:
    """Adjacencies of ``dev`` (state ``full`` when both ends agree, as described above)."""
    mine = _ospf(dev.running)
    if mine is None:
        return []
    instance, proc = mine
    out = []
    index = fabric.address_index()
    for name, block in interface_blocks(dev.running).items():
        area = _ospf_area(dev.running, proc, name, block)
        if area is None or _ospf_passive(proc, name) or not fabric.oper_up(dev, name):
            continue
        for addr in interface_addresses(block):
            for ip in addr.network:
                owner = index.get(ip)
                if owner is None or owner[0] == dev.name:
                    continue
                other = fabric.devices[owner[0]]
                theirs = _ospf(other.running)
                if theirs is None or not other.is_reachable():
                    continue
                oblock = interface_blocks(other.running)[owner[1]]
                if (
                    _ospf_area(other.running, theirs[1], owner[1], oblock) != area
                    or _ospf_passive(theirs[1], owner[1])
                    or not fabric.oper_up(other, owner[1])
                    or not fabric.adjacent(dev, name, other, owner[1])
                    or line_value(block, "ip ospf network ") != line_value(oblock, "ip ospf network ")
                ):
                    continue
                # Hellos agree but the DBD exchange never completes with different MTUs.
                same_mtu = line_value(block, "mtu ") == line_value(oblock, "mtu ")
                rid = line_value(theirs[1], "router-id ") or router_id(other.running, None)
                state = "full" if same_mtu else "exchStart"
                out.append(OspfNeighbor(instance, "default", name, rid, str(ip), state, _dotted_area(area)))
    return out


# --------------------------------------------------------------------------- MLAG


def mlag_state(fabric: Fabric, dev: DeviceView) -> dict[str, str]:
    """The MLAG fields ANTA and operators read: state, negStatus, link states."""
    block = dev.running.block("mlag configuration")
    if block is None:
        return {"state": "disabled"}
    local_if = line_value(block, "local-interface ") or ""
    peer_addr = line_value(block, "peer-address ") or ""
    peer_link = line_value(block, "peer-link ") or ""
    domain = line_value(block, "domain-id ") or ""
    local_up = fabric.oper_up(dev, local_if) if local_if else False
    link_up = fabric.oper_up(dev, peer_link) if peer_link else False
    owner = fabric.address_index().get(ipaddress.IPv4Address(peer_addr)) if peer_addr else None
    connected = False
    if owner is not None and local_up and link_up:
        other = fabric.devices[owner[0]]
        oblock = other.running.block("mlag configuration")
        my_addrs = [str(a.ip) for a in interface_addresses(interface_blocks(dev.running).get(local_if))]
        connected = (
            oblock is not None
            and other.is_reachable()
            and line_value(oblock, "domain-id ") == domain
            and line_value(oblock, "peer-address ") in my_addrs
        )
    return {
        "state": "active" if connected else "inactive",
        "negStatus": "connected" if connected else "connecting",
        "localIntfStatus": "up" if local_up else "down",
        "peerLinkStatus": "up" if link_up else "down",
        "domainId": domain,
        "localInterface": local_if,
        "peerAddress": peer_addr,
        "peerLink": peer_link,
    }
