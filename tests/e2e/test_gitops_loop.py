"""The GitOps loop, end to end, on temporary git repositories and the lab.

A branch adds a VLAN to a leaf pair and moves one server port; CI's review commands pass and
name exactly those changes; the merge is planned and deployed through the stock NAPALM driver
and tagged; drift is clean; an out-of-band edit is found and the report's own rollback command
restores it; ``rollback --to`` the previous tag returns the whole lab to it. Every command is
run as a user or a workflow runs it, and a last test checks that the workflows call nothing
this loop does not.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import git

pytestmark = pytest.mark.e2e  # the whole loop, 55 switches deployed twice: the second tier

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
EXECUTED: list[list[str]] = []  # every fabricops command line this module ran


def fabricops(root: Path, *args: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in ``root`` and check its exit code."""
    EXECUTED.append(list(args))
    proc = subprocess.run(
        [sys.executable, "-m", "fabricops", *args], cwd=root, capture_output=True, text=True, check=False
    )
    assert proc.returncode == expect, f"fabricops {shlex.join(args)} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def origin_and_clone(tmp_path_factory: pytest.TempPathFactory, compiled_example: Path) -> Iterator[Path]:
    """A bare origin with the example on main, a working clone, and the lab running at factory default."""
    base = tmp_path_factory.mktemp("loop")
    origin, clone = base / "origin.git", base / "clone"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True, capture_output=True)
    for name in ("intent", "generated"):
        subprocess.run(["cp", "-r", str(compiled_example / name), str(clone / name)], check=True)
    (clone / ".gitignore").write_text(".lab/\nplan.json\nreports/\n")
    git(clone, "config", "user.email", "loop@fabricops.invalid")
    git(clone, "config", "user.name", "fabricops loop")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "the example cluster")
    git(clone, "push", "-q", "origin", "main")
    fabricops(clone, "lab", "up", "--empty")
    try:
        yield clone
    finally:
        fabricops(clone, "lab", "down")


def deploy_tags(root: Path) -> list[str]:
    return git(root, "tag", "--list", "deploy/*", "--sort=creatordate").split()


def test_the_loop(origin_and_clone: Path) -> None:
    root = origin_and_clone
    first_tag = first_deploy(root)
    pull_request(root)
    second_tag = merge_and_deploy(root, first_tag)
    audit_in_shards(root)
    tamper_and_revert(root)
    roll_back(root, first_tag, second_tag)


def first_deploy(root: Path) -> str:
    """The lab goes from factory default to main."""
    fabricops(root, "plan", "--lab", "--ref", "main", "--out", "plan.json", expect=3)
    fabricops(root, "deploy", "--lab", "--ref", "main", "--plan", "plan.json", "--format", "json", "--revert-in", "60")
    return deploy_tags(root)[-1]


def pull_request(root: Path) -> None:
    """VLAN 210 on rack03's leaf pair, rack03-gpu004's compute cable moved to port 13; CI's review."""
    git(root, "checkout", "-q", "-b", "vlan-210")
    fabric = root / "intent" / "fabric.yaml"
    text = fabric.read_text().replace(
        "  storage: {id: 200, name: Storage}\n",
        "  storage: {id: 200, name: Storage}\n  tenant-a: {id: 210, name: Tenant-A}\n",
    )
    fabric.write_text(
        text.replace(
            "    virtual_router_mac: 00:1c:73:00:00:99\n",
            "    virtual_router_mac: 00:1c:73:00:00:99\n    pair_vlans: {3: [tenant-a]}\n",
        )
    )
    servers = root / "intent" / "servers.csv"
    rows = servers.read_text().replace("name,model,asset_tag\n", "name,model,asset_tag,compute_port\n")
    servers.write_text(
        rows.replace("rack03-gpu004,gpu-8x-h100,GPU-0304\n", "rack03-gpu004,gpu-8x-h100,GPU-0304,Ethernet3/7\n")
    )
    fabricops(root, "compile", "--check", expect=3)  # stale until compiled: CI would fail here
    fabricops(root, "compile")
    fabricops(root, "compile", "--check")
    fabricops(root, "check")
    data = json.loads(fabricops(root, "diff", "--base", "main", "--format", "json", expect=3).stdout)
    assert {d["device"] for d in data["devices"]} == {"rack03-leaf-a", "rack03-leaf-b"}
    expected = "VLAN 210 added on 2 leaves; 2 ports changed on rack03-leaf-a; 2 ports changed on rack03-leaf-b"
    assert data["summary"].startswith(expected)
    assert data["summary"].endswith("no spine touched")
    assert data["blast"]["both_members"] == ["rack03-leaf-a+rack03-leaf-b"]
    assert [cause["title"].split(":")[0] for cause in data["causes"]] == [
        "server rack03-gpu004 re-cabled (compute_port by position -> Ethernet3/7)",
        "design",  # the VLAN: fabric.yaml's pair_vlans, no element of the day-2 files
    ]
    markdown = fabricops(root, "diff", "--base", "main", "--format", "markdown", expect=3).stdout
    assert "VLAN 210 added on 2 leaves" in markdown
    site = root.parent / "view"  # what review.yml keeps as an artifact: the view of the head
    assert "with diffs against the last deploy" in fabricops(root, "view", "--out", str(site)).stdout
    index = (site / "index.html").read_text()
    assert "2 switch(es) differ from what was last deployed" in index
    assert "rack03-leaf-a.html#deployed" in index and "rack03-leaf-b.html#deployed" in index
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "VLAN 210 on rack03; rack03-gpu004 on Ethernet3/7")


def merge_and_deploy(root: Path, first_tag: str) -> str:
    """The merge, then what deploy.yml runs: plan, then deploy with the plan's staleness guard."""
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge vlan-210", "vlan-210")
    git(root, "push", "-q", "origin", "main")
    plan = fabricops(root, "plan", "--lab", "--ref", "main", "--out", "plan.json", "--format", "json", expect=3)
    waves = json.loads(plan.stdout)["waves"]
    assert sorted(name for wave in waves for name in wave) == ["rack03-leaf-a", "rack03-leaf-b"]
    assert len(waves) == 2  # never both members of an MLAG pair at once
    fabricops(root, "deploy", "--lab", "--ref", "main", "--plan", "plan.json", "--format", "json", "--revert-in", "60")
    second_tag = deploy_tags(root)[-1]
    assert second_tag != first_tag
    assert git(root, "rev-list", "-n", "1", second_tag).strip() == git(root, "rev-parse", "main").strip()
    return second_tag


def audit_in_shards(root: Path) -> None:
    """What drift.yml runs: one audit per shard, then the merge of their reports."""
    for shard in (1, 2):
        report = f"reports/shard-{shard}"
        shard_args = ("--shard", f"{shard}/2", "--allow-unreachable", "--format", "json", "--report-dir", report)
        fabricops(root, "drift", "--lab", *shard_args)
    shards = ("reports/shard-1", "reports/shard-2")
    fabricops(root, "drift", "--merge", *shards, "--format", "json", "--report-dir", "reports/merged")
    merged = json.loads((root / "reports" / "merged" / "report.json").read_text())
    assert len(merged["devices"]) == 55 and merged["summary"]["in-sync"] == 55


def tamper_and_revert(root: Path) -> None:
    """An engineer edits a switch on the console: drift finds it, its printed command undoes it."""
    fabricops(
        root, "lab", "tamper", "rack03-leaf-a", "--line", "interface Ethernet3/7", "--line", "description hand-patched"
    )
    fabricops(root, "drift", "--lab", "--format", "json", "--report-dir", "reports/found", expect=3)
    found = json.loads((root / "reports" / "found" / "report.json").read_text())
    drifted = [d for d in found["devices"] if d["status"] == "drift"]
    assert [d["device"] for d in drifted] == ["rack03-leaf-a"]
    command = shlex.split(drifted[0]["revert"])
    assert command[:2] == ["fabricops", "rollback"]
    fabricops(root, *command[1:], "--format", "json")
    fabricops(root, "drift", "--lab", "--report-dir", "reports/after")


def roll_back(root: Path, first_tag: str, second_tag: str) -> None:
    """One command back to the previous version (the whole lab), then forward for a pair."""
    fabricops(root, "rollback", "--lab", "--to", first_tag, "--format", "json")
    fabricops(root, "drift", "--lab", "--ref", first_tag, "--report-dir", "reports/rolled-back")
    pair = "rack03-leaf-a,rack03-leaf-b"
    fabricops(root, "rollback", "--lab", "--to", second_tag, "--devices", pair, "--format", "json")
    fabricops(root, "drift", "--lab", "--ref", second_tag, "--devices", pair, "--report-dir", "reports/again")


def workflow_commands() -> list[list[str]]:
    """Every fabricops command line the workflows run, as words (shell quoting removed)."""
    commands = []
    for path in WORKFLOWS:
        for job in yaml.safe_load(path.read_text())["jobs"].values():
            for step in job["steps"]:
                for line in str(step.get("run", "")).splitlines():
                    words = shlex.split(line.split(">")[0].replace("$", "X"))
                    if "fabricops" in words:
                        commands.append(words[words.index("fabricops") + 1 :])
    return commands


def shape(words: list[str]) -> tuple[str, frozenset[str]]:
    """A command's verb and its options (values ignored; --lab is how the loop reaches devices)."""
    verb = words[0] if words[0] not in {"lab", "backups"} else " ".join(words[:2])
    return verb, frozenset(w for w in words if w.startswith("--") and w != "--lab")


def test_workflows_call_only_what_the_loop_covers() -> None:
    """Each command a workflow runs was run above with the same verb and options."""
    assert EXECUTED, "run this module whole: the loop test records the commands"
    covered = [shape(words) for words in EXECUTED]
    for words in workflow_commands():
        verb, options = shape(words)
        assert any(v == verb and options <= o for v, o in covered), (
            f"workflow runs 'fabricops {' '.join(words)}', untested"
        )
