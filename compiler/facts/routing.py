"""The underlay routing of the spine-leaf fabrics: router ids, ASNs, BGP sessions, OSPF.

* router id = the switch's loopback; ``maximum-paths`` = the number of spines (of a pod); a pod
  spine's at least its uplinks, a super-spine's at least its links to one pod spine;
* eBGP: spines share ``spine_asn``; the leaves of pair ``P`` share ``leaf_asn_base + P``; in a
  three-stage fabric pod ``q``'s spines share ``pod_asn_base + q`` and the super-spines
  ``super_spine_asn`` (so a new pod takes new numbers and changes none); a switch peers over
  every routed link it is cabled on, and a leaf over the peer-link with its MLAG peer (iBGP);
  loopbacks (and on leaves the pair's hosts subnet) are redistributed;
* OSPF: one area; a leaf's uplinks and its MLAG L3 SVI are the only non-passive interfaces,
  a spine's and a super-spine's are their routed ports;
* BFD (the profile's timers, 250 ms x 3 by default) on every OSPF neighbor and every eBGP
  session to the other tier, so a dead link is out in under a second.

Example:
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> from pathlib import Path
    >>> routing = build_facts(load_intent(Path("intent"))).routing
    >>> leaf = routing.switches["rack01-stor-leaf-a"]
    >>> leaf.protocol, leaf.asn, leaf.remote_asn
    ('ebgp', 65201, 65200)
    >>> [(p.address, p.peer, p.mlag) for p in leaf.peers][-2:]
    [('10.41.4.6', 'stor-spine04', False), ('10.41.9.1', 'rack01-stor-leaf-b', True)]
    >>> routing.switches["spine01"].ospf_interfaces[:2]
    ('Ethernet1/1', 'Ethernet2/1')
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections.abc import Mapping
from ipaddress import IPv4Network
from operator import itemgetter
from typing import Literal, NamedTuple

from compiler.facts.addressing import Addressing
from compiler.facts.cabling import Cabling, UsedPort
from compiler.facts.common import record
from compiler.facts.topology import SpineLeaf, Topology
from compiler.facts.vlans import VlanPlan
from compiler.intent import BgpSettings, Intent, RoutingProfile
from compiler.platforms import eos


def address_of(prefix: str) -> str:
    """The address of ``address/prefix``.

    Example:
        >>> address_of("10.31.4.1/31")
        '10.31.4.1'
    """
    return prefix.split("/", 1)[0]


class BgpSession(NamedTuple):
    """One BGP session of a switch: the far end's address, device and port."""

    address: str
    peer: str
    peer_port: str | None = None
    """The far end's port (None for the MLAG peer, reached over the peer-link)."""
    remote_as: int | None = None
    """Set when it differs per neighbor (a spine's leaves); otherwise the peer group's."""
    mlag: bool = False
    """The iBGP session to the MLAG peer."""


_Keyed = tuple[tuple[int, tuple[int, ...]], BgpSession]
"""A session and the sort key of the interface it runs over (:func:`compiler.platforms.eos.interface_key`)."""
_KEY = itemgetter(0)


class BfdTimers(NamedTuple):
    """BFD on a switch's underlay adjacencies: transmit interval, receive interval, multiplier."""

    interval_ms: int
    min_rx_ms: int
    multiplier: int

    @property
    def detection_ms(self) -> int:
        """How long a dead neighbor stays up: the slower interval times the multiplier.

        Example:
            >>> BfdTimers(250, 300, 3).detection_ms
            900
        """
        return max(self.interval_ms, self.min_rx_ms) * self.multiplier


class SwitchRouting(NamedTuple):
    """The underlay of one switch."""

    protocol: Literal["ospf", "ebgp"]
    router_id: str
    maximum_paths: int
    asn: int | None = None
    remote_asn: int | None = None
    """The ASN of the switches on the other side of its uplinks (a leaf's spines)."""
    peers: tuple[BgpSession, ...] = ()
    advertised: tuple[tuple[str, str, int], ...] = ()
    """The prefixes redistributed into BGP: (pool name, pool, exact length)."""
    ospf_interfaces: tuple[str, ...] = ()
    """The non-passive interfaces."""
    ospf_networks: tuple[str, ...] = ()
    mlag_peer: str | None = None
    bfd: BfdTimers | None = None
    """BFD on every underlay adjacency (None: the profile turns it off)."""


class Routing(NamedTuple):
    """The underlay of every spine and leaf, by switch name."""

    switches: Mapping[str, SwitchRouting]


def build_routing(
    intent: Intent, topology: Topology, cabling: Cabling, addressing: Addressing, vlans: VlanPlan | None = None
) -> Routing:
    """The underlay of every spine-leaf fabric; a leaf also advertises the routed VLANs of
    ``vlans.yaml`` it carries (their pools, as its hosts pool)."""
    switches: dict[str, SwitchRouting] = {}
    for fabric in topology.fabrics.values():
        switches.update(_fabric(intent, topology, fabric, cabling, addressing))
    for leaf, carried in (vlans.leaves if vlans is not None else {}).items():
        pools = [str(v.pool) for v in carried if v.routed and v.pool is not None]
        own = switches.get(leaf)
        if not pools or own is None:
            continue
        if own.protocol == "ebgp":
            switches[leaf] = own._replace(advertised=(*own.advertised, *(("hosts", p, 24) for p in pools)))
        else:
            switches[leaf] = own._replace(ospf_networks=(*own.ospf_networks, *pools))
    return Routing(switches)


def _fabric(
    intent: Intent, topology: Topology, fabric: SpineLeaf, cabling: Cabling, addressing: Addressing
) -> dict[str, SwitchRouting]:
    net = fabric.network
    spec = intent.fabric.fabrics[net]
    profile = intent.fabric.routing_profiles[spec.routing]
    bgp = profile.bgp if profile.protocol == "ebgp" else None
    pools = spec.pools
    count = spec.spines.count
    asn: dict[str, int] = {}
    if bgp is not None:
        for pair in fabric.pairs:
            asn.update(dict.fromkeys(pair.leaves, bgp.leaf_asn_base + pair.id))
        for pod in fabric.pods:
            pod_asn = (bgp.pod_asn_base or 0) + pod.id if fabric.three_stage else bgp.spine_asn
            asn.update(dict.fromkeys(pod.spines, pod_asn))
        asn.update(dict.fromkeys(fabric.super_spines, bgp.super_spine_asn or 0))
    # Each switch's sessions, keyed by the interface it runs over (its sort key).
    sessions: dict[str, list[_Keyed]] = {}
    port_key = eos.interface_key
    ports = cabling.ports
    unused: Mapping[str, UsedPort] = {}
    for link in addressing.fabric_links.values():
        if link.network != net:
            continue
        _, lower, lower_port, upper, upper_port, _, lower_address, upper_address = link
        up = ports.get(lower, unused).get(lower_port)
        if up is None or up.peer != upper:
            continue
        to_upper = (upper_address.partition("/")[0], upper, upper_port, asn.get(upper), False)
        sessions.setdefault(lower, []).append((port_key(lower_port), record(BgpSession, to_upper)))
        to_lower = (lower_address.partition("/")[0], lower, lower_port, asn.get(lower), False)
        sessions.setdefault(upper, []).append((port_key(upper_port), record(BgpSession, to_lower)))
    uplinks = len(topology.layouts.spine[net].sets.get("uplinks", ()))
    share = uplinks // spec.pods.super_spines.per_plane if spec.pods is not None else 0
    out = _leaves(intent, fabric, cabling, addressing, asn, sessions)
    spine_pool = pools.spine_loopbacks if fabric.three_stage and pools.spine_loopbacks else pools.loopbacks
    spine_networks = [pools.loopbacks, pools.p2p]
    if fabric.three_stage:
        spine_networks = [spine_pool, pools.p2p, *(p for p in (pools.spine_p2p,) if p is not None)]
    super_networks = [pools.loopbacks, *(p for p in (pools.spine_p2p,) if p is not None)]
    transit = [(spine, max(count, uplinks), spine_pool, spine_networks) for spine in fabric.spines]
    transit += [(name, max(count, share), pools.loopbacks, super_networks) for name in fabric.super_spines]
    for name, paths, pool, networks in transit:
        out[name] = _transit(
            bgp,
            addressing.loopbacks[name],
            paths,
            asn.get(name),
            sessions.get(name, []),
            str(pool),
            cabling,
            name,
            networks,
            bfd_timers(profile),
        )
    return out


def _leaves(
    intent: Intent,
    fabric: SpineLeaf,
    cabling: Cabling,
    addressing: Addressing,
    asn: Mapping[str, int],
    sessions: Mapping[str, list[_Keyed]],
) -> dict[str, SwitchRouting]:
    """Every leaf: eBGP to its pod's spines and iBGP to its MLAG peer, or OSPF on its uplinks."""
    spec = intent.fabric.fabrics[fabric.network]
    profile = intent.fabric.routing_profiles[spec.routing]
    bgp = profile.bgp if profile.protocol == "ebgp" else None
    pools = spec.pools
    count = spec.spines.count
    bfd = bfd_timers(profile)
    # What every leaf of the fabric advertises, made once (a pool's text costs an object each time).
    advertised = (("loopbacks", str(pools.loopbacks), 32), ("hosts", str(pools.hosts), 24))
    ospf_networks = tuple(str(p) for p in (pools.loopbacks, pools.p2p, pools.mlag_l3, pools.hosts))
    out: dict[str, SwitchRouting] = {}
    for pair in fabric.pairs:
        for side, leaf in enumerate(pair.leaves):
            # The spines' ASN is the peer group's: no remote-as per session.
            peers = [record(BgpSession, (*p[:3], None, p.mlag)) for p in _in_port_order(sessions.get(leaf, []))]
            own = addressing.leaves[leaf]
            peer = pair.leaves[1 - side]
            peers.append(BgpSession(address_of(own.mlag_l3_remote), peer, mlag=True))
            if bgp is not None:
                spines = fabric.pod_of(pair).spines
                out[leaf] = SwitchRouting(
                    "ebgp",
                    own.loopback,
                    count,
                    asn=asn[leaf],
                    remote_asn=asn.get(spines[0]) if spines else None,
                    peers=tuple(peers),
                    advertised=advertised,
                    mlag_peer=peer,
                    bfd=bfd,
                )
            else:
                active = tuple(p.name for p in cabling.of(leaf) if p.kind == "uplink")
                out[leaf] = SwitchRouting(
                    "ospf",
                    own.loopback,
                    count,
                    ospf_interfaces=(*active, eos.vlan_interface(intent.fabric.mlag.l3_vlan)),
                    ospf_networks=ospf_networks,
                    mlag_peer=peer,
                    bfd=bfd,
                )
    return out


def bfd_timers(profile: RoutingProfile) -> BfdTimers | None:
    """The profile's BFD timers for the underlay sessions, or None when BFD is off."""
    bfd = profile.bfd
    return BfdTimers(bfd.interval_ms, bfd.min_rx_ms, bfd.multiplier) if bfd.enabled else None


def _in_port_order(sessions: list[_Keyed]) -> list[BgpSession]:
    """The sessions in the order of the interfaces they run over (the keys taken as the sessions
    were found: no Python call per session to sort them, 7,000 at 16x)."""
    return [session for _, session in sorted(sessions, key=_KEY)]


def _transit(
    bgp: BgpSettings | None,
    loopback: str,
    paths: int,
    own_asn: int | None,
    sessions: list[_Keyed],
    loopbacks: str,
    cabling: Cabling,
    name: str,
    networks: list[IPv4Network],
    bfd: BfdTimers | None,
) -> SwitchRouting:
    """A spine or super-spine: eBGP to every cabled neighbour (each its own remote-as), or OSPF on
    every routed port."""
    if bgp is not None:
        ordered = tuple(_in_port_order(sessions))
        return SwitchRouting(
            "ebgp", loopback, paths, asn=own_asn, peers=ordered, advertised=(("loopbacks", loopbacks, 32),), bfd=bfd
        )
    return SwitchRouting(
        "ospf",
        loopback,
        paths,
        ospf_interfaces=tuple(p.name for p in cabling.of(name)),
        ospf_networks=tuple(str(n) for n in networks),
        bfd=bfd,
    )
