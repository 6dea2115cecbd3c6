"""Provenance: which intent element produced each port setting, VLAN and device setting.

Every fact builder that decides something from an element of ``intent/`` records its
:class:`~compiler.sources.Source` here, so a review can group the config lines of a change by
the intent edit that caused them, and a finding can name the line to change. Nothing of it is
written to ``generated/``: it lives in the facts (``Facts.provenance``) of a compile.

* ``interfaces[device][interface]``: per structured :class:`~compiler.structured.Interface`
  field, the element that set it; the key ``""`` is why the interface exists or is used at all
  (the server row cabled to it, the fabric's uplink list, a ``ports.yaml`` entry, a VLAN's SVI).
  :func:`compiler.platforms.eos.interface_line_field` tells which field a config line sets;
* ``vlans[device][vlan id]``: the element that put the VLAN on the switch;
* ``settings[device][section]``: the elements behind a device-wide section (``static_routes``,
  ``ntp_servers``, ``logging_hosts``, ``extra_config``, ``identity``), in order.

Example:
    >>> from compiler.sources import Source
    >>> book = ProvenanceBook()
    >>> book.port("rack03-leaf-a", "Ethernet1/3", Source("servers.csv", ("rack03-gpu002",)))
    >>> book.port("rack03-leaf-a", "Ethernet1/3", Source("ports.yaml", ("ports", "rack03-leaf-a", "Ethernet1/3")),
    ...           fields=("shutdown", "description"))
    >>> found = book.done()
    >>> str(found.of_interface("rack03-leaf-a", "Ethernet1/3")["shutdown"])
    'ports.yaml: ports.rack03-leaf-a.Ethernet1/3'
    >>> str(found.origin("rack03-leaf-a", "Ethernet1/3"))
    'servers.csv: rack03-gpu002'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple

from compiler.platforms.eos import port_channel, vlan_interface
from compiler.sources import Source

if TYPE_CHECKING:
    from compiler.facts.cabling import Cabling, UsedPort
    from compiler.facts.ports import PortSpecifics
    from compiler.facts.topology import Topology
    from compiler.facts.vlans import VlanPlan
    from compiler.intent import Intent

ORIGIN = ""
"""The field key of what an interface is there for."""


class Provenance(NamedTuple):
    """The sources of every setting the facts decided from an intent element."""

    interfaces: Mapping[str, Mapping[str, Mapping[str, Source]]]
    """device -> interface -> field (``""``: why the interface is used) -> source."""
    vlans: Mapping[str, Mapping[int, Source]]
    """device -> VLAN id -> source."""
    settings: Mapping[str, Mapping[str, tuple[Source, ...]]]
    """device -> section -> sources."""

    def of_interface(self, device: str, interface: str) -> Mapping[str, Source]:
        """The sources of one interface's settings, by field (empty when it has none)."""
        return self.interfaces.get(device, {}).get(interface, {})

    def origin(self, device: str, interface: str) -> Source | None:
        """Why an interface is used: the intent element it serves, or None (an unused port)."""
        return self.of_interface(device, interface).get(ORIGIN)

    def field(self, device: str, interface: str, field: str) -> Source | None:
        """The element that set ``field`` of an interface, else the one it serves."""
        found = self.of_interface(device, interface)
        return found.get(field) or found.get(ORIGIN)


class ProvenanceBook:
    """Collects sources while the facts are built; :meth:`done` freezes them."""

    def __init__(self) -> None:
        self._interfaces: dict[str, dict[str, dict[str, Source]]] = {}
        self._vlans: dict[str, dict[int, Source]] = {}
        self._settings: dict[str, dict[str, list[Source]]] = {}

    def port(self, device: str, interface: str, source: Source, fields: Iterable[str] = (ORIGIN,)) -> None:
        """Record ``source`` for ``fields`` of an interface (by default: as what it is used for)."""
        slot = self._interfaces.setdefault(device, {}).setdefault(interface, {})
        for name in fields:
            slot[name] = source

    def origins(self, device: str, sources: Iterable[tuple[str, Source]]) -> None:
        """Record what each of ``device``'s interfaces is used for: :meth:`port` for a whole
        switch at once (one call per port was most of recording the design at 16x)."""
        slots = self._interfaces.get(device)
        if slots is None:  # the first record of the switch (the design's): one dict per port, made at once
            self._interfaces[device] = {interface: {ORIGIN: source} for interface, source in sources}
            return
        for interface, source in sources:
            slots.setdefault(interface, {})[ORIGIN] = source

    def slots(self, device: str, slots: dict[str, dict[str, Source]]) -> None:
        """:meth:`origins` of a switch with its interfaces' slots made (``{ORIGIN: source}``, one
        dict each, handed over)."""
        if device not in self._interfaces:
            self._interfaces[device] = slots
            return
        self.origins(device, ((interface, slot[ORIGIN]) for interface, slot in slots.items()))

    def origin(self, device: str, interface: str) -> Source | None:
        """What an interface was recorded as used for so far."""
        return self._interfaces.get(device, {}).get(interface, {}).get(ORIGIN)

    def vlan(self, device: str, vlan: int, source: Source) -> None:
        """Record the element that put ``vlan`` on ``device`` (the first one stays)."""
        self._vlans.setdefault(device, {}).setdefault(vlan, source)

    def setting(self, device: str, section: str, source: Source) -> None:
        """Record one more element behind a device-wide section."""
        self._settings.setdefault(device, {}).setdefault(section, []).append(source)

    def done(self) -> Provenance:
        return Provenance(
            self._interfaces,
            self._vlans,
            {d: {k: tuple(v) for k, v in sections.items()} for d, sections in self._settings.items()},
        )


_PORT_ORIGINS: Mapping[str, tuple[str, ...]] = {
    "peer-link": ("leaves", "peer_link_ports"),
    "uplink": ("leaves", "uplink_ports"),
    "downlink": ("spines",),
}
"""The ``fabrics.<net>`` key behind a fabric port of each kind (a pod spine's uplink: ``spines``)."""


def record_design(
    book: ProvenanceBook,
    intent: Intent,
    topology: Topology,
    cabling: Cabling,
) -> None:
    """The sources of what the design alone decides: every cabled port, the fabrics' and the
    racks' VLANs."""
    racks = {rack: index for index, rack in enumerate(intent.rack_order)}
    fabric_yaml = Source("fabric.yaml")
    # Ports of one kind share their source: one record per kind, network and role; a server's
    # ports share its row's (by server: no key to build for most ports).
    origins: dict[tuple[str, str, str], Source] = {}
    rows: dict[str, Source] = {}
    switches = topology.switches
    for device, ports in cabling.ports.items():
        role = switches[device].role
        slots: dict[str, dict[str, Source]] = {}
        # Each port's slot made here: a step less per port (17,600 at 16x) than a list of
        # (port, source) for :meth:`ProvenanceBook.origins` to turn into slots.
        for name, port in ports.items():
            kind = port.kind
            if kind == "server":
                origin = rows.get(port.peer)
                if origin is None:
                    origin = rows[port.peer] = _port_origin(port, role, fabric_yaml)
            else:
                key = (kind, port.network, role)
                origin = origins.get(key)
                if origin is None:
                    origin = origins[key] = _port_origin(port, role, fabric_yaml)
            slots[name] = {ORIGIN: origin}
        book.slots(device, slots)
    mlag = fabric_yaml.child("mlag")
    for name, switch in topology.switches.items():
        if switch.role == "leaf":
            vlan = intent.fabric.vlans[intent.fabric.fabrics[switch.network].vlan]  # type: ignore[index]
            book.vlan(name, vlan.id, fabric_yaml.child("vlans", intent.fabric.fabrics[switch.network].vlan))  # type: ignore[index]
            book.vlan(name, intent.fabric.mlag.peer_vlan, mlag)
            book.vlan(name, intent.fabric.mlag.l3_vlan, mlag)
        elif switch.role in ("mgmt", "core"):
            served = racks if switch.role == "core" else {switch.rack: racks.get(switch.rack, 0)}
            for rack, index in served.items():
                source = Source("racks.yaml", ("racks", index))
                book.vlan(name, intent.fabric.management.vlan_base + rack, source)
                book.vlan(name, intent.fabric.management.server_vlan_base + rack, source)


def _port_origin(port: UsedPort, role: str, fabric_yaml: Source) -> Source:
    if port.kind == "server":
        return Source("servers.csv", (port.peer,))
    if port.kind in _PORT_ORIGINS:
        key = ("spines", "uplinks") if role == "spine" and port.kind == "uplink" else _PORT_ORIGINS[port.kind]
        return fabric_yaml.child("fabrics", port.network, *key)
    if port.kind == "management":
        return fabric_yaml.child("management", "switch_ports", "devices")
    if port.kind == "rack-uplink":
        return fabric_yaml.child("management", "switch_uplink_port")
    if port.kind == "rack-downlink":
        return fabric_yaml.child("management", "core", "downlinks")
    return fabric_yaml.child("management", "core", "upstream_port")


_SETTING_FIELDS: Mapping[str, tuple[str, ...]] = {
    "description": ("description",),
    "shutdown": ("shutdown", "description"),
    "speed": ("speed",),
    "breakout": ("speed",),
    "fec": ("error_correction",),
    "lldp": ("no_lldp_transmit", "no_lldp_receive"),
    "storm_control": ("storm_control",),
}
"""The structured interface fields each ``ports.yaml`` key sets."""

_DEVICE_SECTIONS: Mapping[str, str] = {
    "static_routes": "static_routes",
    "ntp": "ntp_servers",
    "syslog": "logging_hosts",
    "serial": "identity",
}
"""The structured section (or ``identity``, the inventory's unit) each ``devices.yaml`` key feeds."""


def record_specifics(book: ProvenanceBook, intent: Intent, topology: Topology, ports: PortSpecifics) -> None:
    """The sources of ``ports.yaml`` entries (on every lane a breakout sets), the ports moved
    servers left (``servers.csv`` ``moved_from``) and ``devices.yaml`` entries."""
    for device, entries in ports.settings.items():
        layout = topology.switches[device].layout
        for name, (settings, source) in entries.items():
            if book.origin(device, name) is None:
                book.port(device, name, source)
            # Its fields as they are, in order (model_dump would build the model's serializer).
            for key in (key for key, value in settings if value is not None):
                fields = _SETTING_FIELDS[key]
                if key == "breakout":
                    cage = layout.model.port(name)
                    for lane in cage.lane_names():
                        if layout.speed(lane) is not None:
                            book.port(device, lane, source.child(key), fields)
                else:  # a moved server's vacated port is described by its servers.csv row
                    book.port(device, name, source.child(key) if source.file == "ports.yaml" else source, fields)
    for device, entry in intent.devices.items():
        if device not in topology.switches:
            continue
        here = Source("devices.yaml", ("devices", device))
        for key, section in _DEVICE_SECTIONS.items():
            if getattr(entry, key):
                book.setting(device, section, here.child(key))


def record_retired(book: ProvenanceBook, cabling: Cabling) -> None:
    """A decommissioned server's ports are shut and described by its ``status``."""
    for device, used in cabling.ports.items():
        for port in filter(_RETIRED, used.values()):  # few: found by a C-level filter
            book.port(device, port.name, Source("servers.csv", (port.peer, "status")), ("shutdown", "description"))


_RETIRED = attrgetter("retired")


def record_vlans(book: ProvenanceBook, cabling: Cabling, plan: VlanPlan) -> None:
    """The sources of ``vlans.yaml``: each VLAN and SVI on its leaves, each port's VLAN lines (on a
    server's port-channel when it has one; a trunk's lines by its first tagged member)."""
    for leaf, carried in plan.leaves.items():
        for vlan in carried:
            book.vlan(leaf, vlan.id, vlan.source)
            if vlan.routed and vlan.pool is not None:
                book.port(leaf, vlan_interface(vlan.id), vlan.source)
    # Without a port on a VLAN of vlans.yaml (most fabrics), no port needs looking at.
    for device, used in cabling.ports.items() if plan.ports else ():
        for name, port in used.items():
            if port.kind != "server" or port.network == "management":
                continue
            on_port = plan.ports.get((port.peer, port.peer_port))
            if on_port is None:
                continue
            iface = port_channel(port.channel) if port.channel is not None else name
            if on_port.access_source is not None:
                fields = ("switchport_trunk_native_vlan",) if on_port.tagged else ("switchport_access_vlan",)
                book.port(device, iface, on_port.access_source, fields)
            if on_port.tagged_sources:
                trunk: tuple[str, ...] = ("switchport_trunk_allowed_vlan", "switchport_mode")
                if on_port.access_source is None:
                    trunk = (*trunk, "switchport_trunk_native_vlan")
                book.port(device, iface, on_port.tagged_sources[0], trunk)
