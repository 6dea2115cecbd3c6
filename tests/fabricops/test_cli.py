"""The CLI's compile and check verbs: output, exit codes, and nothing lost on failure."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from compiler.output import read_tree
from fabricops.cli import VERBS, main
from tests.conftest import copy_example, run_cli

CONSOLE_SCRIPT = Path(sys.executable).with_name("fabricops")
"""The ``fabricops`` the package installs: run where its exit code and stderr are what a test proves
(the rest runs in process, through the same ``main``)."""


def installed(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the installed console script in a fresh process, as a user or CI would."""
    return subprocess.run([CONSOLE_SCRIPT, *args], cwd=cwd, capture_output=True, text=True, check=False)


@pytest.fixture(autouse=True)
def _in_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each verb runs in the project's root, as a user runs it: messages name intent/ relatively."""
    monkeypatch.chdir(tmp_path)


def test_compile_then_check_is_clean(project: Path) -> None:
    first = run_cli("compile")
    assert first.code == 0, first.err
    assert "compiled 55 switches" in first.out
    assert "864 GPUs" in first.out
    check = run_cli("compile", "--check")
    assert check.code == 0, check.err
    assert "up to date" in check.out


def test_compile_check_writes_nothing_in_the_cache_either(project: Path) -> None:
    """``--check`` is a gate: the checks' kept configs (``.fabricops-cache/configs.marshal``) are
    read, but not written, like the record."""
    assert run_cli("compile").code == 0
    cache = {p.name: p.read_bytes() for p in (project / ".fabricops-cache").iterdir() if p.is_file()}
    servers = project / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack02-gpu010,gpu-8x-h100,GPU-0210\n")
    assert run_cli("compile", "--check").code == 3
    assert {p.name: p.read_bytes() for p in (project / ".fabricops-cache").iterdir() if p.is_file()} == cache
    assert "configs.marshal" in cache


def test_compile_check_names_stale_files_and_exits_3(tmp_path: Path, compiled_example: Path) -> None:
    """CI's staleness gate, the installed script: exit 3, the files, and the command that fixes it."""
    root = copy_example(compiled_example, tmp_path)
    servers = root / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack02-gpu010,gpu-8x-h100,GPU-0210\n")
    result = installed("compile", "--check", cwd=root)
    assert result.returncode == 3
    assert "run 'fabricops compile' and commit" in result.stderr
    assert "changed: generated/configs/rack02-leaf-a.cfg" in result.stderr


def test_a_file_edited_by_hand_is_written_back_by_the_installed_script(tmp_path: Path, compiled_example: Path) -> None:
    """The installed script walks generated/ in a child forked while it imports the compiler:
    a file edited by hand since the last compile is still told from the ones it wrote."""
    root = copy_example(compiled_example, tmp_path)
    assert installed("compile", cwd=root).returncode == 0  # the record of this compile
    config = root / "generated" / "configs" / "rack01-leaf-a.cfg"
    written = config.read_bytes()
    config.unlink()  # hard-linked to the shared compiled example: edited here, not there
    config.write_bytes(written + b"! edited by hand\n")
    servers = root / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack02-gpu010,gpu-8x-h100,GPU-0210\n")
    result = installed("compile", cwd=root)
    assert result.returncode == 0, result.stderr
    assert config.read_bytes() == written


TWICE = """vlans:
  inference:
    {id: 300, network: compute, access: [{rack: 5}]}
  training:
    {id: 300, network: compute, access: [{rack: 6}]}
"""


@pytest.mark.parametrize(
    ("filename", "old", "new", "error"),
    [
        (
            "fabric.yaml",
            "pfc_priority: 3",
            "pfc_priority: 4",
            "intent/fabric.yaml:65: qos_profiles.roce.pfc_priority: no DSCP of dscp_to_tc maps to traffic class 4",
        ),
        ("racks.yaml", "", "", "intent/racks.yaml:1: UTF-16 text: intent files are UTF-8"),
        (
            "fabric.yaml",
            "leaf_asn_base: 65200",
            "leaf_asn_base: 4294967293",
            "intent/fabric.yaml:85: routing_profiles.ebgp-storage.bgp.leaf_asn_base: leaf pair N takes 4294967293 + N",
        ),
        ("fabric.yaml", "site:\n", "# Größe\nsite:\n", "intent/fabric.yaml:3: byte 0xf6 at column 5 is not UTF-8"),
        (
            "vlans.yaml",
            "vlans: {}\n",
            TWICE,
            "error VLN002 [N1] intent/vlans.yaml:19: vlans.training: VLAN 300 is INFERENCE already "
            "(intent/vlans.yaml:17: vlans.inference): give TRAINING an id of its own",
        ),
    ],
    ids=["PFC priority 4", "UTF-16", "ASN past 2^32", "latin-1", "VLAN id twice"],
)
def test_bad_intent_is_one_line_exit_1_and_generated_untouched(
    tmp_path: Path, compiled_example: Path, filename: str, old: str, new: str, error: str
) -> None:
    """One line naming file, line and fix, exit 1, generated/ byte for byte."""
    root = copy_example(compiled_example, tmp_path)
    before = read_tree(root / "generated")
    path = root / "intent" / filename
    text = path.read_text()
    encoding = "latin-1" if "ö" in new else "utf-8"
    path.write_bytes(text.replace(old, new, 1).encode(encoding) if old else text.encode("utf-16"))
    result = run_cli("compile")
    assert result.code == 1
    header, problem = result.err.splitlines()
    assert header.startswith(("Error: intent ", "Error: 1 check error(s): generated/ left unchanged"))
    assert problem.strip().startswith(error)
    assert read_tree(root / "generated") == before


def test_a_design_error_is_printed_once(tmp_path: Path, compiled_example: Path) -> None:
    """The installed script prints each failed check once, in the error that refuses to write,
    exits 1 and writes nothing (its checks ran in the process forked beside the render)."""
    root = copy_example(compiled_example, tmp_path)
    before = read_tree(root / "generated")
    fabric = root / "intent" / "fabric.yaml"
    fabric.write_text(fabric.read_text().replace("loopbacks: 10.41.0.0/24", "loopbacks: 10.30.128.0/24"))
    result = installed("compile", cwd=root)
    assert result.returncode == 1
    errors = [line.strip() for line in result.stderr.splitlines() if "error ADR003" in line]
    assert errors and len(errors) == len(set(errors))
    assert result.stderr.startswith(f"Error: {len(errors)} check error(s): generated/ left unchanged\n")
    assert read_tree(root / "generated") == before
    assert not (root / ".generated.staging").exists()  # the write staged beside the checks, dropped


def test_check_json(project: Path) -> None:
    result = run_cli("check", "--format", "json")
    assert result.code == 0, result.err
    findings = result.json()
    assert all({"rule", "severity", "requirement", "subject", "message"} <= set(f) for f in findings)
    assert not [f for f in findings if f["severity"] == "error"]


def test_check_after_a_compile_reads_what_it_kept_and_finds_the_same(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check`` after a compile lends the configs the compile kept (every switch unchanged but
    the one edited) and prints what a check from nothing prints: here one new STC001 error."""
    from compiler.configcache import ConfigCache

    assert run_cli("compile").code == 0
    (project / "intent" / "ports.yaml").write_text(
        "ports:\n  rack01-leaf-a:\n    Ethernet1/3:\n      storm_control: {broadcast: 50}\n"
    )
    lent: list[int] = []
    lend = ConfigCache.lend

    def counted(self: ConfigCache, *args: object) -> object:
        view = lend(self, *args)  # type: ignore[arg-type]
        lent.append(self.kept)
        return view

    monkeypatch.setattr(ConfigCache, "lend", counted)
    kept = run_cli("check")
    assert lent == [54], "every switch but the edited leaf lent from the compile"
    shutil.rmtree(project / ".fabricops-cache")
    cold = run_cli("check")
    assert lent == [54], "nothing kept: no lend"
    assert kept.code == cold.code == 1
    assert kept.out == cold.out
    assert "error STC001 [" in kept.out and "rack01-leaf-a" in kept.out


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
    result = run_cli("check")
    assert result.code == 1
    assert "FAB002" in result.out


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


def test_the_program_ends_once_its_compile_is_said_and_saved(tmp_path: Path, compiled_example: Path) -> None:
    """The installed script ends its process as soon as a compile is done (``fabricops.cli.ended``):
    every line said, to a pipe too, and the record saved, whether it compiled or had nothing to do."""
    root = copy_example(compiled_example, tmp_path)
    servers = root / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack02-gpu010,gpu-8x-h100,GPU-0210\n")
    result = installed("compile", "--timings", cwd=root)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-2].startswith("checks: 0 errors") and lines[-1].startswith("seconds: load "), lines
    again = installed("compile", cwd=root)
    assert again.returncode == 0, again.stderr
    assert (
        again.stdout.splitlines()[-1]
        == "generated/ is up to date: intent and compiler unchanged since the last compile"
    )
