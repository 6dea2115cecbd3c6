"""The structured config of a device: every section of its running-config, as data.

Templates see only this (as the plain data of ``generated/structured/<device>.yaml``, unset
fields absent): every decision is already made, so a template change and a data change show
up apart. Field order is the order of the keys in the YAML.
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from typing import Literal, NamedTuple


class Interface(NamedTuple):
    """An EOS interface; unset fields are not rendered."""

    name: str
    description: str | None = None
    shutdown: bool = False
    mtu: int | None = None
    speed: str | None = None
    """The ``speed`` keyword of a breakout lane (``100g-2``); unset in a cage's default mode."""
    error_correction: str | None = None
    """The forward error correction line (``error-correction encoding reed-solomon``)."""
    vrf: str | None = None
    switchport_access_vlan: int | None = None
    switchport_trunk_native_vlan: int | None = None
    switchport_mode: Literal["trunk"] | None = None
    switchport_trunk_allowed_vlan: str | None = None
    switchport_trunk_groups: tuple[str, ...] = ()
    routed: bool = False
    channel_group: int | None = None
    mlag: int | None = None
    lacp_fallback_timeout: int | None = None
    no_autostate: bool = False
    ip_address: str | None = None
    virtual_ip: str | None = None
    no_lldp_transmit: bool = False
    no_lldp_receive: bool = False
    ospf_point_to_point: bool = False
    qos_trust_dscp: bool = False
    service_profile: str | None = None
    ecn_count_queue: str | None = None
    storm_control: tuple[tuple[str, str], ...] = ()
    """(traffic kind, level in percent of the port's speed)."""
    portfast: bool = False
    bpduguard: bool = False
    extra: tuple[str, ...] = ()
    """Lines of ``extra_config`` in this interface's section that no field holds, as written."""


_SPEED = Interface._fields.index("speed")


def with_speed(iface: Interface, speed: str) -> Interface:
    """``iface._replace(speed=speed)`` at a third of its cost: every used breakout lane of the
    fleet takes its ``speed`` keyword this way (tens of thousands at 16x).

    Example:
        >>> with_speed(Interface("Ethernet1/3", mtu=9214), "100g-2")[:5]
        ('Ethernet1/3', None, False, 9214, '100g-2')
    """
    return Interface._make((*iface[:_SPEED], speed, *iface[_SPEED + 1 :]))


class User(NamedTuple):
    name: str
    privilege: int
    role: str
    secret_ref: str


class VrfHost(NamedTuple):
    address: str
    vrf: str | None = None
    prefer: bool = False


class VlanDef(NamedTuple):
    id: int
    name: str
    trunk_groups: tuple[str, ...] = ()


class AclEntry(NamedTuple):
    seq: int
    action: str
    source: str
    """As EOS prints it: ``host 172.20.0.40`` or ``172.20.0.0/24``."""


class StandardAcl(NamedTuple):
    """An ``ip access-list standard``: the sources one management service accepts."""

    name: str
    entries: tuple[AclEntry, ...]


class ManagementService(NamedTuple):
    """eAPI or SSH: the VRF it serves in and the ACL that guards it."""

    vrf: str
    """The management VRF, or ``default``."""
    access_group: str | None = None
    default_vrf: bool = False
    """Whether ``vrf`` is the default VRF (EOS names none for SSH's ACL there)."""


class GnmiServer(NamedTuple):
    """``management api gnmi``: one gRPC transport, TLS, in the management VRF, behind its ACL."""

    transport: str
    ssl_profile: str
    port: int | None = None
    """Set when it is not EOS's default (6030), which EOS does not print."""
    vrf: str | None = None
    access_group: str | None = None


class SslProfile(NamedTuple):
    """A ``management security`` SSL profile: the switch's certificate and key files."""

    name: str
    certificate: str
    key: str


class AaaConfig(NamedTuple):
    """Remote AAA: the servers (their key a secret reference), the group, the method lists."""

    protocol: Literal["tacacs+", "radius"]
    server_keyword: str
    """``tacacs-server`` or ``radius-server``."""
    servers: tuple[VrfHost, ...]
    key_ref: str
    group: str
    tacacs_source: VrfHost | None
    """The interface (and VRF) TACACS+ requests leave from (EOS prints it near the end)."""
    radius_source: VrfHost | None
    """The interface (and VRF) RADIUS requests leave from (EOS prints it after PFC)."""
    authentication: tuple[str, ...]
    authorization: tuple[str, ...]
    accounting: tuple[str, ...]


class SnmpConfig(NamedTuple):
    """SNMPv3 with authentication and privacy: view, group, user (secret passphrases), hosts."""

    view: str
    group: str
    user: str
    auth: str
    auth_ref: str
    priv: str
    priv_ref: str
    hosts: tuple[VrfHost, ...]
    vrf: str | None
    local_interface: str | None


class SflowConfig(NamedTuple):
    sample_rate: int
    destinations: tuple[VrfHost, ...]
    source: VrfHost | None


class QosQueue(NamedTuple):
    id: int
    comment: str | None = None
    bandwidth_percent: int | None = None
    strict: bool = False
    ecn: str | None = None


class QosProfileConfig(NamedTuple):
    """The per-port QoS of the RoCE ports of one speed (its queues mark ECN with that speed's band)."""

    name: str
    speed: str
    pfc_priority: int
    pfc_watchdog: bool
    queue_keyword: str
    queues: tuple[QosQueue, ...]


class QosMap(NamedTuple):
    dscps: str
    traffic_class: int


class PfcWatchdog(NamedTuple):
    action: str
    timeout: str
    polling_interval: str
    recovery_time: str


class QosConfig(NamedTuple):
    dscp_maps: tuple[QosMap, ...]
    tc_to_queue: tuple[tuple[int, int], ...]
    watchdog: PfcWatchdog
    profiles: tuple[QosProfileConfig, ...]
    """One per speed of the switch's RoCE ports, by speed."""


class SpanningTree(NamedTuple):
    mode: str
    mst0_priority: int | None = None
    disabled_vlans: str | None = None


class Mlag(NamedTuple):
    domain_id: str
    local_interface: str
    peer_address: str
    heartbeat_address: str
    heartbeat_vrf: str
    peer_link: str


class PrefixListEntry(NamedTuple):
    seq: int
    action: str
    prefix: str
    eq: int | None = None


class PrefixList(NamedTuple):
    name: str
    entries: tuple[PrefixListEntry, ...]


class RouteMapEntry(NamedTuple):
    name: str
    action: str
    seq: int
    description: str | None = None
    match: tuple[str, ...] = ()
    set: tuple[str, ...] = ()


class StaticRoute(NamedTuple):
    prefix: str
    next_hop: str
    vrf: str | None = None


class BgpPeerGroup(NamedTuple):
    name: str
    remote_as: int | None = None
    description: str | None = None
    next_hop_self: bool = False
    bfd: bool = False
    send_community: bool = True
    maximum_routes: int | None = None
    route_map_in: str | None = None


class BgpNeighbor(NamedTuple):
    address: str
    peer_group: str
    remote_as: int | None = None
    description: str | None = None


class RouterBgp(NamedTuple):
    asn: int
    router_id: str
    maximum_paths: int
    peer_groups: tuple[BgpPeerGroup, ...]
    neighbors: tuple[BgpNeighbor, ...]
    redistribute_connected_route_map: str


class RouterBfd(NamedTuple):
    """The BFD timers every session of the switch uses (``router bfd``)."""

    interval: int
    min_rx: int
    multiplier: int


class RouterOspf(NamedTuple):
    process: int
    router_id: str
    bfd_default: bool
    active_interfaces: tuple[str, ...]
    networks: tuple[tuple[str, str], ...]
    maximum_paths: int
    max_lsa: int


class DeviceConfig(NamedTuple):
    """Everything a device's running-config says, in EOS's section order."""

    hostname: str
    users: tuple[User, ...]
    routing_model: str | None
    vlan_internal_range: str | None
    name_servers: tuple[VrfHost, ...]
    dns_domain: str | None
    logging_hosts: tuple[VrfHost, ...]
    logging_source: VrfHost | None
    spanning_tree: SpanningTree
    vlans: tuple[VlanDef, ...]
    sflow: SflowConfig | None
    snmp: SnmpConfig | None
    vrfs: tuple[str, ...]
    management_api: ManagementService
    management_gnmi: GnmiServer | None
    ssl_profiles: tuple[SslProfile, ...]
    aaa: AaaConfig | None
    interfaces: tuple[Interface, ...]
    virtual_router_mac: str | None
    access_lists: tuple[StandardAcl, ...]
    ip_routing: bool
    no_ip_routing_vrfs: tuple[str, ...]
    prefix_lists: tuple[PrefixList, ...]
    mlag: Mlag | None
    static_routes: tuple[StaticRoute, ...]
    ntp_servers: tuple[VrfHost, ...]
    qos: QosConfig | None
    route_maps: tuple[RouteMapEntry, ...]
    router_bfd: RouterBfd | None
    router_bgp: RouterBgp | None
    router_ospf: RouterOspf | None
    management_ssh: ManagementService
    extra_config: str | None = None
