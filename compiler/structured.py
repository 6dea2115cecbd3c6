"""The resolved model: one structured config per device, servers, links and allocations.

Templates see only these objects (as plain dicts): every decision is already made here,
so a template change and a data change show up apart in ``generated/structured/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Role = Literal["leaf", "spine", "mgmt", "core"]
Network = Literal["compute", "storage", "management"]
LinkKind = Literal["fabric", "peer-link", "server", "mgmt", "mgmt-uplink"]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One end of a cable: a device (switch or server) and its port."""

    device: str
    port: str


@dataclass(frozen=True, slots=True)
class Link:
    """A cable, both ends, with what each end is configured for."""

    network: Network
    kind: LinkKind
    a: Endpoint
    b: Endpoint
    a_speed: str | None
    b_speed: str | None
    a_mtu: int
    b_mtu: int
    subnet: str | None = None


@dataclass(frozen=True, slots=True)
class Allocation:
    """One address or subnet taken from a pool, and who owns it."""

    network: Network
    pool: str
    prefix: str
    owner: str
    purpose: str


@dataclass(frozen=True, slots=True)
class PoolUse:
    """How full a pool is, in units of its allocation size."""

    network: Network
    name: str
    cidr: str
    unit: str
    used: int
    capacity: int
    highest_index: int


@dataclass(slots=True)
class Interface:
    """An EOS interface; unset fields are not rendered."""

    name: str
    description: str | None = None
    shutdown: bool = False
    mtu: int | None = None
    vrf: str | None = None
    switchport_access_vlan: int | None = None
    switchport_mode: Literal["trunk"] | None = None
    switchport_trunk_allowed_vlan: str | None = None
    switchport_trunk_groups: list[str] = field(default_factory=list)
    routed: bool = False
    channel_group: int | None = None
    mlag: int | None = None
    lacp_fallback_timeout: int | None = None
    no_autostate: bool = False
    ip_address: str | None = None
    virtual_ip: str | None = None
    ospf_point_to_point: bool = False
    qos_trust_dscp: bool = False
    service_profile: str | None = None
    ecn_count_queue: str | None = None
    portfast: bool = False
    bpduguard: bool = False


@dataclass(slots=True)
class User:
    name: str
    privilege: int
    role: str
    secret_ref: str


@dataclass(slots=True)
class VrfHost:
    address: str
    vrf: str | None = None
    prefer: bool = False


@dataclass(slots=True)
class VlanDef:
    id: int
    name: str
    trunk_groups: list[str] = field(default_factory=list)


@dataclass(slots=True)
class QosQueue:
    id: int
    comment: str | None = None
    bandwidth_percent: int | None = None
    strict: bool = False
    ecn: str | None = None


@dataclass(slots=True)
class QosProfileConfig:
    name: str
    pfc_priority: int
    queue_keyword: str
    queues: list[QosQueue]


@dataclass(slots=True)
class QosMap:
    dscps: str
    traffic_class: int


@dataclass(slots=True)
class PfcWatchdog:
    action: str
    timeout: str
    polling_interval: str
    recovery_time: str


@dataclass(slots=True)
class Qos:
    dscp_maps: list[QosMap]
    tc_to_queue: list[tuple[int, int]]
    watchdog: PfcWatchdog
    profile: QosProfileConfig


@dataclass(slots=True)
class SpanningTree:
    mode: Literal["mstp", "none"]
    mst0_priority: int | None = None
    disabled_vlans: str | None = None


@dataclass(slots=True)
class Mlag:
    domain_id: str
    local_interface: str
    peer_address: str
    heartbeat_address: str
    heartbeat_vrf: str
    peer_link: str


@dataclass(slots=True)
class PrefixListEntry:
    seq: int
    action: str
    prefix: str
    eq: int | None = None


@dataclass(slots=True)
class PrefixList:
    name: str
    entries: list[PrefixListEntry]


@dataclass(slots=True)
class RouteMapEntry:
    name: str
    action: str
    seq: int
    description: str | None = None
    match: list[str] = field(default_factory=list)
    set: list[str] = field(default_factory=list)


@dataclass(slots=True)
class StaticRoute:
    prefix: str
    next_hop: str
    vrf: str | None = None


@dataclass(slots=True)
class BgpPeerGroup:
    name: str
    remote_as: int | None = None
    description: str | None = None
    next_hop_self: bool = False
    bfd: bool = False
    send_community: bool = True
    maximum_routes: int | None = None
    route_map_in: str | None = None


@dataclass(slots=True)
class BgpNeighbor:
    address: str
    peer_group: str
    remote_as: int | None = None
    description: str | None = None


@dataclass(slots=True)
class RouterBgp:
    asn: int
    router_id: str
    maximum_paths: int
    peer_groups: list[BgpPeerGroup]
    neighbors: list[BgpNeighbor]
    redistribute_connected_route_map: str


@dataclass(slots=True)
class RouterOspf:
    process: int
    router_id: str
    active_interfaces: list[str]
    networks: list[tuple[str, str]]
    maximum_paths: int
    max_lsa: int


@dataclass(slots=True)
class DeviceConfig:
    """Everything a device's running-config says, in EOS's section order."""

    hostname: str
    users: list[User]
    routing_model: str | None
    vlan_internal_range: str | None
    name_servers: list[VrfHost]
    dns_domain: str | None
    logging_hosts: list[VrfHost]
    logging_source: VrfHost | None
    spanning_tree: SpanningTree
    vlans: list[VlanDef]
    vrfs: list[str]
    management_api_vrf: str | None
    interfaces: list[Interface]
    virtual_router_mac: str | None
    ip_routing: bool
    no_ip_routing_vrfs: list[str]
    prefix_lists: list[PrefixList]
    mlag: Mlag | None
    static_routes: list[StaticRoute]
    ntp_servers: list[VrfHost]
    qos: Qos | None
    route_maps: list[RouteMapEntry]
    router_bgp: RouterBgp | None
    router_ospf: RouterOspf | None
    management_ssh_vrf: str | None
    extra_config: str | None = None


@dataclass(slots=True)
class Device:
    """A switch: identity, where it is, how to reach it, and its structured config."""

    name: str
    role: Role
    network: Network
    model: str
    rack: int
    mgmt_address: str
    redundancy_group: str
    mlag_peer: str | None
    config: DeviceConfig
    used_ports: dict[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ServerNic:
    name: str
    network: Network
    speed: str
    numa: int
    switch: str
    switch_port: str


@dataclass(frozen=True, slots=True)
class ResolvedServer:
    name: str
    model: str
    asset_tag: str
    rack: int
    position: int
    mgmt_address: str
    mgmt_gateway: str
    compute_address: str | None
    compute_gateway: str | None
    storage_address: str | None
    storage_gateway: str | None
    nics: tuple[ServerNic, ...]


@dataclass(frozen=True, slots=True)
class Problem:
    """Something resolution could not place; checks turn it into a finding."""

    rule: str
    subject: str
    message: str


@dataclass(slots=True)
class Fabric:
    """The resolved fabric: every device, server, link and address."""

    digest: str
    devices: dict[str, Device]
    servers: dict[str, ResolvedServer]
    links: list[Link]
    allocations: list[Allocation]
    pools: list[PoolUse]
    problems: list[Problem]
