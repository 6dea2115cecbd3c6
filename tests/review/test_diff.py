"""fabricops diff: a pull request's change explained by sections, blast radius and a summary."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.pipeline import compile_intent, write_generated
from core.generated import open_snapshot
from review.diff import review
from tests.conftest import git


def add_server(root: Path, row: str) -> None:
    servers = root / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + row + "\n")
    write_generated(compile_intent(root / "intent"), root / "generated")


def test_nothing_changed(example_repo: Path) -> None:
    """Read only: the session's repository of the example, no clone of its own."""
    result = review(open_snapshot(example_repo, "HEAD"), open_snapshot(example_repo))
    assert not result.changed
    assert result.summary == "no device configuration changes"


def test_new_server_names_its_ports_and_rows(gitops_repo: Path) -> None:
    """One new row: its five switch ports, its cable and IP plan rows, no spine."""
    add_server(gitops_repo, "rack03-gpu010,gpu-8x-h100,GPU-0310")
    result = review(open_snapshot(gitops_repo, "HEAD"), open_snapshot(gitops_repo))
    assert {d.device for d in result.devices} == {
        "rack03-leaf-a",
        "rack03-leaf-b",
        "rack01-stor-leaf-a",
        "rack01-stor-leaf-b",
        "rack03-mgmt",
    }
    leaf = next(d for d in result.devices if d.device == "rack03-leaf-a")
    assert [c.path for c in leaf.sections] == ["interfaces/Ethernet3/3"]
    assert "description: added SERVER_rack03-gpu010_enp65s0f0" in leaf.sections[0].details
    assert "1 port changed on rack03-leaf-a" in result.summary and result.summary.endswith("no spine touched")
    assert result.blast.spines == [] and "compute-pair03" in result.blast.redundancy_groups
    cabling = next(a for a in result.artifacts if a.path == "inventory/cabling.csv")
    assert len(cabling.added) == 5 and not cabling.removed


def test_spine_change_is_in_the_blast_radius(gitops_repo: Path) -> None:
    fabric = gitops_repo / "intent" / "fabric.yaml"
    fabric.write_text(fabric.read_text().replace("max_lsa: 12000}", "max_lsa: 15000}"))
    write_generated(compile_intent(gitops_repo / "intent"), gitops_repo / "generated")
    result = review(open_snapshot(gitops_repo, "HEAD"), open_snapshot(gitops_repo))
    assert result.blast.spines == ["spine01", "spine02", "spine03", "spine04"]
    assert "router ospf changed on 28 devices" in result.summary
    assert "rack05-leaf-a+rack05-leaf-b" in result.blast.both_members
    [cause] = result.causes  # no element of intent names router ospf: the design edit does
    assert cause.title.startswith(
        "design: fabric.yaml: routing_profiles.ospf-underlay.ospf.max_lsa 12000 -> 15000, on 28 switches: "
    )
    assert cause.risks == ["spine", "routing"] and len(cause.touches) == 28


@pytest.mark.e2e  # the console script in a subprocess, every picture parsed by Mermaid
def test_cli_markdown_and_exit_code(gitops_repo: Path) -> None:
    """The PR comment format; exit 3 when the network changes (CI treats it as a normal review)."""
    add_server(gitops_repo, "rack03-gpu010,gpu-8x-h100,GPU-0310")
    git(gitops_repo, "add", "-A")
    git(gitops_repo, "commit", "-q", "-m", "rack03-gpu010")
    cmd = [sys.executable, "-m", "fabricops", "diff", "--base", "HEAD~1"]
    markdown = subprocess.run(
        [*cmd, "--format", "markdown"], cwd=gitops_repo, capture_output=True, text=True, check=False
    )
    assert markdown.returncode == 3, markdown.stderr
    assert markdown.stdout.startswith("### fabricops review")
    assert "<details><summary><code>rack03-leaf-a</code> config diff</summary>" in markdown.stdout
    data = json.loads(
        subprocess.run([*cmd, "--format", "json"], cwd=gitops_repo, capture_output=True, text=True, check=False).stdout
    )
    assert data["changed"] and data["blast"]["devices"] == 5
    same = subprocess.run([*cmd[:-1], "HEAD"], cwd=gitops_repo, capture_output=True, text=True, check=False)
    assert same.returncode == 0, same.stderr


def test_a_replaced_unit_is_a_change_though_no_config_line_moves(gitops_repo: Path) -> None:
    """An RMA edits only devices.yaml: no config line, but the next deploy refuses the old unit."""
    (gitops_repo / "intent" / "devices.yaml").write_text(
        "devices:\n  rack05-leaf-a: {serial: JPE24170XYZ, base_mac: 00:1c:73:12:34:56}\n"
    )
    write_generated(compile_intent(gitops_repo / "intent"), gitops_repo / "generated")
    result = review(open_snapshot(gitops_repo, "HEAD"), open_snapshot(gitops_repo))
    assert result.changed and not result.devices
    [units] = [a for a in result.artifacts if a.path == "inventory/hosts.yaml (units)"]
    assert units.added == ["rack05-leaf-a serial JPE24170XYZ base MAC 00:1c:73:12:34:56"]
    assert units.removed == ["rack05-leaf-a serial - base MAC -"]
    assert result.summary.startswith("unit replaced on rack05-leaf-a (serial, base MAC); no device configuration")
