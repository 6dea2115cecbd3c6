"""``generated/inventory/cabling.csv`` and ``cabling.md``: one row per cable, as the installer lays it.

The first four columns (``a_device,a_port,b_device,b_port``) are what the lab and other tools
read; the rest say what each end runs, the length from the racks' row and position, the stock
length class, the one optic type both ends use, and the label printed at each end.
Length and optic rules: :mod:`compiler.artifacts.physical`.
"""

from __future__ import annotations

from collections import Counter

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
    "optic",
    "media",
    "a_label",
    "b_label",
)


def label(near: Endpoint, far: Endpoint) -> str:
    """The label at ``near``'s end: this end, then where the cable goes.

    Example:
        >>> label(Endpoint("rack01-leaf-a", "Ethernet49"), Endpoint("spine01", "Ethernet1"))
        'rack01-leaf-a Et49 > spine01 Et1'
    """
    return f"{near.device} {eos.short_name(near.port)} > {far.device} {eos.short_name(far.port)}"


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
        run.optic.name if run.optic else "NONE",
        run.optic.media if run.optic else "",
        label(link.a, link.b),
        label(link.b, link.a),
    )


def cabling_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """``cabling.csv`` (every cable) and ``cabling.md`` (the bill of materials, then every cable)."""
    all_runs = runs(intent, fabric)
    rows = [_row(run) for run in all_runs]
    bom = Counter(
        (run.optic.name if run.optic else "NONE", run.optic.media if run.optic else "", run.length_class_m or 0)
        for run in all_runs
    )
    md = [
        "# Cabling plan\n",
        "One row per cable. Lengths: in-rack runs are "
        f"{intent.fabric.cabling.in_rack_m:g} m; between racks {intent.fabric.cabling.slack_m:g} m slack + "
        f"{intent.fabric.cabling.rack_pitch_m:g} m per rack position + {intent.fabric.cabling.row_pitch_m:g} m per row "
        "apart. Optics: <= 100 m multimode, > 100 m single-mode, the same type at both ends "
        "(two optics per fibre cable, one per end; copper runs take none).\n",
        "## Bill of materials\n",
        markdown_table(
            ["optic", "media", "length class (m)", "cables", "optics"],
            [(o, m, c, n, 0 if m.startswith("copper") else 2 * n) for (o, m, c), n in sorted(bom.items())],
        ),
        "## Cables\n",
        markdown_table(
            ["A end", "B end", "network", "kind", "speed", "length (m)", "optic", "label at A", "label at B"],
            [(f"{r[0]} {r[1]}", f"{r[2]} {r[3]}", r[4], r[5], r[9], r[10], r[12], r[14], r[15]) for r in rows],
        ),
    ]
    return {"inventory/cabling.csv": csv_text(COLUMNS, rows), "inventory/cabling.md": "\n".join(md)}
