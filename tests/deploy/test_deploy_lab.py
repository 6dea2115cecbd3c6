"""Deploy, plan, rollback and backups end to end: the real CLI, Nornir and the stock NAPALM driver
against the emulated example fabric on loopback. Faults are injected through the lab's own API.

Every test shares the session lab: most start from it running HEAD (``deployed``) and change a
device or two; the deploy of all 55 switches from factory default (``full_deploy``) and the
wait for a real commit timer are in the e2e tier.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from core import gitstate
from core.secrets import lab_secret, mask_key
from deploy import fingerprint, normalise_running
from deploy.lock import LOCK_FILE
from lab import Lab
from tests.conftest import git
from tests.deploy.conftest import FAST, Fabricops, Ran, commit_change

# Deploys, rollbacks and their faults on the session lab, module by module: the lab tier.
pytestmark = pytest.mark.e2e

LEAF = "rack03-leaf-a"


def reserve(repo: Path, device: str, label: str) -> str:
    """A one-line change: a description on the first unused, shut port of ``device``; the new sha."""
    text = (repo / "generated" / "configs" / f"{device}.cfg").read_text()
    port = re.search(r"^interface (Ethernet2\d(?:/\d+)?)\n   shutdown\n", text, re.M)
    assert port, f"{device} has no shut port"
    block = f"interface {port.group(1)}\n   shutdown\n"
    labelled = f"interface {port.group(1)}\n   description {label}\n   shutdown\n"
    return commit_change(repo, device, block, labelled, f"{device}: {label}")


def running(lab: Lab, device: str) -> str:
    return lab.device(device).running_config()


def statuses(result: Ran) -> dict[str, str]:
    return {name: d["status"] for name, d in result.json()["devices"].items()}


def test_full_deploy_from_factory_default_then_plan_is_clean(
    full_deploy: Ran, repo: Path, lab: Lab, cli: Fabricops
) -> None:
    """All 55 switches change, in waves that keep redundancy; afterwards nothing is pending."""
    report = full_deploy.json()
    assert len(report["changed"]) == 55 and not report["failed"]
    assert len(report["waves"][0]) == 1, "a single canary goes first"
    hosts = _hosts(repo)
    for wave in report["waves"]:
        groups = [hosts[n]["data"]["redundancy_group"] for n in wave]
        assert len(groups) == len(set(groups)), f"a wave holds two members of a redundancy group: {wave}"
    assert all(d["backup"].startswith("backups/") for d in report["devices"].values())
    assert "hostname spine01" in running(lab, "spine01")

    plan = cli("plan", "--lab", "--format", "json")
    assert plan.code == 0, plan.err
    assert set(statuses(plan).values()) == {"unchanged"}
    assert plan.json()["waves"] == []


def _hosts(repo: Path) -> dict[str, dict[str, Any]]:
    import yaml

    data: dict[str, dict[str, Any]] = yaml.safe_load((repo / "generated/inventory/hosts.yaml").read_text())
    return data


def test_deploy_tags_the_commit_and_records_it_on_the_state_branch(full_deploy: Ran, repo: Path) -> None:
    """The tag points at the deployed commit; the record sits on fabricops-state, main untouched."""
    report = full_deploy.json()
    tag = report["tag"]
    assert tag.startswith("deploy/") and tag.endswith("Z")
    assert git(repo, "rev-parse", f"{tag}^{{commit}}").strip() == report["ref"]
    assert git(repo, "cat-file", "-t", tag).strip() == "tag", "an annotated tag"
    record = json.loads(gitstate.read_file(repo, report["record"]) or b"{}")
    assert record["ref"] == report["ref"] and len(record["devices"]) == 55
    assert record["devices"]["spine01"]["added"] > 0 and record["devices"]["spine01"]["sections"]
    assert git(repo, "status", "--porcelain", "--untracked-files=no").strip() == ""
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert "backups/" not in git(repo, "ls-files")


def test_backups_hold_no_secret_and_list_show_read_them_back(full_deploy: Ran, repo: Path, cli: Fabricops) -> None:
    """Factory-default backups: the unknown password hash is masked by a keyed hash, never stored."""
    listing = cli("backups", "list", "spine01", "--format", "json")
    assert listing.code == 0
    stamps = [row["stamp"] for row in listing.json()]
    assert stamps and all(row["device"] == "spine01" for row in listing.json())
    shown = cli("backups", "show", "spine01", "--at", stamps[0][:8])
    assert shown.code == 0 and "hostname spine01" in shown.out
    assert "$6$" not in shown.out and "<masked:" in shown.out
    assert cli("backups", "show", "spine01", "--at", "1999-01-01").code == 1


def test_one_device_change_deploys_only_that_device(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    sha = reserve(repo, LEAF, "RESERVED_ONE")
    plan = cli("plan", "--lab", "--format", "json")
    assert plan.code == 3
    assert [n for n, s in statuses(plan).items() if s == "pending"] == [LEAF]
    assert plan.json()["ref"] == sha
    stored = json.loads((repo / "plan.json").read_text())
    live = running(deployed, LEAF)
    # keyed with the persistent mask key: a plain hash of the config would let a guess be tested offline
    assert stored["ref"] == sha and stored["devices"][LEAF]["fingerprint"] == fingerprint(
        live, mask_key(deployed.password)
    )
    plain = hashlib.sha256(normalise_running(live).encode()).hexdigest()
    assert plain not in (repo / "plan.json").read_text()
    assert "+   description RESERVED_ONE" in stored["devices"][LEAF]["diff"]

    result = cli("deploy", *FAST, "--format", "json")
    assert result.code == 0, result.err
    assert result.json()["changed"] == [LEAF]
    assert "description RESERVED_ONE" in running(deployed, LEAF)
    summary = result.json()["devices"][LEAF]
    assert (summary["added"], summary["removed"], summary["sections"]) == (1, 0, ["interface Ethernet20/1"])
    assert lab_secret("admin_sha512", deployed.password) not in json.dumps(result.json())


def test_plan_file_refuses_a_device_changed_since_the_plan(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """A tamper after review: the reviewed diff is no longer what would be applied."""
    reserve(repo, LEAF, "RESERVED_PLAN")
    plan_file = repo / "reviewed.json"
    assert cli("plan", "--lab", "--out", str(plan_file)).code == 3
    deployed.tamper(LEAF, ["interface Ethernet21/1", "description hand-made"])
    before = running(deployed, LEAF)

    result = cli("deploy", *FAST, "--plan", str(plan_file), "--devices", LEAF, "--format", "json")
    assert result.code == 1
    assert statuses(result)[LEAF] == "refused"
    assert "changed since plan" in result.json()["devices"][LEAF]["detail"]
    assert running(deployed, LEAF) == before


def test_plan_file_for_another_ref_is_refused(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    plan_file = repo / "old-plan.json"
    cli("plan", "--lab", "--out", str(plan_file))
    reserve(repo, LEAF, "RESERVED_REF")
    result = cli("deploy", *FAST, "--plan", str(plan_file), "--ref", "HEAD")
    assert result.code == 1
    assert "was made for" in result.err and "run 'fabricops plan'" in result.err


def test_an_unreachable_device_halts_the_rollout_before_any_change(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """A failure found before the change stops everything: the spine is not touched either."""
    reserve(repo, LEAF, "RESERVED_UNREACH")
    reserve(repo, "spine01", "RESERVED_UNREACH")
    spine_before = running(deployed, "spine01")
    deployed.set_unreachable(LEAF)
    result = cli("deploy", *FAST, "--devices", f"{LEAF},spine01", "--format", "json")
    assert result.code == 1, "failed, nothing changed"
    report = result.json()
    assert statuses(result) == {LEAF: "unreachable", "spine01": "not-touched"}
    assert (report["failed"], report["untouched"], report["changed"]) == ([LEAF], ["spine01"], [])
    assert report["devices"][LEAF]["detail"] == "not reachable before the change: connection refused"
    assert report["halted"].startswith("halted before the first wave: 1 device(s) failed")
    assert running(deployed, "spine01") == spine_before


def test_continue_on_error_deploys_the_others(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    reserve(repo, LEAF, "RESERVED_GO_ON")
    reserve(repo, "rack05-leaf-b", "RESERVED_GO_ON")
    deployed.set_unreachable(LEAF)
    result = cli("deploy", *FAST, "--devices", f"{LEAF},rack05-leaf-b", "--continue-on-error", "--format", "json")
    assert result.code == 4, "some changed, some failed"
    assert (result.json()["changed"], result.json()["failed"]) == (["rack05-leaf-b"], [LEAF])
    deployed.set_unreachable(LEAF, False)
    assert "RESERVED_GO_ON" not in running(deployed, LEAF)


# The stock EOS driver waits 10 s for the lock (_obtain_lock(wait_time=10)) before it gives up
def test_a_locked_config_session_halts_the_rollout(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """Someone left a config session pending on the console: NAPALM's lock check fails before any change."""
    reserve(repo, LEAF, "RESERVED_LOCKED")
    reserve(repo, "spine02", "RESERVED_LOCKED")
    deployed.fault(LEAF, "pending-session", session="console_left_open")
    result = cli("deploy", *FAST, "--devices", f"{LEAF},spine02", "--format", "json")
    assert result.code == 1
    assert statuses(result) == {LEAF: "failed", "spine02": "not-touched"}
    assert "configuration locked: another config session is pending" in result.json()["devices"][LEAF]["detail"]
    deployed.device(LEAF).sessions.pop("console_left_open")
    assert "RESERVED_LOCKED" not in running(deployed, "spine02")


def test_rejected_line_aborts_the_session_and_is_shown(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    reserve(repo, LEAF, "RESERVED_REJECT")
    before = running(deployed, LEAF)
    deployed.fault(LEAF, "reject", pattern="RESERVED_REJECT")
    result = cli("deploy", *FAST, "--devices", LEAF)
    assert result.code == 1, "nothing changed"
    assert "rejected" in result.out and "'description RESERVED_REJECT'" in result.out
    assert running(deployed, LEAF) == before
    assert deployed.device(LEAF).status()["sessions"].get("pending") is None
    assert "pending" not in deployed.device(LEAF).status()["sessions"].values(), "the session was aborted"


def test_connection_lost_after_commit_is_reverted_by_the_timer(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """The commit lands, its reply is lost: deploy must not abort it nor call it done."""
    reserve(repo, LEAF, "RESERVED_DROP")
    before = running(deployed, LEAF)
    deployed.fault(LEAF, "drop-after-commit", times=1)
    started = time.monotonic()
    result = cli("deploy", *FAST, "--revert-in", "3", "--devices", LEAF, "--format", "json")
    assert statuses(result)[LEAF] == "reverted"
    assert result.code == 1
    assert time.monotonic() - started >= 3, "it waited for the commit timer rather than aborting"
    assert normalise_running(running(deployed, LEAF)) == normalise_running(before)
    assert "RESERVED_DROP" not in deployed.device(LEAF).startup_config()


def test_failed_post_check_rolls_back_and_halts_later_waves(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """An uplink down after the commit on the canary leaf: the change is aborted; no spine is touched."""
    reserve(repo, LEAF, "RESERVED_POST")
    reserve(repo, "rack03-leaf-b", "RESERVED_POST")
    reserve(repo, "spine03", "RESERVED_POST")
    before = running(deployed, LEAF)
    deployed.fault(LEAF, "link-down", port="Ethernet25/1")
    result = cli("deploy", *FAST, "--devices", f"{LEAF},rack03-leaf-b,spine03", "--format", "json")
    assert result.code == 1
    report = result.json()
    assert report["waves"] == [[LEAF], ["rack03-leaf-b", "spine03"]], "the canary leaf first"
    assert statuses(result) == {LEAF: "rolled-back", "rack03-leaf-b": "not-touched", "spine03": "not-touched"}
    assert (report["reverted"], report["untouched"]) == ([LEAF], ["rack03-leaf-b", "spine03"])
    assert "RESERVED_POST" not in running(deployed, "spine03")
    assert any("Ethernet25/1" in p and "down" in p for p in report["devices"][LEAF]["problems"])
    assert running(deployed, LEAF) == before
    assert "RESERVED_POST" not in running(deployed, "rack03-leaf-b")
    assert report["devices"][LEAF]["backup"]


def test_miscabled_neighbour_fails_the_post_check(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """Two uplinks swapped at the patch panel: LLDP contradicts the cabling plan."""
    reserve(repo, LEAF, "RESERVED_CABLE")
    deployed.fabric.swap_cables(LEAF, "Ethernet25/1", "Ethernet26/1")
    try:
        result = cli("deploy", *FAST, "--devices", LEAF, "--format", "json")
    finally:
        deployed.fabric.swap_cables(LEAF, "Ethernet25/1", "Ethernet26/1")
    assert statuses(result)[LEAF] == "rolled-back"
    assert any("cabling plan says" in p for p in result.json()["devices"][LEAF]["problems"])


def test_rollback_to_a_previous_deploy_tag(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """A deploy tag brings back generated/ as it was: the same safe path, only what differs changes."""
    reserve(repo, LEAF, "RESERVED_TAG_A")
    first = cli("deploy", *FAST, "--format", "json")
    assert first.code == 0 and first.json()["changed"] == [LEAF]
    tag_a = first.json()["tag"]
    assert tag_a, "a run over the whole fleet that verified every device makes a fleet version"
    assert git(repo, "rev-parse", f"{tag_a}^{{commit}}").strip() == git(repo, "rev-parse", "HEAD").strip()
    commit_change(repo, LEAF, "RESERVED_TAG_A", "RESERVED_TAG_B", "a second change")
    second = cli("deploy", *FAST, "--devices", LEAF, "--format", "json")
    assert second.code == 0 and second.json()["tag"] == "", "a run over a few devices is no fleet version"
    assert "RESERVED_TAG_B" in running(deployed, LEAF)

    devices = f"{LEAF},rack03-leaf-b"
    dry = cli("rollback", "--to", tag_a, *FAST, "--devices", devices, "--dry-run", "--format", "json")
    assert dry.code == 0 and statuses(dry) == {LEAF: "pending", "rack03-leaf-b": "unchanged"}
    assert "RESERVED_TAG_B" in running(deployed, LEAF), "a dry run changes nothing"
    back = cli("rollback", "--to", tag_a, *FAST, "--devices", devices, "--format", "json")
    assert back.code == 0, back.err
    assert back.json()["changed"] == [LEAF] and back.json()["kind"] == "rollback"
    assert back.json()["tag"] == "", "a rollback of a few devices mints no fleet tag"
    assert "RESERVED_TAG_A" in running(deployed, LEAF) and "RESERVED_TAG_B" not in running(deployed, LEAF)


def test_rollback_to_a_device_backup(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """The backup taken before a change is the way back, secrets resolved again from placeholders."""
    before = running(deployed, LEAF)
    time.sleep(1)
    reserve(repo, LEAF, "RESERVED_RESTORE")
    changed = cli("deploy", *FAST, "--devices", LEAF, "--format", "json")
    assert changed.code == 0
    backup = changed.json()["devices"][LEAF]["backup"]
    stamp = backup.rsplit("/", 1)[1].removesuffix(".cfg")
    restored = cli("rollback", "--to-backup", f"{LEAF}@{stamp}", *FAST, "--format", "json")
    assert restored.code == 0, restored.err
    assert restored.json()["changed"] == [LEAF]
    assert normalise_running(running(deployed, LEAF)) == normalise_running(before)


def test_a_backup_secret_neither_the_device_nor_the_store_holds_is_named(full_deploy: Ran, cli: Fabricops) -> None:
    """The factory-default backup holds a password hash fabricops never knew, and the device no
    longer has: the line is named (masked), nothing is applied."""
    # The backup the deploy from factory default took, not the oldest listed: other tests on
    # this worker may have deployed spine02 before it.
    backup = full_deploy.json()["devices"]["spine02"]["backup"]
    stamp = backup.rsplit("/", 1)[1].removesuffix(".cfg")
    assert stamp in {b["stamp"] for b in cli("backups", "list", "spine02", "--format", "json").json()}
    result = cli("rollback", "--to-backup", f"spine02@{stamp}", *FAST)
    assert result.code == 1
    assert "1 secret(s) cannot be restored" in result.err
    assert "username admin privilege 15 role network-admin secret sha512 <masked:" in result.err


def test_one_deploy_at_a_time(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """A live lock is refused with its holder; a dead one is reported stale; only 'lock break' removes it."""
    holder = {"owner": "alice", "host": socket.gethostname(), "pid": os.getpid(), "started": time.time() - 90}
    gitstate.write_files(repo, {LOCK_FILE: json.dumps(holder).encode()}, "alice deploys")
    held = cli("deploy", *FAST)
    assert held.code == 1 and "fleet lock held: alice@" in held.err
    assert re.search(r"pid \d+ \(deploy\) since \S+, 1m3\ds ago", held.err), held.err
    assert "held: alice@" in cli("lock", "status").out

    holder["pid"] = _dead_pid()
    gitstate.write_files(repo, {LOCK_FILE: json.dumps(holder).encode()}, "alice's deploy died")
    stale = cli("rollback", "--to", "HEAD", *FAST)
    assert stale.code == 1 and "fleet lock stale (its process is gone)" in stale.err
    assert "'fabricops lock break'" in stale.err
    assert gitstate.read_file(repo, LOCK_FILE) is not None, "a stale lock is never broken silently"

    broken = cli("lock", "break")
    assert broken.code == 0 and broken.out.startswith("broke the fleet lock of alice@")
    taken = cli("deploy", *FAST, "--devices", LEAF)
    assert taken.code == 0, taken.err
    assert gitstate.read_file(repo, LOCK_FILE) is None, "released after the deploy"


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.parametrize("args", [("--to", "deploy/x", "--to-backup", "a@b"), ()])
def test_rollback_needs_exactly_one_target(args: tuple[str, ...], cli: Fabricops) -> None:
    assert cli("rollback", *args).code == 2


def test_plan_compares_by_meaning_a_reorder_is_no_change(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """NTP servers re-entered in another order: by meaning it is no change, so no session is even loaded."""
    servers = [line for line in running(deployed, LEAF).splitlines() if line.startswith("ntp server")]
    assert len(servers) == 2
    deployed.tamper(LEAF, [f"no {servers[0]}", servers[0]])
    try:
        plan = cli("plan", "--lab", "--devices", LEAF, "--format", "json")
        assert plan.code == 0, plan.out
        device = plan.json()["devices"][LEAF]
        assert device["status"] == "unchanged" and not device["diff"], "judged by meaning, no session diff"
        deploy = cli("deploy", *FAST, "--devices", LEAF, "--format", "json")
        assert deploy.code == 0 and deploy.json()["changed"] == [], "nothing to deploy"
    finally:
        deployed.tamper(LEAF, [f"no {servers[1]}", servers[1]])
    assert [line for line in running(deployed, LEAF).splitlines() if line.startswith("ntp server")] == servers
