"""A :class:`core.topology.Neighbourhood` as a Mermaid flowchart, for Markdown that GitHub renders.

The review comment of a pull request (``fabricops diff --format markdown``) draws the blast
radius of the change; the drift report and its issues draw the devices that are not in sync.
GitHub renders a ```` ```mermaid ```` block in Markdown as a picture, and shows the text where
it cannot, so the text stays readable too: one line per box and per line.

* Deterministic: boxes by network, tier and name; lines sorted; the same neighbourhood gives
  the same bytes.
* Safe: every box gets an id of its own (``n_`` + letters, digits and ``_``), so no device name
  can be read as a keyword (``end``, ``graph``) or an edge (``o``/``x`` after ``---``); label
  text is quoted and every character outside a plain set is written as an entity (``#35;``).
* Small: a box per switch only where a tier is small enough; else :func:`core.topology.neighbourhood`
  groups it (``12 compute leaves`` of ``rack01-12``). :data:`MAX_NODES` bounds what any report
  draws: past it (a neighbourhood grouped as far as it goes still too big) the picture says so
  instead of drawing.
* Networks are subgraphs; a mark (``changed``, ``drift``, ...) is a class with its colours.

Example:
    >>> from core.topology import Edge, Neighbourhood, Node
    >>> area = Neighbourhood([Node("spine1", "spine1", "compute spine", 0, False, "compute"),
    ...                       Node("end", "end", "compute leaf", 1, True, "compute", "changed")],
    ...                      [Edge("spine1", "end", "fabric", "1x400g")])
    >>> print(flowchart(area), end="")
    flowchart TB
      subgraph g_compute["compute"]
        n_spine1["spine1"]
        n_end["end"]
      end
      n_spine1 ---|"1x400g"| n_end
      classDef changed fill:#fde68a,stroke:#b45309,stroke-width:3px,color:#111
      classDef neighbour fill:#f3f4f6,stroke:#9ca3af,color:#111
      class n_end changed
      class n_spine1 neighbour
"""

from __future__ import annotations

import re

from core.topology import Neighbourhood, Node

MAX_NODES = 60
"""The most boxes a picture in a comment or an issue holds; a grouped neighbourhood stays far below."""
NEIGHBOUR = "neighbour"
#: Fill, stroke and text colours per mark (readable on GitHub's light and dark themes: text is dark
#: on every fill). Unmarked boxes are neighbours: the context of the marked ones.
STYLES = {
    "changed": "fill:#fde68a,stroke:#b45309,stroke-width:3px,color:#111",
    "added": "fill:#bbf7d0,stroke:#15803d,stroke-width:3px,color:#111",
    "removed": "fill:#fecaca,stroke:#b91c1c,stroke-width:3px,stroke-dasharray:5 3,color:#111",
    "drift": "fill:#fecaca,stroke:#b91c1c,stroke-width:3px,color:#111",
    "drift+pending": "fill:#fecaca,stroke:#1d4ed8,stroke-width:3px,color:#111",
    "pending": "fill:#bfdbfe,stroke:#1d4ed8,stroke-width:2px,color:#111",
    "unreachable": "fill:#e5e7eb,stroke:#111827,stroke-width:2px,stroke-dasharray:4 3,color:#111",
    "unmanaged": "fill:#ffffff,stroke:#7c3aed,stroke-width:2px,stroke-dasharray:2 2,color:#111",
    NEIGHBOUR: "fill:#f3f4f6,stroke:#9ca3af,color:#111",
}
#: What each colour means, for the line under a picture.
MEANINGS = {
    "changed": "amber: changed",
    "added": "green: added",
    "removed": "red, dashed: removed",
    "drift": "red: drift",
    "drift+pending": "red edged blue: drift and a merged change pending",
    "pending": "blue: pending (merged, not deployed)",
    "unreachable": "grey, dashed: unreachable",
    "unmanaged": "white, dotted: unmanaged",
    NEIGHBOUR: "grey: one cable away",
}
#: Mermaid draws a peer-link dotted, every other cable as a plain line.
LINES = {"peer-link": "-.-"}
_SAFE_TEXT = re.compile(r"[A-Za-z0-9 _.,:/()+\-]")


def flowchart(area: Neighbourhood) -> str:
    """The Mermaid text of ``area``: subgraphs per network, a class per mark (see the module)."""
    if len(area.nodes) > MAX_NODES:
        raise ValueError(f"{len(area.nodes)} boxes are more than a picture holds ({MAX_NODES})")
    ids = node_ids(area.nodes)
    out = ["flowchart TB"]
    networks = sorted({n.network for n in area.nodes if n.network})
    for network in networks:
        out.append(f'  subgraph {safe_id("g_", network)}["{label_text(network)}"]')
        out += [f"    {_box(ids[n.id], n)}" for n in area.nodes if n.network == network]
        out.append("  end")
    out += [f"  {_box(ids[n.id], n)}" for n in area.nodes if not n.network]
    for edge in area.edges:
        out.append(f'  {ids[edge.a]} {LINES.get(edge.kind, "---")}|"{label_text(edge.label)}"| {ids[edge.b]}')
    classes: dict[str, list[str]] = {}
    for node in area.nodes:
        classes.setdefault(node.mark if node.mark in STYLES else NEIGHBOUR, []).append(ids[node.id])
    out += [f"  classDef {_class(mark)} {STYLES[mark]}" for mark in sorted(classes)]
    out += [f"  class {','.join(members)} {_class(mark)}" for mark, members in sorted(classes.items())]
    return "\n".join(out) + "\n"


def markdown(area: Neighbourhood) -> list[str]:
    """``area`` as a fenced Mermaid block for a Markdown report, and a line saying what the colours mean.

    Empty when there is nothing to draw; a line instead of a picture past :data:`MAX_NODES`.
    """
    if not area.nodes:
        return []
    if len(area.nodes) > MAX_NODES:
        return [f"_{len(area.nodes)} boxes: too many to draw ({MAX_NODES} at most)._"]
    marks = sorted({n.mark if n.mark in STYLES else NEIGHBOUR for n in area.nodes}, key=list(STYLES).index)
    groups = "; a box of many devices names their racks" if any(n.members > 1 and n.detail for n in area.nodes) else ""
    legend = f"_{'; '.join(MEANINGS[m] for m in marks)}{groups}._"
    return ["```mermaid", flowchart(area).rstrip("\n"), "```", "", legend]


def node_ids(nodes: list[Node]) -> dict[str, str]:
    """A Mermaid id per box: ``n_`` and the name with every other character as ``_``; unique.

    Example:
        >>> from core.topology import Node
        >>> node_ids([Node("servers:rack01", "", "", 2, False), Node("servers-rack01", "", "", 2, False)])
        {'servers:rack01': 'n_servers_rack01', 'servers-rack01': 'n_servers_rack01_2'}
    """
    out: dict[str, str] = {}
    taken: set[str] = set()
    for node in nodes:
        base = safe_id("n_", node.id)
        candidate, count = base, 1
        while candidate in taken:
            count += 1
            candidate = f"{base}_{count}"
        taken.add(candidate)
        out[node.id] = candidate
    return out


def safe_id(prefix: str, name: str) -> str:
    """Example:
    >>> safe_id("n_", "rack03-leaf-a"), safe_id("g_", "end")
    ('n_rack03_leaf_a', 'g_end')
    """
    return prefix + re.sub(r"[^A-Za-z0-9_]", "_", name)


def label_text(text: str) -> str:
    """Text for a quoted Mermaid label: plain characters as they are, any other as an entity.

    Example:
        >>> label_text('12 leaves "a" #1 <b>')
        '12 leaves #34;a#34; #35;1 #60;b#62;'
    """
    return "".join(c if _SAFE_TEXT.fullmatch(c) else f"#{ord(c)};" for c in text)


def _box(node_id: str, node: Node) -> str:
    text = label_text(node.label)
    if node.members > 1 and node.detail:  # a group says which devices it holds
        text += f"<br/>{label_text(node.detail)}"
    return f'{node_id}["{text}"]'


def _class(mark: str) -> str:
    """A mark as a class name (``drift+pending`` -> ``drift_pending``)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", mark)
