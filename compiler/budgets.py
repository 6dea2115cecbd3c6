"""Capacity arithmetic from the intent alone: every pool, port set, ASN and VLAN range holds what
the racks and servers ask of it.

Run when the intent loads, before any fact is built: a design that cannot fit (4,000 racks on
a /16, a leaf ASN base a few numbers short of 2^32) fails in milliseconds with one line per
budget, instead of resolving thousands of switches into thousands of overlapping addresses.
The arithmetic is the allocation scheme of :mod:`compiler.facts` (topology, addressing,
routing, management), from the highest rack and leaf pair in use:

* a fabric's leaf pair ``P`` (leaves ``2P - 1``, ``2P``) takes the ``P``-th /24 of ``hosts``
  and the ``(P - 1)``-th /31 of ``mlag_peer`` and ``mlag_l3``; leaf ``L`` the ``(64 + L)``-th
  address of ``loopbacks`` and ``spines`` /31s of ``p2p`` from ``(L - 1) x spines``; a spine
  one downlink per leaf (of its pod); a pair's /24 holds its servers from .10 (per-NIC
  addresses: both NICs);
* pod ``q`` (three-stage): ``spines`` addresses of ``spine_loopbacks``, ``spines x uplinks``
  /31s of ``spine_p2p``, and a share of ``uplinks / per_plane`` downlinks of each super-spine;
* eBGP: the leaves of pair ``P`` take ``leaf_asn_base + P``, pod ``q``'s spines ``pod_asn_base +
  q``: none may pass 4294967294 (4294967295 is reserved) or take another tier's ASN;
* rack ``R``: the ``R``-th /24 of ``management.pool``, the ``R``-th of the core's downlinks,
  VLANs ``vlan_base + R`` and ``server_vlan_base + R`` (at most 4094, the two ranges apart:
  the core carries both).

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> intent = load_intent(Path("intent"))
    >>> over_budget(intent)
    []
    >>> hosts = next(b for b in budgets(intent) if b.loc[-1] == "hosts")
    >>> hosts.need, hosts.have
    (13, 256)
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

import math
from collections.abc import Iterator
from ipaddress import IPv4Network
from typing import NamedTuple

from compiler.addressing import subnet_capacity
from compiler.facts.addressing import LEAF_LOOPBACK_OFFSET, SERVER_HOST_OFFSET
from compiler.facts.common import FabricNetwork
from compiler.facts.hardware import Layouts, build_layouts
from compiler.facts.topology import pair_of, pod_of
from compiler.intent import FabricIntent, Intent, Server

MAX_ASN = 4294967294
"""The highest ASN a switch may take: 4294967295 is reserved (RFC 7300)."""
RESERVED_ASNS = {23456: "AS_TRANS (RFC 6793)", 65535: "reserved (RFC 7300)"}
MAX_VLAN = 4094
HOST_MAX_OFFSET = 254
"""The last host address of a /24 (.255 is its broadcast)."""


class Budget(NamedTuple):
    """One finite thing the design shares out: how much it needs, how much there is, the fix."""

    file: str
    """The intent file that holds what to change (``fabric.yaml``)."""
    loc: tuple[str | int, ...]
    """Its YAML path."""
    need: int
    have: int
    message: str
    """Why, and what to do: printed after the YAML path when ``need > have``."""


def over_budget(intent: Intent) -> list[Budget]:
    """The budgets the design overruns (:func:`budgets`)."""
    return [b for b in budgets(intent) if b.need > b.have]


def budgets(intent: Intent) -> list[Budget]:
    """Every pool, port set, ASN range and VLAN range of ``intent`` with its need, in file order."""
    layouts = build_layouts(intent)
    out: list[Budget] = []
    for net, spec in sorted(intent.fabric.fabrics.items()):
        out.extend(_fabric(intent, layouts, net, spec))
    out.extend(_management(intent, layouts))
    return out


def wider_prefix(pool: IPv4Network, unit: int, need: int) -> int:
    """The longest prefix length that holds ``need`` subnets of length ``unit``.

    Examples:
        >>> wider_prefix(IPv4Network("10.30.0.0/16"), 24, 4000)
        12
        >>> wider_prefix(IPv4Network("10.31.8.0/24"), 31, 128)
        24
    """
    return max(unit - math.ceil(math.log2(max(need, 1))), 0)


def _pool(net_path: tuple[str | int, ...], pool: IPv4Network, unit: int, need: int, why: str) -> Budget:
    have = subnet_capacity(pool, unit)
    shorter = wider_prefix(pool, unit, need)
    return Budget(
        "fabric.yaml",
        net_path,
        need,
        have,
        f"{pool} holds {have:,} x /{unit}, the design needs {need:,} ({why}): use a /{shorter} or wider",
    )


def _fabric(intent: Intent, layouts: Layouts, net: FabricNetwork, spec: FabricIntent) -> Iterator[Budget]:
    models = intent.fabric.server_models
    per = spec.leaves.racks_per_pair
    attached = {name for name, model in models.items() if model.nics_on(net)}
    servers = [s for s in intent.servers if s.model in attached]
    if not servers:
        return
    pairs = {pair_of(s.rack, per) for s in servers}
    yield from _leaf_ports(layouts, net, spec, servers)
    highest = max(pairs)
    leaf = 2 * highest
    count = spec.spines.count
    where = ("fabrics", net)
    pools = spec.pools
    yield _pool(
        (*where, "pools", "hosts"), pools.hosts, 24, highest + 1, f"a /24 per leaf pair, up to pair {highest:,}"
    )
    yield _pool((*where, "pools", "p2p"), pools.p2p, 31, leaf * count, f"{count} per leaf, up to leaf {leaf:,}")
    for name in ("mlag_peer", "mlag_l3"):
        yield _pool(
            (*where, "pools", name), getattr(pools, name), 31, highest, f"one per leaf pair, up to pair {highest:,}"
        )
    loopbacks = LEAF_LOOPBACK_OFFSET + leaf + 1
    yield _pool(
        (*where, "pools", "loopbacks"),
        pools.loopbacks,
        32,
        loopbacks,
        f"leaf L takes address {LEAF_LOOPBACK_OFFSET} + L, up to leaf {leaf:,}",
    )
    stride = per * spec.leaves.ports_per_rack
    nics = 2 if spec.bonding == "per-nic" else 1
    last = SERVER_HOST_OFFSET + nics * stride
    yield Budget(
        "fabric.yaml",
        (*where, "leaves", "ports_per_rack"),
        last,
        HOST_MAX_OFFSET,
        f"a leaf pair's /24 holds servers from .{SERVER_HOST_OFFSET} to .{HOST_MAX_OFFSET}, but {per} rack(s) of "
        f"{spec.leaves.ports_per_rack} ports{' with two addresses each' if nics == 2 else ''} reach .{last}: "
        "fewer racks_per_pair or ports_per_rack",
    )
    downlinks = len(layouts.spine[net].sets["downlinks"])
    model = layouts.spine[net].model.id
    spine_loc = (*where, "spines", "downlinks" if spec.spines.downlinks else "model")
    pods = spec.pods
    highest_pod = 1
    if pods is None:
        yield Budget(
            "fabric.yaml",
            spine_loc,
            leaf,
            downlinks,
            f"a spine ({model}) has {downlinks} downlinks, one per leaf, and the racks make leaves up to {leaf:,}: "
            f"use pods (fabrics.{net}.pods), or a spine model with more ports",
        )
    else:
        pairs_per_pod = max(pods.racks // per, 1)
        pod_ids = {pod_of((p - 1) * per + 1, pods.racks) for p in pairs}
        local = max(2 * p - 2 * (pod_of((p - 1) * per + 1, pods.racks) - 1) * pairs_per_pod for p in pairs)
        yield Budget(
            "fabric.yaml",
            spine_loc,
            local,
            downlinks,
            f"a pod spine ({model}) has {downlinks} downlinks, one per leaf of its pod, and a pod of {pods.racks} "
            f"racks makes up to {local}: a smaller pods.racks, or a spine model with more ports",
        )
        highest_pod = max(pod_ids)
        yield from _pods(layouts, net, spec, highest_pod)
    yield from _asns(intent, net, spec, highest, highest_pod)


def _leaf_ports(layouts: Layouts, net: FabricNetwork, spec: FabricIntent, servers: list[Server]) -> Iterator[Budget]:
    """A server's position fits its rack's ports, its host index ``k`` the leaves' downlinks."""
    where = ("fabrics", net, "leaves")
    per_rack = spec.leaves.ports_per_rack
    furthest = max(servers, key=lambda s: s.position)
    yield Budget(
        "fabric.yaml",
        (*where, "ports_per_rack"),
        furthest.position,
        per_rack,
        f"a rack has {per_rack} ports on its leaves, and servers take positions up to {furthest.position} "
        f"({furthest.name}): raise ports_per_rack, or move the servers",
    )
    downlinks = len(layouts.leaf[net].sets["downlinks"])
    per = spec.leaves.racks_per_pair
    cabled = [s for s in servers if not (net == "compute" and s.compute_port) and s.position <= per_rack]
    if cabled:
        last = max(cabled, key=lambda s: ((s.rack - 1) % per) * per_rack + s.position)
        need = ((last.rack - 1) % per) * per_rack + last.position
        yield Budget(
            "fabric.yaml",
            (*where, "downlinks"),
            need,
            downlinks,
            f"the leaves have {downlinks} downlinks, and {last.name} takes downlink {need} "
            f"(racks_per_pair {per} x ports_per_rack {per_rack}): list more cages, or fewer ports per rack",
        )


def _pods(layouts: Layouts, net: FabricNetwork, spec: FabricIntent, highest_pod: int) -> Iterator[Budget]:
    """The pools and super-spine ports of a three-stage fabric, by its highest pod."""
    assert spec.pods is not None
    where = ("fabrics", net)
    count = spec.spines.count
    uplinks = len(layouts.spine[net].sets.get("uplinks", ()))
    pools = spec.pools
    if pools.spine_loopbacks is not None:
        need = highest_pod * count + 1
        yield _pool((*where, "pools", "spine_loopbacks"), pools.spine_loopbacks, 32, need, f"{count} per pod")
    if pools.spine_p2p is not None:
        need = highest_pod * count * uplinks
        why = f"{count} spines x {uplinks} uplinks per pod"
        yield _pool((*where, "pools", "spine_p2p"), pools.spine_p2p, 31, need, why)
    per_plane = spec.pods.super_spines.per_plane
    if uplinks and uplinks % per_plane == 0 and net in layouts.super_spine:
        share = uplinks // per_plane
        have = len(layouts.super_spine[net].sets["downlinks"])
        supers = spec.pods.super_spines
        yield Budget(
            "fabric.yaml",
            (*where, "pods", "super_spines", "downlinks" if supers.downlinks else "model"),
            highest_pod * share,
            have,
            f"a super-spine has {have} downlinks, {share} per pod, and the racks make pods up to {highest_pod}: "
            "more super-spines per plane (per_plane), or a model with more ports",
        )


def _asns(
    intent: Intent, net: FabricNetwork, spec: FabricIntent, highest_pair: int, highest_pod: int
) -> Iterator[Budget]:
    """eBGP: the leaf and pod ASN ranges stay below 2^32 - 1, clear of reserved ASNs and of each other's."""
    profile = intent.fabric.routing_profiles.get(spec.routing)
    bgp = profile.bgp if profile is not None and profile.protocol == "ebgp" else None
    if bgp is None:
        return
    loc = ("routing_profiles", spec.routing, "bgp")
    ranges = [("leaf_asn_base", bgp.leaf_asn_base, highest_pair, "leaf pair")]
    taken = {"spine_asn": bgp.spine_asn}
    if spec.pods is not None and bgp.pod_asn_base is not None:
        ranges.append(("pod_asn_base", bgp.pod_asn_base, highest_pod, "pod"))
        taken = {"super_spine_asn": bgp.super_spine_asn or 0}
    for index, (key, base, top, unit) in enumerate(ranges):
        first, last = base + 1, base + top
        yield Budget(
            "fabric.yaml",
            (*loc, key),
            last,
            MAX_ASN,
            f"{unit} N takes {base} + N, up to {last} ({unit}s up to {top}), past the highest ASN {MAX_ASN}: "
            f"use a base up to {MAX_ASN - top}",
        )
        clashes = [f"{other} {asn}" for other, asn in taken.items() if first <= asn <= last]
        clashes += [f"ASN {asn}, {why}" for asn, why in RESERVED_ASNS.items() if first <= asn <= last]
        clashes += [
            f"the {other_unit}s' {b + 1}-{b + n}"
            for other, b, n, other_unit in ranges[index + 1 :]
            if first <= b + n and b + 1 <= last
        ]
        for clash in clashes:
            yield Budget(
                "fabric.yaml", (*loc, key), 1, 0, f"{unit}s take ASNs {first}-{last}, which meet {clash}: move the base"
            )


def _management(intent: Intent, layouts: Layouts) -> Iterator[Budget]:
    """Rack ``R``: a /24 of the pool, a core downlink, two VLANs."""
    mgmt = intent.fabric.management
    if not intent.racks:
        return
    low, high = min(intent.racks), max(intent.racks)
    managed = {name for name, model in intent.fabric.server_models.items() if model.nics_on("management")}
    positions = [s for s in intent.servers if s.model in managed]
    if positions:
        furthest = max(positions, key=lambda s: s.position)
        ports = len(layouts.mgmt.sets["servers"])
        yield Budget(
            "fabric.yaml",
            ("management", "switch_ports", "servers"),
            furthest.position,
            ports,
            f"a rack's management switch has {ports} server ports, and servers take positions up to "
            f"{furthest.position} ({furthest.name}): list more ports, or move the servers",
        )
    yield _pool(("management", "pool"), mgmt.pool, 24, high + 1, f"rack R takes the R-th /24, up to rack {high:,}")
    core = len(layouts.core.sets["downlinks"])
    yield Budget(
        "fabric.yaml",
        ("management", "core", "downlinks"),
        high,
        core,
        f"the core ({layouts.core.model.id}) has {core} downlinks, rack R takes the R-th, up to rack {high:,}: "
        "list more cages, or a core model with more ports",
    )
    for key, base in (("vlan_base", mgmt.vlan_base), ("server_vlan_base", mgmt.server_vlan_base)):
        yield Budget(
            "fabric.yaml",
            ("management", key),
            base + high,
            MAX_VLAN,
            f"rack R takes VLAN {base} + R, up to {base + high:,} (rack {high:,}), past VLAN {MAX_VLAN}: "
            f"use a base up to {MAX_VLAN - high}, or fewer racks",
        )
    first, second = sorted((mgmt.vlan_base, mgmt.server_vlan_base))
    if first + high >= second + low:
        yield Budget(
            "fabric.yaml",
            ("management", "server_vlan_base"),
            first + high,
            second + low - 1,
            f"the racks' switch VLANs {mgmt.vlan_base + low}-{mgmt.vlan_base + high} and server VLANs "
            f"{mgmt.server_vlan_base + low}-{mgmt.server_vlan_base + high} overlap (the core carries both): "
            f"set the bases at least {high - low + 1} apart",
        )
