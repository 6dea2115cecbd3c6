"""The underlay routing of the spine-leaf fabrics: router ids, ASNs, BGP sessions, OSPF.

* router id = the switch's loopback; ``maximum-paths`` = the number of spines;
* eBGP: spines share ``spine_asn``; the leaves of pair ``P`` share ``leaf_asn_base + P``; a
  leaf peers with every spine it is cabled to, and over the peer-link with its MLAG peer
  (iBGP); loopbacks (and on leaves the pair's hosts subnet) are redistributed;
* OSPF: one area; a leaf's uplinks and its MLAG L3 SVI are the only non-passive interfaces,
  a spine's are its downlinks;
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
    ('Ethernet1', 'Ethernet2')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NamedTuple

from compiler.facts.addressing import Addressing
from compiler.facts.cabling import Cabling
from compiler.facts.topology import SpineLeaf, Topology
from compiler.intent import Intent
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


def build_routing(intent: Intent, topology: Topology, cabling: Cabling, addressing: Addressing) -> Routing:
    """The underlay of every spine-leaf fabric."""
    switches: dict[str, SwitchRouting] = {}
    for fabric in topology.fabrics.values():
        switches.update(_fabric(intent, fabric, cabling, addressing))
    return Routing(switches)


def _fabric(intent: Intent, fabric: SpineLeaf, cabling: Cabling, addressing: Addressing) -> dict[str, SwitchRouting]:
    spec = intent.fabric.fabrics[fabric.network]
    profile = intent.fabric.routing_profiles[spec.routing]
    pools = spec.pools
    paths = len(fabric.spines)
    bfd = (
        BfdTimers(profile.bfd.interval_ms, profile.bfd.min_rx_ms, profile.bfd.multiplier)
        if profile.bfd.enabled
        else None
    )
    out: dict[str, SwitchRouting] = {}
    spine_peers: dict[str, list[BgpSession]] = {spine: [] for spine in fabric.spines}
    for pair in fabric.pairs:
        asn = profile.bgp.leaf_asn_base + pair.id if profile.bgp else None
        for side, leaf in enumerate(pair.leaves):
            peers: list[BgpSession] = []
            for number, spine in enumerate(fabric.spines[: fabric.uplinks], start=1):
                link = addressing.fabric_links[leaf, spine]
                leaf_port = eos.front_panel_port(spec.leaves.uplink_ports[number - 1])
                up = cabling.port(leaf, leaf_port)
                spine_port = up.peer_port if up is not None and up.peer == spine else ""
                peers.append(BgpSession(address_of(link.spine_address), spine, spine_port))
                spine_peers[spine].append(BgpSession(address_of(link.leaf_address), leaf, leaf_port, remote_as=asn))
            own = addressing.leaves[leaf]
            peer = pair.leaves[1 - side]
            peers.append(BgpSession(address_of(own.mlag_l3_remote), peer, mlag=True))
            loopback = own.loopback
            if profile.protocol == "ebgp" and profile.bgp is not None and asn is not None:
                out[leaf] = SwitchRouting(
                    "ebgp",
                    loopback,
                    paths,
                    asn=asn,
                    remote_asn=profile.bgp.spine_asn,
                    peers=tuple(peers),
                    advertised=(("loopbacks", str(pools.loopbacks), 32), ("hosts", str(pools.hosts), 24)),
                    mlag_peer=peer,
                    bfd=bfd,
                )
            else:
                active = tuple(eos.front_panel_port(p) for p in spec.leaves.uplink_ports[: fabric.uplinks])
                out[leaf] = SwitchRouting(
                    "ospf",
                    loopback,
                    paths,
                    ospf_interfaces=(*active, eos.vlan_interface(intent.fabric.mlag.l3_vlan)),
                    ospf_networks=tuple(str(p) for p in (pools.loopbacks, pools.p2p, pools.mlag_l3, pools.hosts)),
                    mlag_peer=peer,
                    bfd=bfd,
                )
    for spine in fabric.spines:
        loopback = addressing.loopbacks[spine]
        if profile.protocol == "ebgp" and profile.bgp is not None:
            out[spine] = SwitchRouting(
                "ebgp",
                loopback,
                paths,
                asn=profile.bgp.spine_asn,
                peers=tuple(spine_peers[spine]),
                advertised=(("loopbacks", str(pools.loopbacks), 32),),
                bfd=bfd,
            )
        else:
            out[spine] = SwitchRouting(
                "ospf",
                loopback,
                paths,
                ospf_interfaces=tuple(p.name for p in cabling.of(spine)),
                ospf_networks=(str(pools.loopbacks), str(pools.p2p)),
                bfd=bfd,
            )
    return out
