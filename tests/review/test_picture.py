"""The blast radius drawn in the PR comment: as small for a 20-rack change as for a one-port change."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compiler.pipeline import compile_intent, write_generated
from core.generated import Snapshot, open_snapshot
from core.topology import Topology
from review.diff import review
from review.report import as_markdown
from tests.conftest import git, seal
from tests.mermaid import parsed

# Whole compiles of the example and a 20-rack change, each picture parsed by Mermaid under node: the second tier.
pytestmark = pytest.mark.e2e

NEW_RACKS = range(15, 23)
GPU_RACKS = [*range(1, 13), *NEW_RACKS]


def _comment(base: Snapshot, head: Snapshot) -> str:
    return as_markdown(review(base, head), [], Topology.read(head).merged(Topology.read(base)))


def _vertices(diagram: dict[str, Any]) -> dict[str, tuple[str, list[str]]]:
    return {v["id"]: (v["text"], v["classes"]) for v in diagram["vertices"]}


def test_a_one_port_change_draws_the_leaf_its_peer_spines_rack_switch_and_servers(gitops_repo: Path) -> None:
    """Through the CLI, as CI posts it: the changed leaf amber, everything one cable away grey."""
    config = gitops_repo / "generated" / "configs" / "rack03-leaf-a.cfg"
    config.write_text(config.read_text().replace("description SERVER_rack03-gpu003_enp65s0f0", "description moved"))
    seal(gitops_repo)
    git(gitops_repo, "commit", "-qam", "one port")
    proc = subprocess.run(
        [sys.executable, "-m", "fabricops", "diff", "--base", "HEAD~1", "--head", "HEAD", "--format", "markdown"],
        cwd=gitops_repo,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 3, proc.stderr
    boxes = _vertices(parsed(proc.stdout))
    assert boxes == {
        "n_rack03_leaf_a": ("rack03-leaf-a", ["changed"]),
        "n_rack03_leaf_b": ("rack03-leaf-b", ["neighbour"]),
        **{f"n_spine0{i}": (f"spine0{i}", ["neighbour"]) for i in range(1, 5)},
        "n_rack03_mgmt": ("rack03-mgmt", ["neighbour"]),
        "n_servers_rack03": ("rack03: 9 servers", ["neighbour"]),
    }
    assert "_amber: changed; grey: one cable away._" in proc.stdout


def _add_racks(edit: Callable[[str, str, str], None], project: Path) -> None:
    racks = "".join(
        f"  - {{id: {r}, row: D, position: {r - 14}, pdu_kw: 70, role: gpu, units: 48}}\n" for r in NEW_RACKS
    )
    edit("racks.yaml", "\n# Per row", racks + "\n# Per row")
    edit(
        "racks.yaml",
        "  C: {cooling_kw: 40, ups_kw: 40}",
        "  C: {cooling_kw: 40, ups_kw: 40}\n  D: {cooling_kw: 900, ups_kw: 950}",
    )
    _add_servers(
        project, [f"rack{r:02d}-gpu{i:03d},gpu-8x-h100,GPU-{r:02d}{i:02d}" for r in NEW_RACKS for i in range(1, 10)]
    )


def _add_servers(project: Path, rows: list[str]) -> None:
    servers = project / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "".join(f"{row}\n" for row in rows))


@pytest.fixture
def twenty_racks(edit: Callable[[str, str, str], None], project: Path, tmp_path: Path) -> tuple[Snapshot, Snapshot]:
    """A fabric of 20 GPU racks (the example and 8 more), then one new server in every one of them."""
    _add_racks(edit, project)
    write_generated(compile_intent(project / "intent"), project / "generated")
    base = open_snapshot(project)
    _add_servers(project, [f"rack{r:02d}-gpu010,gpu-8x-h100,GPU-{r:02d}10" for r in GPU_RACKS])
    shutil.rmtree(project / "generated")
    write_generated(compile_intent(project / "intent"), project / "generated")
    return base, open_snapshot(project)


def test_a_20_rack_change_is_grouped_into_a_picture_as_small_as_a_one_port_one(
    twenty_racks: tuple[Snapshot, Snapshot],
) -> None:
    """72 switches change (40 leaves, 20 rack switches, 12 storage leaves): three boxes say so."""
    base, head = twenty_racks
    result = review(base, head)
    assert len(result.devices) == 72
    diagram = parsed(_comment(base, head))
    boxes = _vertices(diagram)
    assert len(boxes) <= 16, sorted(boxes)
    changed = sorted(text for text, classes in boxes.values() if classes == ["changed"])
    assert changed == [
        "12 storage leaves<br>of rack01, rack05, rack09 and 3 more",
        "20 management rack switches<br>of rack01-12, rack15-22",
        "40 compute leaves<br>of rack01-12, rack15-22",
    ]
    neighbours = {text for text, classes in boxes.values() if classes == ["neighbour"]}
    assert {"4 compute spines<br>spine01-04", "4 storage spines<br>stor-spine01-04", "mgmt-core01"} <= neighbours
    assert "204 servers<br>of rack01-12, rack14-22" in neighbours
    spine_lines = [e["text"] for e in diagram["edges"] if e["start"] == "n_group_compute_spine"]
    assert spine_lines == ["160x400g"]
