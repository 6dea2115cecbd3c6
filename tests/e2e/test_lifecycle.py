"""Lifecycle changes as intent edits, each through the whole chain on the session lab.

intent edit -> ``compile`` -> ``check`` -> review (``diff --base``) -> ``deploy`` to the lab ->
``drift`` clean, for: a rack added (its switches join the running lab first, as ``lab up``
adds them), a server moved, a server decommissioned then its row removed, and a failed switch
replaced by a factory-default unit (RMA). Every command is the real CLI in process (the lab
lives in this process); the lab is the session's, put back by the next test's fixture.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from core.generated import open_snapshot
from lab import Lab, specs_from_snapshot
from tests.conftest import SessionLab, clone_repo, git, write_lab_json
from tests.deploy.conftest import FAST, Ran, run_fabricops

pytestmark = pytest.mark.e2e

TAG = "deploy/20260101T000000Z"


@pytest.fixture
def repo(tmp_path: Path, example_repo: Path) -> Path:
    """The example on main, its HEAD the last fleet version."""
    root = clone_repo(example_repo, tmp_path / "repo")
    git(root, "tag", "-a", TAG, "-m", "the example deployed")
    return root


@pytest.fixture
def lab(repo: Path, session_lab: SessionLab) -> Lab:
    """The session lab running the example, as deployed."""
    return session_lab.synced(repo)


def fabricops(repo: Path, *args: str, expect: int = 0) -> Ran:
    ran = run_fabricops(repo, *args)
    assert ran.code == expect, f"fabricops {' '.join(args)} -> {ran.code}\n{ran.out}\n{ran.err}"
    return ran


def edit(repo: Path, filename: str, old: str, new: str) -> None:
    path = repo / "intent" / filename
    text = path.read_text()
    assert old in text, f"{old!r} not in {filename}"
    path.write_text(text.replace(old, new, 1))


def review(repo: Path, message: str, expect: int = 3) -> dict[str, dict[str, object]]:
    """compile, check, the review against HEAD, then the commit a merge would make: the review's
    devices by name."""
    fabricops(repo, "compile")
    fabricops(repo, "check")
    diff = fabricops(repo, "diff", "--base", "HEAD", "--format", "json", expect=expect).json()
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return {str(d["device"]): d for d in diff["devices"]}


def deploy_and_audit(repo: Path, devices: Iterable[str]) -> dict[str, str]:
    """Deploy HEAD to the devices the review named, then drift: each in sync. Their outcomes."""
    scope = ("--devices", ",".join(sorted(devices)))
    report = fabricops(repo, "deploy", *FAST, *scope, "--format", "json").json()
    fabricops(repo, "drift", "--lab", *scope)
    return {name: str(d["status"]) for name, d in report["devices"].items()}


def changed(outcomes: dict[str, str]) -> set[str]:
    return {name for name, status in outcomes.items() if status == "changed"}


def test_a_rack_added_joins_the_running_lab_and_only_its_neighbours_change(repo: Path, lab: Lab) -> None:
    edit(
        repo,
        "racks.yaml",
        "role: storage}\n",
        "role: storage}\n  - {id: 15, row: D, position: 1, pdu_kw: 70, role: gpu}\n",
    )
    edit(
        repo,
        "racks.yaml",
        "  C: {cooling_kw: 40, ups_kw: 40}\n",
        "  C: {cooling_kw: 40, ups_kw: 40}\n  D: {cooling_kw: 80, ups_kw: 80}\n",
    )
    rows = "".join(f"rack15-gpu{p:03d},gpu-8x-h100,GPU-15{p:02d}\n" for p in range(1, 9))
    (repo / "intent" / "servers.csv").write_text((repo / "intent" / "servers.csv").read_text() + rows)
    devices = review(repo, "rack 15: 8 GPU servers")

    new = {"rack15-leaf-a", "rack15-leaf-b", "rack15-mgmt"}
    neighbours = {"spine01", "spine02", "spine03", "spine04", "mgmt-core01", "rack14-stor-leaf-a", "rack14-stor-leaf-b"}
    assert {n for n, d in devices.items() if d["status"] == "added"} == new
    assert {n for n, d in devices.items() if d["status"] == "changed"} == neighbours
    for name in neighbours:  # new lines only: what a port that was unused loses is its shutdown
        lines = str(devices[name]["unified_diff"]).splitlines()
        added = {line[1:] for line in lines if line.startswith("+") and not line.startswith("+++")}
        removed = {line[1:] for line in lines if line.startswith("-") and not line.startswith("---")}
        assert removed - added <= {"   shutdown"}, (name, removed - added)

    # The rack's switches arrive at factory default and join the lab, as 'fabricops lab up' adds them.
    spine = lab.device("spine01").running
    specs, links = specs_from_snapshot(open_snapshot(repo, "HEAD"), empty=True, lab_password=lab.password)
    assert lab.join(specs, links) == sorted(new)
    write_lab_json(repo, lab)
    assert lab.device("spine01").running is spine, "a running switch is not touched by the join"

    outcomes = deploy_and_audit(repo, devices)
    assert changed(outcomes) == new | neighbours
    assert "hostname rack15-leaf-a" in lab.device("rack15-leaf-a").running_config()


def test_a_moved_server_is_recabled_and_its_old_ports_shut_and_described(repo: Path, lab: Lab) -> None:
    edit(repo, "servers.csv", "name,model,asset_tag\n", "name,model,asset_tag,moved_from\n")
    edit(
        repo,
        "servers.csv",
        "rack03-gpu005,gpu-8x-h100,GPU-0305\n",
        "rack07-gpu010,gpu-8x-h100,GPU-0305,rack03-gpu005\n",
    )
    devices = review(repo, "rack03-gpu005 moved to rack 7, position 10")

    old_side = {"rack03-leaf-a", "rack03-leaf-b", "rack03-mgmt", "rack01-stor-leaf-a", "rack01-stor-leaf-b"}
    new_side = {"rack07-leaf-a", "rack07-leaf-b", "rack07-mgmt", "rack05-stor-leaf-a", "rack05-stor-leaf-b"}
    assert set(devices) == old_side | new_side
    assert "+   description MOVED_rack03-gpu005_enp65s0f0_TO_rack07-gpu010" in str(
        devices["rack03-leaf-a"]["unified_diff"]
    )
    assert changed(deploy_and_audit(repo, devices)) == old_side | new_side
    config = lab.device("rack03-leaf-a").running_config()
    assert "interface Ethernet2/1\n   description MOVED_rack03-gpu005_enp65s0f0_TO_rack07-gpu010\n   shutdown" in config
    assert "description SERVER_rack07-gpu010_enp65s0f0" in lab.device("rack07-leaf-a").running_config()


def test_a_decommissioned_server_is_shut_expected_down_and_its_row_removed_later(repo: Path, lab: Lab) -> None:
    edit(repo, "servers.csv", "name,model,asset_tag\n", "name,model,asset_tag,compute_port,status\n")
    edit(repo, "servers.csv", "GPU-0305\n", "GPU-0305,,decommissioned\n")
    held = {"rack03-leaf-a", "rack03-leaf-b", "rack03-mgmt", "rack01-stor-leaf-a", "rack01-stor-leaf-b"}
    assert set(review(repo, "rack03-gpu005 decommissioned")) == held
    assert changed(deploy_and_audit(repo, held)) == held

    health = fabricops(repo, "health", "--lab", "--ref", "HEAD", "--devices", "rack03-leaf-a,rack03-mgmt")
    assert "rack03-leaf-a Ethernet2/1: down, shut on purpose: DECOMMISSIONED_rack03-gpu005_enp65s0f0" in health.out
    assert "2 devices: 2 healthy, 0 over a threshold, 0 unreachable; 2 port(s) shut on purpose" in health.out
    plan = (repo / "generated" / "inventory" / "ip-plan.csv").read_text()
    assert ",10.30.3.15,address,rack03-gpu005,compute NIC enp65s0f0 (reserved: decommissioned)" in plan

    edit(repo, "servers.csv", "rack03-gpu005,gpu-8x-h100,GPU-0305,,decommissioned\n", "")  # the second change
    assert set(review(repo, "rack03-gpu005 removed: its ports and addresses are free")) == held
    assert "10.30.3.15," not in (repo / "generated" / "inventory" / "ip-plan.csv").read_text()
    assert changed(deploy_and_audit(repo, held)) == held
    assert "DECOMMISSIONED" not in lab.device("rack03-leaf-a").running_config()


def test_a_failed_switch_replaced_by_a_factory_default_unit_gets_its_full_config(repo: Path, lab: Lab) -> None:
    edit(
        repo,
        "devices.yaml",
        "devices: {}\n",
        "devices:\n  rack05-leaf-a: {serial: JPE24170XYZ, base_mac: 00:1c:73:12:34:56}  # RMA 5120\n",
    )
    assert review(repo, "rack05-leaf-a: the replacement unit") == {}  # no config line, but a unit: exit 3
    hosts = (repo / "generated" / "inventory" / "hosts.yaml").read_text()
    assert "serial: JPE24170XYZ" in hosts

    unit = ("--devices", "rack05-leaf-a")
    refused = fabricops(repo, "deploy", *FAST, *unit, "--format", "json", expect=1).json()["devices"]["rack05-leaf-a"]
    assert refused["status"] == "refused"
    assert (
        refused["detail"].startswith("live serial LAB") and "intent/devices.yaml names JPE24170XYZ" in refused["detail"]
    )

    lab.replace("rack05-leaf-a", "JPE24170XYZ", "00:1c:73:12:34:56")  # fabricops lab replace
    assert changed(deploy_and_audit(repo, ["rack05-leaf-a"])) == {"rack05-leaf-a"}
    (backup,) = fabricops(repo, "backups", "list", "rack05-leaf-a").out.splitlines()  # the factory config's
    stamp = backup.split()[1]
    factory = fabricops(repo, "backups", "show", "rack05-leaf-a", "--at", stamp).out
    assert "hostname rack05-leaf-a" in factory and "router ospf" not in factory
    (status,) = fabricops(repo, "status", "--devices", "rack05-leaf-a", "--format", "json").json()
    assert (status["intent"], status["commit"]) == ("current", git(repo, "rev-parse", "HEAD").strip())
