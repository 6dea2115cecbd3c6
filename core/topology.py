"""Who is cabled to whom, and the neighbourhood (blast radius) of a set of devices, grouped.

A :class:`Topology` is read from ``generated/`` (:meth:`Topology.read`: the inventory, the
cabling plan and the asset table). A :class:`Neighbourhood` is what a picture of "these devices
and what they touch" needs: the devices themselves (highlighted), every switch one cable away,
and the servers behind them grouped per rack. Where a tier holds more boxes than a picture can
show, its switches are grouped by role, network and mark (``12 compute leaves`` of
``rack01-12``), highlighted ones too, so the picture of a 20-rack change stays as small as
that of a one-port change. It knows nothing of SVG or Mermaid: the view draws it as SVG
(``view.draw``), a review comment and a drift report as Mermaid (:mod:`core.mermaid`).

A mark says what a device is in the picture (``changed`` in a review; ``drift``, ``pending``,
``unreachable`` in a drift report); unmarked devices are context.

Example:
    >>> links = [Link("leaf1", "spine1", "fabric", "400g"), Link("leaf1", "leaf2", "peer-link", "400g"),
    ...          Link("leaf1", "srv1", "server", "100g"), Link("leaf1", "srv2", "server", "100g")]
    >>> roles = {"leaf1": ("leaf", "compute"), "leaf2": ("leaf", "compute"), "spine1": ("spine", "compute")}
    >>> area = neighbourhood(Topology(roles, {"srv1": "rack01", "srv2": "rack01"}, links), ["leaf1"])
    >>> [(n.label, n.tier, n.highlighted) for n in area.nodes]
    [('spine1', 0, False), ('leaf1', 1, True), ('leaf2', 1, False), ('rack01: 2 servers', 2, False)]
    >>> [(e.a, e.b, e.label) for e in area.edges]
    [('leaf1', 'leaf2', '1x400g'), ('leaf1', 'servers:rack01', '2x100g'), ('spine1', 'leaf1', '1x400g')]
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from core.generated import CABLING, Snapshot

ASSETS = "inventory/assets.csv"
TIERS = {"super-spine": 0, "spine": 0, "core": 0, "leaf": 1, "mgmt": 1}
"""Top to bottom: spines and the management core, then leaves and rack switches, then servers."""
SERVER_TIER = 2
ROLE_NAMES = {"mgmt": ("rack switch", "rack switches"), "leaf": ("leaf", "leaves")}
"""How a role reads in a label, one and many (others: as is, and with an s)."""
MAX_PER_TIER = 8
"""More boxes than this in one tier are drawn as one group per role, network and mark."""


@dataclass(frozen=True, slots=True)
class Link:
    """A cable between two devices, with its kind (fabric, peer-link, server, mgmt...) and speed."""

    a: str
    b: str
    kind: str
    speed: str


@dataclass(frozen=True)
class Topology:
    """Switches with their (role, network), servers with their rack, the cables, and switches' racks."""

    switches: Mapping[str, tuple[str, str]]
    servers: Mapping[str, str]
    links: list[Link]
    racks: Mapping[str, str] = field(default_factory=dict)

    @cached_property
    def by_device(self) -> dict[str, list[Link]]:
        """Each device's cables, found without a scan of the whole fabric."""
        out: dict[str, list[Link]] = defaultdict(list)
        for link in self.links:
            out[link.a].append(link)
            out[link.b].append(link)
        return out

    @classmethod
    def read(cls, snapshot: Snapshot) -> Topology:
        """The cabling of one ``generated/``, once per cable between two devices it knows.

        Switches are the inventory's hosts, servers the asset table's; a cable to anything else
        (an upstream router) is left out.
        """
        hosts = snapshot.hosts()
        servers: dict[str, str] = {}
        racks = {name: rack_name(str(host.data.get("rack") or "")) for name, host in hosts.items()}
        for row in snapshot.table(ASSETS):
            if row.get("kind") == "server" and row.get("name"):
                servers[row["name"]] = rack_name(row.get("rack", ""))
        links = [
            Link(row["a_device"], row["b_device"], row.get("kind", ""), row.get("speed") or row.get("a_speed", ""))
            for row in snapshot.table(CABLING)
            if {row.get("a_device"), row.get("b_device")} <= (hosts.keys() | servers.keys())
        ]
        return cls({n: (h.role, str(h.data.get("network") or "")) for n, h in hosts.items()}, servers, links, racks)

    def merged(self, other: Topology) -> Topology:
        """Both topologies in one (this one's facts win): the picture of a change shows old and new cables."""
        return Topology(
            {**other.switches, **self.switches},
            {**other.servers, **self.servers},
            list(dict.fromkeys([*self.links, *other.links])),
            {**other.racks, **self.racks},
        )

    def with_switches(self, switches: Mapping[str, tuple[str, str]], links: Iterable[Link]) -> Topology:
        """This topology with more switches and cables (e.g. unmanaged switches seen over LLDP)."""
        return Topology({**self.switches, **switches}, self.servers, [*self.links, *links], self.racks)


@dataclass(frozen=True, slots=True)
class Node:
    """A box of the picture: one switch, or a group (servers of a rack, many switches)."""

    id: str
    label: str
    detail: str
    tier: int
    highlighted: bool
    network: str = ""
    mark: str = ""
    members: int = 1


@dataclass(frozen=True, slots=True)
class Edge:
    """The cables between two boxes, as one line: ``4x400g``."""

    a: str
    b: str
    kind: str
    label: str


@dataclass(frozen=True)
class Neighbourhood:
    """Boxes (by tier, then name) and lines of a picture."""

    nodes: list[Node]
    edges: list[Edge]


def role_name(role: str, count: int = 1) -> str:
    """Example:
    >>> role_name("leaf", 24), role_name("mgmt"), role_name("spine", 2)
    ('leaves', 'rack switch', 'spines')
    """
    one, many = ROLE_NAMES.get(role, (role, f"{role}s"))
    return one if count == 1 else many


def rack_name(rack: str) -> str:
    """Example:
    >>> rack_name("3"), rack_name("192"), rack_name("cage-b"), rack_name("")
    ('rack03', 'rack192', 'cage-b', '')
    """
    return f"rack{int(rack):02d}" if rack.isdigit() else rack


def name_ranges(names: Iterable[str], most: int = 3) -> str:
    """Names that end in numbers, as runs: ``rack01-12``; past ``most`` runs, the first and a count.

    Examples:
        >>> name_ranges(["rack03", "rack01", "rack02", "rack05"])
        'rack01-03, rack05'
        >>> name_ranges(["spine01", "spine02", "spine03", "spine04"])
        'spine01-04'
        >>> name_ranges(["rack01", "rack03", "rack05", "rack07", "rack09"])
        'rack01, rack03, rack05 and 2 more'
        >>> name_ranges(["core", "edge"])
        'core, edge'
    """
    runs: list[tuple[str, str, str]] = []  # prefix, first number, last number (as written)
    for name in sorted(set(names), key=_natural):
        match = re.fullmatch(r"(.*?)(\d+)", name)
        prefix, number = (match.group(1), match.group(2)) if match else (name, "")
        if runs and number and runs[-1][0] == prefix and runs[-1][2] and int(runs[-1][2]) + 1 == int(number):
            runs[-1] = (prefix, runs[-1][1], number)
        else:
            runs.append((prefix, number, number))
    shown = [f"{prefix}{a}" if a == b else f"{prefix}{a}-{b}" for prefix, a, b in runs]
    if len(shown) > most:
        return f"{', '.join(shown[:most])} and {len(shown) - most} more"
    return ", ".join(shown)


def _natural(name: str) -> tuple[str, int]:
    match = re.fullmatch(r"(.*?)(\d+)", name)
    return (match.group(1), int(match.group(2))) if match else (name, -1)


def neighbourhood(
    topology: Topology,
    devices: Iterable[str],
    marks: Mapping[str, str] | None = None,
    *,
    per_tier: int = MAX_PER_TIER,
) -> Neighbourhood:
    """``devices`` highlighted, with every switch one cable away and their servers grouped per rack.

    ``marks`` names what a device is in the picture (any device, highlighted or not); a tier of
    more than ``per_tier`` boxes is drawn as one box per role, network and mark, and more
    than ``per_tier`` racks of servers as one box. At most (roles x networks x marks) boxes
    per switch tier and one of servers, whatever the size of the change.
    """
    marks = marks or {}
    centre = set(devices)
    touching = list(dict.fromkeys(link for name in sorted(centre) for link in topology.by_device.get(name, ())))
    switches = set(centre)
    for link in touching:
        switches.update(end for end in (link.a, link.b) if end in topology.switches)
    nodes: dict[str, Node] = {}
    group_of = _place_switches(topology, centre, switches, marks, per_tier, nodes)
    racks: dict[str, set[str]] = defaultdict(set)
    for link in touching:
        for this, other in ((link.a, link.b), (link.b, link.a)):
            if this in centre and other in topology.servers:
                racks[topology.servers[other]].add(other)
    if len(racks) > per_tier:
        names = set().union(*racks.values())
        group_of.update(dict.fromkeys(names, "servers"))
        label = f"{len(names)} servers"
        nodes["servers"] = Node("servers", label, f"of {name_ranges(racks)}", SERVER_TIER, False, members=len(names))
    else:
        for rack, names in racks.items():
            node_id = f"servers:{rack}"
            group_of.update(dict.fromkeys(names, node_id))
            nodes[node_id] = Node(node_id, f"{rack}: {len(names)} servers", "", SERVER_TIER, False, members=len(names))
    edges: Counter[tuple[str, str, str, str]] = Counter()
    for link in touching:
        a, b = group_of.get(link.a, link.a), group_of.get(link.b, link.b)
        if a == b or a not in nodes or b not in nodes:
            continue  # a cable inside a group (a peer-link of two grouped leaves) is not drawn
        if (nodes[a].tier, a) > (nodes[b].tier, b):
            a, b = b, a
        edges[a, b, link.kind, link.speed] += 1
    return Neighbourhood(
        sorted(nodes.values(), key=lambda n: (n.tier, n.id)),
        [
            Edge(a, b, kind, f"{count}x{speed}" if speed else f"{count} link{'s' if count > 1 else ''}")
            for (a, b, kind, speed), count in sorted(edges.items())
        ],
    )


def _place_switches(
    topology: Topology,
    centre: set[str],
    switches: set[str],
    marks: Mapping[str, str],
    per_tier: int,
    nodes: dict[str, Node],
) -> dict[str, str]:
    """Add a box per switch (grouped in a crowded tier) to ``nodes``; map each switch to its box."""
    tiers: dict[int, list[str]] = defaultdict(list)
    for name in sorted(switches):
        role, _ = topology.switches.get(name, ("", ""))
        tiers[TIERS.get(role, 1)].append(name)
    group_of: dict[str, str] = {}
    for tier, names in tiers.items():
        kinds: dict[tuple[str, str, bool, str], list[str]] = defaultdict(list)
        for name in names:
            role, network = topology.switches.get(name, ("", ""))
            kinds[role, network, name in centre, marks.get(name, "")].append(name)
        for (role, network, highlighted, mark), group in kinds.items():
            if len(names) > per_tier and len(group) > 1:
                node_id = "-".join(filter(None, ("group", network, role, mark, "centre" if highlighted else "")))
                group_of.update(dict.fromkeys(group, node_id))
                label = f"{len(group)} {network} {role_name(role, 2)}".replace("  ", " ")
                racks = {topology.racks.get(n, "") for n in group}
                where = f"of {name_ranges(racks)}" if len(racks) > 1 and "" not in racks else name_ranges(group)
                nodes[node_id] = Node(node_id, label, where, tier, highlighted, network, mark, len(group))
                continue
            for name in group:
                group_of[name] = name
                detail = f"{network} {role_name(role)}".strip()
                nodes[name] = Node(name, name, detail, tier, highlighted, network, mark)
    return group_of
