"""``fabricops health`` on the lab: counters raised on one device, read back through NAPALM."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from core.generated import open_snapshot
from drift.health import DEFAULT_THRESHOLDS, load_thresholds, run_health
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
