"""A :class:`core.topology.Neighbourhood` as SVG: tiers top to bottom, highlighted devices dark.

Every box is as wide as the widest label it must hold, measured in the font the SVG declares
(:mod:`core.textmetrics`), so labels fit whatever the names. A line joins two tiers; a line
within a tier (a peer-link, a rack switch to a leaf's management port) arcs above the row.

Example:
    >>> from core.topology import Edge, Neighbourhood, Node
    >>> area = Neighbourhood([Node("s1", "spine1", "compute spine", 0, False),
    ...                       Node("l1", "leaf1", "compute leaf", 1, True)], [Edge("s1", "l1", "fabric", "1x400g")])
    >>> svg = neighbourhood_svg(area)
    >>> svg.startswith("<svg") and ">leaf1</text>" in svg and ">1x400g</text>" in svg
    True
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from xml.sax.saxutils import escape, quoteattr

from core.textmetrics import FONT_STACK, text_width
from core.topology import Neighbourhood, Node

PER_ROW = 8
PAD, GAP, MARGIN = 8, 28, 16
BOX_H, ROW_GAP = 40, 64
NAME_SIZE, NOTE_SIZE = 12, 10
DARK, LIGHT, LINE = "#1f4e79", "#e8f1fa", "#8a8a8a"


def neighbourhood_svg(area: Neighbourhood, href: Callable[[Node], str | None] = lambda node: None) -> str:
    """The SVG text of a neighbourhood; ``href`` links a box to a page."""
    if not area.nodes:
        return ""
    width_of = max(
        max(text_width(n.label, NAME_SIZE, n.highlighted), text_width(n.detail, NOTE_SIZE)) + 2 * PAD
        for n in area.nodes
    )
    rows: list[list[Node]] = []
    by_tier: dict[int, list[Node]] = defaultdict(list)
    for node in area.nodes:
        by_tier[node.tier].append(node)
    for tier in sorted(by_tier):
        # the highlighted devices in the middle of their tier, the rest around them
        others = [n for n in by_tier[tier] if not n.highlighted]
        half = len(others) // 2
        members = others[:half] + [n for n in by_tier[tier] if n.highlighted] + others[half:]
        rows += [members[i : i + PER_ROW] for i in range(0, len(members), PER_ROW)]
    widest = max(len(row) for row in rows)
    width = widest * (width_of + GAP) - GAP + 2 * MARGIN
    height = len(rows) * (BOX_H + ROW_GAP) - ROW_GAP + 2 * MARGIN + 24
    where: dict[str, tuple[float, float, int]] = {}
    for r, row in enumerate(rows):
        left = (width - (len(row) * (width_of + GAP) - GAP)) / 2
        for i, node in enumerate(row):
            where[node.id] = (left + i * (width_of + GAP), MARGIN + 24 + r * (BOX_H + ROW_GAP), r)
    out = []
    labels = []
    degree: Counter[str] = Counter()
    for edge in area.edges:
        degree.update((edge.a, edge.b))
    for edge in area.edges:
        ax, ay, ar = where[edge.a]
        bx, by, br = where[edge.b]
        a_mid, b_mid = ax + width_of / 2, bx + width_of / 2
        if ar == br:  # same row: an arc below it
            dip = ay + BOX_H + 26
            out.append(
                f'<path d="M{a_mid:g},{ay + BOX_H:g} C{a_mid:g},{dip:g} {b_mid:g},{dip:g} {b_mid:g},{by + BOX_H:g}" '
                f'fill="none" stroke="{LINE}" stroke-width="2"/>'
            )
            labels.append(_text((a_mid + b_mid) / 2, dip - 2, edge.label, NOTE_SIZE, halo=True))
            continue
        if ar < br:
            (ux, uy, un), (lx, ly, ln) = (a_mid, ay + BOX_H, edge.a), (b_mid, by, edge.b)
        else:
            (ux, uy, un), (lx, ly, ln) = (b_mid, by + BOX_H, edge.b), (a_mid, ay, edge.a)
        out.append(f'<line x1="{ux:g}" y1="{uy:g}" x2="{lx:g}" y2="{ly:g}" stroke="{LINE}" stroke-width="2"/>')
        # the label sits a quarter of the way from the end whose box has fewer lines (less crowded)
        near = 0.25 if degree[un] <= degree[ln] else 0.75
        labels.append(_text(ux + (lx - ux) * near, uy + (ly - uy) * near + 4, edge.label, NOTE_SIZE, halo=True))
    for node in area.nodes:
        x, y, _ = where[node.id]
        fill, colour = (DARK, "white") if node.highlighted else (LIGHT, "")
        texts = [_text(x + width_of / 2, y + 17, node.label, NAME_SIZE, bold=node.highlighted, fill=colour)]
        if node.detail:
            texts.append(_text(x + width_of / 2, y + BOX_H - 8, node.detail, NOTE_SIZE, fill=colour))
        box = (
            f'<g class="box"><rect x="{x:g}" y="{y:g}" width="{width_of:g}" height="{BOX_H}" rx="5" fill="{fill}" '
            f'stroke="{DARK}"/>{"".join(texts)}</g>'
        )
        link = href(node)
        out.append(f"<a href={quoteattr(link)}>{box}</a>" if link else box)
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="neighbourhood" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}" font-family={quoteattr(FONT_STACK)}>'
    )
    return "\n".join([head, *out, *labels, "</svg>"]) + "\n"


def _text(x: float, y: float, text: str, size: int, bold: bool = False, fill: str = "", halo: bool = False) -> str:
    attrs = f' x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="middle"'
    if bold:
        attrs += ' font-weight="bold"'
    if fill:
        attrs += f' fill="{fill}"'
    if halo:  # a white outline keeps a label readable where it crosses a line
        attrs += ' stroke="white" stroke-width="3" paint-order="stroke"'
    return f"<text{attrs}>{escape(text)}</text>"
