"""``generated/docs/compute-fabric.svg``: the compute fabric as a person would draw it.

Spines on top, a spine bus below them, leaf pairs as blocks (both leaves, the racks they
serve, their server count) in rows of at most :data:`PAIRS_PER_ROW`. Each spine and each
pair has one line to the bus, labelled with the links it stands for, so the picture stays
readable at 12 pairs and at 16 times that (no line per cable: the cable list is
``inventory/cabling.csv``). Hand-written SVG, no dependencies.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from xml.sax.saxutils import escape

from compiler.fabric import ResolvedFabric
from compiler.intent import Intent

PAIRS_PER_ROW = 12
PAIR_W, PAIR_H, GAP = 170, 74, 20
SPINE_W, SPINE_H = 120, 40
MARGIN = 30


@dataclass(frozen=True, slots=True)
class PairBox:
    """A leaf pair as drawn: its leaves, racks, servers and uplinks per leaf."""

    leaves: tuple[str, ...]
    racks: tuple[int, ...]
    servers: int
    uplinks_per_leaf: int
    uplink_speed: str


def pair_boxes(fabric: ResolvedFabric, network: str) -> list[PairBox]:
    """The leaf pairs of ``network``, by rack."""
    leaves = {n: d for n, d in fabric.devices.items() if d.network == network and d.role == "leaf"}
    by_group: dict[str, list[str]] = defaultdict(list)
    for name, device in leaves.items():
        by_group[device.redundancy_group].append(name)
    uplinks: dict[str, list[str]] = defaultdict(list)
    servers: dict[str, set[str]] = defaultdict(set)
    racks: dict[str, set[int]] = defaultdict(set)
    for link in fabric.links:
        if link.a.device in leaves and link.kind == "fabric":
            uplinks[link.a.device].append(link.a_speed or "")
        if link.a.device in leaves and link.kind == "server":
            servers[leaves[link.a.device].redundancy_group].add(link.b.device)
            racks[leaves[link.a.device].redundancy_group].add(fabric.servers[link.b.device].rack)
    boxes = []
    for group, names in by_group.items():
        first = sorted(names)[0]
        boxes.append(
            PairBox(
                tuple(sorted(names)),
                tuple(sorted(racks[group])),
                len(servers[group]),
                len(uplinks[first]),
                uplinks[first][0] if uplinks[first] else "",
            )
        )
    return sorted(boxes, key=lambda b: (b.racks or (0,), b.leaves))


def _text(x: float, y: float, text: str, size: int = 12, anchor: str = "middle", weight: str = "normal") -> str:
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}" font-weight="{weight}">'
        f"{escape(text)}</text>"
    )


def compute_svg(intent: Intent, fabric: ResolvedFabric, network: str = "compute") -> str:
    """The SVG text of one fabric."""
    spines = sorted(n for n, d in fabric.devices.items() if d.network == network and d.role == "spine")
    boxes = pair_boxes(fabric, network)
    cols = max(1, min(PAIRS_PER_ROW, len(boxes)))
    rows = (len(boxes) + cols - 1) // cols
    width = max(cols * (PAIR_W + GAP), len(spines) * (SPINE_W + GAP)) + 2 * MARGIN
    spine_y, bus_y, pairs_y = MARGIN + 30, MARGIN + 30 + SPINE_H + 50, MARGIN + 30 + SPINE_H + 110
    height = pairs_y + rows * (PAIR_H + 60) + MARGIN
    leaves = sum(len(b.leaves) for b in boxes)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="Helvetica, Arial, sans-serif">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        _text(
            MARGIN,
            MARGIN,
            f"{intent.fabric.site.name}: {network} fabric, {len(spines)} spines, "
            f"{leaves} leaves in {len(boxes)} MLAG pairs",
            16,
            "start",
            "bold",
        ),
        f'<line x1="{MARGIN}" y1="{bus_y}" x2="{width - MARGIN}" y2="{bus_y}" stroke="#555" stroke-width="6"/>',
        _text(width - MARGIN, bus_y - 8, "every leaf has one link to every spine", 11, "end"),
    ]
    spine_span = len(spines) * (SPINE_W + GAP) - GAP
    x0 = (width - spine_span) / 2
    for i, spine in enumerate(spines):
        x = x0 + i * (SPINE_W + GAP)
        cx = x + SPINE_W / 2
        out.append(
            f'<line x1="{cx:g}" y1="{spine_y + SPINE_H}" x2="{cx:g}" y2="{bus_y}" stroke="#555" stroke-width="3"/>'
        )
        out.append(f'<rect x="{x:g}" y="{spine_y}" width="{SPINE_W}" height="{SPINE_H}" rx="6" fill="#1f4e79"/>')
        out.append(_text(cx, spine_y + 25, spine, 13).replace("<text ", '<text fill="white" ', 1))
        out.append(_text(cx + 4, spine_y + SPINE_H + 20, f"x{leaves} downlinks", 10, "start"))
    for i, box in enumerate(boxes):
        row, col = divmod(i, cols)
        x = MARGIN + col * (PAIR_W + GAP)
        y = pairs_y + row * (PAIR_H + 60)
        cx = x + PAIR_W / 2
        out.append(f'<line x1="{cx:g}" y1="{bus_y}" x2="{cx:g}" y2="{y}" stroke="#999" stroke-width="2"/>')
        out.append(_text(cx + 4, y - 8, f"x{box.uplinks_per_leaf} uplinks/leaf {box.uplink_speed}", 10, "start"))
        out.append(f'<rect x="{x}" y="{y}" width="{PAIR_W}" height="{PAIR_H}" rx="6" fill="#e8f1fa" stroke="#1f4e79"/>')
        for j, leaf in enumerate(box.leaves):
            out.append(_text(cx, y + 18 + 16 * j, leaf, 12))
        racks = ", ".join(f"rack{r:02d}" for r in box.racks) or "no servers"
        out.append(_text(cx, y + PAIR_H - 10, f"{racks}: {box.servers} servers", 10))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def diagram_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """The compute fabric diagram (and the storage one, drawn the same way)."""
    files = {}
    for network in sorted(intent.fabric.fabrics):
        files[f"docs/{network}-fabric.svg"] = compute_svg(intent, fabric, network)
    return files
