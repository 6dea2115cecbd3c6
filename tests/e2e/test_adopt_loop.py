"""Adopt from drift, end to end on the session lab: console edits on a leaf (a description, a
port shut with its reason, a storm-control level, an NTP server, a bare ``shutdown``), drift
finds them and names the adopt command, ``fabricops adopt`` prints the patch and then writes
ports.yaml and devices.yaml, ``fabricops compile`` reproduces every live line (drift is left
with one line: the bare shutdown's description, which now carries its reason), and after the
deploy that writes it drift is clean."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import SessionLab, clone_repo, git
from tests.e2e.test_rollout_loop import fabricops

if TYPE_CHECKING:
    from lab import Lab

LEAF = "rack03-leaf-a"
CONSOLE = [
    "interface Ethernet1/3",
    "description moved-by-hand",
    "storm-control unknown-unicast level 2",
    "interface Ethernet1/5",
    "shutdown",
    "description SERVER_rack03-gpu003_enp65s0f0 SHUTDOWN: optic RMA 77",
    "interface Ethernet2/1",
    "shutdown",
    "ntp server vrf MGMT 10.99.0.1 iburst",
]
SHUT = "description SERVER_rack03-gpu005_enp65s0f0 SHUTDOWN: flapping, ticket 5521"


@pytest.fixture
def fleet(tmp_path: Path, example_repo: Path, session_lab: SessionLab) -> tuple[Path, Lab]:
    root = clone_repo(example_repo, tmp_path / "repo")
    return root, session_lab.synced(root)


def test_adopt_writes_intent_that_compiles_to_the_live_lines(fleet: tuple[Path, Lab]) -> None:
    root, lab = fleet
    assert lab.tamper(LEAF, CONSOLE) == []
    found = fabricops(root, "drift", "--lab", "--devices", LEAF, "--format", "json", expect=3).json()
    [entry] = found["devices"]
    assert entry["status"] == "drift" and len(entry["changes"]) == 6
    assert entry["adopt"]["command"] == f"fabricops adopt {LEAF} --write --lab" and entry["adopt"]["intent_yaml"] == ""
    before = {name: (root / "intent" / name).read_text() for name in ("ports.yaml", "devices.yaml")}
    shown = fabricops(root, "adopt", LEAF, "--lab").out
    assert "+++ b/intent/ports.yaml" in shown and "+      shutdown: optic RMA 77" in shown
    assert {name: (root / "intent" / name).read_text() for name in before} == before, "no --write: nothing written"
    reason = ("--reason", "flapping, ticket 5521")
    wrote = fabricops(root, "adopt", LEAF, "--lab", "--write", *reason).out
    assert "wrote intent/devices.yaml, intent/ports.yaml: run 'fabricops compile' and commit" in wrote
    assert f"the next deploy writes '{SHUT}'" in wrote
    ports = (root / "intent" / "ports.yaml").read_text()
    assert ports.startswith(before["ports.yaml"].removesuffix("ports: {}\n")), "the comments stay"
    fabricops(root, "compile")
    git(root, "commit", "-qam", f"keep the console edits of {LEAF}")
    after = fabricops(root, "drift", "--lab", "--devices", LEAF, "--format", "json", expect=3).json()
    # every adopted line compiles back; left: the bare shutdown's description, which takes its reason
    [change] = after["devices"][0]["changes"]
    assert (change["line"], change["expected"]) == ("description SERVER_rack03-gpu005_enp65s0f0", SHUT)
    fabricops(root, "deploy", "--lab", "--devices", LEAF, "--revert-in", "60", "--settle", "0")
    assert fabricops(root, "drift", "--lab", "--devices", LEAF, "--format", "json").json()["exit_code"] == 0
