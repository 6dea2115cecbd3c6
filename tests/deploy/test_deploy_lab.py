"""Deploy, plan, rollback and backups end to end: the real CLI, Nornir and the stock NAPALM driver
against the emulated example fabric on loopback. Faults are injected through the lab's own API.

Every test shares the session lab: most start from it running HEAD (``deployed``) and change a
device or two; the deploy of all 53 switches from factory default (``full_deploy``) and the
wait for a real commit timer are in the e2e tier.
"""

from __future__ import annotations

import json
import os
import re
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from core import gitstate
from core.secrets import lab_secret
from deploy import fingerprint
from lab import Lab
from tests.conftest import git
from tests.deploy.conftest import FAST, Fabricops, Ran, commit_change

LEAF = "rack03-leaf-a"
SHUT_PORT = "interface Ethernet20/1\n   shutdown\n"


def reserve(repo: Path, device: str, label: str) -> str:
    """A one-line change: a description on an unused, shut port of ``device``; the new sha."""
    return commit_change(
        repo, device, SHUT_PORT, f"interface Ethernet20/1\n   description {label}\n   shutdown\n", f"{device}: {label}"
    )


def running(lab: Lab, device: str) -> str:
    return lab.device(device).running_config()


def statuses(result: Ran) -> dict[str, str]:
    return {name: d["status"] for name, d in result.json()["devices"].items()}


@pytest.mark.e2e
def test_full_deploy_from_factory_default_then_plan_is_clean(
    full_deploy: Ran, repo: Path, lab: Lab, cli: Fabricops
) -> None:
    """All 53 switches change, in waves that keep redundancy; afterwards nothing is pending."""
    report = full_deploy.json()
    assert len(report["changed"]) == 53 and not report["failed"]
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


@pytest.mark.e2e
def test_deploy_tags_the_commit_and_records_it_on_the_state_branch(full_deploy: Ran, repo: Path) -> None:
    """The tag points at the deployed commit; the record sits on fabricops-state, main untouched."""
    report = full_deploy.json()
    tag = report["tag"]
    assert tag.startswith("deploy/") and tag.endswith("Z")
    assert git(repo, "rev-parse", f"{tag}^{{commit}}").strip() == report["ref"]
    assert git(repo, "cat-file", "-t", tag).strip() == "tag", "an annotated tag"
    record = json.loads(gitstate.read_file(repo, report["record"]) or b"{}")
    assert record["ref"] == report["ref"] and len(record["devices"]) == 53
    assert record["devices"]["spine01"]["added"] > 0 and record["devices"]["spine01"]["sections"]
    assert git(repo, "status", "--porcelain", "--untracked-files=no").strip() == ""
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert "backups/" not in git(repo, "ls-files")


@pytest.mark.e2e
def test_backups_hold_no_secret_and_list_show_read_them_back(full_deploy: Ran, repo: Path, cli: Fabricops) -> None:
    """Factory-default backups: the unknown password hash is redacted, never stored."""
    listing = cli("backups", "list", "spine01", "--format", "json")
    assert listing.code == 0
    stamps = [row["stamp"] for row in listing.json()]
    assert stamps and all(row["device"] == "spine01" for row in listing.json())
    shown = cli("backups", "show", "spine01", "--at", stamps[0][:8])
    assert shown.code == 0 and "hostname spine01" in shown.out
    assert "$6$" not in shown.out and "<redacted:" in shown.out
    assert cli("backups", "show", "spine01", "--at", "1999-01-01").code == 1


def test_one_device_change_deploys_only_that_device(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    sha = reserve(repo, LEAF, "RESERVED_ONE")
    plan = cli("plan", "--lab", "--format", "json")
    assert plan.code == 3
    assert [n for n, s in statuses(plan).items() if s == "pending"] == [LEAF]
    assert plan.json()["ref"] == sha
    stored = json.loads((repo / "plan.json").read_text())
    assert stored["ref"] == sha and stored["devices"][LEAF]["fingerprint"] == fingerprint(running(deployed, LEAF))
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


def test_unreachable_device_is_skipped_and_the_rest_go_on(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    reserve(repo, LEAF, "RESERVED_UNREACH")
    reserve(repo, "rack05-leaf-b", "RESERVED_UNREACH")
    deployed.set_unreachable(LEAF)
    result = cli("deploy", *FAST, "--devices", f"{LEAF},rack05-leaf-b", "--format", "json")
    assert result.code == 4, "some changed, some not"
    assert statuses(result)[LEAF] == "unreachable"
    assert result.json()["changed"] == ["rack05-leaf-b"]
    assert "unreachable" in result.json()["devices"][LEAF]["detail"]
    deployed.set_unreachable(LEAF, False)
    assert "RESERVED_UNREACH" not in running(deployed, LEAF)


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


@pytest.mark.e2e
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
    assert fingerprint(running(deployed, LEAF)) == fingerprint(before)
    assert "RESERVED_DROP" not in deployed.device(LEAF).startup_config()


def test_failed_post_check_rolls_back_and_halts_later_waves(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """An uplink down after the commit: the change is aborted; the second wave never starts."""
    reserve(repo, LEAF, "RESERVED_POST")
    reserve(repo, "rack03-leaf-b", "RESERVED_POST")
    before = running(deployed, LEAF)
    deployed.fault(LEAF, "link-down", port="Ethernet25/1")
    result = cli("deploy", *FAST, "--devices", f"{LEAF},rack03-leaf-b", "--format", "json")
    assert result.code == 1
    report = result.json()
    assert report["waves"] == [[LEAF], ["rack03-leaf-b"]], "the pair is split; rack03-leaf-a sorts first"
    assert statuses(result) == {LEAF: "rolled-back", "rack03-leaf-b": "not-touched"}
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
    first = cli("deploy", *FAST, "--devices", LEAF, "--format", "json")
    assert first.code == 0
    tag_a = first.json()["tag"]
    assert git(repo, "rev-parse", f"{tag_a}^{{commit}}").strip() == git(repo, "rev-parse", "HEAD").strip()
    commit_change(repo, LEAF, "RESERVED_TAG_A", "RESERVED_TAG_B", "a second change")
    assert cli("deploy", *FAST, "--devices", LEAF).code == 0
    assert "RESERVED_TAG_B" in running(deployed, LEAF)

    devices = f"{LEAF},rack03-leaf-b"
    dry = cli("rollback", "--to", tag_a, *FAST, "--devices", devices, "--dry-run", "--format", "json")
    assert dry.code == 0 and statuses(dry) == {LEAF: "pending", "rack03-leaf-b": "unchanged"}
    assert "RESERVED_TAG_B" in running(deployed, LEAF), "a dry run changes nothing"
    back = cli("rollback", "--to", tag_a, *FAST, "--devices", devices, "--format", "json")
    assert back.code == 0, back.err
    assert back.json()["changed"] == [LEAF] and back.json()["kind"] == "rollback"
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
    assert fingerprint(running(deployed, LEAF)) == fingerprint(before)


@pytest.mark.e2e
def test_backup_with_a_redacted_secret_is_not_restored(full_deploy: Ran, cli: Fabricops) -> None:
    """The factory-default backup holds a password hash fabricops never knew."""
    oldest = cli("backups", "list", "spine02", "--format", "json").json()[0]
    result = cli("rollback", "--to-backup", f"spine02@{oldest['stamp']}", *FAST)
    assert result.code == 1
    assert "redacted" in result.err


def test_one_deploy_at_a_time(deployed: Lab, repo: Path, cli: Fabricops) -> None:
    """A live lock is refused with its owner; a dead one is reported stale; --break-lock takes it."""
    lock = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    lock = (lock if lock.is_absolute() else repo / lock) / "fabricops-deploy.lock"
    holder = {"owner": "alice", "host": socket.gethostname(), "pid": os.getpid(), "started": time.time() - 90}
    lock.write_text(json.dumps(holder))
    held = cli("deploy", *FAST)
    assert held.code == 1 and "deploy lock held: alice@" in held.err
    assert re.search(r"pid \d+ \(deploy\) since \S+, 1m3\ds ago", held.err), held.err

    holder["pid"] = _dead_pid()
    lock.write_text(json.dumps(holder))
    stale = cli("deploy", *FAST)
    assert stale.code == 1 and "stale" in stale.err and "--break-lock" in stale.err
    assert lock.exists(), "a stale lock is never broken silently"

    taken = cli("deploy", *FAST, "--break-lock", "--devices", LEAF)
    assert taken.code == 0, taken.err
    assert not lock.exists(), "released after the deploy"


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


@pytest.mark.parametrize("args", [("--to", "deploy/x", "--to-backup", "a@b"), ()])
def test_rollback_needs_exactly_one_target(args: tuple[str, ...], cli: Fabricops) -> None:
    assert cli("rollback", *args).code == 2
