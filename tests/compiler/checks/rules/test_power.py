"""CAB001 decides each distinct cage, speed and length once: it must name exactly the cables the
cable list (``physical.runs``) leaves without an optic, with the same figures."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.artifacts.physical import runs
from compiler.checks.rules.power import cable_reach
from compiler.fabric import resolve
from compiler.intent import load_intent


def _from_runs(project: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """CAB001's findings, and the ones each ``Run`` of the cable list gives."""
    intent = load_intent(project / "intent", budgets=False)
    fabric = resolve(intent)
    expected = []
    for run in runs(intent, fabric):
        if run.a_optic is None or run.b_optic is None:
            link = run.link
            breakout = " breakout" if run.a_cage or run.b_cage else ""
            expected.append(
                (
                    f"{link.a.device} {link.a.port}",
                    f"cable to {link.b.device} {link.b.port} is {run.length_m:g} m, beyond every "
                    f"{run.speed or 'unknown-speed'}{breakout} optic (longest reach {run.reach_m} m): "
                    "place the racks closer (row, position in racks.yaml)",
                )
            )
    return list(cable_reach(intent, fabric)), expected


@pytest.mark.parametrize("row_pitch", ["3.0", "250", "700", "6000"])
def test_cable_reach_names_the_cables_the_cable_list_leaves_without_optic(
    project: Path, edit: Callable[[str, str, str], None], row_pitch: str
) -> None:
    """Rows further and further apart: none out of reach, then some breakout fan-outs (at two
    distances), then every cable between rows."""
    edit("fabric.yaml", "  row_pitch_m: 3.0", f"  row_pitch_m: {row_pitch}")
    found, expected = _from_runs(project)
    assert found == expected
    if row_pitch == "6000":
        assert any(" breakout optic" in message for _, message in found)
        assert any(" breakout optic" not in message for _, message in found)
