"""The routing sections of a fabric switch: prefix lists, route maps, router bfd, router bgp,
router ospf.

eBGP: one peer group for the underlay (BFD, a route limit), on leaves a second for the MLAG
peer (next-hop-self, its routes made less preferred); connected routes are redistributed
through a route map that admits only the loopbacks (and on leaves the hosts subnet). The names
are the routing profile's (``routing_profiles.<name>.bgp``). BFD runs on the underlay peer group
(eBGP) or on every OSPF neighbor (``bfd default``), with the profile's timers in ``router bfd``.

Example:
    >>> from pathlib import Path
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> facts = build_facts(load_intent(Path("intent"))).device("rack01-stor-leaf-a")
    >>> bgp = router_bgp(facts)
    >>> bgp.asn, [g.name for g in bgp.peer_groups]
    (65201, ['IPv4-UNDERLAY-PEERS', 'MLAG-IPv4-UNDERLAY-PEER'])
    >>> [(n.address, n.peer_group, n.description) for n in bgp.neighbors][0]
    ('10.41.4.0', 'IPv4-UNDERLAY-PEERS', 'stor-spine01_Ethernet1/1')
    >>> [(m.name, m.seq) for m in route_maps(facts)]
    [('RM-CONN-2-BGP', 10), ('RM-CONN-2-BGP', 20), ('RM-MLAG-PEER-IN', 10)]
"""

from __future__ import annotations

from compiler.facts import DeviceFacts
from compiler.facts.routing import SwitchRouting
from compiler.intent import BgpSettings, RoutingProfile
from compiler.platforms import eos
from compiler.structured.model import (
    BgpNeighbor,
    BgpPeerGroup,
    PrefixList,
    PrefixListEntry,
    RouteMapEntry,
    RouterBfd,
    RouterBgp,
    RouterOspf,
)

MLAG_PEER_IN_DESCRIPTION = "Make routes learned over the MLAG peer-link less preferred"
MLAG_PEER_IN_ORIGIN = "incomplete"
"""The origin that makes a route learned from the MLAG peer lose to the same route from a spine."""


def _profile(facts: DeviceFacts) -> RoutingProfile:
    spec = facts.design.fabrics[facts.switch.network]  # type: ignore[index]
    return facts.design.routing_profiles[spec.routing]


def _bgp(facts: DeviceFacts) -> tuple[SwitchRouting, BgpSettings] | None:
    routing = facts.routing
    bgp = _profile(facts).bgp if routing is not None else None
    if routing is None or routing.protocol != "ebgp" or bgp is None or routing.asn is None:
        return None
    return routing, bgp


def prefix_lists(facts: DeviceFacts) -> tuple[PrefixList, ...]:
    """One prefix list per prefix family redistributed into BGP."""
    found = _bgp(facts)
    if found is None:
        return ()
    routing, bgp = found
    names = {"loopbacks": bgp.loopbacks_prefix_list, "hosts": bgp.hosts_prefix_list}
    return tuple(
        PrefixList(names[pool], (PrefixListEntry(10, "permit", prefix, length),))
        for pool, prefix, length in routing.advertised
    )


def route_maps(facts: DeviceFacts) -> tuple[RouteMapEntry, ...]:
    """Connected routes admitted by the prefix lists; on leaves, the MLAG peer's routes demoted."""
    found = _bgp(facts)
    if found is None:
        return ()
    bgp = found[1]
    maps = [
        RouteMapEntry(bgp.redistribute_route_map, "permit", 10 * (i + 1), match=(eos.match_prefix_list(p.name),))
        for i, p in enumerate(prefix_lists(facts))
    ]
    if facts.switch.role == "leaf":
        origin = (eos.set_origin(MLAG_PEER_IN_ORIGIN),)
        maps.append(RouteMapEntry(bgp.mlag_route_map, "permit", 10, description=MLAG_PEER_IN_DESCRIPTION, set=origin))
    return tuple(maps)


def router_bgp(facts: DeviceFacts) -> RouterBgp | None:
    """eBGP to the other tier, iBGP to the MLAG peer over the peer-link."""
    found = _bgp(facts)
    if found is None:
        return None
    routing, bgp = found
    assert routing.asn is not None
    underlay = BgpPeerGroup(
        bgp.underlay_peer_group,
        remote_as=routing.remote_asn,
        bfd=routing.bfd is not None,
        maximum_routes=bgp.maximum_routes,
    )
    groups: tuple[BgpPeerGroup, ...] = (underlay,)
    if facts.switch.role == "leaf":
        mlag = BgpPeerGroup(
            bgp.mlag_peer_group,
            remote_as=routing.asn,
            description=routing.mlag_peer,
            next_hop_self=True,
            maximum_routes=bgp.maximum_routes,
            route_map_in=bgp.mlag_route_map,
        )
        groups = (underlay, mlag)
    neighbors = tuple(
        BgpNeighbor(p.address, bgp.mlag_peer_group)
        if p.mlag
        else BgpNeighbor(p.address, bgp.underlay_peer_group, p.remote_as, f"{p.peer}_{p.peer_port}")
        for p in routing.peers
    )
    return RouterBgp(
        asn=routing.asn,
        router_id=routing.router_id,
        maximum_paths=routing.maximum_paths,
        peer_groups=groups,
        neighbors=neighbors,
        redistribute_connected_route_map=bgp.redistribute_route_map,
    )


def router_bfd(facts: DeviceFacts) -> RouterBfd | None:
    """The BFD timers of the switch's underlay sessions (None without BFD)."""
    routing = facts.routing
    if routing is None or routing.bfd is None:
        return None
    return RouterBfd(routing.bfd.interval_ms, routing.bfd.min_rx_ms, routing.bfd.multiplier)


def router_ospf(facts: DeviceFacts) -> RouterOspf | None:
    """One area; only the fabric-facing interfaces are not passive."""
    routing = facts.routing
    if routing is None or routing.protocol != "ospf":
        return None
    ospf = _profile(facts).ospf
    return RouterOspf(
        process=ospf.process,
        router_id=routing.router_id,
        bfd_default=routing.bfd is not None,
        active_interfaces=routing.ospf_interfaces,
        networks=tuple((prefix, str(ospf.area)) for prefix in routing.ospf_networks),
        maximum_paths=routing.maximum_paths,
        max_lsa=ospf.max_lsa,
    )
