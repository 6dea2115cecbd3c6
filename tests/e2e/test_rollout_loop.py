"""A rollout that keeps its word, end to end: the state of record, drift that tells the truth, one lock per fleet.

Two clones of one bare origin (two operators, or two CI runners) drive the lab through the real
console script, Nornir and the stock NAPALM driver: deploy -> no-op deploy -> partial deploy with
one faulted device -> drift (that device pending, no revert of the merged change) -> out-of-band
edits -> drift -> revert -> adopt (the report's keep suggestion into intent, compile, commit,
deploy, which records) -> drift clean. Along the way: status and history from the state branch,
the fleet lock refusing the second clone, wrong credentials and bad refs read once.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import git
from tests.deploy.conftest import Ran

FAST = ("--lab", "--revert-in", "60", "--settle", "0", "--batch", "20")
PAIR = ("rack05-leaf-a", "rack05-leaf-b")


def fabricops(root: Path, *args: str, expect: int | None = 0) -> Ran:
    """The installed CLI, run in ``root`` as a person or a workflow runs it; checks the exit code."""
    proc = subprocess.run(
        [sys.executable, "-m", "fabricops", *args], cwd=root, capture_output=True, text=True, check=False
    )
    ran = Ran(proc.returncode, proc.stdout, proc.stderr)
    if expect is not None:
        assert ran.code == expect, f"fabricops {shlex.join(args)} -> {ran.code}\n{ran.out}\n{ran.err}"
    assert "Traceback" not in ran.err, ran.err
    return ran


@dataclass(frozen=True)
class Clones:
    alice: Path
    bob: Path


@pytest.fixture(scope="module")
def clones(tmp_path_factory: pytest.TempPathFactory, compiled_example: Path) -> Iterator[Clones]:
    """A bare origin with the example on main, two clones of it, and the lab at factory default."""
    base = tmp_path_factory.mktemp("rollout")
    origin = base / "origin.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    alice, bob = base / "alice", base / "bob"
    subprocess.run(["git", "clone", "-q", str(origin), str(alice)], check=True, capture_output=True)
    for name in ("intent", "generated"):
        shutil.copytree(compiled_example / name, alice / name)
    (alice / ".gitignore").write_text(".lab/\nplan.json\nreports/\n")
    for clone, who in ((alice, "alice"),):
        git(clone, "config", "user.email", f"{who}@fabricops.invalid")
        git(clone, "config", "user.name", who)
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "-m", "the example cluster")
    git(alice, "push", "-q", "origin", "main")
    subprocess.run(["git", "clone", "-q", str(origin), str(bob)], check=True, capture_output=True)
    git(bob, "config", "user.email", "bob@fabricops.invalid")
    git(bob, "config", "user.name", "bob")
    fabricops(alice, "lab", "up", "--empty")
    (bob / ".lab").mkdir()
    shutil.copy(alice / ".lab" / "lab.json", bob / ".lab" / "lab.json")  # the same lab, seen from the second clone
    try:
        yield Clones(alice, bob)
    finally:
        fabricops(alice, "lab", "down")


def test_the_rollout_loop(clones: Clones) -> None:
    root = clones.alice
    first = deploy_then_no_op(root)
    partial_deploy_leaves_one_device_pending(root)
    edits_are_drift_reverted_to_what_was_deployed(root, first)
    adopt_an_edit_then_drift_is_clean(root, first)
    the_second_clone_shares_the_state_and_the_lock(clones)


def deploy_then_no_op(root: Path) -> str:
    """The first deploy is a fleet version; a no-op deploy mints nothing but records that it verified."""
    done = fabricops(root, "deploy", *FAST, "--format", "json").json()
    assert len(done["changed"]) == 55 and done["tag"].startswith("deploy/")
    again = fabricops(root, "deploy", *FAST, "--format", "json").json()
    assert (again["changed"], again["tag"], len(again["untouched"])) == ([], "", 55), "nothing to change, no new tag"
    status = fabricops(root, "status", "--format", "json").json()
    assert {row["intent"] for row in status} == {"current"} and len(status) == 55
    assert {row["run"] for row in status} == {f"deploy {again['stamp']}"}, "verifying is recording"
    assert {row["tag"] for row in status} == {done["tag"]}
    history = fabricops(root, "history", "--format", "json").json()
    assert [(h["kind"], h["tag"], h["result"]) for h in history] == [
        ("deploy", "", "ok"),
        ("deploy", done["tag"], "ok"),
    ]
    assert git(root, "ls-remote", "origin", "refs/tags/deploy/*").split()[1] == f"refs/tags/{done['tag']}"
    return str(done["tag"])


def set_extra_config(root: Path, extra: dict[str, str]) -> None:
    """Write ``extra_config`` of intent/fabric.yaml, as a person merging a snippet would."""
    path = root / "intent" / "fabric.yaml"
    lines = path.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("extra_config:"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].strip() and not lines[i].startswith(" "))
    block = yaml.safe_dump({"extra_config": extra}, default_flow_style=False, sort_keys=True)
    path.write_text("".join([*lines[:start], block, "\n", *lines[end:]]))


def merge_change(root: Path, extra: dict[str, str], message: str) -> None:
    set_extra_config(root, extra)
    fabricops(root, "compile")
    git(root, "commit", "-qam", message)
    git(root, "push", "-q", "origin", "main")


EXTRA = dict.fromkeys(PAIR, "interface Ethernet30/1\n   load-interval 5\n")
"""A line only extra_config says (a description would be ports.yaml's, and refused here)."""


def partial_deploy_leaves_one_device_pending(root: Path) -> None:
    """A merged change reaches one leaf; its peer's uplink is down, so the post-check reverts it (exit 4)."""
    merge_change(root, dict(EXTRA), "faster counters on Ethernet30/1 of rack05")
    fabricops(root, "lab", "fault", PAIR[1], "link-down", "--port", "Ethernet25/1")
    ran = fabricops(root, "deploy", *FAST, "--format", "json", expect=4)
    report = ran.json()
    assert (report["changed"], report["reverted"], report["tag"]) == ([PAIR[0]], [PAIR[1]], "")
    assert report["summary"] == "deploy: 1 changed, 1 reverted, 0 failed, 53 untouched"
    drift = fabricops(root, "drift", "--lab", "--format", "json", "--report-dir", "reports/pending", expect=3).json()
    verdict = {d["device"]: d for d in drift["devices"] if d["status"] != "in-sync"}
    assert list(verdict) == [PAIR[1]], "the leaf that took the change is in sync with the merge"
    pending = verdict[PAIR[1]]
    assert pending["status"] == "pending" and pending["changes"] == []
    assert "revert" not in pending, "a merged change is not reverted"
    assert pending["apply"] == f"fabricops deploy --devices {PAIR[1]} --lab"
    issues = json.loads((root / "reports" / "pending" / "issues.json").read_text())
    assert {i["action"] for i in issues if i["device"] == PAIR[1]} == {"close"}, "pending opens no drift issue"
    status = {row["device"]: row for row in fabricops(root, "status", "--format", "json", expect=3).json()}
    assert (status[PAIR[0]]["intent"], status[PAIR[1]]["intent"]) == ("current", "pending")
    fabricops(root, "lab", "fault", PAIR[1], "clear")  # the uplink is mended; the leaf stays pending until deployed


def edits_are_drift_reverted_to_what_was_deployed(root: Path, first: str) -> None:
    """Console edits: one on an in-sync leaf (drift), one on the pending leaf (drift+pending).

    Each revert restores the config the device was last deployed with: the pending leaf goes
    back to pending, its merged change untouched; no fleet tag is minted for a few devices.
    """
    fabricops(
        root, "lab", "tamper", "rack03-leaf-a", "--line", "interface Ethernet2/1", "--line", "description by-hand"
    )
    fabricops(root, "lab", "tamper", PAIR[1], "--line", "ntp server vrf MGMT 10.99.0.1")
    found = fabricops(root, "drift", "--lab", "--format", "json", "--report-dir", "reports/found", expect=3).json()
    verdict = {d["device"]: d for d in found["devices"] if d["status"] != "in-sync"}
    assert {name: d["status"] for name, d in verdict.items()} == {"rack03-leaf-a": "drift", PAIR[1]: "drift+pending"}
    assert [c["line"] for c in verdict[PAIR[1]]["changes"]] == ["ntp server vrf MGMT 10.99.0.1"]
    # rack03-leaf-a was last verified by the partial deploy (at the merge, untagged); rack05-leaf-b
    # by the no-op deploy of the first fleet version.
    merged = git(root, "rev-parse", "HEAD").strip()
    for device, last in (("rack03-leaf-a", merged), (PAIR[1], first)):
        command = shlex.split(verdict[device]["revert"])
        assert command == ["fabricops", "rollback", "--to", last, "--devices", device, "--lab"]
        back = fabricops(root, *command[1:], "--revert-in", "60", "--settle", "0", "--format", "json").json()
        assert back["changed"] == [device] and back["tag"] == "", "a rollback of a few devices is no fleet version"
    after = fabricops(root, "drift", "--lab", "--format", "json", "--report-dir", "reports/reverted", expect=3).json()
    assert {d["device"]: d["status"] for d in after["devices"] if d["status"] != "in-sync"} == {PAIR[1]: "pending"}


def adopt_an_edit_then_drift_is_clean(root: Path, first: str) -> None:
    """Keep a console edit: the report's adopt command writes it into intent; compile, merge, deploy
    (which records): clean."""
    fabricops(root, "lab", "tamper", "rack03-leaf-b", "--line", "interface Ethernet2/1", "--line", "description kept")
    found = fabricops(root, "drift", "--lab", "--format", "json", "--report-dir", "reports/keep", expect=3).json()
    kept = next(d for d in found["devices"] if d["device"] == "rack03-leaf-b")
    assert kept["adopt"]["command"] == "fabricops adopt rack03-leaf-b --write --lab"
    fabricops(root, *shlex.split(kept["adopt"]["command"])[1:])
    merge_change(root, dict(EXTRA), "keep rack03-leaf-b's Ethernet2/1 description")
    done = fabricops(root, "deploy", *FAST, "--format", "json").json()
    assert done["changed"] == [PAIR[1]], "the adopted edit is already live: verified and recorded, not changed"
    assert done["tag"] and done["tag"] != first, "the whole fleet runs the new commit: a fleet version"
    clean = fabricops(root, "drift", "--lab", "--format", "json", "--report-dir", "reports/clean").json()
    assert clean["summary"]["in-sync"] == 55 and clean["exit_code"] == 0
    status = fabricops(root, "status", "--format", "json").json()
    assert {row["intent"] for row in status} == {"current"} and {row["tag"] for row in status} == {done["tag"]}
    history = fabricops(root, "history").out
    assert history.splitlines()[1].split()[1:3] == ["deploy", done["tag"]]
    assert "rollback" in history and "partial" in history
    back = fabricops(root, "rollback", "--to", "previous", *FAST, "--dry-run", "--format", "json").json()
    assert back["ref"] == git(root, "rev-parse", f"{first}^{{commit}}").strip(), "previous = the fleet version before"
    assert sorted(back["devices"][d]["status"] for d in (*PAIR, "rack03-leaf-b")) == ["pending"] * 3


def the_second_clone_shares_the_state_and_the_lock(clones: Clones) -> None:
    """Bob's clone sees Alice's records, is refused while she holds the fleet lock, and deploys after."""
    from deploy.lock import FleetLock

    alice, bob = clones.alice, clones.bob
    git(bob, "pull", "-q", "origin", "main")
    bob_status = fabricops(bob, "status", "--format", "json").json()
    assert {row["intent"] for row in bob_status} == {"current"}, "the state of record came from the shared remote"
    held = FleetLock(alice, "deploy")
    held.acquire()
    try:
        refused = fabricops(bob, "deploy", *FAST, expect=1)
        assert refused.err.startswith(f"Error: fleet lock held: {held.info.owner}@{held.info.host} pid {os.getpid()}")
        assert "lock: lock.json on branch fabricops-state on origin" in refused.err
        assert fabricops(bob, "rollback", "--to", "previous", *FAST, expect=1).err.startswith("Error: fleet lock held")
    finally:
        assert held.release() is None
    fabricops(bob, "deploy", *FAST)
    runs = fabricops(alice, "history", "--format", "json").json()
    assert runs[0]["by"].startswith("root@") or runs[0]["by"], "bob's run is in alice's history"
    assert len(runs) == len(fabricops(bob, "history", "--format", "json").json())


def test_errors_read_once(clones: Clones) -> None:
    """Wrong credentials: one line per device and one summary; bad refs: one line naming them and what exists."""
    bob = clones.bob
    info = json.loads((bob / ".lab" / "lab.json").read_text())
    wrong = {**info, "password": "not-the-password"}
    (bob / ".lab" / "lab.json").write_text(json.dumps(wrong))
    try:
        denied = fabricops(bob, "deploy", *FAST, expect=1)
        lines = denied.out.splitlines()
        assert sum("not reachable before the change: authentication failed" in line for line in lines) == 55
        assert lines[-1] == "deploy: 0 changed, 0 reverted, 55 failed, 0 untouched; " + (
            "halted before the first wave: 55 device(s) failed before any change"
        )
        assert len(lines) <= 55 + 4 and denied.err.count("\n") <= 4, denied.err
        audit = fabricops(bob, "drift", "--lab", "--allow-unreachable", "--format", "json", expect=3).json()
        assert {(d["status"], d["error"]) for d in audit["devices"]} == {("unreachable", "authentication failed")}
    finally:
        (bob / ".lab" / "lab.json").write_text(json.dumps(info))
    for args, ref in (
        (("diff", "--base", "no-such-ref"), "no-such-ref"),
        (("plan", "--lab", "--ref", "no-such-ref"), "no-such-ref"),
        (("rollback", "--to", "deploy/no-such-tag", "--dry-run", "--lab"), "deploy/no-such-tag"),
        (("drift", "--lab", "--ref", "no-such-ref"), "no-such-ref"),
    ):
        ran = fabricops(bob, *args, expect=1)
        assert ran.err.startswith(f"Error: unknown git ref {ref!r}: not a branch, tag or commit here (branches: main;")
        assert "deploy tags: deploy/" in ran.err and ran.err.count("\n") == 1, ran.err
    unknown = fabricops(bob, "plan", "--lab", "--devices", "rack03-leaf-x", expect=1)
    assert unknown.err == (
        "Error: unknown device rack03-leaf-x (did you mean rack03-leaf-a, rack03-leaf-b, rack10-leaf-b?): "
        f"not among the 55 devices of generated/ at {git(bob, 'rev-parse', 'HEAD')[:12]}\n"
    )
