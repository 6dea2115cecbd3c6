"""The deploy and rollback report as text: each device's outcome, adding up to the summary line."""

from __future__ import annotations

import re
from collections import Counter

from deploy.configs import DiffSummary
from deploy.device import Status
from deploy.report import OUTCOMES, DeviceReport, Report


def _report(kind: str) -> Report:
    report = Report(kind, "7b8f1fd62887" + "0" * 28, waves=[["leaf-a"], ["leaf-b", "leaf-c"], ["spine1"]])
    report.devices = {
        "leaf-a": DeviceReport("leaf-a", Status.CHANGED, 1, summary=DiffSummary(1, 0, ("interface Ethernet30",))),
        "leaf-b": DeviceReport("leaf-b", Status.ROLLED_BACK, 2, "post-checks failed", problems=["Ethernet49 is down"]),
        "leaf-c": DeviceReport("leaf-c", Status.UNCHANGED, 2),
        "spine1": DeviceReport("spine1", Status.NOT_TOUCHED, 3),
        "mgmt1": DeviceReport("mgmt1", Status.UNREACHABLE, detail="connection refused"),
        **{f"sync{i}": DeviceReport(f"sync{i}", Status.UNCHANGED) for i in range(3)},
    }
    return report


def test_each_device_line_names_its_outcome_and_the_lines_add_up_to_the_summary() -> None:
    for kind in ("deploy", "rollback"):
        text = _report(kind).text()
        lines = text.splitlines()
        assert "  leaf-a                 changed                  +1 -0 (1 sections: interface Ethernet30)" in lines
        assert any(line.startswith("  leaf-b                 reverted (rolled-back)   ") for line in lines)
        assert "  leaf-c                 untouched (unchanged)" in lines
        assert "  spine1                 untouched (not-touched)" in lines
        assert any(line.startswith("  mgmt1                  failed (unreachable)  ") for line in lines)
        seen = Counter(m.group(1) for line in lines if (m := re.match(r"  \S+ +(\w+)", line)))
        in_sync = re.search(r"^untouched, in sync: (\d+) device\(s\)$", text, re.M)
        assert in_sync, text
        seen["untouched"] += int(in_sync.group(1))
        assert lines[-1] == f"{kind}: " + ", ".join(f"{seen[name]} {name}" for name in OUTCOMES)
        assert lines[-1] == f"{kind}: 1 changed, 1 reverted, 1 failed, 5 untouched"


def test_a_plan_names_statuses_only() -> None:
    """Nothing was done in a plan: its lines say what would happen, not an outcome."""
    report = _report("plan")
    report.devices["leaf-a"].status = Status.PENDING
    text = report.text()
    assert "  leaf-a                 pending " in text and "untouched" not in text
    assert "\nin sync: 3 device(s)\n" in text
