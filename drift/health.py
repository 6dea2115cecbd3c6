"""Fabric health: interface counters through NAPALM, against the monitoring thresholds.

What is read, per device, in one Nornir task over the NAPALM connection:

* ``get_facts`` (uptime: the window the counters were counted over);
* ``get_interfaces_counters`` (rx/tx errors, the NAPALM view);
* the driver's ``cli([...], encoding="json")`` for what NAPALM has no getter for:
  ``show interfaces counters errors`` (FCS/CRC and symbol errors), ``show priority-flow-control
  counters`` (PFC pause frames), ``show qos interfaces ecn counters queue`` (ECN-marked
  packets per queue, ``-`` where ECN is off: the shapes ANTA's counter tests read),
  ``show interfaces`` (``interfaceCounters.linkStatusChanges``: flaps) and ``show interfaces transceiver``
  (optic temperature; a device that does not answer it gives "not available", not an error).

Rates. The thresholds are per minute (PFC, ECN) and per hour (flaps), and one read gives
counters since the last clear or boot. The rate is the count divided by the uptime, but never
by less than one window: a switch up for ten seconds with 5 000 pause frames is reported as
5 000 per minute, not 30 000 (no extrapolation beyond what was observed).

Thresholds: ``generated/monitoring/expected-counters.yaml`` (or any ``generated/monitoring/*``
YAML with a ``thresholds`` mapping) at the ref, else :data:`DEFAULT_THRESHOLDS`, which are the
example intent's values (``intent/fabric.yaml`` ``thresholds``); health reads ``generated/``
only, never the intent.

Examples:
    >>> rate(5000, uptime_s=10, window_s=60)
    5000.0
    >>> rate(120, uptime_s=7200, window_s=3600)
    60.0
    >>> flaps(1), flaps(5)
    (0, 2)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.errors import FabricopsError
from core.fleet import LabTarget, open_fleet
from core.generated import Snapshot, open_snapshot
from drift.audit import latest_deploy_tag

if TYPE_CHECKING:
    from nornir.core.task import Result, Task

__all__ = [
    "DEFAULT_THRESHOLDS",
    "Finding",
    "HealthReport",
    "flaps",
    "load_thresholds",
    "rate",
    "run_health",
]

#: name -> (value, unit). The example intent's ``thresholds``, used when generated/ has none.
DEFAULT_THRESHOLDS: dict[str, float] = {
    "pfc_pause_frames_per_min": 1000,
    "ecn_marks_per_min": 10000,
    "crc_errors": 0,
    "symbol_errors": 0,
    "flaps_per_hour": 3,
    "optic_temperature_c": 70,
}
MONITORING_FILES = ("monitoring/expected-counters.yaml", "monitoring/thresholds.yaml")
COMMANDS = (
    "show interfaces counters errors",
    "show priority-flow-control counters",
    "show qos interfaces ecn counters queue",
    "show interfaces",
)
TRANSCEIVER = "show interfaces transceiver"


@dataclass(frozen=True)
class Finding:
    """One counter over its threshold."""

    device: str
    interface: str
    metric: str
    value: float
    threshold: float

    def __str__(self) -> str:
        return f"{self.device} {self.interface}: {self.metric} {self.value:g} > {self.threshold:g}"


@dataclass(frozen=True)
class HealthReport:
    """The health of the devices read: findings, unreachable devices, what could not be read."""

    ref: str
    thresholds: dict[str, float]
    thresholds_from: str
    devices: tuple[str, ...]
    findings: tuple[Finding, ...]
    unreachable: tuple[str, ...]
    errors: dict[str, str]
    not_available: dict[str, tuple[str, ...]]


def rate(count: float, *, uptime_s: float, window_s: float) -> float:
    """``count`` per window, over the uptime but never over less than one window."""
    return float(count) * window_s / max(uptime_s, window_s)


def flaps(link_status_changes: int) -> int:
    """Down-and-up cycles from EOS's ``linkStatusChanges`` (the first change is the link coming up)."""
    return max(0, link_status_changes - 1) // 2


def load_thresholds(snapshot: Snapshot) -> tuple[dict[str, float], str]:
    """Thresholds from generated/monitoring/ at the snapshot, else the defaults; and where from."""
    candidates = [p for p in MONITORING_FILES if snapshot.exists(p)]
    candidates += [p for p in snapshot.list("monitoring/") if p.endswith((".yaml", ".yml")) and p not in candidates]
    for path in candidates:
        data = snapshot.read_yaml(path)
        if not isinstance(data, dict):
            continue
        table = data.get("thresholds", data)
        if isinstance(table, dict) and any(k in DEFAULT_THRESHOLDS for k in table):
            merged = dict(DEFAULT_THRESHOLDS)
            merged.update({k: float(v) for k, v in table.items() if k in DEFAULT_THRESHOLDS})
            return merged, f"generated/{path}"
    return dict(DEFAULT_THRESHOLDS), "defaults (docs/drift.md)"


def _read(task: Task) -> Result:
    """One device's counters through its NAPALM connection."""
    from napalm.base.exceptions import CommandErrorException
    from nornir.core.task import Result
    from nornir_napalm.plugins.connections import CONNECTION_NAME

    if task.host.data.get("unreachable"):
        raise FabricopsError(str(task.host.data["unreachable"]))
    device = task.host.get_connection(CONNECTION_NAME, task.nornir.config)
    data: dict[str, Any] = {
        "facts": device.get_facts(),
        "counters": device.get_interfaces_counters(),
        "cli": device.cli(list(COMMANDS), encoding="json"),
    }
    try:
        data["transceiver"] = device.cli([TRANSCEIVER], encoding="json")[TRANSCEIVER]
    except CommandErrorException:
        data["transceiver"] = None
    return Result(host=task.host, result=data)


def evaluate(device: str, data: dict[str, Any], limits: dict[str, float]) -> tuple[list[Finding], list[str]]:
    """Findings for one device's counters, and the metrics it could not give."""
    uptime = float(data["facts"].get("uptime") or 0.0)
    cli = data["cli"]
    found: list[Finding] = []

    def check(interface: str, metric: str, value: float) -> None:
        if value > limits[metric]:
            found.append(Finding(device, interface, metric, round(value, 1), limits[metric]))

    errors = cli["show interfaces counters errors"].get("interfaceErrorCounters", {})
    for name, c in sorted(errors.items()):
        check(name, "crc_errors", float(c.get("fcsErrors", 0)))
        check(name, "symbol_errors", float(c.get("symbolErrors", 0)))
    pfc = cli["show priority-flow-control counters"].get("interfaceCounters", {})
    for name, c in sorted(pfc.items()):
        frames = c.get("rxFrames", 0) + c.get("txFrames", 0)
        check(name, "pfc_pause_frames_per_min", rate(frames, uptime_s=uptime, window_s=60))
    ecn = cli["show qos interfaces ecn counters queue"].get("intfQueueCounters", {})
    for name, c in sorted(ecn.items()):
        marked = sum(v for v in c.get("queueCounters", {}).values() if isinstance(v, int))
        check(name, "ecn_marks_per_min", rate(marked, uptime_s=uptime, window_s=60))
    for name, c in sorted(cli["show interfaces"].get("interfaces", {}).items()):
        changes = c.get("interfaceCounters", {}).get("linkStatusChanges")
        if changes is not None:
            check(name, "flaps_per_hour", rate(flaps(int(changes)), uptime_s=uptime, window_s=3600))
    missing: list[str] = []
    transceiver = data.get("transceiver")
    if transceiver is None:
        missing.append("optic_temperature_c")
    else:
        for name, c in sorted(transceiver.get("interfaces", {}).items()):
            if isinstance(c, dict) and c.get("temperature") is not None:
                check(name, "optic_temperature_c", float(c["temperature"]))
    return found, missing


def run_health(
    root: Path,
    *,
    ref: str | None = None,
    devices: Sequence[str] = (),
    lab: bool = False,
    workers: int = 20,
    progress: Callable[[int], Callable[[str], None]] | None = None,
) -> HealthReport:
    """Read and evaluate the counters of the fleet (or ``devices``)."""
    tag = latest_deploy_tag(root)
    chosen = ref or (tag.name if tag else "HEAD")
    snapshot = open_snapshot(root, chosen)
    limits, source = load_thresholds(snapshot)
    nornir = open_fleet(snapshot, lab=LabTarget.load(root) if lab else None, devices=devices, workers=workers)
    names = sorted(nornir.inventory.hosts)
    tick = progress(len(names)) if progress is not None else (lambda _name: None)

    def read(task: Task) -> Result:
        try:
            return _read(task)
        finally:
            tick(task.host.name)

    result = nornir.run(task=read, on_failed=True)
    # a dropped connection must not hide the counters read
    with contextlib.suppress(Exception):
        nornir.close_connections(on_failed=True)
    findings: list[Finding] = []
    unreachable: list[str] = []
    errors: dict[str, str] = {}
    missing: dict[str, tuple[str, ...]] = {}
    for name in names:
        multi = result[name]
        if multi.failed:
            exc = next((r.exception for r in multi if r.exception is not None), None)
            unreachable.append(name)
            errors[name] = " ".join(str(exc).split())[:300] if exc else "failed"
            continue
        found, lacks = evaluate(name, multi[0].result, limits)
        findings += found
        if lacks:
            missing[name] = tuple(lacks)
    return HealthReport(chosen, limits, source, tuple(names), tuple(findings), tuple(unreachable), errors, missing)


def render_health_text(report: HealthReport) -> str:
    """One line per finding, then a summary."""
    out = [f"health against {report.ref}: thresholds from {report.thresholds_from}"]
    out += [str(f) for f in report.findings]
    out += [f"{name}: unreachable ({report.errors.get(name, '')})" for name in report.unreachable]
    lacking = sorted({m for ms in report.not_available.values() for m in ms})
    if lacking:
        out.append(f"not available on {len(report.not_available)} device(s): {', '.join(lacking)}")
    bad = len({f.device for f in report.findings})
    healthy = len(report.devices) - bad - len(report.unreachable)
    down = len(report.unreachable)
    out.append(f"{len(report.devices)} devices: {healthy} healthy, {bad} over a threshold, {down} unreachable")
    return "\n".join(out) + "\n"


def render_health_json(report: HealthReport) -> dict[str, Any]:
    """The report as JSON."""
    data = asdict(report)
    data["healthy"] = sorted(set(report.devices) - {f.device for f in report.findings} - set(report.unreachable))
    data["exit_code"] = 1 if report.unreachable else 3 if report.findings else 0
    return data
