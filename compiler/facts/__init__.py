"""Facts: everything the intent leaves implicit, decided once for the whole fabric.

Each builder is a pure function of the intent and of the facts it depends on, with a typed,
frozen result, in this order::

    hardware      each role's catalog model, breakouts and port sets        (intent)
    topology      switches, leaf pairs, pods, spines, management slots      (intent, hardware)
    servers       which switch port each server NIC takes                   (topology)
    addressing    loopbacks, /31s, SVIs, MLAG /31s, server addresses, pools (topology, servers)
    management    rack VLANs and subnets, Management1, server management    (topology, servers)
    cabling       ports by device and name, cables                          (topology, servers, addressing)
    routing       router ids, ASNs, BGP sessions, OSPF                      (topology, cabling, addressing)
    qos           RoCE DSCP classes, queues, ECN, PFC per fabric            (intent)
    hosts         each server's bond or per-NIC addresses on each fabric    (servers, addressing)
    moves         the ports a moved server left, described as vacated      (topology, cabling)

:meth:`Facts.device` cuts out the facts that name one switch (:class:`DeviceFacts`): its
structured config is a function of them and of the design alone.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> facts = build_facts(load_intent(Path("intent")))
    >>> leaf = facts.device("rack01-leaf-a")
    >>> leaf.switch.role, leaf.switch.model, leaf.loopback, leaf.management.address, len(leaf.ports)
    ('leaf', 'DCS-7060DX5-32', '10.31.0.65', '172.16.1.3/25', 15)
    >>> facts.servers["rack05-gpu007"].compute_address
    '10.30.5.17/24'
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections.abc import Mapping
from operator import attrgetter, itemgetter
from typing import NamedTuple

from compiler.facts.addressing import (
    Addressing,
    Allocation,
    FabricLink,
    HostAddress,
    LeafAddresses,
    PoolUse,
    build_addressing,
)
from compiler.facts.cabling import Cable, Cabling, Endpoint, UsedPort, build_cabling
from compiler.facts.common import Network, Problem, Role, record
from compiler.facts.extra import extra_problems, parse_block, record_extra
from compiler.facts.hosts import HostLink, HostPort, build_links
from compiler.facts.management import ManagementNetwork, RackManagement, build_management
from compiler.facts.moves import vacated_ports
from compiler.facts.ports import PortSpecifics, build_port_specifics, settings_of
from compiler.facts.provenance import (
    Provenance,
    ProvenanceBook,
    record_design,
    record_retired,
    record_specifics,
    record_vlans,
)
from compiler.facts.qos import Qos, RoceQos, build_qos
from compiler.facts.routing import Routing, SwitchRouting, build_routing
from compiler.facts.servers import Attachments, ResolvedServer, ServerNic, build_attachments
from compiler.facts.topology import Switch, Topology, build_topology
from compiler.facts.vlans import FabricVlan, PortVlans, VlanPlan, build_vlans
from compiler.intent import FabricFile, Intent
from compiler.memo import per_object
from compiler.specifics import DeviceSettings, PortSettings

__all__ = [
    "Allocation",
    "Cable",
    "DeviceFacts",
    "Endpoint",
    "Facts",
    "HostAddress",
    "HostLink",
    "HostPort",
    "Network",
    "PoolUse",
    "Problem",
    "Provenance",
    "ResolvedServer",
    "Role",
    "ServerNic",
    "Switch",
    "UsedPort",
    "VlanPlan",
    "build_facts",
]


class DeviceFacts(NamedTuple):
    """Every fact that names one switch, and the design: its structured config is made of these."""

    switch: Switch
    design: FabricFile
    ports: tuple[UsedPort, ...]
    """Its used front-panel ports, in EOS interface order."""
    front_panel: tuple[str, ...]
    """Every Ethernet interface of its model under its breakouts (the unused ones are shut down)."""
    management: HostAddress | None = None
    """Its management port's address (a fabric switch with a slot on its rack's management switch)."""
    mlag_peer_management: HostAddress | None = None
    """Its MLAG peer's management address (the MLAG heartbeat goes there)."""
    loopback: str | None = None
    leaf: LeafAddresses | None = None
    fabric_links: tuple[FabricLink, ...] = ()
    """The routed /31s it terminates (leaf-spine, pod spine-super-spine)."""
    racks: tuple[RackManagement, ...] = ()
    """The racks it serves: its own (a management switch), every rack (the core)."""
    upstream: HostAddress | None = None
    routing: SwitchRouting | None = None
    qos: RoceQos | None = None
    extra_config: str | None = None
    port_settings: Mapping[str, PortSettings] = {}
    """Its ``ports.yaml`` entries, by interface."""
    vlans: tuple[FabricVlan, ...] = ()
    """The VLANs of ``vlans.yaml`` it carries (a leaf), by id."""
    vlan_svis: Mapping[int, HostAddress] = {}
    """Its SVI address and gateway on each routed VLAN of ``vlans.yaml`` it carries."""
    port_vlans: Mapping[str, PortVlans] = {}
    """Its server ports with VLANs of ``vlans.yaml``, by interface."""
    server_trunks: bool = False
    """Whether a server port of its leaf pair is a trunk (has tagged VLANs)."""
    settings: DeviceSettings = DeviceSettings.model_construct()  # its defaults: builds no validator at import
    """Its ``devices.yaml`` entry."""


class Facts(NamedTuple):
    """The facts of the whole fabric."""

    intent: Intent
    topology: Topology
    attachments: Attachments
    addressing: Addressing
    management: ManagementNetwork
    cabling: Cabling
    routing: Routing
    qos: Qos
    servers: Mapping[str, ResolvedServer]
    links_by_switch: Mapping[str, tuple[FabricLink, ...]]
    provenance: Provenance = Provenance({}, {}, {})
    """Which intent element produced each port setting, VLAN and device setting."""
    ports: PortSpecifics = PortSpecifics({}, {}, ())
    """The ``ports.yaml`` entries that hold, and the switches' own layouts."""
    vlans: VlanPlan = VlanPlan({}, {}, {}, ())
    """The VLANs of ``vlans.yaml``: their ports and leaves."""

    @property
    def problems(self) -> tuple[Problem, ...]:
        """What resolution could not place, from every builder."""
        return (
            *self.topology.problems,
            *self.ports.problems,
            *self.attachments.problems,
            *self.vlans.problems,
            *self.cabling.problems,
            *_extra_config_problems(self.intent, self.topology),
            *extra_problems(
                self.intent,
                self.topology,
                {name: parse_block(text) for name, text in self.intent.fabric.extra_config.items()},
            ),
        )

    @property
    def allocations(self) -> tuple[Allocation, ...]:
        """Every address and subnet taken, from every pool."""
        return (*self.management.allocations, *self.addressing.allocations)

    @property
    def pools(self) -> tuple[PoolUse, ...]:
        """How full every pool is."""
        return (self.management.pool, *self.addressing.pools)

    def mgmt_address(self, name: str) -> str:
        """The address ``name`` is managed at (no prefix), or '' when it has none."""
        switch = self.topology.switches[name]
        if switch.role == "core":
            address = self.management.upstream.address
        elif switch.role == "mgmt":
            address = self.management.racks[switch.rack].switch_address
        else:
            own = self.management.switches.get(name)
            address = own.address if own else ""
        return address.split("/", 1)[0]

    def device(self, name: str) -> DeviceFacts:
        """The facts that name switch ``name``."""
        switch = self.topology.switches[name]
        design = self.intent.fabric
        if switch.role == "core":
            racks = tuple(self.management.racks.values())
        elif switch.role == "mgmt":
            racks = (self.management.racks[switch.rack],)
        else:
            racks = ()
        peer = switch.mlag_peer
        ports = self.cabling.of(name)
        management = self.management.switches
        # A record from its values in DeviceFacts' field order: a Python call less per switch.
        values = (
            switch,
            design,
            ports,
            switch.layout.interfaces,
            management.get(name),
            management.get(peer) if peer else None,
            self.addressing.loopbacks.get(name),
            self.addressing.leaves.get(name),
            self.links_by_switch.get(name, ()),
            racks,
            self.management.upstream if switch.role == "core" else None,
            self.routing.switches.get(name),
            self.qos.fabrics.get(switch.network),
            design.extra_config.get(name),
            settings_of(self.ports, name),
            self.vlans.leaves.get(name, ()),
            _svis_by_leaf(self.addressing.vlan_svis).get(name, {}),
            self._port_vlans(ports),
            name in self.vlans.trunked,
            self.intent.devices.get(name, _NO_SETTINGS),
        )
        return record(DeviceFacts, values)

    def _port_vlans(self, ports: tuple[UsedPort, ...]) -> dict[str, PortVlans]:
        """The server ports among ``ports`` with VLANs of ``vlans.yaml``, by interface."""
        on_ports = self.vlans.ports
        if not on_ports:
            return {}  # most fabrics: no port to look at
        return {
            port.name: self.vlans.of(port.peer, port.peer_port)
            for port in ports
            if port.kind == "server" and (port.peer, port.peer_port) in on_ports
        }


def build_facts(intent: Intent) -> Facts:
    """Every fact of ``intent``; pure and deterministic."""
    base = build_topology(intent)
    ports = build_port_specifics(intent, base)
    topology = ports.apply(base)
    attachments = build_attachments(intent, topology)
    vlans = build_vlans(intent, topology, attachments)
    addressing = build_addressing(intent, topology, attachments, vlans)
    management = build_management(intent, topology, attachments)
    cabling = build_cabling(intent, topology, attachments, addressing)
    routing = build_routing(intent, topology, cabling, addressing, vlans)
    links_of_servers = build_links(intent, attachments, addressing, vlans)
    vacated = vacated_ports(intent, topology, cabling)
    if vacated:
        settings = {d: {**vacated.get(d, {}), **ports.settings.get(d, {})} for d in {*ports.settings, *vacated}}
        ports = ports._replace(settings=settings)
    book = ProvenanceBook()
    record_design(book, intent, topology, cabling)
    record_specifics(book, intent, topology, ports)
    record_retired(book, cabling)
    record_vlans(book, cabling, vlans)
    record_extra(book, intent)
    links: dict[str, list[FabricLink]] = {}
    for link in addressing.fabric_links.values():
        links.setdefault(link.lower, []).append(link)
        links.setdefault(link.upper, []).append(link)
    return Facts(
        intent,
        topology,
        attachments,
        addressing,
        management,
        cabling,
        routing,
        build_qos(intent),
        _servers(intent, attachments, cabling, addressing, management, links_of_servers),
        {name: tuple(found) for name, found in links.items()},
        book.done(),
        ports,
        vlans,
    )


def _servers(
    intent: Intent,
    attachments: Attachments,
    cabling: Cabling,
    addressing: Addressing,
    management: ManagementNetwork,
    links: Mapping[str, tuple[HostLink, ...]],
) -> dict[str, ResolvedServer]:
    nics: dict[str, list[ServerNic]] = {}
    ports = cabling.ports
    no_ports: Mapping[str, UsedPort] = {}
    # Each attachment unpacked at once: a field read each was half of this at 16x (10,000 NICs).
    for owner, network, nic, speed, numa, switch, switch_port, _, _, _ in attachments.nics:
        port = ports.get(switch, no_ports).get(switch_port)
        if port is not None and port.peer == owner and port.peer_port == nic:
            entry = record(ServerNic, (nic, network, speed, numa, switch, port.name))
            nics.setdefault(owner, []).append(entry)
    out: dict[str, ResolvedServer] = {}
    by_name, none = itemgetter(0), (None, None)
    mgmt_of, address_of = management.servers, addressing.servers
    for server in sorted(intent.servers, key=attrgetter("name")):
        name = server.name
        mgmt = mgmt_of.get(name)
        identity = (name, server.model, server.asset_tag, server.rack, server.position)
        values = (
            *identity,
            *(mgmt if mgmt else ("", "")),
            *address_of.get((name, "compute"), none),
            *address_of.get((name, "storage"), none),
            tuple(sorted(nics.get(name, ()), key=by_name)),
            links.get(name, ()),
            server.active,
        )
        out[name] = record(ResolvedServer, values)
    return out


_NO_SETTINGS = DeviceSettings.model_construct()
"""The settings of a switch ``devices.yaml`` does not name: one object for all of them (a
switch's unit keys it by its digest, taken once per object)."""


@per_object
def _svis_by_leaf(svis: Mapping[tuple[str, int], HostAddress]) -> dict[str, dict[int, HostAddress]]:
    """The SVIs of ``vlans.yaml`` VLANs by leaf, then VLAN id (in the order they were addressed):
    one pass for the fleet, not one per switch."""
    by_leaf: dict[str, dict[int, HostAddress]] = {}
    for (leaf, vlan), address in svis.items():
        by_leaf.setdefault(leaf, {})[vlan] = address
    return by_leaf


def _extra_config_problems(intent: Intent, topology: Topology) -> tuple[Problem, ...]:
    """An ``extra_config`` block for a device that does not exist would be dropped silently."""
    return tuple(
        Problem("REF002", name, f"extra_config names unknown device {name!r}")
        for name in sorted(intent.fabric.extra_config)
        if name not in topology.switches
    )
