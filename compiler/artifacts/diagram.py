"""``generated/docs/<network>-*.svg``: each network as a person would draw it.

* ``compute-fabric.svg``, ``storage-fabric.svg``: spines on top, a spine bus below them, leaf
  pairs as blocks in rows of at most :data:`PER_ROW`. Each leaf has its own uplink to the bus
  (labelled with its links and speed), the two leaves of a pair are joined by their peer-link
  (labelled the same way), and each pair names the racks and servers it serves. A three-stage
  fabric draws its super-spines above the pod spines, on a bus of their own that each pod spine
  reaches with its uplinks (labelled); past :data:`SUPER_SPINE_BOXES` super-spines, one box per
  plane stands for its super-spines.
* ``management-network.svg``: the management core on top, its bus, and every rack switch with
  its uplink and what it serves (servers, switch management ports).

One line per uplink, not per cable, so a picture stays readable at 12 pairs and at 16 times
that (the cable list is ``inventory/cabling.csv``). Every box is sized from the width of the
labels it holds, measured in the font the SVG declares (:mod:`core.textmetrics`), so no label
overflows at any scale. Each box is a ``<g class="box">`` holding its ``<rect>`` and texts.
Hand-written SVG, no dependencies.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import compress, groupby
from operator import attrgetter
from typing import NamedTuple

from compiler.artifacts.units import Unit, built, joined, section_path
from compiler.fabric import ResolvedFabric
from compiler.facts.cabling import Cable
from compiler.intent import Intent
from compiler.memo import same_as_last
from core.textmetrics import FONT_STACK, text_width


def escape(text: str) -> str:
    """``&``, ``<`` and ``>`` as entities, as ``html.escape(text, quote=False)`` writes them
    (not imported: ``html`` loads its table of 2,000 entities, 1.5 ms of every compile;
    ``xml.sax.saxutils.escape`` pulls in ``urllib.request``, ``http.client`` and ``ssl``).

    Example:
        >>> escape("a < b & c > d")
        'a &lt; b &amp; c &gt; d'
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def quoteattr(text: str) -> str:
    """An attribute value with its quotes, as ``xml.sax.saxutils.quoteattr`` writes it.

    Example:
        >>> print(quoteattr("'Noto Sans', sans-serif"), quoteattr('say "hi"'))
        "'Noto Sans', sans-serif" 'say "hi"'
    """
    text = escape(text).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return '"{}"'.format(text.replace('"', "&quot;"))


PER_ROW = 12
"""Blocks per row of the picture."""
SUPER_SPINE_BOXES = 12
"""Up to this many super-spines are drawn one box each; past it, one box per plane."""
PAD = 8
"""Room between a label and the edge of its box, each side (covers kerning, too)."""
GAP = 24
"""Between two blocks of a row."""
MARGIN = 30
NAME_SIZE, NOTE_SIZE, TITLE_SIZE = 12, 10, 16
LEAF_H, SPINE_H = 26, 40
ROW_GAP, ROW_BUS = 50, 36
"""Between two rows of blocks, and how far above a row its bus runs."""
DARK, LIGHT, LINE = "#1f4e79", "#e8f1fa", "#555"


@dataclass(frozen=True, slots=True)
class PairBox:
    """A leaf pair as drawn: its leaves, racks, servers, uplinks per leaf and peer-link."""

    leaves: tuple[str, ...]
    racks: tuple[int, ...]
    servers: int
    uplinks_per_leaf: int
    uplink_speed: str
    peer_links: int = 0
    peer_speed: str = ""

    @property
    def served(self) -> str:
        """What the pair serves, racks as ranges.

        Example:
            >>> PairBox(("a", "b"), (1, 2, 3, 4), 36, 2, "100g").served
            'rack01-04: 36 servers'
        """
        return f"{rack_ranges(self.racks)}: {self.servers} servers" if self.racks else "no servers"


def rack_ranges(racks: Sequence[int]) -> str:
    """Rack numbers as compact ranges.

    Example:
        >>> rack_ranges([1, 2, 3, 4, 9, 12, 13])
        'rack01-04, rack09, rack12-13'
    """
    spans: list[list[int]] = []
    for rack in sorted(racks):
        if spans and spans[-1][1] == rack - 1:
            spans[-1][1] = rack
        else:
            spans.append([rack, rack])
    return ", ".join(f"rack{a:02d}" if a == b else f"rack{a:02d}-{b:02d}" for a, b in spans)


def links_label(count: int, speed: str) -> str:
    """``2x400g``; without a speed, ``2 links``.

    Example:
        >>> links_label(4, "400g"), links_label(1, ""), links_label(2, "")
        ('4x400g', '1 link', '2 links')
    """
    return f"{count}x{speed}" if speed else f"{count} link{'s' if count != 1 else ''}"


@same_as_last
def cables_by_kind(fabric: ResolvedFabric) -> dict[tuple[str, str], list[Cable]]:
    """The fabric's cables by network and kind, each in the link order: the pictures go over
    one network's cables of a kind (its uplinks: a few hundred), not over the fleet's 13,000
    at 16x once per question, most of them to a server.

    Example:
        >>> from compiler.facts import Cable as C, Endpoint as E
        >>> up = C("compute", "fabric", E("leaf1", "Ethernet1"), E("spine1", "Ethernet2"), "400g", "400g", 9214, 9214)
        >>> cables_by_kind(type("F", (), {"links": (up,)})()) == {("compute", "fabric"): [up]}
        True
    """
    out: dict[tuple[str, str], list[Cable]] = {}
    for kind, run in groupby(fabric.links, key=_NETWORK_KIND):  # a switch's cables of a kind come in runs
        out.setdefault(kind, []).extend(run)
    return out


_NETWORK_KIND = attrgetter("network", "kind")


def _cables(fabric: ResolvedFabric, network: str, *kinds: str) -> list[Cable]:
    """The cables of ``network`` of each kind of ``kinds`` (a switch's cables are of its
    network, but the management cable its Management1 takes)."""
    by_kind = cables_by_kind(fabric)
    return [link for kind in kinds for link in by_kind.get((network, kind), ())]


_A_DEVICE, _B_DEVICE, _RACK = attrgetter("a.device"), attrgetter("b.device"), attrgetter("rack")
_A_SPEED, _B_SPEED = attrgetter("a_speed"), attrgetter("b_speed")


def pair_boxes(fabric: ResolvedFabric, network: str) -> list[PairBox]:
    """The leaf pairs of ``network``, by rack."""
    leaves = {n: d for n, d in fabric.devices.items() if d.network == network and d.role == "leaf"}
    by_group: dict[str, list[str]] = defaultdict(list)
    for name, device in leaves.items():
        by_group[device.redundancy_group].append(name)
    uplinks: dict[str, list[str | None]] = defaultdict(list)
    peers: dict[str, list[str]] = defaultdict(list)
    servers: dict[str, set[str]] = defaultdict(set)
    racks: dict[str, set[int]] = defaultdict(set)
    # A leaf's uplinks come in a run, their speeds taken at C speed: one step per leaf, not per cable.
    for leaf, run in groupby(_cables(fabric, network, "fabric"), key=_A_DEVICE):
        if leaf in leaves:
            uplinks[leaf].extend(map(_A_SPEED, run))
    for link in _cables(fabric, network, "peer-link"):
        if link.a.device in leaves:
            peers[leaves[link.a.device].redundancy_group].append(link.a_speed or "")
    # A leaf's cables to servers come in a run: each run's servers and their racks gathered at
    # C speed (getters, set updates), one step in Python per run, not per cable (a server has
    # several, and its network's are most of the fleet's cables).
    for leaf, run in groupby(_cables(fabric, network, "server"), key=_A_DEVICE):
        if leaf in leaves:
            group = leaves[leaf].redundancy_group
            served = set(map(_B_DEVICE, run))
            servers[group].update(served)
            racks[group].update(map(_RACK, map(fabric.servers.__getitem__, served)))
    boxes = []
    for group, names in by_group.items():
        first = sorted(names)[0]
        boxes.append(
            PairBox(
                tuple(sorted(names)),
                tuple(sorted(racks[group])),
                len(servers[group]),
                len(uplinks[first]),
                (uplinks[first][0] or "") if uplinks[first] else "",
                len(peers[group]),
                peers[group][0] if peers[group] else "",
            )
        )
    return sorted(boxes, key=lambda b: (b.racks or (0,), b.leaves))


# ----------------------------------------------------------------------------- SVG pieces


def _text(x: float, y: float, text: str, size: int, anchor: str = "middle", bold: bool = False, fill: str = "") -> str:
    weight = ' font-weight="bold"' if bold else ""
    colour = f' fill="{fill}"' if fill else ""
    return f'<text x="{x:g}" y="{y:g}" font-size="{size}" text-anchor="{anchor}"{weight}{colour}>{escape(text)}</text>'


def _line(x1: float, y1: float, x2: float, y2: float, width: float = 2, colour: str = LINE) -> str:
    return f'<line x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{colour}" stroke-width="{width:g}"/>'


def _box(x: float, y: float, w: float, h: float, fill: str, texts: Iterable[str], title: str = "") -> str:
    """A box and the labels inside it, grouped so a reader (or a test) knows what holds what."""
    stroke = "" if fill == DARK else f' stroke="{DARK}"'
    name = f" data-name={quoteattr(title)}" if title else ""
    inner = "".join(texts)
    rect = f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="5" fill="{fill}"{stroke}/>'
    return f'<g class="box"{name}>{rect}{inner}</g>'


def _fit(labels: Iterable[tuple[str, int, bool]], least: float = 0) -> float:
    """The width of a box that holds each ``(label, size, bold)`` with :data:`PAD` each side."""
    return max([least, *(text_width(label, size, bold) + 2 * PAD for label, size, bold in labels)])


def _svg(width: float, height: float, body: list[str]) -> str:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}" font-family={quoteattr(FONT_STACK)}>'
    )
    return "\n".join([head, f'<rect width="{width:g}" height="{height:g}" fill="white"/>', *body, "</svg>"]) + "\n"


def _row_buses(rows: int, first_y: float, step: float, bus_y: float, width: float) -> list[str]:
    """Below the first row, each row hangs from a bus of its own, fed by a trunk on the left."""
    if rows < 2:
        return []
    trunk = MARGIN / 2
    last = first_y + (rows - 1) * step - ROW_BUS
    out = [_line(trunk, bus_y, MARGIN, bus_y, 6), _line(trunk, bus_y, trunk, last, 4)]
    out += [
        _line(trunk, first_y + r * step - ROW_BUS, width - MARGIN, first_y + r * step - ROW_BUS, 4)
        for r in range(1, rows)
    ]
    return out


def _top_sizes(names: Sequence[str], notes: dict[str, str]) -> tuple[float, float]:
    """The width of a top-tier box (spine, core) and the step from one to the next."""
    width = _fit((name, 13, True) for name in names)
    return width, max([width, *(text_width(n, NOTE_SIZE) + 2 * PAD for n in notes.values())]) + GAP


def _top_row(
    names: Sequence[str],
    notes: dict[str, str],
    box_w: float,
    step: float,
    width: float,
    top: float,
    bus_y: float,
    up: tuple[float, dict[str, str]] | None = None,
) -> list[str]:
    """A top tier, centred: dark boxes, each with its line down to the bus and its note; with
    ``up`` (the bus above, and a label per box), each also has its labelled line up to it."""
    out = []
    x0 = (width - (len(names) * step - GAP)) / 2
    for i, name in enumerate(names):
        x = x0 + i * step + (step - GAP - box_w) / 2
        cx = x + box_w / 2
        if up is not None:
            out.append(_line(cx, up[0], cx, top, 3))
            out.append(_text(cx + 4, top - 6, up[1][name], NOTE_SIZE, "start"))
        out.append(_line(cx, top + SPINE_H, cx, bus_y, 3))
        out.append(_box(x, top, box_w, SPINE_H, DARK, [_text(cx, top + 25, name, 13, bold=True, fill="white")], name))
        out.append(_text(cx + 4, top + SPINE_H + 16, notes[name], NOTE_SIZE, "start"))
    return out


def _title(text: str) -> tuple[str, float]:
    return _text(MARGIN, MARGIN, text, TITLE_SIZE, "start", bold=True), text_width(text, TITLE_SIZE, True) + 2 * MARGIN


# --------------------------------------------------------------------------- the fabrics


def fabric_svg(intent: Intent, fabric: ResolvedFabric, network: str) -> str:
    """The SVG text of one spine-leaf fabric."""
    return _drawn(fabric_picture(intent, fabric, network))


def fabric_picture(intent: Intent, fabric: ResolvedFabric, network: str) -> Picture:
    """One spine-leaf fabric: spines and buses, then its leaf pairs by rows."""
    spines = sorted(n for n, d in fabric.devices.items() if d.network == network and d.role == "spine")
    uplinks = _cables(fabric, network, "fabric")
    downlinks = Counter(map(_B_DEVICE, uplinks))  # read for the spines alone
    down_speed = dict(zip(map(_B_DEVICE, uplinks), map(_B_SPEED, uplinks), strict=True))  # each end's last, at C speed
    boxes = pair_boxes(fabric, network)
    leaves = sum(len(b.leaves) for b in boxes)

    spine_notes = {s: links_label(downlinks[s], down_speed.get(s) or "") for s in spines}
    spine_w, spine_step = _top_sizes(spines, spine_notes)
    leaf_w = _fit(
        [(leaf, NAME_SIZE, False) for b in boxes for leaf in b.leaves]
        + [(links_label(b.uplinks_per_leaf, b.uplink_speed), NOTE_SIZE, False) for b in boxes]
    )
    peer_labels = [f"peer-link {links_label(b.peer_links, b.peer_speed)}" for b in boxes if b.peer_links]
    pair_w = _fit(
        [(b.served, NOTE_SIZE, False) for b in boxes] + [(label, NOTE_SIZE, False) for label in peer_labels],
        least=2 * leaf_w + GAP + 2 * PAD,
    )
    pair_h = PAD + LEAF_H + 16 + 14 + PAD
    cols = max(1, min(PER_ROW, len(boxes)))
    rows = (len(boxes) + cols - 1) // cols
    spine_leaf = fabric.facts.topology.fabrics.get(network)  # type: ignore[call-overload]
    stages = ""
    bus_note = "every leaf has one link to every spine"
    supers = SuperSpines((), {}, {})
    if spine_leaf is not None and spine_leaf.three_stage:
        supers = super_spines(fabric, spine_leaf.planes, spines, network)
        stages = f" in {len(spine_leaf.pods)} pods, {len(spine_leaf.super_spines)} super-spines"
        bus_note = "every leaf has one link to every spine of its pod"
    title, title_w = _title(
        f"{intent.fabric.site.name}: {network} fabric, {len(spines)} spines{stages}, {leaves} leaves in "
        f"{len(boxes)} MLAG pairs"
    )
    super_w, super_step = _top_sizes(supers.boxes, supers.notes)
    width = max(cols * (pair_w + GAP) - GAP + 2 * MARGIN, len(spines) * spine_step - GAP + 2 * MARGIN, title_w)
    width = max(width, len(supers.boxes) * super_step - GAP + 2 * MARGIN)
    width = max(width, text_width(bus_note, NOTE_SIZE + 1) + 2 * MARGIN)
    spine_y = MARGIN + 30
    out = [title]
    if supers.boxes:
        super_bus_y = spine_y + SPINE_H + 40
        super_note = "pod spine s has its uplinks to the super-spines of plane s"
        width = max(width, text_width(super_note, NOTE_SIZE + 1) + 2 * MARGIN)
        out += _top_row(supers.boxes, supers.notes, super_w, super_step, width, spine_y, super_bus_y)
        out += [
            _line(MARGIN, super_bus_y, width - MARGIN, super_bus_y, 6),
            _text(width - MARGIN, super_bus_y + 18, super_note, NOTE_SIZE + 1, "end"),
        ]
        spine_y = super_bus_y + 50
    bus_y = spine_y + SPINE_H + 40
    pairs_y = bus_y + 50
    height = pairs_y + rows * (pair_h + ROW_GAP) - ROW_GAP + MARGIN

    out.append(_line(MARGIN, bus_y, width - MARGIN, bus_y, 6))
    out += _row_buses(rows, pairs_y, pair_h + ROW_GAP, bus_y, width)
    out.append(_text(width - MARGIN, bus_y + 18, bus_note, NOTE_SIZE + 1, "end"))
    up = (spine_y - 50, supers.uplinks) if supers.boxes else None
    out += _top_row(spines, spine_notes, spine_w, spine_step, width, spine_y, bus_y, up)
    blocks = []
    for i, box in enumerate(boxes):
        row, col = divmod(i, cols)
        x = MARGIN + col * (pair_w + GAP)
        y = pairs_y + row * (pair_h + ROW_GAP)
        blocks.append((_fields(box), x, y, pair_w, pair_h, leaf_w, bus_y if row == 0 else y - ROW_BUS))
    return Picture(f"docs/{network}-fabric.svg", _head(width, height, out), _rows(blocks, cols), _pair_blocks)


@dataclass(frozen=True, slots=True)
class SuperSpines:
    """The super-spine tier as drawn: its boxes (a super-spine each, or a plane each when many),
    the note under each box, and each pod spine's uplink label."""

    boxes: tuple[str, ...]
    notes: dict[str, str]
    uplinks: dict[str, str]


def super_spines(
    fabric: ResolvedFabric, planes: Sequence[Sequence[str]], spines: Sequence[str], network: str
) -> SuperSpines:
    """The super-spines of ``planes`` and the pod ``spines``' links up to them (of ``network``).

    Up to :data:`SUPER_SPINE_BOXES` super-spines each is a box noted with its links down; past
    it each plane is one box, ``plane 3: 8 super-spines``, noted with the plane's links.
    """
    down: Counter[str] = Counter()
    up: Counter[str] = Counter()
    speed: dict[str, str] = {}
    members = {name for plane in planes for name in plane}
    cables = _cables(fabric, network, "fabric")  # the uplinks to the super-spines picked at C speed
    for link in compress(cables, map(members.__contains__, map(_B_DEVICE, cables))):
        down[link.b.device] += 1
        up[link.a.device] += 1
        speed[link.a.device] = speed[link.b.device] = link.b_speed or ""
    uplinks = {s: f"{links_label(up[s], speed.get(s, ''))} up" for s in spines}
    if len(members) <= SUPER_SPINE_BOXES:
        names = tuple(name for plane in planes for name in plane)
        return SuperSpines(names, {n: links_label(down[n], speed.get(n, "")) for n in names}, uplinks)
    boxes: list[str] = []
    notes: dict[str, str] = {}
    for number, plane in enumerate(planes, start=1):
        box = f"plane {number}: {len(plane)} super-spines"
        boxes.append(box)
        notes[box] = links_label(sum(down[n] for n in plane), speed.get(plane[0], "") if plane else "")
    return SuperSpines(tuple(boxes), notes, uplinks)


def _pair(box: PairBox, x: float, y: float, w: float, h: float, leaf_w: float, top: float) -> list[str]:
    """A leaf pair: both leaves with their uplinks, the peer-link between them, what it serves."""
    out: list[str] = []
    cx = x + w / 2
    inner = [_text(cx, y + h - PAD - 2, box.served, NOTE_SIZE)]
    leaf_y = y + PAD
    lefts = [cx - GAP / 2 - leaf_w, cx + GAP / 2][: len(box.leaves)]
    if len(box.leaves) == 1:
        lefts = [cx - leaf_w / 2]
    for leaf, left in zip(box.leaves, lefts, strict=True):
        lx = left + leaf_w / 2
        out.append(_line(lx, top, lx, leaf_y, 2, "#999"))
        out.append(_text(lx + 4, y - 6, links_label(box.uplinks_per_leaf, box.uplink_speed), NOTE_SIZE, "start"))
        inner.append(_box(left, leaf_y, leaf_w, LEAF_H, "white", [_text(lx, leaf_y + 17, leaf, NAME_SIZE)], leaf))
    if box.peer_links and len(box.leaves) == 2:
        inner.insert(0, _line(lefts[0] + leaf_w, leaf_y + LEAF_H / 2, lefts[1], leaf_y + LEAF_H / 2, 4, DARK))
        inner.insert(
            1, _text(cx, leaf_y + LEAF_H + 15, f"peer-link {links_label(box.peer_links, box.peer_speed)}", NOTE_SIZE)
        )
    out.append(_box(x, y, w, h, LIGHT, inner, "/".join(box.leaves)))
    return out


# ----------------------------------------------------------------------- the management


@dataclass(frozen=True, slots=True)
class RackSwitchBox:
    """A management rack switch as drawn: its uplinks and what it serves."""

    name: str
    uplinks: int
    uplink_speed: str
    servers: int
    switches: int

    @property
    def served(self) -> str:
        """Example:
        >>> RackSwitchBox("rack01-mgmt", 1, "10g", 9, 4).served
        '9 servers, 4 switches'
        """
        return f"{self.servers} servers, {self.switches} switches"


def rack_switch_boxes(fabric: ResolvedFabric) -> list[RackSwitchBox]:
    """Every management rack switch, by name."""
    names = sorted(n for n, d in fabric.devices.items() if d.network == "management" and d.role == "mgmt")
    # Each switch's cables by kind counted at C speed (those to servers are thousands).
    kinds = Counter(map(_A_DEVICE_KIND, _cables(fabric, "management", "server", "mgmt")))
    uplinks: Counter[str] = Counter()
    speed: dict[str, str] = {}
    for link in _cables(fabric, "management", "mgmt-uplink"):
        uplinks[link.a.device] += 1
        speed[link.a.device] = link.a_speed or ""
    return [RackSwitchBox(n, uplinks[n], speed.get(n, ""), kinds[n, "server"], kinds[n, "mgmt"]) for n in names]


_A_DEVICE_KIND = attrgetter("a.device", "kind")


def management_svg(intent: Intent, fabric: ResolvedFabric) -> str:
    """The SVG text of the out-of-band management network."""
    return _drawn(management_picture(intent, fabric))


def management_picture(intent: Intent, fabric: ResolvedFabric) -> Picture:
    """The out-of-band management network: the core and its bus, then the rack switches by rows."""
    cores = sorted(n for n, d in fabric.devices.items() if d.network == "management" and d.role == "core")
    boxes = rack_switch_boxes(fabric)
    core_links = Counter(link.b.device for link in _cables(fabric, "management", "mgmt-uplink"))
    core_notes = {c: f"{links_label(core_links[c], _speed_of(fabric.links, c))} to rack switches" for c in cores}
    core_w, core_step = _top_sizes(cores, core_notes)
    box_w = _fit(
        [(b.name, NAME_SIZE, False) for b in boxes]
        + [(b.served, NOTE_SIZE, False) for b in boxes]
        + [(links_label(b.uplinks, b.uplink_speed), NOTE_SIZE, False) for b in boxes]
    )
    box_h = 46
    cols = max(1, min(PER_ROW, len(boxes)))
    rows = (len(boxes) + cols - 1) // cols
    title, title_w = _title(
        f"{intent.fabric.site.name}: management network, {len(cores)} core, {len(boxes)} rack switches"
    )
    width = max(cols * (box_w + GAP) - GAP + 2 * MARGIN, len(cores) * core_step - GAP + 2 * MARGIN, title_w)
    core_y = MARGIN + 30
    bus_y = core_y + SPINE_H + 40
    boxes_y = bus_y + 50
    height = boxes_y + rows * (box_h + ROW_GAP) - ROW_GAP + MARGIN
    out = [title, _line(MARGIN, bus_y, width - MARGIN, bus_y, 6)]
    out += _row_buses(rows, boxes_y, box_h + ROW_GAP, bus_y, width)
    out += _top_row(cores, core_notes, core_w, core_step, width, core_y, bus_y)
    blocks = []
    for i, box in enumerate(boxes):
        row, col = divmod(i, cols)
        x = MARGIN + col * (box_w + GAP)
        y = boxes_y + row * (box_h + ROW_GAP)
        blocks.append((_fields(box), x, y, box_w, box_h, bus_y if row == 0 else y - ROW_BUS))
    return Picture("docs/management-network.svg", _head(width, height, out), _rows(blocks, cols), _rack_switch)


def _rack_switch(fields: tuple[object, ...], x: float, y: float, w: float, h: float, top: float) -> list[str]:
    """A rack switch: its uplink to the bus above, its name and what it serves."""
    box = RackSwitchBox(*fields)  # type: ignore[arg-type]
    cx = x + w / 2
    texts = [_text(cx, y + 18, box.name, NAME_SIZE), _text(cx, y + h - PAD - 2, box.served, NOTE_SIZE)]
    return [
        _line(cx, top, cx, y, 2, "#999"),
        _text(cx + 4, y - 6, links_label(box.uplinks, box.uplink_speed), NOTE_SIZE, "start"),
        _box(x, y, w, h, LIGHT, texts, box.name),
    ]


def _speed_of(links: Iterable[Cable], device: str) -> str:
    return next((link.b_speed or "" for link in links if link.b.device == device), "")


def diagram_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """One picture per network: the fabrics and the management network."""
    return built(diagram_units(intent, fabric))


def diagram_units(intent: Intent, fabric: ResolvedFabric) -> Iterator[Unit]:
    """Each picture in sections (:class:`Picture`): what is above its blocks, each row of
    blocks, its end. A row is keyed by what it draws, so a server added redraws its pair's row,
    not the hundreds of boxes of the fleet (the head is keyed by its own text: it is made in any
    case, to place the rows)."""
    for network in sorted(intent.fabric.fabrics):
        yield from _units(fabric_picture(intent, fabric, network))
    yield from _units(management_picture(intent, fabric))


# ------------------------------------------------------------------------ in sections


Block = tuple[object, ...]
"""A block's drawing's arguments: its box's fields (plain values) and its place."""


class Picture(NamedTuple):
    """A picture as sections of its SVG text: ``head`` (the ``<svg>`` element's start and every
    element above the blocks), then per row its blocks, each drawn by ``draw`` from its
    arguments alone, then the end."""

    path: str
    head: str
    rows: list[tuple[Block, ...]]
    draw: Callable[..., list[str]]


def _fields(box: PairBox | RackSwitchBox) -> tuple[object, ...]:
    """A box's fields as a plain tuple (its key: a dataclass pickles through calls of its own)."""
    return tuple(getattr(box, name) for name in box.__slots__)


def _head(width: float, height: float, body: list[str]) -> str:
    return _svg(width, height, body).removesuffix(_END)


_END = "</svg>\n"


def _rows(blocks: Sequence[Block], cols: int) -> list[tuple[Block, ...]]:
    return [tuple(blocks[at : at + cols]) for at in range(0, len(blocks), cols)]


def _units(picture: Picture) -> Iterator[Unit]:
    path, stem = picture.path, picture.path.rpartition("/")[2].removesuffix(".svg")
    yield Unit(f"picture/{stem}", picture.head, partial(_section, section_path(path, "head"), picture.head))
    for number, row in enumerate(picture.rows):
        yield Unit(f"picture/{stem}/row{number}", row, partial(_row, path, number, picture.draw, row))
    yield Unit(f"picture/{stem}/end", (), partial(_section, section_path(path, "end"), _END))


def _section(path: str, text: str) -> dict[str, str]:
    return {path: text}


def _row(path: str, number: int, draw: Callable[..., list[str]], row: tuple[Block, ...]) -> dict[str, str]:
    return {section_path(path, f"row{number}"): "".join(f"{line}\n" for block in row for line in draw(*block))}


def _pair_blocks(fields: tuple[object, ...], *place: float) -> list[str]:
    return _pair(PairBox(*fields), *place)  # type: ignore[arg-type]


def _drawn(picture: Picture) -> str:
    return joined({path: text for unit in _units(picture) for path, text in unit.build().items()})[picture.path]
