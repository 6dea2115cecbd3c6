"""The CLI's compile and check verbs: output, exit codes, and nothing lost on failure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from compiler.output import read_tree
from fabricops.cli import VERBS, main


def fabricops(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the real entry point in a fresh process, as a user or CI would."""
    return subprocess.run(
        [sys.executable, "-c", "from fabricops.cli import main; main()", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def test_compile_then_check_is_clean(project: Path) -> None:
    first = fabricops("compile", cwd=project)
    assert first.returncode == 0, first.stderr
    assert "compiled 55 switches" in first.stdout
    assert "864 GPUs" in first.stdout
    check = fabricops("compile", "--check", cwd=project)
    assert check.returncode == 0, check.stderr
    assert "up to date" in check.stdout


def test_compile_check_names_stale_files_and_exits_3(project: Path) -> None:
    """CI's staleness gate: exit 3, the files, and the command that fixes it."""
    assert fabricops("compile", cwd=project).returncode == 0
    servers = project / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack02-gpu010,gpu-8x-h100,GPU-0210\n")
    result = fabricops("compile", "--check", cwd=project)
    assert result.returncode == 3
    assert "run 'fabricops compile' and commit" in result.stderr
    assert "changed: generated/configs/rack02-leaf-a.cfg" in result.stderr


def test_bad_intent_is_one_line_exit_1_and_generated_untouched(project: Path) -> None:
    assert fabricops("compile", cwd=project).returncode == 0
    before = read_tree(project / "generated")
    racks = project / "intent" / "racks.yaml"
    racks.write_text(racks.read_text().replace("pdu_kw: 20, role: storage", "pdu_kw: 20, role: storage, colour: red"))
    result = fabricops("compile", cwd=project)
    assert result.returncode == 1
    assert (
        result.stderr.splitlines()[1].strip()
        == "intent/racks.yaml:16: racks[13].colour: unknown key: remove it or check its spelling"
    )
    assert "Traceback" not in result.stderr
    assert read_tree(project / "generated") == before


def test_check_json(project: Path) -> None:
    result = fabricops("check", "--format", "json", cwd=project)
    assert result.returncode == 0, result.stderr
    findings = json.loads(result.stdout)
    assert all({"rule", "severity", "requirement", "subject", "message"} <= set(f) for f in findings)
    assert not [f for f in findings if f["severity"] == "error"]


def test_check_reports_the_seed_contradiction(project: Path) -> None:
    """The seed's '2 uplinks per leaf' with 4 spines fails check with exit 1."""
    fabric = project / "intent" / "fabric.yaml"
    fabric.write_text(
        fabric.read_text().replace(
            "      peer_link_ports: [Ethernet31/1, Ethernet32/1]",
            "      peer_link_ports: [Ethernet31/1, Ethernet32/1]\n      uplinks_per_leaf: 2",
            1,
        )
    )
    result = fabricops("check", cwd=project)
    assert result.returncode == 1
    assert "FAB002" in result.stdout


@click.command()
@click.pass_context
def exits_3(ctx: click.Context) -> None:
    """A verb that ends with ``ctx.exit(3)``."""
    ctx.exit(3)


def test_a_verb_that_exits_with_a_code_keeps_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """click returns a ctx.exit code instead of exiting when it runs inside main: main exits with it."""
    monkeypatch.setitem(VERBS, "probe", (f"{__name__}:exits_3", "A verb that ends with ctx.exit(3)."))
    with pytest.raises(SystemExit) as ended:
        main(["probe"])
    assert ended.value.code == 3
