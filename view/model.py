"""What the view shows, read from ``generated/`` (a :class:`core.generated.Snapshot`), never the intent.

Tables are read by column name and structured configs by key, so a new column or key (VLANs
per port, port speeds, breakouts) changes nothing here, and a missing one shows as blank.

* ``inventory/assets.csv``: every server and switch, its asset tag, rack, row and rack units;
* ``inventory/hosts.yaml``: each switch's role, network, model, redundancy group and peer;
* ``inventory/cabling.csv``: both ends of every cable, its labels, optic and length;
* ``inventory/ip-plan.csv``: every address and who owns it;
* ``structured/<switch>.yaml``: every interface the switch has (each one appears there), VLANs;
* ``configs/<switch>.cfg``: the config text; ``docs/*.svg``: the topology pictures.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePosixPath
from typing import Any

import yaml

from core.generated import Host, Snapshot
from core.hardware import sort_interfaces
from core.topology import Topology


@dataclass(frozen=True, slots=True)
class End:
    """A cable seen from one of its ends."""

    device: str
    port: str
    peer: str
    peer_port: str
    network: str
    kind: str
    speed: str
    optic: str
    media: str
    length_m: str
    label: str
    peer_label: str


@dataclass(frozen=True, slots=True)
class Address:
    """An address (with its prefix length) and what it is for."""

    network: str
    address: str
    purpose: str


@dataclass(frozen=True, slots=True)
class Port:
    """One interface of a switch as its structured config lists it, with its cable if any."""

    name: str
    description: str
    shutdown: bool
    speed: str
    vlans: str
    cable: End | None


@dataclass(frozen=True, slots=True)
class Placed:
    """Something in a rack: its top rack unit and height (0 when generated/ gives none)."""

    name: str
    kind: str  # server or switch
    asset_tag: str
    model: str
    role: str
    rack: str
    row: str
    position: str
    top_u: int
    height_u: int


@dataclass(frozen=True, slots=True)
class Switch:
    """A switch: where it is, what it is, its ports and addresses."""

    placed: Placed
    network: str
    role: str
    mgmt_address: str
    redundancy_group: str
    mlag_peer: str
    ports: tuple[Port, ...]
    addresses: tuple[Address, ...]

    @property
    def name(self) -> str:
        return self.placed.name


@dataclass(frozen=True, slots=True)
class Nic:
    """A server NIC: the cable from it, the switch port at the other end, addresses and VLANs."""

    name: str
    cable: End
    addresses: tuple[Address, ...]
    vlans: str


@dataclass(frozen=True, slots=True)
class Server:
    """A server: where it is, its NICs in name order, and every address it owns."""

    placed: Placed
    nics: tuple[Nic, ...]
    addresses: tuple[Address, ...]
    files: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.placed.name


@dataclass(frozen=True, slots=True)
class Rack:
    """A rack and what is in it, top to bottom."""

    name: str
    row: str
    members: tuple[Placed, ...]


@dataclass(frozen=True)
class Floor:
    """Everything the view shows, for one ``generated/``."""

    site: str
    ref: str
    switches: dict[str, Switch]
    servers: dict[str, Server]
    racks: dict[str, Rack]
    pictures: dict[str, str]  # network -> SVG text
    configs: dict[str, str]
    topology: Topology

    @cached_property
    def rows(self) -> dict[str, list[Rack]]:
        """Racks per row, rows and racks in order."""
        out: dict[str, list[Rack]] = defaultdict(list)
        for rack in sorted(self.racks.values(), key=lambda r: (len(r.row), r.row, _number(r.name))):
            out[rack.row].append(rack)
        return dict(out)

    @cached_property
    def networks(self) -> list[str]:
        return sorted({s.network for s in self.switches.values()})


def _yaml(snapshot: Snapshot, relpath: str) -> dict[str, Any]:
    """A YAML mapping with every scalar as text, parsed by libyaml where PyYAML has it.

    Text only (the base loader) builds a 16x fabric's structured configs in half the time of
    the safe loader, and the view shows text anyway; flags are read with :func:`_true`.
    """
    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
    data = yaml.load(snapshot.read_text(relpath), Loader=loader)
    return data if isinstance(data, dict) else {}


def _true(value: object) -> bool:
    """A YAML flag read as text or as a bool.

    Example:
        >>> _true("true"), _true(True), _true("false"), _true(None)
        (True, True, False, False)
    """
    return value is True or str(value).lower() == "true"


def _number(text: str) -> int:
    digits = "".join(c for c in text if c.isdigit())
    return int(digits) if digits else 0


def _int(text: str | None) -> int:
    try:
        return int(text or 0)
    except ValueError:
        return 0


def _ends(rows: Iterable[Mapping[str, str]]) -> dict[tuple[str, str], End]:
    """Both ends of every cable, keyed by (device, port)."""
    ends: dict[tuple[str, str], End] = {}
    for row in rows:
        for this, that in (("a", "b"), ("b", "a")):
            device, port = row.get(f"{this}_device", ""), row.get(f"{this}_port", "")
            ends[device, port] = End(
                device,
                port,
                row.get(f"{that}_device", ""),
                row.get(f"{that}_port", ""),
                row.get("network", ""),
                row.get("kind", ""),
                row.get(f"{this}_speed") or row.get("speed", ""),
                row.get(f"{this}_optic") or row.get("optic", ""),
                row.get("media", ""),
                row.get("length_m", ""),
                row.get(f"{this}_label", ""),
                row.get(f"{that}_label", ""),
            )
    return ends


def _vlans(interface: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """The VLANs of an interface as a person reads them: ``100 (GPU-Compute)``, ``trunk 100,200``.

    Example:
        >>> _vlans({"switchport_access_vlan": 100}, {"100": "GPU-Compute"})
        '100 (GPU-Compute)'
        >>> _vlans({"switchport_mode": "trunk", "switchport_trunk_allowed_vlan": "100,200"}, {})
        'trunk 100,200'
        >>> _vlans({"switchport_mode": "trunk"}, {})
        'trunk (all)'
        >>> _vlans({"routed": True}, {})
        ''
    """
    parts = []
    access = interface.get("switchport_access_vlan")
    if access is not None:
        name = names.get(str(access))
        parts.append(f"{access} ({name})" if name else str(access))
    allowed = interface.get("switchport_trunk_allowed_vlan")
    if interface.get("switchport_mode") == "trunk" or allowed is not None:
        parts.append(f"trunk {allowed}" if allowed is not None else "trunk (all)")
    native = interface.get("switchport_trunk_native_vlan")
    if native is not None:
        parts.append(f"native {native}")
    return ", ".join(parts)


def _ports(structured: Mapping[str, Any], name: str, ends: Mapping[tuple[str, str], End]) -> tuple[Port, ...]:
    """Every interface of a switch, in the order the switch prints them."""
    config = structured.get("config") or {}
    vlan_names = {str(v.get("id")): str(v.get("name", "")) for v in config.get("vlans") or []}
    interfaces = {str(i["name"]): i for i in config.get("interfaces") or [] if "name" in i}
    ports = []
    for port in sort_interfaces(interfaces):
        interface = interfaces[port]
        group = interface.get("channel_group")
        # a port-channel member carries the VLANs of its port-channel
        carrier = interfaces.get(f"Port-Channel{str(group).split()[0]}", interface) if group else interface
        ports.append(
            Port(
                port,
                str(interface.get("description") or ""),
                _true(interface.get("shutdown")),
                str(interface.get("speed") or (ends[name, port].speed if (name, port) in ends else "")),
                _vlans(carrier, vlan_names),
                ends.get((name, port)),
            )
        )
    return tuple(ports)


def read_floor(snapshot: Snapshot) -> Floor:
    """The view's model of one ``generated/``."""
    assets = snapshot.table("inventory/assets.csv")
    ends = _ends(snapshot.table("inventory/cabling.csv"))
    owned: dict[str, list[Address]] = defaultdict(list)
    for row in snapshot.table("inventory/ip-plan.csv"):
        if row.get("kind") == "address" and row.get("owner"):
            owned[row["owner"]].append(Address(row.get("network", ""), row.get("prefix", ""), row.get("purpose", "")))
    hosts = snapshot.hosts()
    placed = {row["name"]: _placed(row) for row in assets if row.get("name")}
    for name, host in hosts.items():  # a switch the asset table does not list still shows
        data = host.data
        placed.setdefault(
            name, Placed(name, "switch", "", str(data.get("model", "")), "", str(data.get("rack", "")), "", "", 0, 0)
        )

    switches = _switches(snapshot, hosts, placed, ends, owned)
    servers = _servers(snapshot, placed, ends, owned, switches)
    racks: dict[str, list[Placed]] = defaultdict(list)
    for where in placed.values():
        if where.rack:
            racks[where.rack].append(where)
    return Floor(
        site=_site_name(snapshot),
        ref=snapshot.ref,
        switches=dict(sorted(switches.items())),
        servers=dict(sorted(servers.items())),
        racks={
            rack: Rack(_rack_name(rack), members[0].row, tuple(sorted(members, key=lambda p: (-p.top_u, p.name))))
            for rack, members in sorted(racks.items(), key=lambda item: _number(item[0]))
        },
        pictures=_pictures(snapshot),
        configs=snapshot.configs(),
        topology=Topology.read(snapshot),
    )


def _switches(
    snapshot: Snapshot,
    hosts: Mapping[str, Host],
    placed: Mapping[str, Placed],
    ends: Mapping[tuple[str, str], End],
    owned: Mapping[str, list[Address]],
) -> dict[str, Switch]:
    """Every switch with a structured config, its ports and addresses."""
    switches: dict[str, Switch] = {}
    for path in snapshot.list("structured/"):
        if not path.endswith(".yaml"):
            continue
        name = PurePosixPath(path).stem
        structured = _yaml(snapshot, path)
        host = hosts.get(name)
        data = host.data if host else {}
        switches[name] = Switch(
            placed.get(name) or Placed(name, "switch", "", "", "", "", "", "", 0, 0),
            str(structured.get("network") or data.get("network", "")),
            str(structured.get("role") or data.get("role", "")),
            str(structured.get("mgmt_address") or (host.hostname if host else "")),
            str(structured.get("redundancy_group") or data.get("redundancy_group", "")),
            str(structured.get("mlag_peer") or data.get("mlag_peer") or ""),
            _ports(structured, name, ends),
            tuple(owned.get(name, ())),
        )
    return switches


def _servers(
    snapshot: Snapshot,
    placed: Mapping[str, Placed],
    ends: Mapping[tuple[str, str], End],
    owned: Mapping[str, list[Address]],
    switches: Mapping[str, Switch],
) -> dict[str, Server]:
    """Every server of the asset table: its NICs with the switch port at the other end."""
    server_files: dict[str, list[str]] = defaultdict(list)
    for path in snapshot.list("servers/"):
        parts = path.split("/", 2)
        if len(parts) == 3:
            server_files[parts[1]].append(parts[2])
    by_device: dict[str, dict[str, End]] = defaultdict(dict)
    for (device, port), end in ends.items():
        by_device[device][port] = end
    servers: dict[str, Server] = {}
    for name, where in placed.items():
        if where.kind != "server":
            continue
        nics = []
        # by network, then switch: compute leaf A before leaf B, whatever the NICs are called
        for port, end in sorted(by_device.get(name, {}).items(), key=lambda i: (i[1].network, i[1].peer, i[0])):
            switch = switches.get(end.peer)
            far = next((p for p in switch.ports if p.name == end.peer_port), None) if switch else None  # few ports
            addresses = _nic_addresses(owned.get(name, ()), end.network, port, by_device.get(name, {}))
            nics.append(Nic(port, end, addresses, far.vlans if far else ""))
        servers[name] = Server(where, tuple(nics), tuple(owned.get(name, ())), tuple(server_files.get(name, ())))
    return servers


def _nic_addresses(owned: Sequence[Address], network: str, nic: str, nics: Mapping[str, End]) -> tuple[Address, ...]:
    """The addresses of ``nic``: those its purpose names (per-NIC RoCE addresses), and those of
    its network that name no NIC of the server (a bond's, the management port's).

    Example:
        >>> owned = [Address("compute", f"10.0.0.{i}/24", f"compute NIC {nic}") for i, nic in ((1, "a"), (2, "b"))]
        >>> [a.address for a in _nic_addresses(owned, "compute", "b", {"a": None, "b": None})]
        ['10.0.0.2/24']
    """
    mine = [a for a in owned if a.network == network]
    named = [a for a in mine if a.purpose.split()[-1:] == [nic]]
    return tuple(named or [a for a in mine if not set(a.purpose.split()) & set(nics)])


def _placed(row: Mapping[str, str]) -> Placed:
    return Placed(
        row["name"],
        row.get("kind", ""),
        row.get("asset_tag", ""),
        row.get("model", ""),
        row.get("role", ""),
        row.get("rack", ""),
        row.get("row", ""),
        row.get("position", ""),
        _int(row.get("rack_unit")),
        _int(row.get("height_u")) or (1 if row.get("rack_unit") else 0),
    )


def _rack_name(rack: str) -> str:
    """Example:
    >>> _rack_name("3"), _rack_name("192")
    ('rack03', 'rack192')
    """
    return f"rack{_number(rack):02d}" if rack.isdigit() else rack


def _site_name(snapshot: Snapshot) -> str:
    """The site's name, from the title of ``docs/fabric.md`` (``# NAME: ...``)."""
    if snapshot.exists("docs/fabric.md"):
        first = snapshot.read_text("docs/fabric.md").split("\n", 1)[0]
        if first.startswith("# "):
            return first[2:].split(":", 1)[0].strip()
    return "fabric"


def _pictures(snapshot: Snapshot) -> dict[str, str]:
    """``docs/<network>-fabric.svg`` and ``docs/<network>-network.svg``, by network."""
    out = {}
    for path in snapshot.list("docs/"):
        stem = PurePosixPath(path).stem
        if path.endswith(".svg") and "-" in stem:
            out[stem.rsplit("-", 1)[0]] = snapshot.read_text(path)
    return out
