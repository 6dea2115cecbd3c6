"""Who is cabled to whom, and the neighbourhood (blast radius) of a set of devices, grouped.

A :class:`Neighbourhood` is what a picture of "these devices and what they touch" needs:
the devices themselves (highlighted), every switch one cable away, and the servers behind
them grouped per rack; where a tier holds too many devices to draw, they are grouped by
role and network (``384 compute leaves``). It knows nothing of SVG or Mermaid: the view
draws it as SVG (:mod:`view.draw`), a review comment can draw the same one as Mermaid.

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

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from view.model import Floor

TIERS = {"super-spine": 0, "spine": 0, "core": 0, "leaf": 1, "mgmt": 1}
"""Top to bottom: spines and the management core, then leaves and rack switches, then servers."""
SERVER_TIER = 2
ROLE_NAMES = {"mgmt": ("rack switch", "rack switches"), "leaf": ("leaf", "leaves")}
"""How a role reads in a label, one and many (others: as is, and with an s)."""
MAX_PER_TIER = 8
"""More neighbours than this in one tier are drawn as one group per role and network."""


@dataclass(frozen=True, slots=True)
class Link:
    """A cable between two devices, with its kind (fabric, peer-link, server, mgmt...) and speed."""

    a: str
    b: str
    kind: str
    speed: str


@dataclass(frozen=True)
class Topology:
    """Switches with their (role, network), servers with their rack, and the cables."""

    switches: Mapping[str, tuple[str, str]]
    servers: Mapping[str, str]
    links: list[Link]

    @cached_property
    def by_device(self) -> dict[str, list[Link]]:
        """Each device's cables, found without a scan of the whole fabric."""
        out: dict[str, list[Link]] = defaultdict(list)
        for link in self.links:
            out[link.a].append(link)
            out[link.b].append(link)
        return out

    @classmethod
    def of(cls, floor: Floor) -> Topology:
        """The cabling of one ``generated/``, once per cable."""
        links = []
        for switch in floor.switches.values():
            for port in switch.ports:
                end = port.cable
                if end and (end.peer in floor.servers or (end.peer in floor.switches and end.device < end.peer)):
                    links.append(Link(end.device, end.peer, end.kind, end.speed))
        return cls(
            {n: (s.role, s.network) for n, s in floor.switches.items()},
            {
                n: f"rack{int(s.placed.rack):02d}" if s.placed.rack.isdigit() else s.placed.rack
                for n, s in floor.servers.items()
            },
            links,
        )


@dataclass(frozen=True, slots=True)
class Node:
    """A box of the picture: one switch, or a group (servers of a rack, many switches)."""

    id: str
    label: str
    detail: str
    tier: int
    highlighted: bool


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


def neighbourhood(topology: Topology, devices: Iterable[str]) -> Neighbourhood:
    """``devices`` highlighted, with every switch one cable away and their servers grouped per rack."""
    centre = set(devices)
    nodes: dict[str, Node] = {}
    for name in sorted(centre):
        role, network = topology.switches.get(name, ("", ""))
        nodes[name] = Node(name, name, f"{network} {role_name(role)}".strip(), TIERS.get(role, 1), True)
    touching = list(dict.fromkeys(link for name in sorted(centre) for link in topology.by_device.get(name, ())))
    group_of = _switch_neighbours(topology, centre, touching, nodes)
    racks: dict[str, set[str]] = defaultdict(set)
    for link in touching:
        for this, other in ((link.a, link.b), (link.b, link.a)):
            if this in centre and other in topology.servers:
                racks[topology.servers[other]].add(other)
    for rack, names in racks.items():
        node_id = f"servers:{rack}"
        group_of.update(dict.fromkeys(names, node_id))
        nodes[node_id] = Node(node_id, f"{rack}: {len(names)} servers", "", SERVER_TIER, False)
    edges: Counter[tuple[str, str, str, str]] = Counter()
    for link in touching:
        a, b = group_of.get(link.a, link.a), group_of.get(link.b, link.b)
        if (nodes[a].tier, a) > (nodes[b].tier, b):
            a, b = b, a
        edges[a, b, link.kind, link.speed] += 1
    return Neighbourhood(
        sorted(nodes.values(), key=lambda n: (n.tier, n.id)),
        [
            Edge(a, b, kind, f"{count}x{speed}" if speed else f"{count} links")
            for (a, b, kind, speed), count in sorted(edges.items())
        ],
    )


def _switch_neighbours(
    topology: Topology, centre: set[str], touching: list[Link], nodes: dict[str, Node]
) -> dict[str, str]:
    """Add the switches one cable away to ``nodes`` (grouped in a crowded tier); map each to its box."""
    tiers: dict[int, set[str]] = defaultdict(set)
    for link in touching:
        for other in (link.a, link.b):
            if other not in centre and other in topology.switches:
                tiers[TIERS.get(topology.switches[other][0], 1)].add(other)
    group_of: dict[str, str] = {}
    for names in tiers.values():
        kinds: dict[tuple[str, str], list[str]] = defaultdict(list)
        for name in sorted(names):
            kinds[topology.switches[name]].append(name)
        for (role, network), group in kinds.items():
            tier = TIERS.get(role, 1)
            if len(names) > MAX_PER_TIER and len(group) > 1:
                node_id = f"{network}-{role_name(role, 2).replace(' ', '-')}"
                group_of.update(dict.fromkeys(group, node_id))
                label = f"{len(group)} {network} {role_name(role, 2)}"
                nodes[node_id] = Node(node_id, label, f"{group[0]} ... {group[-1]}", tier, False)
                continue
            for name in group:
                group_of[name] = name
                nodes[name] = Node(name, name, f"{network} {role_name(role)}", tier, False)
    return group_of
