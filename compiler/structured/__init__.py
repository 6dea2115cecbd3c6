"""Structured config: one device's running-config as data, built from the facts that name it.

``structured_config(facts.device(name))`` is the whole of it, section by section
(:mod:`.system`, :mod:`.switching`, :mod:`.interfaces`, :mod:`.routing`, :mod:`.qos`); the
templates render nothing else.

Example:
    >>> from pathlib import Path
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> config = structured_config(build_facts(load_intent(Path("intent"))).device("rack01-mgmt"))
    >>> config.hostname, config.ip_routing, [v.id for v in config.vlans], config.static_routes[0].next_hop
    ('rack01-mgmt', False, [2001, 2501], '172.16.1.1')
"""

from __future__ import annotations

from compiler.facts import DeviceFacts
from compiler.facts.extra import merged_interfaces, parse_block
from compiler.structured import interfaces, management, qos, routing, switching, system
from compiler.structured.model import (
    AaaConfig,
    AclEntry,
    BgpNeighbor,
    BgpPeerGroup,
    DeviceConfig,
    GnmiServer,
    Interface,
    ManagementService,
    Mlag,
    PfcWatchdog,
    PrefixList,
    PrefixListEntry,
    QosConfig,
    QosMap,
    QosProfileConfig,
    QosQueue,
    RouteMapEntry,
    RouterBfd,
    RouterBgp,
    RouterOspf,
    SflowConfig,
    SnmpConfig,
    SpanningTree,
    SslProfile,
    StandardAcl,
    StaticRoute,
    User,
    VlanDef,
    VrfHost,
)

__all__ = [
    "AaaConfig",
    "AclEntry",
    "BgpNeighbor",
    "BgpPeerGroup",
    "DeviceConfig",
    "GnmiServer",
    "Interface",
    "ManagementService",
    "Mlag",
    "PfcWatchdog",
    "PrefixList",
    "PrefixListEntry",
    "QosConfig",
    "QosMap",
    "QosProfileConfig",
    "QosQueue",
    "RouteMapEntry",
    "RouterBfd",
    "RouterBgp",
    "RouterOspf",
    "SflowConfig",
    "SnmpConfig",
    "SpanningTree",
    "SslProfile",
    "StandardAcl",
    "StaticRoute",
    "User",
    "VlanDef",
    "VrfHost",
    "structured_config",
]


def structured_config(facts: DeviceFacts) -> DeviceConfig:
    """The structured config of one switch: a pure function of its facts."""
    vrf = system.management_vrf(facts)
    merged, extra = merged_interfaces(interfaces.interfaces(facts), parse_block(facts.extra_config or ""))
    return DeviceConfig(
        hostname=facts.switch.name,
        users=system.users(facts),
        routing_model=system.routing_model(facts),
        vlan_internal_range=system.vlan_internal_range(facts),
        name_servers=system.name_servers(facts),
        dns_domain=facts.design.site.domain,
        logging_hosts=system.logging_hosts(facts),
        logging_source=system.logging_source(facts),
        spanning_tree=switching.spanning_tree(facts),
        vlans=switching.vlans(facts),
        sflow=management.sflow(facts),
        snmp=management.snmp(facts),
        vrfs=(vrf,) if vrf else (),
        management_api=management.management_api(facts),
        management_gnmi=management.management_gnmi(facts),
        ssl_profiles=management.ssl_profiles(facts),
        aaa=management.aaa(facts),
        interfaces=merged,
        virtual_router_mac=switching.virtual_router_mac(facts),
        access_lists=management.access_lists(facts),
        ip_routing=system.routes_ip(facts),
        no_ip_routing_vrfs=(vrf,) if vrf else (),
        prefix_lists=routing.prefix_lists(facts),
        mlag=switching.mlag(facts),
        static_routes=system.static_routes(facts),
        ntp_servers=system.ntp_servers(facts),
        qos=qos.qos(facts),
        route_maps=routing.route_maps(facts),
        router_bfd=routing.router_bfd(facts),
        router_bgp=routing.router_bgp(facts),
        router_ospf=routing.router_ospf(facts),
        management_ssh=management.management_ssh(facts),
        extra_config=extra,
    )
