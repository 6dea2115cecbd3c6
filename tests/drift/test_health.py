"""``fabricops health`` on the lab: counters raised on one device, read back through NAPALM."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import yaml

from core import gitstate
from core.deployed import DeviceRecord, record_files
from core.generated import open_snapshot
from drift.health import DEFAULT_THRESHOLDS, load_thresholds, run_health
from tests.conftest import SessionLab, git
from tests.drift.conftest import DEPLOY_TAG
from tests.drift.test_drift_lab import fabricops

if TYPE_CHECKING:
    from lab import Lab

Fleet = tuple[Path, "Lab"]


def test_counters_over_their_thresholds_are_reported_and_exit_3(
    fleet: Fleet, restore: Callable[[str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    """Each kind of counter over its threshold is one finding; a counter under it is none."""
    root, lab = fleet
    restore("rack10-leaf-a")
    device = lab.device("rack10-leaf-a")
    device.add_counters("Ethernet1/1", fcsErrors=3, pfcRx=5000, ecnMarked=50000)
    device.add_counters("Ethernet1/3", symbolErrors=7)
    device.add_counters("Ethernet1/5", pfcRx=10, ecnMarked=10)  # well under the per-minute thresholds
    for _ in range(4):
        lab.fault("rack10-leaf-a", "flap", port="Ethernet1/7")
    code, out, err = fabricops(
        capsys, "health", "--root", str(root), "--lab", "--devices", "rack10-leaf-a,spine01", "--format", "json"
    )
    assert code == 3, err
    report = json.loads(out)
    found = {(f["interface"], f["metric"]) for f in report["findings"]}
    assert found == {
        ("Ethernet1/1", "crc_errors"),
        ("Ethernet1/1", "pfc_pause_frames_per_min"),
        ("Ethernet1/1", "ecn_marks_per_min"),
        ("Ethernet1/3", "symbol_errors"),
        ("Ethernet1/7", "flaps_per_hour"),
    }
    assert {f["device"] for f in report["findings"]} == {"rack10-leaf-a"}
    assert report["healthy"] == ["spine01"]
    assert report["thresholds_from"] == "generated/monitoring/expected-counters.yaml"


def test_a_hot_optic_is_a_finding(
    fleet: Fleet, restore: Callable[[str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    """Optic temperature comes from the DOM readings of the optics in cabled ports."""
    root, lab = fleet
    restore("rack09-leaf-a")
    lab.device("rack09-leaf-a").add_counters("Ethernet25/1", opticTemperature=45)  # 35 + 45 = 80 C
    code, out, err = fabricops(
        capsys, "health", "--root", str(root), "--lab", "--devices", "rack09-leaf-a", "--format", "json"
    )
    assert code == 3, err
    found = {(f["interface"], f["metric"]) for f in json.loads(out)["findings"]}
    assert found == {("Ethernet25/1", "optic_temperature_c")}


def test_a_port_expected_up_that_is_down_is_a_finding(
    fleet: Fleet, restore: Callable[[str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    root, lab = fleet
    restore("rack11-leaf-b")
    lab.fault("rack11-leaf-b", "link-down", port="Ethernet25/1")
    code, out, _ = fabricops(capsys, "health", "--root", str(root), "--lab", "--devices", "rack11-leaf-b")
    assert code == 3
    assert "rack11-leaf-b Ethernet25/1: down, expected up" in out


def test_a_clean_fabric_is_healthy(fleet: Fleet, capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = fleet
    code, out, _ = fabricops(capsys, "health", "--root", str(root), "--lab", "--devices", "spine01,rack11-leaf-a")
    assert code == 0, out
    assert "2 devices: 2 healthy, 0 over a threshold, 0 unreachable" in out


def test_an_unreachable_device_is_an_error(fleet: Fleet, restore: Callable[[str], None]) -> None:
    root, lab = fleet
    restore("spine04")
    lab.set_unreachable("spine04")
    report = run_health(root, lab=True, devices=["spine04", "spine01"])
    assert report.unreachable == ("spine04",) and report.findings == ()


def test_each_device_is_judged_by_the_commit_it_runs(
    gitops_repo: Path, session_lab: SessionLab, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --ref, a device deployed alone later (``deploy --devices``: no fleet tag) is judged by
    its own commit, one deployed earlier by its older commit; no record, or a commit not in this
    clone, falls back to the newest fleet version and says so. --ref judges all by that ref."""
    root = gitops_repo
    lab = session_lab.synced(root)
    first = git(root, "rev-parse", "HEAD").strip()
    git(root, "tag", "-a", DEPLOY_TAG, "-m", "deploy of the example cluster")
    path = root / "generated" / "monitoring" / "expected-counters.yaml"
    counters = yaml.safe_load(path.read_text())
    for leaf in ("rack11-leaf-a", "rack11-leaf-b"):
        counters[leaf]["ports"]["Ethernet25/1"]["expect"] = {"oper_status": "DOWN", "shutdown": "MAINTENANCE_optic"}
    path.write_text(yaml.safe_dump(counters, sort_keys=False))
    git(root, "commit", "-qam", "rack11 uplinks Ethernet25/1 shut for an optic swap")
    second = git(root, "rev-parse", "HEAD").strip()
    records = {
        "rack11-leaf-a": DeviceRecord("rack11-leaf-a", second, run="deploy 20260102T000000Z"),
        "rack11-leaf-b": DeviceRecord("rack11-leaf-b", first, run="deploy 20260101T000000Z"),
        "rack10-leaf-a": DeviceRecord("rack10-leaf-a", "ab" * 20, run="deploy 20260103T000000Z"),
    }
    gitstate.write_files(root, record_files(records), "state of record")
    try:
        for leaf in ("rack11-leaf-a", "rack11-leaf-b"):
            lab.fault(leaf, "link-down", port="Ethernet25/1")
        devices = "rack11-leaf-a,rack11-leaf-b,rack10-leaf-a,rack09-leaf-a"
        code, out, err = fabricops(capsys, "health", "--root", str(root), "--lab", "--devices", devices)
        assert code == 3, err
        assert out.splitlines()[:2] == [
            f"health against state of record (2 commits: {', '.join(sorted([DEPLOY_TAG, second[:12]]))}); "
            f"{DEPLOY_TAG} for 2 other device(s): "
            "thresholds from generated/monitoring/expected-counters.yaml",
            f"rack10-leaf-a: its state of record names commit {'ab' * 6}, not in this clone (git fetch): "
            f"judged against {DEPLOY_TAG}",
        ]
        assert "rack11-leaf-b Ethernet25/1: down, expected up" in out.splitlines()
        assert "rack11-leaf-a Ethernet25/1: down, shut on purpose: MAINTENANCE_optic" in out.splitlines()
        assert "4 devices: 3 healthy, 1 over a threshold, 0 unreachable; 1 port(s) shut on purpose" in out
        pinned = run_health(root, ref="HEAD", lab=True, devices=["rack11-leaf-a", "rack11-leaf-b"])
        assert (pinned.ref, pinned.findings, pinned.notes) == ("HEAD", (), {})
        assert [str(p) for p in pinned.shut] == [
            "rack11-leaf-a Ethernet25/1: down, shut on purpose: MAINTENANCE_optic",
            "rack11-leaf-b Ethernet25/1: down, shut on purpose: MAINTENANCE_optic",
        ]
    finally:
        session_lab.synced(root)


def test_a_device_deployed_alone_since_the_fleet_version_is_read(
    gitops_repo: Path, session_lab: SessionLab, capsys: pytest.CaptureFixture[str]
) -> None:
    """A switch the newest fleet version lacks, deployed alone since (``deploy --devices``: a state
    of record, no fleet tag), is part of the fleet health reads, judged by its own commit; one whose
    recorded commit is not in this clone is named, not read."""
    root = gitops_repo
    lab = session_lab.synced(root)
    hosts = root / "generated" / "inventory" / "hosts.yaml"
    full = hosts.read_text()
    without = {name: entry for name, entry in yaml.safe_load(full).items() if name != "rack11-leaf-b"}
    hosts.write_text(yaml.safe_dump(without, sort_keys=False))
    git(root, "commit", "-qam", "rack11-leaf-b not racked yet")
    git(root, "tag", "-a", DEPLOY_TAG, "-m", "deploy of the example cluster without rack11-leaf-b")
    hosts.write_text(full)
    git(root, "commit", "-qam", "rack11-leaf-b racked")
    racked = git(root, "rev-parse", "HEAD").strip()
    records = {
        "rack11-leaf-b": DeviceRecord("rack11-leaf-b", racked, run="deploy 20260102T000000Z"),
        "rack12-leaf-z": DeviceRecord("rack12-leaf-z", "cd" * 20, run="deploy 20260103T000000Z"),
    }
    gitstate.write_files(root, record_files(records), "state of record")
    try:
        lab.fault("rack11-leaf-b", "link-down", port="Ethernet25/1")
        code, out, err = fabricops(capsys, "health", "--root", str(root), "--lab", "--format", "json")
        assert code == 3, err
        report = json.loads(out)
        assert "rack11-leaf-b" in report["devices"] and len(report["devices"]) == len(yaml.safe_load(full))
        down = {(f["device"], f["interface"]) for f in report["findings"]}
        assert down == {("rack11-leaf-b", "Ethernet25/1"), ("spine01", "Ethernet22/1")}  # the link's two ends
        assert report["notes"] == {
            "rack12-leaf-z": f"its state of record names commit {'cd' * 6}, not in this clone (git fetch): not read"
        }
        assert report["ref"] == f"state of record (1 commit: {racked[:12]}); {DEPLOY_TAG} for 54 other device(s)"
    finally:
        session_lab.synced(root)


def test_thresholds_come_from_generated_monitoring_when_present(tmp_path: Path) -> None:
    """Health reads generated/, never the intent: per-port limits there, the defaults elsewhere."""
    monitoring = tmp_path / "generated" / "monitoring"
    monitoring.mkdir(parents=True)
    (monitoring / "expected-counters.yaml").write_text(
        "leaf1:\n  ports:\n    Ethernet1:\n      expect:\n        oper_status: UP\n"
        "        in_crc_errors_max: 5\n        pfc_pause_frames_per_min_max: 50\n"
    )
    limits = load_thresholds(open_snapshot(tmp_path))
    assert limits.source == "generated/monitoring/expected-counters.yaml"
    assert limits.limit("leaf1", "Ethernet1", "pfc_pause_frames_per_min") == 50
    assert limits.limit("leaf1", "Ethernet1", "crc_errors") == 5
    assert limits.limit("leaf1", "Ethernet2", "crc_errors") == DEFAULT_THRESHOLDS["crc_errors"]
    assert limits.limit("leaf1", "Ethernet1", "flaps_per_hour") == DEFAULT_THRESHOLDS["flaps_per_hour"]
    assert limits.expect_up == {"leaf1": frozenset({"Ethernet1"})}
    (monitoring / "expected-counters.yaml").unlink()
    assert load_thresholds(open_snapshot(tmp_path)).ports == {}


def test_a_port_shut_on_purpose_is_expected_down_and_up_is_a_finding(tmp_path: Path) -> None:
    """``expect: {oper_status: DOWN, shutdown: REASON}`` (ports.yaml, a decommissioned server):
    down is reported with its reason, never as a failure; up is a finding."""
    from drift.health import HealthReport, evaluate, render_health_text, shut_on_purpose

    monitoring = tmp_path / "generated" / "monitoring"
    monitoring.mkdir(parents=True)
    (monitoring / "expected-counters.yaml").write_text(
        "leaf1:\n  ports:\n    Ethernet5:\n      expect:\n        oper_status: DOWN\n"
        "        shutdown: DECOMMISSIONED_rack03-gpu005_enp65s0f0\n"
    )
    limits = load_thresholds(open_snapshot(tmp_path))

    def read(state: str) -> dict[str, object]:
        interfaces = {"Ethernet5": {"lineProtocolStatus": state}}
        return {"facts": {"uptime": 60}, "cli": {"show interfaces": {"interfaces": interfaces}}}

    assert evaluate("leaf1", read("down"), limits)[0] == []
    shut = shut_on_purpose("leaf1", read("down"), limits)
    report = HealthReport("HEAD", {}, "", ("leaf1",), (), (), {}, {}, tuple(shut))
    assert render_health_text(report).splitlines()[1:] == [
        "leaf1 Ethernet5: down, shut on purpose: DECOMMISSIONED_rack03-gpu005_enp65s0f0",
        "1 devices: 1 healthy, 0 over a threshold, 0 unreachable; 1 port(s) shut on purpose",
    ]
    (found,), _ = evaluate("leaf1", read("up"), limits)
    assert str(found) == "leaf1 Ethernet5: up, expected down (shut on purpose)"
    assert shut_on_purpose("leaf1", read("up"), limits) == []
