"""``generated/inventory/cabling.csv`` and ``cabling.md``: one row per cable, as the installer lays it.

The first four columns (``a_device,a_port,b_device,b_port``) are what the lab and other tools
read; the rest say what each end runs, the length from the racks' row and position, the stock
length class, the optic at each end (the same type, or a broken-out cage's parallel optic and
its lane optic), the fibre and the label printed at each end.
Length and optic rules: :mod:`compiler.artifacts.physical`.

Both files come in sections (:func:`cabling_units`): the header (``cabling.md``'s with the bill
of materials), then per switch the cables it is the A end of, built again only when one of
those cables, its length or an end's cage changed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache, partial
from itertools import compress
from operator import itemgetter

from compiler.artifacts.physical import Laid, Run, laid, length_class, optics_of, run_of
from compiler.artifacts.tables import HEAD, csv_rows, markdown_rows, markdown_table
from compiler.artifacts.units import Unit, built, section_path
from compiler.fabric import ResolvedFabric
from compiler.facts import Endpoint
from compiler.intent import Intent
from compiler.platforms import eos
from core.hardware import Optic

COLUMNS = (
    "a_device",
    "a_port",
    "b_device",
    "b_port",
    "network",
    "kind",
    "a_speed",
    "b_speed",
    "subnet",
    "speed",
    "length_m",
    "length_class_m",
    "a_optic",
    "b_optic",
    "media",
    "a_label",
    "b_label",
)


def label(near: Endpoint, far: Endpoint) -> str:
    """The label at ``near``'s end: this end, then where the cable goes.

    Example:
        >>> label(Endpoint("rack01-leaf-a", "Ethernet25/1"), Endpoint("spine01", "Ethernet1/1"))
        'rack01-leaf-a Et25/1 > spine01 Et1/1'
    """
    return f"{near.device} {_short_name(near.port)} > {far.device} {_short_name(far.port)}"


_short_name = cache(eos.short_name)
"""Memoised: a fleet's cables use a few hundred port names, each tens of times."""


def _row(run: Run) -> tuple[object, ...]:
    link = run.link
    return (
        link.a.device,
        link.a.port,
        link.b.device,
        link.b.port,
        link.network,
        link.kind,
        link.a_speed or "",
        link.b_speed or "",
        link.subnet or "",
        run.speed,
        f"{run.length_m:g}",
        run.length_class_m or "",
        run.a_optic.name if run.a_optic else "NONE",
        run.b_optic.name if run.b_optic else "NONE",
        run.media,
        label(link.a, link.b),
        label(link.b, link.a),
    )


Bill = tuple[tuple[tuple[tuple[str, str], int], ...], tuple[tuple[tuple[str, int], int], ...]]
"""Optics by (type, media) and cables by (media, length class), each with its count, sorted."""


def bill(cables: Sequence[Laid]) -> Bill:
    """What to order: optics by (type, media), one per cable end and one per broken-out cage,
    and cables by (media, stock length).

    A copper run (``1000BASE-T``) takes no optic; a cable out of reach counts as ``NONE``.
    """
    optics: Counter[tuple[str, str]] = Counter()
    stock: Counter[tuple[str, int]] = Counter()
    # The cables by kind, a fleet's thousands in a few dozen (counted at C speed); a cage's
    # breakout is its shape's, so only the cables of a kind with one are looked at one by one.
    kinds = list(map(itemgetter(4), cables))
    counts = Counter(kinds)
    broken_out = {
        kind for kind in counts if (kind[0] is not None and kind[0][2]) or (kind[1] is not None and kind[1][2])
    }
    cages: dict[tuple[str, str], Optic | None] = {}  # each broken-out cage: its first cable's optic there
    for link, _, a, b, kind in compress(cables, map(broken_out.__contains__, kinds)):
        if a is not None and a.breakout:
            cages.setdefault((link.a.device, a.cage), optics_of(*kind)[0])
        if b is not None and b.breakout:
            cages.setdefault((link.b.device, b.cage), optics_of(*kind)[1])
    for optic in cages.values():
        _count(optics, optic, 1)
    # Every other end, and the cables, by kind.
    for kind, n in counts.items():
        a_optic, b_optic, _ = optics_of(*kind)
        optic = a_optic or b_optic
        stock[(optic.media if optic else "") or "-", length_class(kind[3]) or 0] += n
        for optic, shape in ((a_optic, kind[0]), (b_optic, kind[1])):
            if shape is None or not shape[2]:
                _count(optics, optic, n)
    return tuple(sorted(optics.items())), tuple(sorted(stock.items()))


def _count(optics: Counter[tuple[str, str]], optic: Optic | None, n: int) -> None:
    """Count ``n`` of ``optic`` (none for copper, which takes no optic; ``NONE``: out of reach)."""
    if optic is None or optic.media != "copper":
        optics[(optic.name, optic.media) if optic else ("NONE", "")] += n


CSV = "inventory/cabling.csv"
MD = "inventory/cabling.md"
TABLE = ("A end", "B end", "network", "kind", "speed", "length (m)", "optics", "label at A", "label at B")


def cabling_units(intent: Intent, fabric: ResolvedFabric) -> Iterator[Unit]:
    """``cabling.csv`` and ``cabling.md`` in sections: the header with the bill of materials
    (from every cable's optics and length), then per switch the cables of which it is the A
    end (the list's order: by A end, then its port), from those cables as laid."""
    cables = laid(intent, fabric)
    by_switch: dict[str, list[Laid]] = {}
    for cable in cables:
        by_switch.setdefault(cable.link.a.device, []).append(cable)
    rule = intent.fabric.cabling
    lengths = (rule.in_rack_m, rule.slack_m, rule.rack_pitch_m, rule.row_pitch_m)
    counts = bill(cables)
    yield Unit(f"cabling/{HEAD}", (lengths, counts), partial(_head, lengths, counts))
    for name, mine in by_switch.items():
        yield Unit(f"cabling/{name}", _plain(mine), partial(_switch_rows, name, mine))


def _plain(cables: list[Laid]) -> tuple[tuple[object, ...], ...]:
    """Every field of ``cables`` in plain tuples (a record pickles through a call of its own,
    four times slower): the link's, the kind (each end's cage shape, the speed, the length) and
    each end's cage name."""
    return tuple(
        (link.network, link.kind, *link.a, *link.b, *link[4:], kind, a and a.cage, b and b.cage)
        for link, _, a, b, kind in cables
    )


def _head(lengths: tuple[float, float, float, float], counts: Bill) -> dict[str, str]:
    in_rack, slack, rack_pitch, row_pitch = lengths
    optics, stock = counts
    md = [
        "# Cabling plan\n",
        "One row per cable. Lengths: in-rack runs are "
        f"{in_rack:g} m; between racks {slack:g} m slack + "
        f"{rack_pitch:g} m per rack position + {row_pitch:g} m per row "
        "apart. Optics: multimode while it reaches, single-mode beyond, the same type at both ends; a "
        "broken-out cage holds one parallel optic for all its lanes, each lane's far end the matching "
        "breakout optic (a fan-out cable).\n",
        "## Bill of materials\n",
        markdown_table(["optic", "media", "count"], [(o, m, n) for (o, m), n in optics]),
        markdown_table(["media", "length class (m)", "cables"], [(m, c, n) for (m, c), n in stock]),
        "## Cables\n",
        markdown_table(TABLE, []),
    ]
    return {section_path(CSV, HEAD): csv_rows([COLUMNS]), section_path(MD, HEAD): "\n".join(md)}


def _switch_rows(name: str, cables: list[Laid]) -> dict[str, str]:
    rows = [_row(run_of(cable)) for cable in cables]
    return {
        section_path(CSV, name): csv_rows(rows),
        section_path(MD, name): markdown_rows(
            (f"{r[0]} {r[1]}", f"{r[2]} {r[3]}", r[4], r[5], r[9], r[10], _optic_text(r[12], r[13]), r[15], r[16])
            for r in rows
        ),
    }


def cabling_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """``cabling.csv`` (every cable) and ``cabling.md`` (the bill of materials, then every cable)."""
    return built(cabling_units(intent, fabric))


def _optic_text(a: object, b: object) -> str:
    """One optic name when both ends take the same, else ``A / B``.

    Example:
        >>> _optic_text("400GBASE-SR8", "400GBASE-SR8"), _optic_text("400GBASE-SR8", "100GBASE-SR2")
        ('400GBASE-SR8', '400GBASE-SR8 / 100GBASE-SR2')
    """
    return str(a) if a == b else f"{a} / {b}"
