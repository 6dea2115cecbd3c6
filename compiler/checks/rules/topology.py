"""Topology and cabling rules: who connects to whom, in how many hops, at what speed and MTU.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
FAB001    error     C3           every leaf has a link to every spine of its fabric (its
                                 pod's), every pod spine to every super-spine of its plane
FAB002    error     C3           ``uplinks_per_leaf`` / ``uplink_ports`` match the spine
                                 count (the seed's "2 uplinks, 4 spines" contradiction)
FAB003    error     C3           every pod of a three-stage fabric has a spine rack
HOP001    error     C3           at most 3 switches between any two servers of a network
                                 (5 in a three-stage fabric: leaf, spine, super-spine,
                                 spine, leaf)
LNK001    error     C8           both ends of every link run the same speed, on ports
                                 their models have
LNK002    error     N5           switch-to-switch links have equal MTUs; a host or
                                 management port never exceeds its switch port's MTU;
                                 configured interface MTUs match the cabling plan
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict, deque
from collections.abc import Iterator, Mapping
from functools import partial
from itertools import compress
from operator import attrgetter, ne

from compiler.checks.base import Part, rule
from compiler.checks.rules._common import (
    SWITCH_LINK_KINDS,
    fabric_spec,
    interfaces,
    join,
    links_of,
    problems,
    where_inputs,
)
from compiler.checks.rules.ports import port_counts
from compiler.fabric import ResolvedFabric
from compiler.facts import Cable, Endpoint
from compiler.facts.extra import field_where
from compiler.intent import Intent

MAX_SWITCH_HOPS = 3
"""C3: a server reaches any other server through at most leaf, spine, leaf."""
MAX_SWITCH_HOPS_THREE_STAGE = 5
"""Past one spine layer: leaf, pod spine, super-spine, pod spine, leaf."""


@rule("FAB001", "error", "C3", "Every leaf connects to every spine of its fabric")
def leaf_reaches_every_spine(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each leaf that lacks a direct link to one or more spines of its pod (the fabric's
    spines in a two-stage fabric), and each pod spine that lacks one to a super-spine of its plane.

    A switch PRT004 finds short of downlinks is not counted missing again here.
    """
    short = {subject for subject, _ in port_counts(intent, fabric)}
    linked: dict[str, set[str]] = defaultdict(set)
    for link in links_of(fabric, ["fabric"]):
        linked[link.a.device].add(link.b.device)
        linked[link.b.device].add(link.a.device)
    for net, spine_leaf in sorted(fabric.facts.topology.fabrics.items()):
        for pod in spine_leaf.pods:
            where = f"pod {pod.id} of the {net} fabric" if spine_leaf.three_stage else f"the {net} fabric"
            for pair in pod.pairs:
                for leaf in pair.leaves:
                    yield from _unlinked(leaf, pod.spines, linked, short, f"spines of {where}")
            for plane, spine in enumerate(pod.spines, start=1):
                if spine_leaf.planes:
                    supers = spine_leaf.planes[plane - 1]
                    yield from _unlinked(spine, supers, linked, short, f"super-spines of plane {plane} ({net})")


@rule("FAB003", "error", "C3", "Every pod has a spine rack")
def pods_have_spine_racks(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each pod of a three-stage fabric that ``pods.spine_racks`` gives no rack."""
    del intent
    yield from problems(fabric, "FAB003")


def _unlinked(
    name: str, targets: tuple[str, ...], linked: dict[str, set[str]], short: set[str], what: str
) -> Iterator[tuple[str, str]]:
    missing = [t for t in targets if t not in linked[name] and t not in short]
    if missing:
        yield name, f"no link to {join(missing)}: reaches {len(targets) - len(missing)} of the {len(targets)} {what}"


@rule("FAB002", "error", "C3", "Uplinks per leaf equal the spine count")
def uplinks_match_spines(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each fabric whose leaf uplink count contradicts its spine count."""
    del fabric
    for net, spec in sorted(intent.fabric.fabrics.items()):
        spines = spec.spines.count
        declared = spec.leaves.uplinks_per_leaf
        ports = len(spec.leaves.uplink_ports)
        subject = f"fabrics.{net}"
        if declared is not None and declared < spines:
            yield (
                subject,
                (
                    f"{declared} uplinks per leaf cannot reach {spines} spines: every leaf must "
                    f"connect to every spine (set uplinks_per_leaf: {spines}, or use {declared} spines)"
                ),
            )
        elif declared is not None and declared > spines:
            yield (
                subject,
                (
                    f"{declared} uplinks per leaf but {spines} spines: each leaf gets exactly one "
                    f"link to each spine (set uplinks_per_leaf: {spines}, or use {declared} spines)"
                ),
            )
        if ports < spines:
            yield (
                subject,
                (
                    f"leaves.uplink_ports lists {ports} ports, which cannot reach {spines} spines: "
                    f"every leaf must connect to every spine (list {spines} uplink ports, "
                    f"or use {ports} spines)"
                ),
            )
        elif declared is not None and declared > ports:
            yield subject, (f"uplinks_per_leaf is {declared} but leaves.uplink_ports lists only {ports} ports")


def _adjacency(links: list[Cable]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for link in links:
        graph[link.a.device].add(link.b.device)
        graph[link.b.device].add(link.a.device)
    return graph


def _distances(graph: dict[str, set[str]], sources: frozenset[str], depth: int | None = None) -> dict[str, int]:
    """Edges on the shortest path from the nearest of ``sources`` to every reachable node (BFS),
    only as far as ``depth`` edges when given."""
    seen = dict.fromkeys(sources, 0)
    queue = deque(sources)
    while queue:
        node = queue.popleft()
        step = seen[node] + 1
        if depth is not None and step > depth:
            continue
        for nxt in graph.get(node, ()):
            if nxt not in seen:
                seen[nxt] = step
                queue.append(nxt)
    return seen


def max_switch_hops(
    switch_links: list[Cable], server_links: list[Cable], limit: int = MAX_SWITCH_HOPS
) -> tuple[int | None, str, str, int]:
    """The worst server pair: (switches between them or None if unreachable, a, b, pairs over).

    Servers attached to the same set of switches form a group; the fourth value counts the
    pairs of groups beyond ``limit`` switches or unreachable. The first pair (groups in the
    order of their first server) at the worst distance is named.

    Two groups that share a switch are 1 switch apart, two that are cabled 2; any other two,
    A and B, are 3 + the distance between their neighbourhoods (the switches cabled to a
    group, outside it), since every path leaves A through its neighbourhood and enters B
    through B's. Groups with one neighbourhood (the leaf pairs of a pod) thus share their
    distances: one breadth-first search per neighbourhood and one count per pair of them,
    rather than a search per leaf pair and a look-up per pair of leaf pairs (which grew with
    the square of the fleet).

    Example:
        >>> from compiler.facts import Cable as L, Endpoint as E
        >>> def cable(a, b, kind):
        ...     return L("compute", kind, E(a, "p"), E(b, "p"), "100g", "100g", 9214, 9214)
        >>> sw = [cable("leaf1", "spine1", "fabric"), cable("leaf2", "spine1", "fabric")]
        >>> srv = [cable("leaf1", "s1", "server"), cable("leaf2", "s2", "server")]
        >>> max_switch_hops(sw, srv)
        (3, 's1', 's2', 0)
    """
    grouping = _Grouping(switch_links, server_links)
    groups, members, classes, class_of = grouping.groups, grouping.members, grouping.classes, grouping.class_of
    near = grouping.near
    far = _class_hops(grouping.graph, grouping.hoods)
    # Every pair (i <= j) by its distance: the close ones one by one, the rest per pair of classes.
    counts: dict[int | None, int] = defaultdict(int)
    counts[1] += sum(1 for group in groups if len(members[group]) > 1)
    for close in near.values():
        counts[close] += 1
    for (first, second), apart in far.items():
        counts[apart] += grouping.far_pairs(first, second)
    present = [h for h, n in counts.items() if n > 0]
    if not present:
        return 0, "", "", 0
    worst = None if None in present else max(h for h in present if h is not None)
    over = sum(n for h, n in counts.items() if h is None or h > limit)
    i, j = _first_pair_at(worst, [len(members[g]) for g in groups], class_of, classes, near, far)
    return worst, members[groups[i]][0], members[groups[j]][-1], over


def all_within(switch_links: list[Cable], server_links: list[Cable], limit: int = MAX_SWITCH_HOPS) -> bool:
    """Whether every pair of servers is at most ``limit`` switches apart: :func:`max_switch_hops`
    without the worst pair, so each search stops ``limit - 3`` edges from its neighbourhood
    (farther pairs are over the limit, however far) and costs what that ball holds, not the fleet.

    Example:
        >>> from compiler.facts import Cable as L, Endpoint as E
        >>> def cable(a, b, kind):
        ...     return L("compute", kind, E(a, "p"), E(b, "p"), "100g", "100g", 9214, 9214)
        >>> sw = [cable("l1", "s1", "fabric"), cable("l2", "s1", "fabric"), cable("l2", "s2", "fabric"),
        ...       cable("l3", "s2", "fabric")]
        >>> srv = [cable("l1", "h1", "server"), cable("l3", "h3", "server")]
        >>> all_within(sw, srv, 3), all_within(sw, srv, 5)
        (False, True)
    """
    grouping = _Grouping(switch_links, server_links)
    if limit < 2:  # a limit below the design's: pairs that share or neighbour a switch count too
        return max_switch_hops(switch_links, server_links, limit)[3] == 0
    far = _class_hops(grouping.graph, grouping.hoods, limit - 3)
    return all(
        (apart is not None and apart <= limit) or grouping.far_pairs(first, second) == 0
        for (first, second), apart in far.items()
    )


class _Grouping:
    """Servers grouped by the switches they attach to, the groups by their neighbourhood (the
    switches cabled to a group, outside it), and the pairs of groups that share or neighbour a
    switch (see :func:`max_switch_hops`)."""

    def __init__(self, switch_links: list[Cable], server_links: list[Cable]) -> None:
        self.graph = graph = _adjacency(switch_links)
        attached: dict[str, set[str]] = defaultdict(set)
        for link in server_links:
            attached[link.b.device].add(link.a.device)
        self.members: dict[frozenset[str], list[str]] = defaultdict(list)
        for server, switches in sorted(attached.items()):
            self.members[frozenset(switches)].append(server)
        self.groups = sorted(self.members, key=lambda g: self.members[g][0])
        hood_class: dict[frozenset[str], int] = {}
        self.classes: list[list[int]] = []
        self.class_of: list[int] = []
        for index, group in enumerate(self.groups):
            hood = frozenset().union(*(graph.get(s, ()) for s in group)) - group
            if hood not in hood_class:
                hood_class[hood] = len(self.classes)
                self.classes.append([])
            self.classes[hood_class[hood]].append(index)
            self.class_of.append(hood_class[hood])
        self.hoods = list(hood_class)
        self.near = _near_pairs(graph, self.groups)
        self._close_between: dict[tuple[int, int], int] = defaultdict(int)
        for i, j in self.near:
            self._close_between[_key(self.class_of[i], self.class_of[j])] += 1

    def far_pairs(self, first: int, second: int) -> int:
        """Pairs of groups (i <= j) of the classes ``first`` <= ``second`` that share no switch and are
        not cabled to each other."""
        a, b = len(self.classes[first]), len(self.classes[second])
        pairs = a * (a - 1) // 2 if first == second else a * b
        return pairs - self._close_between[first, second]


def _key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a <= b else (b, a)


def _near_pairs(graph: dict[str, set[str]], groups: list[frozenset[str]]) -> dict[tuple[int, int], int]:
    """Pairs of groups (i < j) sharing a switch (1 switch apart) or cabled to each other (2)."""
    holders: dict[str, list[int]] = defaultdict(list)
    for index, group in enumerate(groups):
        for switch in group:
            holders[switch].append(index)
    pairs: dict[tuple[int, int], int] = {}
    for index, group in enumerate(groups):
        for switch in group:
            for other in holders[switch]:
                if other > index:
                    pairs[index, other] = 1
            for neighbour in graph.get(switch, ()):
                for other in holders.get(neighbour, ()):
                    if other > index:
                        pairs.setdefault((index, other), 2)
    return pairs


def _class_hops(
    graph: dict[str, set[str]], hoods: list[frozenset[str]], depth: int | None = None
) -> dict[tuple[int, int], int | None]:
    """Switches between two groups neither sharing nor cabled, by the classes of their neighbourhoods
    (None: unreachable, or more than ``depth`` edges between the neighbourhoods when given)."""
    out: dict[tuple[int, int], int | None] = {}
    for first, hood in enumerate(hoods):
        dist = _distances(graph, hood, depth)
        for second in range(first, len(hoods)):
            reached = [dist[s] for s in hoods[second] if s in dist]
            out[first, second] = 3 + min(reached) if reached else None
    return out


def _first_pair_at(
    hops: int | None,
    sizes: list[int],
    class_of: list[int],
    classes: list[list[int]],
    near: dict[tuple[int, int], int],
    far: dict[tuple[int, int], int | None],
) -> tuple[int, int]:
    """The first pair of groups (i <= j, in order) that is ``hops`` switches apart."""
    close: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for (i, j), distance in near.items():
        close[i].append((j, distance))
    for i, size in enumerate(sizes):
        if hops == 1 and size > 1:
            return i, i
        found = [j for j, distance in close[i] if distance == hops]
        for other, indices in enumerate(classes):
            if far[_key(class_of[i], other)] == hops:
                later = (j for j in indices[bisect_right(indices, i) :] if (i, j) not in near)
                found += [j] if (j := next(later, -1)) >= 0 else []
        if found:
            return i, min(found)
    raise AssertionError("a distance counted is held by no pair")


@rule("HOP001", "error", "C3", "At most 3 switch hops between any two servers (5 past one spine layer)")
def hop_count(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each network where some pair of servers is more switches apart than its design allows.

    A network whose switches PRT004 finds short of downlinks is left to that rule (its leaves
    are cut off for that reason).
    """
    short = {subject for subject, _ in port_counts(intent, fabric)}
    for net in sorted({link.network for link in fabric.links if link.kind == "server"}):
        if any(d.network == net for name, d in fabric.devices.items() if name in short):
            continue
        spec = fabric_spec(intent, net)
        limit = MAX_SWITCH_HOPS_THREE_STAGE if spec is not None and spec.pods is not None else MAX_SWITCH_HOPS
        path = "leaf, spine, super-spine, spine, leaf" if limit > MAX_SWITCH_HOPS else "leaf, spine, leaf"
        switch_links = links_of(fabric, SWITCH_LINK_KINDS, net)
        server_links = links_of(fabric, ["server"], net)
        if all_within(switch_links, server_links, limit):
            continue  # the whole search, for the worst pair, only when one is too far
        hops, first, second, over = max_switch_hops(switch_links, server_links, limit)
        if hops is None:
            yield (
                f"{net} network",
                (
                    f"no path between {first} and {second} ({over} group(s) of servers are cut off "
                    f"or more than {limit} switches apart)"
                ),
            )
        elif hops > limit:
            yield (
                f"{net} network",
                (
                    f"{first} and {second} are {hops} switches apart (at most {limit}: "
                    f"{path}); {over} group(s) of servers exceed it"
                ),
            )


def _end(endpoint: Endpoint) -> str:
    return f"{endpoint.device}:{endpoint.port}"


def _reported_beyond_model(fabric: ResolvedFabric) -> set[str]:
    """Devices whose missing ports PRT001 or BRK001 already reports (one report per cause)."""
    return {p.subject for p in fabric.problems if p.rule in ("PRT001", "BRK001")}


@rule("LNK001", "error", "C8", "Both ends of a link run the same speed")
def link_speeds(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each link whose ends disagree on speed or sit on a port their model lacks."""
    del intent
    reported = _reported_beyond_model(fabric)
    for link in fabric.links:
        if link.a_speed is None or link.b_speed is None:
            ends = [
                _end(end)
                for end, speed in ((link.a, link.a_speed), (link.b, link.b_speed))
                if speed is None and end.device not in reported
            ]
            if ends:
                yield (
                    f"{_end(link.a)} - {_end(link.b)}",
                    f"{join(ends)}: port not in its switch model, so it has no speed",
                )
        elif link.a_speed != link.b_speed:
            yield (
                f"{_end(link.a)} - {_end(link.b)}",
                (
                    f"{link.kind} link runs {link.a_speed} on {link.a.device} but {link.b_speed} on "
                    f"{link.b.device}: both ends must match (optics and cable type too)"
                ),
            )


def mtus_key(intent: Intent, fabric: ResolvedFabric, digests: Mapping[str, str]) -> Iterator[Part]:
    """LNK002 in parts: the links whose ends differ (found every time, from the cables alone),
    then one part per switch with a cabled port, made of: its name and facts digest (its
    configured MTUs are its config's), the planned MTU of each cabled port, and where the lines
    of its ``extra_config`` block are (an MTU set there is named by its line). A server row
    changes the parts of the switches it is cabled to."""
    yield None, partial(_link_mtus, intent, fabric)
    for name, ports in _planned(fabric):
        inputs = (name, digests[name], tuple(ports.items()), _block_lines(intent, name))
        yield inputs, partial(_configured_mtus_of, intent, fabric, name, ports)


def _block_lines(intent: Intent, device: str) -> tuple[str, tuple[str, str, str]] | None:
    """The ``extra_config`` block of ``device`` and what the places of its lines are made of
    (:func:`where_inputs`: :func:`field_where` names one), or None without a block."""
    block = intent.fabric.extra_config.get(device)
    return (block, where_inputs(intent, "fabric.yaml")) if block else None


@rule("LNK002", "error", "N5", "MTU consistent end to end", key=mtus_key)
def link_mtus(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each link whose MTUs break jumbo frames, and each interface off the plan."""
    yield from _link_mtus(intent, fabric)
    for name, ports in _planned(fabric):
        yield from _configured_mtus_of(intent, fabric, name, ports)


def _link_mtus(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """The links whose MTUs differ: a switch-to-switch one, a host or management port facing a
    larger MTU than its switch port's (by switch)."""
    host_side: dict[str, list[str]] = defaultdict(list)
    links = fabric.links
    # Only a link whose ends differ can be named: those found at C speed, in the link order.
    for link in compress(links, map(ne, map(_A_MTU, links), map(_B_MTU, links))):
        if link.kind in SWITCH_LINK_KINDS:
            yield (
                f"{_end(link.a)} - {_end(link.b)}",
                (
                    f"{link.kind} link has MTU {link.a_mtu} on {link.a.device} but {link.b_mtu} on "
                    f"{link.b.device}: switch-to-switch ends must be equal"
                ),
            )
        elif link.b_mtu > link.a_mtu:
            host_side[link.a.device].append(f"{link.a.port} ({link.b.device} {link.b_mtu})")
    for device, ports in sorted(host_side.items()):
        yield (
            device,
            (
                f"{len(ports)} port(s) face a larger MTU than the switch port's: {join(ports, 3)}; "
                f"jumbo frames from the host would be dropped (mtu.host "
                f"{intent.fabric.mtu.host} must not exceed mtu.switch {intent.fabric.mtu.switch})"
            ),
        )


def _planned(fabric: ResolvedFabric) -> list[tuple[str, dict[str, int]]]:
    """Per switch with a cabled port (by name), the MTU the cabling plan gives each of its cabled
    ports (the last link naming it)."""
    planned: dict[str, dict[str, int]] = {}
    for link in fabric.links:
        a, b = link.a, link.b
        ports = planned.get(a.device)
        if ports is None:
            ports = planned[a.device] = {}
        ports[a.port] = link.a_mtu
        ports = planned.get(b.device)
        if ports is None:
            ports = planned[b.device] = {}
        ports[b.port] = link.b_mtu
    return [(name, planned[name]) for name in sorted(fabric.devices) if name in planned]


def _configured_mtus_of(
    intent: Intent, fabric: ResolvedFabric, name: str, planned: dict[str, int]
) -> Iterator[tuple[str, str]]:
    """Interfaces of switch ``name`` whose configured MTU differs from the MTU the cabling plan
    gives them (``planned``: by cabled port; a port without a cable has no plan, and most
    interfaces have none); one set by ``extra_config`` is named by its line there."""
    ifaces = interfaces(fabric, fabric.devices[name])
    for port, want in planned.items():
        iface = ifaces.get(port)
        if iface is not None and iface.mtu is not None and iface.mtu != want:
            where = field_where(intent, name, iface.name, "mtu")
            if where is None:
                yield name, f"{iface.name} is configured with MTU {iface.mtu}, its link with {want}"
            else:
                yield (
                    where,
                    f"mtu {iface.mtu} on {name} {iface.name}, a link the design runs at MTU {want}: "
                    "remove the line (both ends of a link run the design's MTU, fabric.yaml mtu)",
                )


_A_MTU, _B_MTU = attrgetter("a_mtu"), attrgetter("b_mtu")
