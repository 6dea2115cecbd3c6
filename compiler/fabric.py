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
from compiler.intent import FabricIntent, FabricFile, Intent, QosProfile, Server, SwitchModel
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
        self.planned: list[_Planned] = []
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
                self.problems.append(Problem("REF002", name, f"extra_config names unknown device {name!r}"))
        return Fabric(
            digest=self.intent.digest,
            devices=dict(sorted(self.devices.items())),
            servers=self._servers(),
            links=sorted(self.links, key=lambda l: (l.a.device, _port_key(l.a.port), l.b.device)),
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
        return [
            _Pair(net, pid, min(racks), (pid - 1) * per + 1)
            for pid, racks in sorted(racks_by_pair.items())
        ]

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
        self.planned.append(planned)
        self.planned_by_name[planned.name] = planned
        self.planned_by_rack[planned.rack].append(planned)

    # ------------------------------------------------------------ management

    def _mgmt_subnet(self, rack: int) -> IPv4Network:
        return nth_subnet(self.spec.management.pool, 24, rack)

    def _management(self) -> None:
        mgmt = self.spec.management
        model = self.spec.switch_models[mgmt.switch_model]
        core_name = mgmt.core.name
        core_model = self.spec.switch_models[mgmt.core.model]
        core_ifaces: dict[str, Interface] = {}
        core_vlans: list[VlanDef] = []
        core_used: dict[int, str] = {}
        for rack in self.intent.racks:
            name = f"rack{rack:02d}-mgmt"
            vlan = mgmt.vlan_base + rack
            subnet = self._mgmt_subnet(rack)
            gateway = host_in(subnet, 1)
            own = host_in(subnet, 2)
            self._allocate("management", "pool", subnet, f"rack{rack:02d}", "rack management subnet")
            self._allocate("management", "pool", own, name, "management switch SVI")
            self._allocate("management", "pool", gateway, core_name, f"gateway of rack {rack}")
            ifaces: dict[str, Interface] = {}
            used: dict[int, str] = {}
            ports = mgmt.switch_ports
            for server in self.servers_by_rack[rack]:
                nic = self.spec.server_models[server.model].nics_on("management")
                if not nic:
                    continue
                port = ports.servers_first + server.position - 1
                if port > ports.servers_last:
                    self._problem("PRT003", name, f"{server.name}: position {server.position} has no server port (ports {ports.servers_first}-{ports.servers_last})")
                    continue
                address = host_in(subnet, MGMT_SERVER_OFFSET + server.position)
                self._allocate("management", "pool", address, server.name, "server management")
                self.server_addr[server.name, "management"] = (str(address), str(gateway.ip))
                self._access_port(ifaces, used, port, f"SERVER_{server.name}_{nic[0].name}", vlan)
                self._cable("management", "server", name, eth(port), model.speed_of(port), server.name, nic[0].name, nic[0].speed, MGMT_MTU, MGMT_MTU)
                self.server_nics[server.name].append(ServerNic(nic[0].name, "management", nic[0].speed, nic[0].numa, name, eth(port)))
            for planned in self.planned_by_rack[rack]:
                port = ports.devices_first + planned.slot - 1
                if port > ports.devices_last:
                    self._problem("PRT003", name, f"{planned.name}: slot {planned.slot} has no device port (ports {ports.devices_first}-{ports.devices_last})")
                    continue
                address = host_in(subnet, 2 + planned.slot)
                self._allocate("management", "pool", address, planned.name, "Management1")
                self._access_port(ifaces, used, port, f"MGMT_{planned.name}_Management1", vlan)
                planned_model = self._fabric_model(planned)
                self._cable("management", "mgmt", name, eth(port), model.speed_of(port), planned.name, "Management1", "1g" if planned_model else None, MGMT_MTU, MGMT_MTU)
            uplink = mgmt.switch_uplink_port
            used[uplink] = f"uplink to {core_name}"
            ifaces[eth(uplink)] = Interface(
                eth(uplink),
                description=f"UPLINK_{core_name}_{eth(rack)}",
                mtu=self.spec.mtu.switch,
                switchport_mode="trunk",
                switchport_trunk_allowed_vlan=str(vlan),
            )
            self._cable("management", "mgmt-uplink", name, eth(uplink), model.speed_of(uplink), core_name, eth(rack), core_model.speed_of(rack), self.spec.mtu.switch, self.spec.mtu.switch)
            ifaces[f"Vlan{vlan}"] = Interface(f"Vlan{vlan}", description=f"MGMT_RACK{rack:02d}", ip_address=str(own))
            config = self._base_config(name, vrf=None, routing=False)
            config.spanning_tree = SpanningTree("mstp")
            config.vlans = [VlanDef(vlan, f"MGMT_RACK{rack:02d}")]
            config.interfaces = self._all_ports(name, model, ifaces, used)
            config.static_routes = [StaticRoute("0.0.0.0/0", str(gateway.ip))]
            self._add(Device(name, "mgmt", "management", mgmt.switch_model, rack, str(own.ip), f"mgmt-rack{rack:02d}", None, config, used))
            # the core side of this rack
            core_used[rack] = f"rack {rack} management switch"
            core_ifaces[eth(rack)] = Interface(
                eth(rack),
                description=f"DOWNLINK_{name}_{eth(uplink)}",
                mtu=self.spec.mtu.switch,
                switchport_mode="trunk",
                switchport_trunk_allowed_vlan=str(vlan),
            )
            core_vlans.append(VlanDef(vlan, f"MGMT_RACK{rack:02d}"))
            core_ifaces[f"Vlan{vlan}"] = Interface(f"Vlan{vlan}", description=f"GW_MGMT_RACK{rack:02d}", ip_address=str(gateway))
        up = mgmt.upstream
        core_addr = host_in(up.subnet, 2)
        self._allocate("management", "upstream", up.subnet, core_name, "upstream transit")
        self._allocate("management", "upstream", core_addr, core_name, "upstream")
        core_used[mgmt.core.upstream_port] = "upstream"
        core_ifaces[eth(mgmt.core.upstream_port)] = Interface(
            eth(mgmt.core.upstream_port), description="UPSTREAM_SITE", routed=True, ip_address=str(core_addr)
        )
        config = self._base_config(core_name, vrf=None, routing=True)
        config.spanning_tree = SpanningTree("mstp")
        config.vlans = core_vlans
        config.interfaces = self._all_ports(core_name, core_model, core_ifaces, core_used)
        config.static_routes = [StaticRoute("0.0.0.0/0", str(up.gateway))]
        self._add(Device(core_name, "core", "management", mgmt.core.model, mgmt.core.rack, str(core_addr.ip), "mgmt-core", None, config, core_used))
        self._pool_use("management", "pool", mgmt.pool, "/24 per rack", 24, max(self.intent.racks, default=0))

    def _fabric_model(self, planned: _Planned) -> SwitchModel:
        fab = self.spec.fabrics[planned.network]  # type: ignore[index]
        name = fab.leaves.model if planned.role == "leaf" else fab.spines.model
        return self.spec.switch_models[name]

    def _access_port(self, ifaces: dict[str, Interface], used: dict[int, str], port: int, description: str, vlan: int) -> None:
        used[port] = description
        ifaces[eth(port)] = Interface(
            eth(port), description=description, switchport_access_vlan=vlan, portfast=True, bpduguard=True
        )

    # ------------------------------------------------------------ spine-leaf

    def _spine_leaf(self, net: Network, fab: FabricIntent) -> None:
        spec = self.spec
        pools = fab.pools
        routing = spec.routing_profiles[fab.routing]
        qos_profile = spec.qos_profiles.get(fab.qos) if fab.qos else None
        vlan = spec.vlans[fab.vlan]
        leaf_model = spec.switch_models[fab.leaves.model]
        spine_model = spec.switch_models[fab.spines.model]
        spine_count = fab.spines.count
        uplinks = min(fab.leaves.uplinks_per_leaf or spine_count, spine_count, len(fab.leaves.uplink_ports))
        spines = [f"{fab.spines.name_prefix}{s:02d}" for s in range(1, spine_count + 1)]
        spine_ifaces: dict[str, dict[str, Interface]] = {s: {} for s in spines}
        spine_used: dict[str, dict[int, str]] = {s: {} for s in spines}
        spine_neighbors: dict[str, list[BgpNeighbor]] = {s: [] for s in spines}
        spine_active: dict[str, list[str]] = {s: [] for s in spines}
        bgp = routing.bgp
        max_index = 0
        for pair in self.pairs[net]:
            hosts = nth_subnet(pools.hosts, 24, pair.id)
            vip = host_in(hosts, 1)
            peer_sub = p2p_link(pools.mlag_peer, pair.id - 1)
            l3_sub = p2p_link(pools.mlag_l3, pair.id - 1)
            names = [leaf_name(pair.rack, fab.leaves.name_suffix, s) for s in SIDES]
            self._allocate(net, "hosts", hosts, f"{net}-pair{pair.id:02d}", "server subnet")
            self._allocate(net, "hosts", vip, f"{net}-pair{pair.id:02d}", "virtual-router gateway")
            leaf_asn = bgp.leaf_asn_base + pair.id if bgp else None
            for side, name in enumerate(names):
                peer = names[1 - side]
                index = pair.leaf_index(side)
                max_index = max(max_index, index)
                ifaces: dict[str, Interface] = {}
                used: dict[int, str] = {}
                loopback = host_address(pools.loopbacks, LEAF_LOOPBACK_OFFSET + index)
                self._allocate(net, "loopbacks", IPv4Interface((loopback, 32)), name, "Loopback0")
                svi = host_in(hosts, 2 + side)
                self._allocate(net, "hosts", svi, name, f"Vlan{vlan.id}")
                self._allocate(net, "mlag_peer", peer_sub[side], name, f"Vlan{MLAG_PEER_VLAN}")
                self._allocate(net, "mlag_l3", l3_sub[side], name, f"Vlan{MLAG_L3_VLAN}")
                # uplinks, one per spine
                neighbors: list[BgpNeighbor] = []
                active: list[str] = []
                for s in range(1, uplinks + 1):
                    spine = spines[s - 1]
                    link_index = (index - 1) * spine_count + (s - 1)
                    spine_end, leaf_end = p2p_link(pools.p2p, link_index)
                    self._allocate(net, "p2p", spine_end, spine, f"P2P to {name}")
                    self._allocate(net, "p2p", leaf_end, name, f"P2P to {spine}")
                    leaf_port = fab.leaves.uplink_ports[s - 1]
                    spine_port = index
                    used[leaf_port] = f"uplink to {spine}"
                    spine_used[spine][spine_port] = f"downlink to {name}"
                    ifaces[eth(leaf_port)] = self._p2p_iface(eth(leaf_port), f"P2P_{spine}_{eth(spine_port)}", leaf_end, routing.protocol, qos_profile, leaf_model, "LEAF")
                    spine_ifaces[spine][eth(spine_port)] = self._p2p_iface(eth(spine_port), f"P2P_{name}_{eth(leaf_port)}", spine_end, routing.protocol, qos_profile, spine_model, "SPINE")
                    self._cable(net, "fabric", name, eth(leaf_port), leaf_model.speed_of(leaf_port), spine, eth(spine_port), spine_model.speed_of(spine_port), self.spec.mtu.switch, self.spec.mtu.switch, str(spine_end.network))
                    neighbors.append(BgpNeighbor(str(spine_end.ip), "IPv4-UNDERLAY-PEERS", None, f"{spine}_{eth(spine_port)}"))
                    spine_neighbors[spine].append(BgpNeighbor(str(leaf_end.ip), "IPv4-UNDERLAY-PEERS", leaf_asn, f"{name}_{eth(leaf_port)}"))
                    active.append(eth(leaf_port))
                    spine_active[spine].append(eth(spine_port))
                # MLAG peer link
                for port in fab.leaves.peer_link_ports:
                    used[port] = f"peer-link to {peer}"
                    ifaces[eth(port)] = self._qos_iface(
                        Interface(eth(port), description=f"MLAG_PEER_{peer}_{eth(port)}", channel_group=PEER_LINK_CHANNEL),
                        qos_profile, leaf_model, "LEAF",
                    )
                    if side == 0:
                        self._cable(net, "peer-link", name, eth(port), leaf_model.speed_of(port), peer, eth(port), leaf_model.speed_of(port), self.spec.mtu.switch, self.spec.mtu.switch)
                ifaces[f"Port-Channel{PEER_LINK_CHANNEL}"] = Interface(
                    f"Port-Channel{PEER_LINK_CHANNEL}",
                    description=f"MLAG_PEER_{peer}_Po{PEER_LINK_CHANNEL}",
                    mtu=self.spec.mtu.switch,
                    switchport_mode="trunk",
                    switchport_trunk_groups=["MLAG"],
                )
                # servers
                for server in self.members_by_pair[net, pair.id]:
                    self._server_port(net, fab, pair, side, name, server, vlan.id, hosts, vip, qos_profile, leaf_model, ifaces, used)
                ifaces["Loopback0"] = Interface("Loopback0", description="ROUTER_ID", ip_address=f"{loopback}/32")
                ifaces[f"Vlan{vlan.id}"] = Interface(
                    f"Vlan{vlan.id}", description=f"{vlan.name}_GW", mtu=self.spec.mtu.switch,
                    ip_address=str(svi), virtual_ip=str(vip.ip),
                )
                ifaces[f"Vlan{MLAG_L3_VLAN}"] = Interface(
                    f"Vlan{MLAG_L3_VLAN}", description="MLAG_L3_PEER", mtu=self.spec.mtu.switch,
                    ip_address=str(l3_sub[side]), ospf_point_to_point=routing.protocol == "ospf",
                )
                ifaces[f"Vlan{MLAG_PEER_VLAN}"] = Interface(
                    f"Vlan{MLAG_PEER_VLAN}", description="MLAG_PEER", mtu=self.spec.mtu.switch,
                    no_autostate=True, ip_address=str(peer_sub[side]),
                )
                rack_mgmt = self._mgmt_address(name)
                peer_mgmt = self._mgmt_address(peer)
                config = self._fabric_config(name, rack_mgmt, loopback, "LEAF", qos_profile, leaf_model)
                config.spanning_tree = SpanningTree("mstp", 4096, f"{MLAG_L3_VLAN}-{MLAG_PEER_VLAN}")
                config.vlans = [
                    VlanDef(vlan.id, vlan.name, ["MLAG"]),
                    VlanDef(MLAG_L3_VLAN, "MLAG_L3_PEER", ["MLAG"]),
                    VlanDef(MLAG_PEER_VLAN, "MLAG_PEER", ["MLAG"]),
                ]
                config.interfaces = self._all_ports(name, leaf_model, ifaces, used)
                config.virtual_router_mac = fab.virtual_router_mac
                config.mlag = Mlag(
                    domain_id=f"{net.upper()}_PAIR{pair.id:02d}",
                    local_interface=f"Vlan{MLAG_PEER_VLAN}",
                    peer_address=str(peer_sub[1 - side].ip),
                    heartbeat_address=peer_mgmt.split("/")[0] if peer_mgmt else "0.0.0.0",
                    heartbeat_vrf=MGMT_VRF,
                    peer_link=f"Port-Channel{PEER_LINK_CHANNEL}",
                )
                if routing.protocol == "ebgp" and bgp is not None and leaf_asn is not None:
                    neighbors.append(BgpNeighbor(str(l3_sub[1 - side].ip), "MLAG-IPv4-UNDERLAY-PEER"))
                    config.prefix_lists = [
                        PrefixList("PL-LOOPBACKS", [PrefixListEntry(10, "permit", str(pools.loopbacks), 32)]),
                        PrefixList("PL-HOST-SUBNETS", [PrefixListEntry(10, "permit", str(pools.hosts), 24)]),
                    ]
                    config.route_maps = [
                        RouteMapEntry("RM-CONN-2-BGP", "permit", 10, match=["ip address prefix-list PL-LOOPBACKS"]),
                        RouteMapEntry("RM-CONN-2-BGP", "permit", 20, match=["ip address prefix-list PL-HOST-SUBNETS"]),
                        RouteMapEntry("RM-MLAG-PEER-IN", "permit", 10, description="Make routes learned over the MLAG peer-link less preferred", set=["origin incomplete"]),
                    ]
                    config.bfd = True
                    config.router_bgp = RouterBgp(
                        asn=leaf_asn,
                        router_id=str(loopback),
                        maximum_paths=spine_count,
                        peer_groups=[
                            BgpPeerGroup("IPv4-UNDERLAY-PEERS", remote_as=bgp.spine_asn, bfd=True, maximum_routes=bgp.maximum_routes),
                            BgpPeerGroup("MLAG-IPv4-UNDERLAY-PEER", remote_as=leaf_asn, description=peer, next_hop_self=True, maximum_routes=bgp.maximum_routes, route_map_in="RM-MLAG-PEER-IN"),
                        ],
                        neighbors=neighbors,
                        redistribute_connected_route_map="RM-CONN-2-BGP",
                    )
                else:
                    ospf = routing.ospf
                    config.router_ospf = RouterOspf(
                        process=ospf.process,
                        router_id=str(loopback),
                        active_interfaces=[*active, f"Vlan{MLAG_L3_VLAN}"],
                        networks=[(str(p), str(ospf.area)) for p in (pools.loopbacks, pools.p2p, pools.mlag_l3, pools.hosts)],
                        maximum_paths=spine_count,
                        max_lsa=ospf.max_lsa,
                    )
                self._add(Device(name, "leaf", net, fab.leaves.model, pair.rack, rack_mgmt.split("/")[0], f"{net}-pair{pair.id:02d}", peer, config, used))
        # spines
        for s, spine in enumerate(spines, start=1):
            loopback = host_address(pools.loopbacks, s)
            self._allocate(net, "loopbacks", IPv4Interface((loopback, 32)), spine, "Loopback0")
            ifaces = spine_ifaces[spine]
            ifaces["Loopback0"] = Interface("Loopback0", description="ROUTER_ID", ip_address=f"{loopback}/32")
            mgmt_address = self._mgmt_address(spine)
            config = self._fabric_config(spine, mgmt_address, loopback, "SPINE", qos_profile, spine_model)
            config.spanning_tree = SpanningTree("none")
            config.interfaces = self._all_ports(spine, spine_model, ifaces, spine_used[spine])
            if routing.protocol == "ebgp" and bgp is not None:
                config.prefix_lists = [PrefixList("PL-LOOPBACKS", [PrefixListEntry(10, "permit", str(pools.loopbacks), 32)])]
                config.route_maps = [RouteMapEntry("RM-CONN-2-BGP", "permit", 10, match=["ip address prefix-list PL-LOOPBACKS"])]
                config.bfd = True
                config.router_bgp = RouterBgp(
                    asn=bgp.spine_asn,
                    router_id=str(loopback),
                    maximum_paths=spine_count,
                    peer_groups=[BgpPeerGroup("IPv4-UNDERLAY-PEERS", bfd=True, maximum_routes=bgp.maximum_routes)],
                    neighbors=spine_neighbors[spine],
                    redistribute_connected_route_map="RM-CONN-2-BGP",
                )
            else:
                ospf = routing.ospf
                config.router_ospf = RouterOspf(
                    process=ospf.process,
                    router_id=str(loopback),
                    active_interfaces=spine_active[spine],
                    networks=[(str(p), str(ospf.area)) for p in (pools.loopbacks, pools.p2p)],
                    maximum_paths=spine_count,
                    max_lsa=ospf.max_lsa,
                )
            self._add(Device(spine, "spine", net, fab.spines.model, fab.spines.rack, mgmt_address.split("/")[0], f"{net}-spines", None, config, spine_used[spine]))
        highest_pair = max((p.id for p in self.pairs[net]), default=0)
        self._pool_use(net, "hosts", pools.hosts, "/24 per leaf pair", 24, highest_pair + 1)
        self._pool_use(net, "p2p", pools.p2p, "/31 per leaf-spine link", 31, max_index * spine_count)
        self._pool_use(net, "mlag_peer", pools.mlag_peer, "/31 per leaf pair", 31, highest_pair)
        self._pool_use(net, "mlag_l3", pools.mlag_l3, "/31 per leaf pair", 31, highest_pair)
        self._pool_use(net, "loopbacks", pools.loopbacks, "/32 per switch", 32, LEAF_LOOPBACK_OFFSET + max_index + 1)

    def _server_port(
        self, net: Network, fab: FabricIntent, pair: _Pair, side: int, leaf: str, server: Server,
        vlan: int, hosts: IPv4Network, vip: IPv4Interface, qos_profile: QosProfile | None,
        model: SwitchModel, ifaces: dict[str, Interface], used: dict[int, str],
    ) -> None:
        nics = self.spec.server_models[server.model].nics_on(net)
        if side >= len(nics):
            return
        nic = nics[side]
        per_rack = fab.leaves.ports_per_rack
        if server.position > per_rack:
            self._problem("PRT002", leaf, f"{server.name}: position {server.position} exceeds ports_per_rack {per_rack} of fabrics.{net}.leaves")
            return
        index = (server.rack - pair.first_rack) * per_rack + server.position
        port = index
        if side == 0:
            address = host_in(hosts, SERVER_HOST_OFFSET + index)
            self._allocate(net, "hosts", address, server.name, f"{net} bond")
            self.server_addr[server.name, net] = (str(address), str(vip.ip))
        description = f"SERVER_{server.name}_{nic.name}"
        used[port] = description
        member = Interface(eth(port), description=description, mtu=self.spec.mtu.switch)
        if fab.bonding == "lacp":
            member.channel_group = port
            ifaces[f"Port-Channel{port}"] = Interface(
                f"Port-Channel{port}",
                description=f"SERVER_{server.name}_bond0",
                mtu=self.spec.mtu.switch,
                switchport_access_vlan=vlan,
                mlag=port,
                lacp_fallback_timeout=30,
                portfast=True,
                bpduguard=True,
            )
            member.mtu = None
        else:
            member.switchport_access_vlan = vlan
            member.portfast = True
            member.bpduguard = True
        ifaces[eth(port)] = self._qos_iface(member, qos_profile, model, "LEAF")
        self._cable(net, "server", leaf, eth(port), model.speed_of(port), server.name, nic.name, nic.speed, self.spec.mtu.switch, self.spec.mtu.host)
        self.server_nics[server.name].append(ServerNic(nic.name, net, nic.speed, nic.numa, leaf, eth(port)))

    def _p2p_iface(
        self, name: str, description: str, address: IPv4Interface, protocol: str,
        qos_profile: QosProfile | None, model: SwitchModel, role: str,
    ) -> Interface:
        iface = Interface(
            name, description=description, mtu=self.spec.mtu.switch, routed=True,
            ip_address=str(address), ospf_point_to_point=protocol == "ospf",
        )
        return self._qos_iface(iface, qos_profile, model, role)

    def _qos_iface(self, iface: Interface, qos_profile: QosProfile | None, model: SwitchModel, role: str) -> Interface:
        if qos_profile is not None:
            iface.qos_trust_dscp = True
            iface.service_profile = self._qos_profile_name(role)
            iface.ecn_count_queue = f"{model.queue_keyword} {qos_profile.ecn.queue}"
        return iface

    def _qos_profile_name(self, role: str) -> str:
        return f"ROCE-{role}"

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
            bfd=False,
            router_bgp=None,
            router_ospf=None,
            management_ssh_vrf=vrf,
        )

    def _fabric_config(
        self, name: str, mgmt: str, loopback: IPv4Address, role: str, qos_profile: QosProfile | None, model: SwitchModel
    ) -> DeviceConfig:
        config = self._base_config(name, vrf=MGMT_VRF, routing=True)
        config.vlan_internal_range = "1006 1199"
        config.static_routes = []
        if mgmt:
            gateway = host_in(IPv4Interface(mgmt).network, 1)
            config.static_routes = [StaticRoute("0.0.0.0/0", str(gateway.ip), MGMT_VRF)]
        config.interfaces = [Interface("Management1", description="OOB_MANAGEMENT", vrf=MGMT_VRF, ip_address=mgmt or None)]
        if qos_profile is not None:
            config.qos = _qos(qos_profile, self._qos_profile_name(role), model.queue_keyword)
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

    def _all_ports(self, device: str, model: SwitchModel, ifaces: dict[str, Interface], used: dict[int, str]) -> list[Interface]:
        """Every front-panel port (EOS lists them all); unused ones shut down."""
        for port in range(1, model.port_count + 1):
            if model.speed_of(port) is not None and eth(port) not in ifaces:
                ifaces[eth(port)] = Interface(eth(port), shutdown=True)
        for port in used:
            if model.speed_of(port) is None:
                self._problem("PRT001", device, f"{device}: port {port} is used ({used[port]}) but its model has ports 1-{model.port_count}")
        return sorted(ifaces.values(), key=lambda i: _iface_key(i.name))

    # ------------------------------------------------------------ bookkeeping

    def _add(self, device: Device) -> None:
        if device.name in self.devices:
            self._problem("ADR001", device.name, f"device name {device.name!r} is used twice")
        self.devices[device.name] = device

    def _problem(self, rule: str, subject: str, message: str) -> None:
        self.problems.append(Problem(rule, subject, message))

    def _allocate(self, net: Network, pool: str, prefix: IPv4Interface | IPv4Network, owner: str, purpose: str) -> None:
        self.allocations.append(Allocation(net, pool, str(prefix), owner, purpose))

    def _pool_use(self, net: Network, name: str, pool: IPv4Network, unit: str, prefixlen: int, highest: int) -> None:
        """Record how many ``prefixlen`` units of ``pool`` hold an allocation."""
        units = set()
        for a in self.allocations:
            if a.network == net and a.pool == name:
                network = IPv4Interface(a.prefix).network
                units.add(network.supernet(new_prefix=prefixlen) if network.prefixlen > prefixlen else network)
        self.pools.append(PoolUse(net, name, str(pool), unit, len(units), subnet_capacity(pool, prefixlen), highest))

    def _cable(
        self, net: Network, kind: str, a_dev: str, a_port: str, a_speed: str | None,
        b_dev: str, b_port: str, b_speed: str | None, a_mtu: int, b_mtu: int, subnet: str | None = None,
    ) -> None:
        self.links.append(Link(net, kind, Endpoint(a_dev, a_port), Endpoint(b_dev, b_port), a_speed, b_speed, a_mtu, b_mtu, subnet))  # type: ignore[arg-type]

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
    return _IFACE_RANK.get(kind, 9), int(name[len(kind):] or 0)


def _port_key(port: str) -> tuple[str, int]:
    kind = port.rstrip("0123456789")
    return kind, int(port[len(kind):] or 0)
