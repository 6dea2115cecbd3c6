"""Underlay routing rules: ECMP across all spines, sessions that match on both ends.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
RTE001    error     N3           every leaf, spine and super-spine runs an underlay whose
                                 ECMP ``maximum-paths`` is at least the spine count (of
                                 a pod)
RTE002    error     N3           eBGP: every neighbor is a connected address of another
                                 switch whose ASN is the neighbor's remote-as, and that
                                 switch peers back; every leaf-spine link has a session
RTE003    error     N3           OSPF: every leaf-spine link is point-to-point, active
                                 (not passive) and inside a network statement on both
                                 ends, and both ends run OSPF
RTE004    error     N3           BFD on every underlay adjacency (``bfd default`` in
                                 OSPF, the underlay peer group in eBGP) with timers
                                 that take a dead link out in under a second
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from compiler.addressing import address_value, dotted
from compiler.checks.base import rule
from compiler.checks.rules._common import MASKS, Held, fabric_spec, fleet, held, interfaces, links_of, subnet_of
from compiler.fabric import Device, ResolvedFabric
from compiler.facts import Endpoint
from compiler.intent import Intent
from compiler.structured import BgpNeighbor, BgpPeerGroup

FABRIC_ROLES = ("leaf", "spine", "super-spine")


def _fabric_switches(fabric: ResolvedFabric) -> list[Device]:
    return [d for _, d in sorted(fabric.devices.items()) if d.role in FABRIC_ROLES]


@rule("RTE001", "error", "N3", "ECMP maximum-paths covers every spine")
def ecmp_paths(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each leaf or spine whose underlay cannot use all spines at once."""
    for device in _fabric_switches(fabric):
        spec = fabric_spec(intent, device.network)
        spines = spec.spines.count if spec else 0
        config = device.config
        protocols = [
            (name, router.maximum_paths)
            for name, router in (("bgp", config.router_bgp), ("ospf", config.router_ospf))
            if router is not None
        ]
        if not protocols:
            yield device.name, "no underlay routing (neither router bgp nor router ospf)"
        for name, paths in protocols:
            if paths < spines:
                yield (
                    device.name,
                    (
                        f"router {name} maximum-paths {paths} < {spines} spines: "
                        f"ECMP would leave {spines - paths} spine(s) unused"
                    ),
                )


class _Peering:
    """One switch's BGP and interface data, indexed once per run.

    The checks look up every neighbor of every switch; a spine has a neighbor and an
    interface per leaf, so linear scans per lookup made the rule quadratic in the fabric size.
    Addresses are integers (:data:`Held`), parsed once per fabric (:meth:`Fleet.addresses`).
    """

    def __init__(self, fabric: ResolvedFabric, device: Device) -> None:
        self.device = device
        self.interfaces = interfaces(fabric, device)
        self._fleet = fleet(fabric)
        self._subnets: list[tuple[int, dict[int, tuple[int, Held]]]] | None = None
        self._ospf_networks: list[Held] | None = None
        bgp = device.config.router_bgp
        self.neighbors: dict[str, BgpNeighbor] = {}
        self.groups: dict[str, BgpPeerGroup] = {}
        if bgp is not None:
            for neighbor in bgp.neighbors:
                self.neighbors.setdefault(neighbor.address, neighbor)
            self.groups = {g.name: g for g in bgp.peer_groups}
        self._values: list[int | None] | None = None
        self._neighbor_values: set[int] | None = None

    def values(self) -> list[int | None]:
        """The address of each neighbor statement as an integer, in configuration order (None:
        not a dotted quad), parsed once: RTE002 reads each as a neighbor and again as a peer's."""
        if self._values is None:
            bgp = self.device.config.router_bgp
            values: list[int | None] = []
            for neighbor in bgp.neighbors if bgp is not None else ():
                try:
                    values.append(address_value(neighbor.address))
                except ValueError:
                    values.append(None)
            self._values = values
        return self._values

    def has_neighbor(self, address: int) -> bool:
        """Whether a neighbor statement names ``address`` (``dotted(address) in self.neighbors``:
        a dotted quad that parses has one spelling, and one that does not names no address)."""
        if self._neighbor_values is None:
            self._neighbor_values = {value for value in self.values() if value is not None}
        return address in self._neighbor_values

    def local_subnet(self, address: int) -> Held | None:
        """The first configured interface whose subnet contains ``address``."""
        if self._subnets is None:
            # The first interface (in configuration order) holding each subnet, by prefix length:
            # "the first local interface whose subnet contains an address" becomes a few lookups.
            by_length: dict[int, dict[int, tuple[int, Held]]] = {}
            for index, (_, own) in enumerate(self._fleet.addresses(self.device)):
                value, length = own
                by_net = by_length.get(length)
                if by_net is None:
                    by_net = by_length[length] = {}
                network = value & MASKS[length]
                if network not in by_net:
                    by_net[network] = (index, own)
            self._subnets = [(MASKS[length], by_net) for length, by_net in by_length.items()]
        found: tuple[int, Held] | None = None
        for mask, by_net in self._subnets:
            hit = by_net.get(address & mask)
            if hit is not None and (found is None or hit[0] < found[0]):
                found = hit
        return found[1] if found else None

    def address(self, port: str) -> Held | None:
        """The address of interface ``port``, if it is configured with one."""
        iface = self.interfaces.get(port)
        if iface is None or not iface.ip_address:
            return None
        return self._fleet.held(iface.ip_address)

    def ospf_networks(self) -> list[Held]:
        """The prefixes of the device's OSPF network statements, parsed once."""
        if self._ospf_networks is None:
            ospf = self.device.config.router_ospf
            self._ospf_networks = [subnet_of(held(prefix)) for prefix, _ in ospf.networks] if ospf else []
        return self._ospf_networks

    def remote_as(self, neighbor_address: str) -> int | None:
        neighbor = self.neighbors.get(neighbor_address)
        if neighbor is None:
            return None
        if neighbor.remote_as is not None:
            return neighbor.remote_as
        group = self.groups.get(neighbor.peer_group)
        return group.remote_as if group else None


def _peerings(fabric: ResolvedFabric) -> Callable[[str], _Peering]:
    """A lazy, memoised :class:`_Peering` per device name."""
    cache: dict[str, _Peering] = {}

    def get(name: str) -> _Peering:
        found = cache.get(name)
        if found is None:
            found = cache[name] = _Peering(fabric, fabric.devices[name])
        return found

    return get


@rule("RTE002", "error", "N3", "eBGP sessions match on both ends")
def bgp_sessions(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each BGP neighbor that is unreachable, has the wrong remote-as, or is one-sided."""
    del intent
    owners = fleet(fabric).address_owners()
    peering = _peerings(fabric)
    devices = fabric.devices
    for device in _fabric_switches(fabric):
        bgp = device.config.router_bgp
        if bgp is None:
            continue
        local = peering(device.name)
        for neighbor, parsed in zip(bgp.neighbors, local.values(), strict=True):
            # One pass of plain look-ups per neighbor (a spine has one per leaf): what a session
            # needs, in the order the messages name it; the first fault ends the neighbor's checks.
            address = neighbor.address
            value = parsed if parsed is not None else address_value(address)  # what fails to parse raises here
            owner = owners.get(value)
            if owner is None:
                yield device.name, f"neighbor {address} is no switch's interface address"
                continue
            peer_name, peer_iface = owner
            mine = local.local_subnet(value)
            if mine is None or mine[1] != peer_iface[1] or (mine[0] ^ peer_iface[0]) & MASKS[mine[1]]:
                yield device.name, f"neighbor {address} ({peer_name}) is not on a connected subnet"
                continue
            peer_bgp = devices[peer_name].config.router_bgp
            if peer_bgp is None:
                yield device.name, f"neighbor {address} ({peer_name}) does not run BGP"
                continue
            remote_as = local.remote_as(address)
            if remote_as != peer_bgp.asn:
                yield (
                    device.name,
                    f"neighbor {address} ({peer_name}) has remote-as {remote_as}, but {peer_name} is AS {peer_bgp.asn}",
                )
            if not peering(peer_name).has_neighbor(mine[0]):
                yield device.name, f"{peer_name} has no neighbor {dotted(mine[0])} back to {device.name}"
    yield from _links_without_sessions(fabric, peering)


def _links_without_sessions(fabric: ResolvedFabric, peering: Callable[[str], _Peering]) -> Iterator[tuple[str, str]]:
    """Leaf-spine link ends between two BGP speakers that carry no session."""
    speakers = {name for name, device in fabric.devices.items() if device.config.router_bgp is not None}
    for link in links_of(fabric, ["fabric"]):
        if link.a.device not in speakers or link.b.device not in speakers:
            continue
        for near, far in ((link.a, link.b), (link.b, link.a)):
            address = peering(far.device).address(far.port)
            if address is not None and not peering(near.device).has_neighbor(address[0]):
                yield near.device, f"no BGP session over {near.port} to {far.device} ({dotted(address[0])})"


@rule("RTE003", "error", "N3", "OSPF uplinks point-to-point and active")
def ospf_uplinks(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each OSPF end of a leaf-spine link that is passive, broadcast or not covered."""
    del intent
    peering = _peerings(fabric)
    active: dict[str, set[str]] = {}
    for link in links_of(fabric, ["fabric"]):
        ends = [(fabric.devices.get(e.device), e) for e in (link.a, link.b)]
        running = [d.config.router_ospf is not None for d, _ in ends if d is not None]
        if any(running) and not all(running):
            yield f"{link.a.device}:{link.a.port}", (f"link to {link.b.device} runs OSPF on one end only")
            continue
        for device, end in ends:
            if device is not None and device.config.router_ospf is not None:
                ospf = device.config.router_ospf
                if device.name not in active:
                    active[device.name] = set(ospf.active_interfaces)
                yield from _ospf_end(peering(device.name), active[device.name], end)


def _ospf_end(peer: _Peering, active: set[str], end: Endpoint) -> Iterator[tuple[str, str]]:
    device, ifaces = peer.device, peer.interfaces
    iface = ifaces.get(end.port)
    if iface is None:
        yield device.name, f"{end.port} is cabled but not configured"
        return
    if not iface.ospf_point_to_point:
        yield device.name, f"{end.port}: OSPF network type is not point-to-point"
    if end.port not in active:
        yield device.name, f"{end.port}: passive in OSPF (not in the active interfaces)"
    address = peer.address(end.port)
    covered = address is not None and any(
        subnet_of((address[0], length)) == (network, length) for network, length in peer.ospf_networks()
    )
    if not covered:
        yield device.name, f"{end.port} ({iface.ip_address or None}) is in no OSPF network statement"


BFD_DETECTION_LIMIT_MS = 1000
"""N3: a dead leaf-spine link must leave ECMP in under a second (routing protocol timers take 3-40 s)."""


def _bfd_problems(device: Device) -> Iterator[str]:
    config = device.config
    missing = []
    if config.router_ospf is not None and not config.router_ospf.bfd_default:
        missing.append(
            "OSPF neighbors run without BFD (no bfd default): a silent link failure waits for the dead timer"
        )
    if config.router_bgp is not None:
        bgp = config.router_bgp
        for group in bgp.peer_groups:
            if group.remote_as != bgp.asn and not group.bfd:  # the iBGP MLAG peer rides the peer-link
                missing.append(
                    f"eBGP peer group {group.name} runs without BFD: a silent link failure waits for the hold timer"
                )
    yield from missing
    if missing or (config.router_ospf is None and config.router_bgp is None):
        return
    timers = config.router_bfd
    if timers is None:
        yield "no router bfd timers"
        return
    detection = max(timers.interval, timers.min_rx) * timers.multiplier
    if detection >= BFD_DETECTION_LIMIT_MS:
        yield (
            f"BFD {timers.interval} ms / {timers.min_rx} ms x {timers.multiplier} takes {detection} ms to declare "
            f"a link dead: keep it under {BFD_DETECTION_LIMIT_MS} ms (routing_profiles.<name>.bfd)"
        )


@rule("RTE004", "error", "N3", "BFD on the underlay takes a dead link out in under a second")
def bfd(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each leaf or spine whose underlay runs without BFD or with BFD too slow for a fabric."""
    del intent
    for device in _fabric_switches(fabric):
        for message in _bfd_problems(device):
            yield device.name, message
