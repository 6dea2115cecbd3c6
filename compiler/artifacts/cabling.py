"""``generated/inventory/cabling.csv`` and ``cabling.md``: one row per cable, as the installer lays it.

The first four columns (``a_device,a_port,b_device,b_port``) are what the lab and other tools
read; the rest say what each end runs, the length from the racks' row and position, the stock
length class, the optic at each end (the same type, or a broken-out cage's parallel optic and
its lane optic), the fibre and the label printed at each end.
Length and optic rules: :mod:`compiler.artifacts.physical`.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from compiler.artifacts.physical import Run, runs
from compiler.artifacts.tables import csv_text, markdown_table
from compiler.fabric import ResolvedFabric
from compiler.facts import Endpoint
from compiler.intent import Intent
from compiler.platforms import eos

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


def optic_counts(all_runs: list[Run]) -> Counter[tuple[str, str]]:
    """Optics to order, by (type, media): one per cable end, one per broken-out cage.

    A copper run (``1000BASE-T``) takes none; a cable out of reach counts as ``NONE``.
    """
    counts: Counter[tuple[str, str]] = Counter()
    cages: set[str] = set()
    for run in all_runs:
        for optic, cage in ((run.a_optic, run.a_cage), (run.b_optic, run.b_cage)):
            if optic is not None and optic.media == "copper":
                continue
            if cage is not None:
                if cage in cages:
                    continue
                cages.add(cage)
            counts[(optic.name, optic.media) if optic else ("NONE", "")] += 1
    return counts


def cabling_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """``cabling.csv`` (every cable) and ``cabling.md`` (the bill of materials, then every cable)."""
    all_runs = runs(intent, fabric)
    rows = [_row(run) for run in all_runs]
    cables = Counter((run.media or "-", run.length_class_m or 0) for run in all_runs)
    md = [
        "# Cabling plan\n",
        "One row per cable. Lengths: in-rack runs are "
        f"{intent.fabric.cabling.in_rack_m:g} m; between racks {intent.fabric.cabling.slack_m:g} m slack + "
        f"{intent.fabric.cabling.rack_pitch_m:g} m per rack position + {intent.fabric.cabling.row_pitch_m:g} m per row "
        "apart. Optics: multimode while it reaches, single-mode beyond, the same type at both ends; a "
        "broken-out cage holds one parallel optic for all its lanes, each lane's far end the matching "
        "breakout optic (a fan-out cable).\n",
        "## Bill of materials\n",
        markdown_table(
            ["optic", "media", "count"], [(o, m, n) for (o, m), n in sorted(optic_counts(all_runs).items())]
        ),
        markdown_table(["media", "length class (m)", "cables"], [(m, c, n) for (m, c), n in sorted(cables.items())]),
        "## Cables\n",
        markdown_table(
            ["A end", "B end", "network", "kind", "speed", "length (m)", "optics", "label at A", "label at B"],
            [
                (f"{r[0]} {r[1]}", f"{r[2]} {r[3]}", r[4], r[5], r[9], r[10], _optic_text(r[12], r[13]), r[15], r[16])
                for r in rows
            ],
        ),
    ]
    return {"inventory/cabling.csv": csv_text(COLUMNS, rows), "inventory/cabling.md": "\n".join(md)}


def _optic_text(a: object, b: object) -> str:
    """One optic name when both ends take the same, else ``A / B``.

    Example:
        >>> _optic_text("400GBASE-SR8", "400GBASE-SR8"), _optic_text("400GBASE-SR8", "100GBASE-SR2")
        ('400GBASE-SR8', '400GBASE-SR8 / 100GBASE-SR2')
    """
    return str(a) if a == b else f"{a} / {b}"
