"""Resolve the intent into a fabric: every device, port, link, address and structured config.

Every number is a pure function of stable identifiers, never of list order:

* leaf pair ``P`` of a fabric = ``(rack - 1) // racks_per_pair + 1``; leaf index
  ``L = 2 * (P - 1) + side + 1`` (side a = 0, b = 1);
* leaf-spine link (``L``, spine ``s``) = /31 number ``(L - 1) * spines + (s - 1)`` of the
  p2p pool, spine on the even address; leaf uplink = ``uplink_ports[s - 1]``, spine port = ``L``;
* loopbacks: spine ``s`` = pool + ``s``, leaf ``L`` = pool + 64 + ``L``;
* hosts subnet of pair ``P`` = the ``P``-th /24 of the hosts pool: VIP .1, leaf a .2, leaf b .3,
  server = .10 + ``(rack - first rack of the pair) * ports_per_rack + position``, which is also
  the server's leaf port;
* management: rack ``R`` = VLAN ``vlan_base + R`` and the ``R``-th /24 of the pool: gateway
  .1 (core), rack switch .2, switch in slot ``k`` .(2 + k), server .(20 + position).

So adding a server touches only its own ports and addresses, adding a rack only its pair.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

from compiler.addressing import host_address, host_in, nth_subnet, p2p_link, subnet_capacity
from compiler.intent import (
    FabricFile,
    FabricIntent,
    Intent,
    Pools,
    QosProfile,
    RoutingProfile,
    Server,
    SwitchModel,
    Vlan,
)
from compiler.structured import (
    Allocation,
    BgpNeighbor,
    BgpPeerGroup,
    Device,
    DeviceConfig,
    Endpoint,
    Fabric,
    Interface,
    Link,
    LinkKind,
    Mlag,
    Network,
    PfcWatchdog,
    PoolUse,
    PrefixList,
    PrefixListEntry,
    Problem,
    Qos,
    QosMap,
    QosProfileConfig,
    QosQueue,
    ResolvedServer,
    Role,
    RouteMapEntry,
    RouterBgp,
    RouterOspf,
    ServerNic,
    SpanningTree,
    StaticRoute,
    User,
    VlanDef,
    VrfHost,
)

MGMT_VRF = "MGMT"
PEER_LINK_CHANNEL = 1000
MLAG_PEER_VLAN = 4094
MLAG_L3_VLAN = 4093
LEAF_LOOPBACK_OFFSET = 64
SERVER_HOST_OFFSET = 10
MGMT_SERVER_OFFSET = 20
SIDES = ("a", "b")
MGMT_MTU = 1500  # out-of-band access ports and Management1 stay at the Ethernet default
MANAGEMENT1_SPEED = "1g"  # the dedicated management port of every fabric switch


def resolve(intent: Intent) -> Fabric:
    """Decide everything the intent leaves implicit; pure and deterministic."""
    return _Resolver(intent).run()


def eth(port: int) -> str:
    """EOS name of front-panel port ``port``.

    Example:
        >>> eth(49)
        'Ethernet49'
    """
    return f"Ethernet{port}"


def leaf_name(rack: int, suffix: str, side: str) -> str:
    """Name of a leaf: its rack, its fabric's suffix and its side.

    Example:
        >>> leaf_name(3, "leaf", "a")
        'rack03-leaf-a'
    """
    return f"rack{rack:02d}-{suffix}-{side}"


@dataclass(frozen=True)
class _Pair:
    """An MLAG leaf pair of one fabric, with the racks it serves."""

    network: Network
    id: int
    rack: int
    first_rack: int

    def leaf_index(self, side: int) -> int:
        return 2 * (self.id - 1) + side + 1


@dataclass(frozen=True)
class _Planned:
    """A fabric switch known before its config is built (for management cabling)."""

    name: str
    network: Network
    role: Role
    rack: int
    slot: int


@dataclass(frozen=True)
class _End:
    """One end of a cable as resolution sees it."""

    device: str
    port: str
    speed: str | None
    mtu: int


class _Switch:
    """A switch under construction: its model, the ports it uses and their interfaces."""

    def __init__(self, name: str, model_name: str, model: SwitchModel) -> None:
        self.name = name
        self.model_name = model_name
        self.model = model
        self.ifaces: dict[str, Interface] = {}
        self.used: dict[int, str] = {}

    def take(self, port: int, purpose: str) -> str:
        """Mark front-panel ``port`` used for ``purpose``; return its name."""
        self.used[port] = purpose
        return eth(port)

    def add(self, iface: Interface) -> Interface:
        self.ifaces[iface.name] = iface
        return iface

    def end(self, port: int, mtu: int) -> _End:
        return _End(self.name, eth(port), self.model.speed_of(port), mtu)

    def interfaces(self, problems: list[Problem]) -> list[Interface]:
        """Every front-panel port (EOS lists them all), unused ones shut down, in EOS order."""
        for port in range(1, self.model.port_count + 1):
            if self.model.speed_of(port) is not None and eth(port) not in self.ifaces:
                self.ifaces[eth(port)] = Interface(eth(port), shutdown=True)
        for port, purpose in sorted(self.used.items()):
            if self.model.speed_of(port) is None:
                room = f"its model has ports 1-{self.model.port_count}"
                message = f"{self.name}: port {port} is used ({purpose}) but {room}"
                problems.append(Problem("PRT001", self.name, message))
        return sorted(self.ifaces.values(), key=lambda i: _iface_key(i.name))


@dataclass(frozen=True)
class _FabricPlan:
    """What every switch of one spine-leaf fabric shares."""

    network: Network
    spec: FabricIntent
    routing: RoutingProfile
    qos: QosProfile | None
    vlan: Vlan
    spine_names: tuple[str, ...]
    uplinks: int

    @property
    def pools(self) -> Pools:
        return self.spec.pools


class _Resolver:
    def __init__(self, intent: Intent) -> None:
        self.intent = intent
        self.spec: FabricFile = intent.fabric
        self.devices: dict[str, Device] = {}
        self.links: list[Link] = []
        self.allocations: list[Allocation] = []
        self.pools: list[PoolUse] = []
        self.problems: list[Problem] = []
        self.server_nics: dict[str, list[ServerNic]] = defaultdict(list)
        self.server_addr: dict[tuple[str, Network], tuple[str, str]] = {}
        self.pairs: dict[Network, list[_Pair]] = {}
        self.planned_by_name: dict[str, _Planned] = {}
        self.planned_by_rack: dict[int, list[_Planned]] = defaultdict(list)
        self.servers_by_rack: dict[int, list[Server]] = defaultdict(list)
        self.members_by_pair: dict[tuple[Network, int], list[Server]] = defaultdict(list)
        for server in intent.servers:
            self.servers_by_rack[server.rack].append(server)

    # ------------------------------------------------------------------ plan

    def run(self) -> Fabric:
        for net in sorted(self.spec.fabrics):
            self.pairs[net] = self._plan_pairs(net, self.spec.fabrics[net])
        self._plan_slots()
        self._management()
        for net in sorted(self.spec.fabrics):
            self._spine_leaf(net, self.spec.fabrics[net])
        for name, extra in sorted(self.spec.extra_config.items()):
            if name in self.devices:
                self.devices[name].config.extra_config = extra.rstrip("\n")
            else:
                self._problem("REF002", name, f"extra_config names unknown device {name!r}")
        return Fabric(
            digest=self.intent.digest,
            devices=dict(sorted(self.devices.items())),
            servers=self._servers(),
            links=sorted(self.links, key=lambda link: (link.a.device, _iface_key(link.a.port), link.b.device)),
            allocations=self.allocations,
            pools=self.pools,
            problems=self.problems,
        )

    def _members(self, net: Network) -> list[Server]:
        models = self.spec.server_models
        return [s for s in self.intent.servers if models[s.model].nics_on(net)]

    def _plan_pairs(self, net: Network, fab: FabricIntent) -> list[_Pair]:
        per = fab.leaves.racks_per_pair
        racks_by_pair: dict[int, list[int]] = defaultdict(list)
        for server in self._members(net):
            pair_id = (server.rack - 1) // per + 1
            racks_by_pair[pair_id].append(server.rack)
            self.members_by_pair[net, pair_id].append(server)
        return [_Pair(net, pid, min(racks), (pid - 1) * per + 1) for pid, racks in sorted(racks_by_pair.items())]

    def _plan_slots(self) -> None:
        """Management slots: which port of the rack's management switch each switch uses."""
        compute = self.spec.fabrics.get("compute")
        compute_spines = compute.spines.count if compute else 0
        for net in sorted(self.spec.fabrics):
            fab = self.spec.fabrics[net]
            base = 0 if net == "compute" else 2
            for pair in self.pairs[net]:
                for side, letter in enumerate(SIDES):
                    name = leaf_name(pair.rack, fab.leaves.name_suffix, letter)
                    self._plan(_Planned(name, net, "leaf", pair.rack, base + side + 1))
            spine_base = 4 if net == "compute" else 4 + compute_spines
            for s in range(1, fab.spines.count + 1):
                name = f"{fab.spines.name_prefix}{s:02d}"
                self._plan(_Planned(name, net, "spine", fab.spines.rack, spine_base + s))

    def _plan(self, planned: _Planned) -> None:
        self.planned_by_name[planned.name] = planned
        self.planned_by_rack[planned.rack].append(planned)

    # ------------------------------------------------------------ management

    def _mgmt_subnet(self, rack: int) -> IPv4Network:
        return nth_subnet(self.spec.management.pool, 24, rack)

    def _management(self) -> None:
        mgmt = self.spec.management
        core = _Switch(mgmt.core.name, mgmt.core.model, self.spec.switch_models[mgmt.core.model])
        core_vlans = [self._rack_switch(rack, core) for rack in self.intent.racks]
        up = mgmt.upstream
        address = host_in(up.subnet, 2)
        self._allocate("management", "upstream", up.subnet, core.name, "upstream transit")
        self._allocate("management", "upstream", address, core.name, "upstream")
        port = core.take(mgmt.core.upstream_port, "upstream")
        core.add(Interface(port, description="UPSTREAM_SITE", routed=True, ip_address=str(address)))
        config = self._base_config(core.name, vrf=None, routing=True)
        config.vlans = core_vlans
        config.interfaces = core.interfaces(self.problems)
        config.static_routes = [StaticRoute("0.0.0.0/0", str(up.gateway))]
        self._add(core, "core", "management", mgmt.core.rack, str(address.ip), "mgmt-core", None, config)
        highest = max(self.intent.racks, default=0) + 1
        self._pool_use("management", "pool", mgmt.pool, "/24 per rack", 24, highest)

    def _rack_switch(self, rack: int, core: _Switch) -> VlanDef:
        """The management switch of ``rack`` and its side of the core; returns the rack's VLAN."""
        mgmt = self.spec.management
        switch = _Switch(f"rack{rack:02d}-mgmt", mgmt.switch_model, self.spec.switch_models[mgmt.switch_model])
        vlan = VlanDef(mgmt.vlan_base + rack, f"MGMT_RACK{rack:02d}")
        subnet = self._mgmt_subnet(rack)
        gateway, own = host_in(subnet, 1), host_in(subnet, 2)
        self._allocate("management", "pool", subnet, f"rack{rack:02d}", "rack management subnet")
        self._allocate("management", "pool", own, switch.name, "management switch SVI")
        self._allocate("management", "pool", gateway, core.name, f"gateway of rack {rack}")
        for server in self.servers_by_rack[rack]:
            self._server_mgmt_port(switch, server, vlan.id, subnet, gateway)
        ports = mgmt.switch_ports
        for planned in self.planned_by_rack[rack]:
            number = ports.devices_first + planned.slot - 1
            if number > ports.devices_last:
                room = f"ports {ports.devices_first}-{ports.devices_last}"
                self._problem("PRT003", switch.name, f"{planned.name}: slot {planned.slot} has no device port ({room})")
                continue
            self._allocate("management", "pool", host_in(subnet, 2 + planned.slot), planned.name, "Management1")
            self._access_port(switch, number, f"MGMT_{planned.name}_Management1", vlan.id)
            self._cable(
                "management",
                "mgmt",
                switch.end(number, MGMT_MTU),
                _End(planned.name, "Management1", MANAGEMENT1_SPEED, MGMT_MTU),
            )
        uplink = mgmt.switch_uplink_port
        trunk = {"mtu": self.spec.mtu.switch, "switchport_mode": "trunk", "switchport_trunk_allowed_vlan": str(vlan.id)}
        port = switch.take(uplink, f"uplink to {core.name}")
        switch.add(Interface(port, description=f"UPLINK_{core.name}_{eth(rack)}", **trunk))  # type: ignore[arg-type]
        core_port = core.take(rack, f"rack {rack} management switch")
        core.add(Interface(core_port, description=f"DOWNLINK_{switch.name}_{port}", **trunk))  # type: ignore[arg-type]
        core.add(Interface(f"Vlan{vlan.id}", description=f"GW_{vlan.name}", ip_address=str(gateway)))
        self._cable(
            "management", "mgmt-uplink", switch.end(uplink, self.spec.mtu.switch), core.end(rack, self.spec.mtu.switch)
        )
        switch.add(Interface(f"Vlan{vlan.id}", description=vlan.name, ip_address=str(own)))
        config = self._base_config(switch.name, vrf=None, routing=False)
        config.vlans = [vlan]
        config.interfaces = switch.interfaces(self.problems)
        config.static_routes = [StaticRoute("0.0.0.0/0", str(gateway.ip))]
        self._add(switch, "mgmt", "management", rack, str(own.ip), f"mgmt-rack{rack:02d}", None, config)
        return vlan

    def _server_mgmt_port(
        self, switch: _Switch, server: Server, vlan: int, subnet: IPv4Network, gateway: IPv4Interface
    ) -> None:
        nics = self.spec.server_models[server.model].nics_on("management")
        if not nics:
            return
        ports = self.spec.management.switch_ports
        number = ports.servers_first + server.position - 1
        if number > ports.servers_last:
            room = f"ports {ports.servers_first}-{ports.servers_last}"
            self._problem(
                "PRT003", switch.name, f"{server.name}: position {server.position} has no server port ({room})"
            )
            return
        nic = nics[0]
        address = host_in(subnet, MGMT_SERVER_OFFSET + server.position)
        self._allocate("management", "pool", address, server.name, "server management")
        self.server_addr[server.name, "management"] = (str(address), str(gateway.ip))
        self._access_port(switch, number, f"SERVER_{server.name}_{nic.name}", vlan)
        self._cable(
            "management", "server", switch.end(number, MGMT_MTU), _End(server.name, nic.name, nic.speed, MGMT_MTU)
        )
        self.server_nics[server.name].append(
            ServerNic(nic.name, "management", nic.speed, nic.numa, switch.name, eth(number))
        )

    def _access_port(self, switch: _Switch, number: int, description: str, vlan: int) -> None:
        port = switch.take(number, description)
        switch.add(Interface(port, description=description, switchport_access_vlan=vlan, portfast=True, bpduguard=True))

    # ------------------------------------------------------------ spine-leaf

    def _spine_leaf(self, net: Network, fab: FabricIntent) -> None:
        spine_count = fab.spines.count
        plan = _FabricPlan(
            network=net,
            spec=fab,
            routing=self.spec.routing_profiles[fab.routing],
            qos=self.spec.qos_profiles.get(fab.qos) if fab.qos else None,
            vlan=self.spec.vlans[fab.vlan],
            spine_names=tuple(f"{fab.spines.name_prefix}{s:02d}" for s in range(1, spine_count + 1)),
            uplinks=min(fab.leaves.uplinks_per_leaf or spine_count, spine_count, len(fab.leaves.uplink_ports)),
        )
        spine_model = self.spec.switch_models[fab.spines.model]
        spines = [_Switch(name, fab.spines.model, spine_model) for name in plan.spine_names]
        spine_peers: dict[str, list[BgpNeighbor]] = {s.name: [] for s in spines}
        highest_leaf = 0
        for pair in self.pairs[net]:
            hosts = nth_subnet(plan.pools.hosts, 24, pair.id)
            self._allocate(net, "hosts", hosts, f"{net}-pair{pair.id:02d}", "server subnet")
            self._allocate(net, "hosts", host_in(hosts, 1), f"{net}-pair{pair.id:02d}", "virtual-router gateway")
            for side in range(len(SIDES)):
                self._leaf(plan, pair, side, spines, spine_peers)
                highest_leaf = max(highest_leaf, pair.leaf_index(side))
        for number, spine in enumerate(spines, start=1):
            self._spine(plan, number, spine, spine_peers[spine.name])
        highest_pair = max((p.id for p in self.pairs[net]), default=0)
        pools = plan.pools
        self._pool_use(net, "hosts", pools.hosts, "/24 per leaf pair", 24, highest_pair + 1)
        self._pool_use(net, "p2p", pools.p2p, "/31 per leaf-spine link", 31, highest_leaf * spine_count)
        self._pool_use(net, "mlag_peer", pools.mlag_peer, "/31 per leaf pair", 31, highest_pair)
        self._pool_use(net, "mlag_l3", pools.mlag_l3, "/31 per leaf pair", 31, highest_pair)
        self._pool_use(net, "loopbacks", pools.loopbacks, "/32 per switch", 32, LEAF_LOOPBACK_OFFSET + highest_leaf + 1)

    def _leaf(
        self,
        plan: _FabricPlan,
        pair: _Pair,
        side: int,
        spines: list[_Switch],
        spine_peers: dict[str, list[BgpNeighbor]],
    ) -> None:
        net, fab, pools, vlan = plan.network, plan.spec, plan.pools, plan.vlan
        names = [leaf_name(pair.rack, fab.leaves.name_suffix, s) for s in SIDES]
        leaf = _Switch(names[side], fab.leaves.model, self.spec.switch_models[fab.leaves.model])
        peer = names[1 - side]
        index = pair.leaf_index(side)
        hosts = nth_subnet(pools.hosts, 24, pair.id)
        peer_link, l3_link = p2p_link(pools.mlag_peer, pair.id - 1), p2p_link(pools.mlag_l3, pair.id - 1)
        loopback = host_address(pools.loopbacks, LEAF_LOOPBACK_OFFSET + index)
        svi = host_in(hosts, 2 + side)
        self._allocate(net, "loopbacks", IPv4Interface((loopback, 32)), leaf.name, "Loopback0")
        self._allocate(net, "hosts", svi, leaf.name, f"Vlan{vlan.id}")
        self._allocate(net, "mlag_peer", peer_link[side], leaf.name, f"Vlan{MLAG_PEER_VLAN}")
        self._allocate(net, "mlag_l3", l3_link[side], leaf.name, f"Vlan{MLAG_L3_VLAN}")
        asn = plan.routing.bgp.leaf_asn_base + pair.id if plan.routing.bgp else None
        uplink_peers = [
            self._uplink(plan, leaf, index, number, spines[number - 1], spine_peers, asn)
            for number in range(1, plan.uplinks + 1)
        ]
        self._peer_link(plan, leaf, peer, side)
        for server in self.members_by_pair[net, pair.id]:
            self._server_port(plan, pair, side, leaf, server)
        mtu = self.spec.mtu.switch
        ospf = plan.routing.protocol == "ospf"
        leaf.add(Interface("Loopback0", description="ROUTER_ID", ip_address=f"{loopback}/32"))
        leaf.add(
            Interface(
                f"Vlan{vlan.id}",
                description=f"{vlan.name}_GW",
                mtu=mtu,
                ip_address=str(svi),
                virtual_ip=str(host_in(hosts, 1).ip),
            )
        )
        leaf.add(
            Interface(
                f"Vlan{MLAG_L3_VLAN}",
                description="MLAG_L3_PEER",
                mtu=mtu,
                ip_address=str(l3_link[side]),
                ospf_point_to_point=ospf,
            )
        )
        leaf.add(
            Interface(
                f"Vlan{MLAG_PEER_VLAN}",
                description="MLAG_PEER",
                mtu=mtu,
                no_autostate=True,
                ip_address=str(peer_link[side]),
            )
        )
        mgmt_address = self._mgmt_address(leaf.name)
        config = self._fabric_config(leaf, mgmt_address, "LEAF", plan.qos)
        config.spanning_tree = SpanningTree("mstp", 4096, f"{MLAG_L3_VLAN}-{MLAG_PEER_VLAN}")
        extra = [self.spec.vlans[name] for name in fab.pair_vlans.get(pair.id, ())]
        config.vlans = sorted(
            [
                VlanDef(vlan.id, vlan.name, ["MLAG"]),
                *(VlanDef(v.id, v.name, ["MLAG"]) for v in extra),
                VlanDef(MLAG_L3_VLAN, "MLAG_L3_PEER", ["MLAG"]),
                VlanDef(MLAG_PEER_VLAN, "MLAG_PEER", ["MLAG"]),
            ],
            key=lambda v: v.id,
        )
        config.interfaces = leaf.interfaces(self.problems)
        config.virtual_router_mac = fab.virtual_router_mac
        config.mlag = Mlag(
            domain_id=f"{net.upper()}_PAIR{pair.id:02d}",
            local_interface=f"Vlan{MLAG_PEER_VLAN}",
            peer_address=str(peer_link[1 - side].ip),
            heartbeat_address=self._mgmt_address(peer).split("/")[0] or "0.0.0.0",
            heartbeat_vrf=MGMT_VRF,
            peer_link=f"Port-Channel{PEER_LINK_CHANNEL}",
        )
        if plan.routing.protocol == "ebgp" and asn is not None:
            mlag_peer = BgpNeighbor(str(l3_link[1 - side].ip), "MLAG-IPv4-UNDERLAY-PEER")
            _leaf_bgp(config, plan, asn, str(loopback), peer, [*uplink_peers, mlag_peer])
        else:
            active = [f"Ethernet{p}" for p in fab.leaves.uplink_ports[: plan.uplinks]] + [f"Vlan{MLAG_L3_VLAN}"]
            pool_list = (pools.loopbacks, pools.p2p, pools.mlag_l3, pools.hosts)
            config.router_ospf = _ospf(plan, str(loopback), active, pool_list)
        redundancy = f"{net}-pair{pair.id:02d}"
        self._add(leaf, "leaf", net, pair.rack, mgmt_address.split("/")[0], redundancy, peer, config)

    def _uplink(
        self,
        plan: _FabricPlan,
        leaf: _Switch,
        index: int,
        number: int,
        spine: _Switch,
        spine_peers: dict[str, list[BgpNeighbor]],
        asn: int | None,
    ) -> BgpNeighbor:
        """Leaf ``index`` to spine ``number``: the /31, both interfaces, the cable, the BGP peers."""
        net = plan.network
        spine_end, leaf_end = p2p_link(plan.pools.p2p, (index - 1) * len(plan.spine_names) + (number - 1))
        self._allocate(net, "p2p", spine_end, spine.name, f"P2P to {leaf.name}")
        self._allocate(net, "p2p", leaf_end, leaf.name, f"P2P to {spine.name}")
        leaf_number = plan.spec.leaves.uplink_ports[number - 1]
        leaf_port = leaf.take(leaf_number, f"uplink to {spine.name}")
        spine_port = spine.take(index, f"downlink to {leaf.name}")
        leaf.add(self._p2p_iface(plan, leaf, leaf_port, f"P2P_{spine.name}_{spine_port}", leaf_end, "LEAF"))
        spine.add(self._p2p_iface(plan, spine, spine_port, f"P2P_{leaf.name}_{leaf_port}", spine_end, "SPINE"))
        mtu = self.spec.mtu.switch
        self._cable(net, "fabric", leaf.end(leaf_number, mtu), spine.end(index, mtu), str(spine_end.network))
        spine_peers[spine.name].append(
            BgpNeighbor(str(leaf_end.ip), "IPv4-UNDERLAY-PEERS", asn, f"{leaf.name}_{leaf_port}")
        )
        return BgpNeighbor(str(spine_end.ip), "IPv4-UNDERLAY-PEERS", None, f"{spine.name}_{spine_port}")

    def _peer_link(self, plan: _FabricPlan, leaf: _Switch, peer: str, side: int) -> None:
        mtu = self.spec.mtu.switch
        for number in plan.spec.leaves.peer_link_ports:
            port = leaf.take(number, f"peer-link to {peer}")
            member = Interface(port, description=f"MLAG_PEER_{peer}_{port}", channel_group=PEER_LINK_CHANNEL)
            leaf.add(self._qos_iface(member, plan.qos, leaf.model, "LEAF"))
            if side == 0:
                far = _End(peer, port, leaf.model.speed_of(number), mtu)
                self._cable(plan.network, "peer-link", leaf.end(number, mtu), far)
        leaf.add(
            Interface(
                f"Port-Channel{PEER_LINK_CHANNEL}",
                description=f"MLAG_PEER_{peer}_Po{PEER_LINK_CHANNEL}",
                mtu=mtu,
                switchport_mode="trunk",
                switchport_trunk_groups=["MLAG"],
            )
        )

    def _server_port(self, plan: _FabricPlan, pair: _Pair, side: int, leaf: _Switch, server: Server) -> None:
        net, fab = plan.network, plan.spec
        nics = self.spec.server_models[server.model].nics_on(net)
        if side >= len(nics):
            return
        nic = nics[side]
        per_rack = fab.leaves.ports_per_rack
        if server.position > per_rack:
            message = (
                f"{server.name}: position {server.position} exceeds ports_per_rack {per_rack} of fabrics.{net}.leaves"
            )
            self._problem("PRT002", leaf.name, message)
            return
        index = (server.rack - pair.first_rack) * per_rack + server.position
        # A port override moves the cable, never the address: addresses follow the position.
        number = server.compute_port if net == "compute" and server.compute_port else index
        if number in leaf.used:
            message = f"{server.name}: {eth(number)} is already used ({leaf.used[number]})"
            self._problem("PRT007", leaf.name, message)
            return
        hosts = nth_subnet(plan.pools.hosts, 24, pair.id)
        if side == 0:
            address = host_in(hosts, SERVER_HOST_OFFSET + index)
            self._allocate(net, "hosts", address, server.name, f"{net} bond")
            self.server_addr[server.name, net] = (str(address), str(host_in(hosts, 1).ip))
        description = f"SERVER_{server.name}_{nic.name}"
        port = leaf.take(number, description)
        mtu = self.spec.mtu.switch
        member = Interface(port, description=description, mtu=mtu)
        if fab.bonding == "lacp":
            member.channel_group, member.mtu = number, None
            leaf.add(
                Interface(
                    f"Port-Channel{number}",
                    description=f"SERVER_{server.name}_bond0",
                    mtu=mtu,
                    switchport_access_vlan=plan.vlan.id,
                    mlag=number,
                    lacp_fallback_timeout=30,
                    portfast=True,
                    bpduguard=True,
                )
            )
        else:
            member.switchport_access_vlan, member.portfast, member.bpduguard = plan.vlan.id, True, True
        leaf.add(self._qos_iface(member, plan.qos, leaf.model, "LEAF"))
        self._cable(net, "server", leaf.end(number, mtu), _End(server.name, nic.name, nic.speed, self.spec.mtu.host))
        self.server_nics[server.name].append(ServerNic(nic.name, net, nic.speed, nic.numa, leaf.name, port))

    def _spine(self, plan: _FabricPlan, number: int, spine: _Switch, peers: list[BgpNeighbor]) -> None:
        net, pools = plan.network, plan.pools
        loopback = host_address(pools.loopbacks, number)
        self._allocate(net, "loopbacks", IPv4Interface((loopback, 32)), spine.name, "Loopback0")
        spine.add(Interface("Loopback0", description="ROUTER_ID", ip_address=f"{loopback}/32"))
        mgmt_address = self._mgmt_address(spine.name)
        config = self._fabric_config(spine, mgmt_address, "SPINE", plan.qos)
        config.spanning_tree = SpanningTree("none")
        config.interfaces = spine.interfaces(self.problems)
        bgp = plan.routing.bgp
        if plan.routing.protocol == "ebgp" and bgp is not None:
            config.prefix_lists = [_prefix_list("PL-LOOPBACKS", pools.loopbacks, 32)]
            config.route_maps = [_connected_map(10, "PL-LOOPBACKS")]
            config.router_bgp = RouterBgp(
                asn=bgp.spine_asn,
                router_id=str(loopback),
                maximum_paths=len(plan.spine_names),
                peer_groups=[BgpPeerGroup("IPv4-UNDERLAY-PEERS", bfd=True, maximum_routes=bgp.maximum_routes)],
                neighbors=peers,
                redistribute_connected_route_map="RM-CONN-2-BGP",
            )
        else:
            active = [eth(p) for p in sorted(spine.used)]
            config.router_ospf = _ospf(plan, str(loopback), active, (pools.loopbacks, pools.p2p))
        redundancy = f"{net}-spines"
        self._add(spine, "spine", net, plan.spec.spines.rack, mgmt_address.split("/")[0], redundancy, None, config)

    def _p2p_iface(
        self, plan: _FabricPlan, switch: _Switch, port: str, description: str, address: IPv4Interface, role: str
    ) -> Interface:
        iface = Interface(
            port,
            description=description,
            mtu=self.spec.mtu.switch,
            routed=True,
            ip_address=str(address),
            ospf_point_to_point=plan.routing.protocol == "ospf",
        )
        return self._qos_iface(iface, plan.qos, switch.model, role)

    def _qos_iface(self, iface: Interface, qos: QosProfile | None, model: SwitchModel, role: str) -> Interface:
        if qos is not None:
            iface.qos_trust_dscp = True
            iface.service_profile = _qos_profile_name(role)
            iface.ecn_count_queue = f"{model.queue_keyword} {qos.ecn.queue}"
        return iface

    # -------------------------------------------------------------- configs

    def _base_config(self, name: str, vrf: str | None, routing: bool) -> DeviceConfig:
        services = self.spec.services
        return DeviceConfig(
            hostname=name,
            users=[User(services.admin_user, 15, "network-admin", f"{services.admin_user}_sha512")],
            routing_model="multi-agent" if routing else None,
            vlan_internal_range=None,
            name_servers=[VrfHost(str(a), vrf) for a in services.dns],
            dns_domain=self.spec.site.domain,
            logging_hosts=[VrfHost(str(a), vrf) for a in services.syslog],
            logging_source=VrfHost("Management1", vrf) if vrf else None,
            spanning_tree=SpanningTree("mstp"),
            vlans=[],
            vrfs=[vrf] if vrf else [],
            management_api_vrf=vrf,
            interfaces=[],
            virtual_router_mac=None,
            ip_routing=routing,
            no_ip_routing_vrfs=[vrf] if vrf else [],
            prefix_lists=[],
            mlag=None,
            static_routes=[],
            ntp_servers=[VrfHost(str(a), vrf, prefer=i == 0) for i, a in enumerate(services.ntp)],
            qos=None,
            route_maps=[],
            router_bgp=None,
            router_ospf=None,
            management_ssh_vrf=vrf,
        )

    def _fabric_config(self, switch: _Switch, mgmt: str, role: str, qos: QosProfile | None) -> DeviceConfig:
        """What every fabric switch has: management in VRF MGMT on Management1, and the RoCE QoS."""
        config = self._base_config(switch.name, vrf=MGMT_VRF, routing=True)
        config.vlan_internal_range = "1006 1199"
        if mgmt:
            gateway = host_in(IPv4Interface(mgmt).network, 1)
            config.static_routes = [StaticRoute("0.0.0.0/0", str(gateway.ip), MGMT_VRF)]
        switch.add(Interface("Management1", description="OOB_MANAGEMENT", vrf=MGMT_VRF, ip_address=mgmt or None))
        if qos is not None:
            config.qos = _qos(qos, _qos_profile_name(role), switch.model.queue_keyword)
        return config

    def _mgmt_address(self, name: str) -> str:
        """The Management1 address planned for switch ``name`` (address/prefix), or ''."""
        planned = self.planned_by_name.get(name)
        if planned is None:
            return ""
        port_room = self.spec.management.switch_ports
        if port_room.devices_first + planned.slot - 1 > port_room.devices_last:
            return ""
        return str(host_in(self._mgmt_subnet(planned.rack), 2 + planned.slot))

    # ------------------------------------------------------------ bookkeeping

    def _add(
        self,
        switch: _Switch,
        role: Role,
        net: Network,
        rack: int,
        mgmt_address: str,
        redundancy_group: str,
        mlag_peer: str | None,
        config: DeviceConfig,
    ) -> None:
        if switch.name in self.devices:
            self._problem("ADR001", switch.name, f"device name {switch.name!r} is used twice")
        self.devices[switch.name] = Device(
            switch.name,
            role,
            net,
            switch.model_name,
            rack,
            mgmt_address,
            redundancy_group,
            mlag_peer,
            config,
            switch.used,
        )

    def _problem(self, rule: str, subject: str, message: str) -> None:
        self.problems.append(Problem(rule, subject, message))

    def _allocate(self, net: Network, pool: str, prefix: IPv4Interface | IPv4Network, owner: str, purpose: str) -> None:
        self.allocations.append(Allocation(net, pool, str(prefix), owner, purpose))

    def _pool_use(self, net: Network, name: str, pool: IPv4Network, unit: str, prefixlen: int, highest: int) -> None:
        """Record how many ``prefixlen`` units of ``pool`` hold an allocation.

        A unit is the allocation's own network, or its supernet of ``prefixlen`` when it is
        smaller; computed on integers, since an ``IPv4Interface`` per allocation dominated
        resolution at scale.
        """
        units = set()
        for a in self.allocations:
            if a.network == net and a.pool == name:
                address, _, length = a.prefix.partition("/")
                bits = min(int(length) if length else 32, prefixlen)
                value = int(IPv4Address(address))
                units.add((value >> (32 - bits) if bits else 0, bits))
        self.pools.append(PoolUse(net, name, str(pool), unit, len(units), subnet_capacity(pool, prefixlen), highest))

    def _cable(self, net: Network, kind: LinkKind, a: _End, b: _End, subnet: str | None = None) -> None:
        self.links.append(
            Link(
                net,
                kind,
                Endpoint(a.device, a.port),
                Endpoint(b.device, b.port),
                a.speed,
                b.speed,
                a.mtu,
                b.mtu,
                subnet,
            )
        )

    def _servers(self) -> dict[str, ResolvedServer]:
        out: dict[str, ResolvedServer] = {}
        for server in self.intent.servers:
            mgmt = self.server_addr.get((server.name, "management"), ("", ""))
            compute = self.server_addr.get((server.name, "compute"))
            storage = self.server_addr.get((server.name, "storage"))
            out[server.name] = ResolvedServer(
                name=server.name,
                model=server.model,
                asset_tag=server.asset_tag,
                rack=server.rack,
                position=server.position,
                mgmt_address=mgmt[0],
                mgmt_gateway=mgmt[1],
                compute_address=compute[0] if compute else None,
                compute_gateway=compute[1] if compute else None,
                storage_address=storage[0] if storage else None,
                storage_gateway=storage[1] if storage else None,
                nics=tuple(sorted(self.server_nics[server.name], key=lambda n: n.name)),
            )
        return dict(sorted(out.items()))


def _qos_profile_name(role: str) -> str:
    """The per-port QoS profile of a role (queues differ between leaf and spine ASICs).

    Example:
        >>> _qos_profile_name("LEAF")
        'ROCE-LEAF'
    """
    return f"ROCE-{role}"


def _prefix_list(name: str, pool: IPv4Network, eq: int) -> PrefixList:
    return PrefixList(name, [PrefixListEntry(10, "permit", str(pool), eq)])


def _connected_map(seq: int, prefix_list: str) -> RouteMapEntry:
    return RouteMapEntry("RM-CONN-2-BGP", "permit", seq, match=[f"ip address prefix-list {prefix_list}"])


def _leaf_bgp(
    config: DeviceConfig, plan: _FabricPlan, asn: int, router_id: str, peer: str, neighbors: list[BgpNeighbor]
) -> None:
    """eBGP to the spines, iBGP to the MLAG peer over the peer-link, connected routes filtered."""
    bgp = plan.routing.bgp
    assert bgp is not None
    config.prefix_lists = [
        _prefix_list("PL-LOOPBACKS", plan.pools.loopbacks, 32),
        _prefix_list("PL-HOST-SUBNETS", plan.pools.hosts, 24),
    ]
    config.route_maps = [
        _connected_map(10, "PL-LOOPBACKS"),
        _connected_map(20, "PL-HOST-SUBNETS"),
        RouteMapEntry(
            "RM-MLAG-PEER-IN",
            "permit",
            10,
            description="Make routes learned over the MLAG peer-link less preferred",
            set=["origin incomplete"],
        ),
    ]
    config.router_bgp = RouterBgp(
        asn=asn,
        router_id=router_id,
        maximum_paths=len(plan.spine_names),
        peer_groups=[
            BgpPeerGroup("IPv4-UNDERLAY-PEERS", remote_as=bgp.spine_asn, bfd=True, maximum_routes=bgp.maximum_routes),
            BgpPeerGroup(
                "MLAG-IPv4-UNDERLAY-PEER",
                remote_as=asn,
                description=peer,
                next_hop_self=True,
                maximum_routes=bgp.maximum_routes,
                route_map_in="RM-MLAG-PEER-IN",
            ),
        ],
        neighbors=neighbors,
        redistribute_connected_route_map="RM-CONN-2-BGP",
    )


def _ospf(plan: _FabricPlan, router_id: str, active: list[str], pools: tuple[IPv4Network, ...]) -> RouterOspf:
    ospf = plan.routing.ospf
    return RouterOspf(
        process=ospf.process,
        router_id=router_id,
        active_interfaces=active,
        networks=[(str(p), str(ospf.area)) for p in pools],
        maximum_paths=len(plan.spine_names),
        max_lsa=ospf.max_lsa,
    )


def _qos(profile: QosProfile, name: str, keyword: str) -> Qos:
    by_tc: dict[int, list[int]] = defaultdict(list)
    for dscp, tc in sorted(profile.dscp_to_tc.items()):
        by_tc[tc].append(dscp)
    maps = [QosMap(" ".join(str(d) for d in dscps), tc) for tc, dscps in sorted(by_tc.items(), key=lambda i: min(i[1]))]
    queues: list[QosQueue] = []
    ecn = profile.ecn
    for q in sorted(set(profile.queue_bandwidth) | set(profile.strict_queues)):
        queue = QosQueue(q)
        if q in profile.strict_queues:
            queue.strict = True
        else:
            queue.bandwidth_percent = profile.queue_bandwidth[q]
        if q == ecn.queue:
            queue.ecn = (
                f"random-detect ecn minimum-threshold {ecn.min_kbytes} kbytes maximum-threshold "
                f"{ecn.max_kbytes} kbytes max-mark-probability {ecn.max_mark_probability} weight 0"
            )
        queues.append(queue)
    wd = profile.watchdog
    return Qos(
        dscp_maps=maps,
        tc_to_queue=sorted({(tc, tc) for tc in by_tc}),
        watchdog=PfcWatchdog(wd.action, f"{wd.timeout:g}", f"{wd.polling_interval:g}", f"{wd.recovery_time:g}"),
        profile=QosProfileConfig(name, profile.pfc_priority, keyword, queues),
    )


_IFACE_RANK = {"Port-Channel": 0, "Ethernet": 1, "Loopback": 2, "Management": 3, "Vlan": 4}


def _iface_key(name: str) -> tuple[int, int]:
    """EOS's interface order: port-channels, ethernets, loopbacks, management, VLANs.

    Example:
        >>> sorted(["Vlan100", "Ethernet10", "Ethernet9", "Port-Channel1000"], key=_iface_key)
        ['Port-Channel1000', 'Ethernet9', 'Ethernet10', 'Vlan100']
    """
    kind = name.rstrip("0123456789")
    return _IFACE_RANK.get(kind, 9), int(name[len(kind) :] or 0)
