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

Thresholds come from ``generated/``, never the intent: ``monitoring/expected-counters.yaml``
(written by the compiler from ``intent/fabric.yaml`` ``thresholds``) gives, per device and
port, ``expect: {oper_status: UP, in_crc_errors_max: 0, pfc_pause_frames_per_min_max: 1000,
ecn_marks_per_min_max: 10000}``; a metric it does not give for a port, or every metric when
the file is absent, falls back to :data:`DEFAULT_THRESHOLDS` (the example intent's values).
A port whose ``oper_status`` is expected ``UP`` and is down is a finding too. A port shut on
purpose (``expect: {oper_status: DOWN, shutdown: REASON}``: ``ports.yaml`` ``shutdown``, a
decommissioned server's port) is expected down: reported as "shut on purpose: REASON", never as
a failure; up, it is a finding.

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
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from core.deployed import read_records
from core.errors import FabricopsError
from core.fleet import LabTarget, open_fleet
from core.generated import Snapshot, open_repo, open_snapshot, resolve_commit, version_tags
from drift.audit import latest_deploy_tag

if TYPE_CHECKING:
    from nornir.core.task import Result, Task

__all__ = [
    "DEFAULT_THRESHOLDS",
    "CounterLimits",
    "HealthReport",
    "ShutPort",
    "ThresholdBreach",
    "flaps",
    "load_thresholds",
    "rate",
    "run_health",
    "shut_on_purpose",
]

#: metric -> limit. The example intent's ``thresholds``, used where generated/ gives none.
DEFAULT_THRESHOLDS: dict[str, float] = {
    "pfc_pause_frames_per_min": 1000,
    "ecn_marks_per_min": 10000,
    "crc_errors": 0,
    "symbol_errors": 0,
    "flaps_per_hour": 3,
    "optic_temperature_c": 70,
}
EXPECTED_COUNTERS = "monitoring/expected-counters.yaml"
#: Command -> the metrics it gives; a command the device refuses makes them "not available".
COMMANDS: dict[str, tuple[str, ...]] = {
    "show interfaces counters errors": ("crc_errors", "symbol_errors"),
    "show priority-flow-control counters": ("pfc_pause_frames_per_min",),
    "show qos interfaces ecn counters queue": ("ecn_marks_per_min",),
    "show interfaces": ("flaps_per_hour", "oper_status"),
    "show interfaces transceiver": ("optic_temperature_c",),
}


@dataclass(frozen=True)
class ThresholdBreach:
    """One counter over its threshold."""

    device: str
    interface: str
    metric: str
    value: float
    threshold: float

    def __str__(self) -> str:
        if self.metric == "oper_status":
            return f"{self.device} {self.interface}: down, expected up"
        if self.metric == "shutdown":
            return f"{self.device} {self.interface}: up, expected down (shut on purpose)"
        return f"{self.device} {self.interface}: {self.metric} {self.value:g} > {self.threshold:g}"


@dataclass(frozen=True)
class ShutPort:
    """A port shut on purpose and down, as expected."""

    device: str
    interface: str
    reason: str

    def __str__(self) -> str:
        return f"{self.device} {self.interface}: down, shut on purpose: {self.reason}"


@dataclass(frozen=True)
class HealthReport:
    """The health of the devices read: findings, unreachable devices, what could not be read."""

    ref: str
    thresholds: dict[str, float]
    thresholds_from: str
    devices: tuple[str, ...]
    findings: tuple[ThresholdBreach, ...]
    unreachable: tuple[str, ...]
    errors: dict[str, str]
    not_available: dict[str, tuple[str, ...]]
    shut: tuple[ShutPort, ...] = ()
    """Ports shut on purpose, down as expected."""
    notes: dict[str, str] = field(default_factory=dict)
    """Per device, why it was judged against the fallback rather than its state of record."""


def rate(count: float, *, uptime_s: float, window_s: float) -> float:
    """``count`` per window, over the uptime but never over less than one window."""
    return float(count) * window_s / max(uptime_s, window_s)


def flaps(link_status_changes: int) -> int:
    """Down-and-up cycles from EOS's ``linkStatusChanges`` (the first change is the link coming up)."""
    return max(0, link_status_changes - 1) // 2


@dataclass(frozen=True)
class CounterLimits:
    """Limits per device and port, with the defaults for everything not listed."""

    defaults: dict[str, float]
    ports: dict[str, dict[str, dict[str, float]]]
    expect_up: dict[str, frozenset[str]]
    source: str
    shut: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per device, the ports shut on purpose and why."""

    def limit(self, device: str, port: str, metric: str) -> float:
        """The limit of ``metric`` on ``device`` ``port``."""
        return self.ports.get(device, {}).get(port, {}).get(metric, self.defaults[metric])


def metric_of(key: str) -> str:
    """The metric an ``expect`` key of expected-counters.yaml limits.

    Examples:
        >>> metric_of("in_crc_errors_max"), metric_of("pfc_pause_frames_per_min_max")
        ('crc_errors', 'pfc_pause_frames_per_min')
    """
    return key.removesuffix("_max").removeprefix("in_")


def load_thresholds(snapshot: Snapshot) -> CounterLimits:
    """The thresholds of ``generated/monitoring/expected-counters.yaml`` at the snapshot, else the defaults."""
    if not snapshot.exists(EXPECTED_COUNTERS):
        return CounterLimits(dict(DEFAULT_THRESHOLDS), {}, {}, "defaults (docs/drift.md)")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the file has a line per port: libyaml if present
    data = yaml.load(snapshot.read_text(EXPECTED_COUNTERS), Loader=loader)
    if not isinstance(data, dict):
        raise FabricopsError(f"generated/{EXPECTED_COUNTERS} is not a mapping: run 'fabricops compile'")
    ports: dict[str, dict[str, dict[str, float]]] = {}
    expect_up: dict[str, frozenset[str]] = {}
    shut: dict[str, dict[str, str]] = {}
    for device, entry in data.items():
        up = set()
        for port, spec in ((entry or {}).get("ports") or {}).items():
            expect = (spec or {}).get("expect") or {}
            limits = {metric_of(k): float(v) for k, v in expect.items() if k.endswith("_max")}
            ports.setdefault(str(device), {})[str(port)] = {k: v for k, v in limits.items() if k in DEFAULT_THRESHOLDS}
            if str(expect.get("oper_status", "")).upper() == "UP":
                up.add(str(port))
            elif expect.get("shutdown"):
                shut.setdefault(str(device), {})[str(port)] = str(expect["shutdown"])
        expect_up[str(device)] = frozenset(up)
    return CounterLimits(dict(DEFAULT_THRESHOLDS), ports, expect_up, f"generated/{EXPECTED_COUNTERS}", shut)


def _read(task: Task) -> Result:
    """One device's counters through its NAPALM connection; a refused command is "not available"."""
    from napalm.base.exceptions import CommandErrorException
    from nornir.core.task import Result
    from nornir_napalm.plugins.connections import CONNECTION_NAME

    if task.host.data.get("unreachable"):
        raise FabricopsError(str(task.host.data["unreachable"]))
    device = task.host.get_connection(CONNECTION_NAME, task.nornir.config)
    outputs: dict[str, Any] = {}
    for command in COMMANDS:
        try:
            outputs[command] = device.cli([command], encoding="json")[command]
        except CommandErrorException:
            outputs[command] = None
    data = {"facts": device.get_facts(), "counters": device.get_interfaces_counters(), "cli": outputs}
    return Result(host=task.host, result=data)


def evaluate(device: str, data: dict[str, Any], limits: CounterLimits) -> tuple[list[ThresholdBreach], list[str]]:
    """Findings for one device's counters, and the metrics it could not give."""
    uptime = float(data["facts"].get("uptime") or 0.0)
    cli: dict[str, Any] = data["cli"]
    found: list[ThresholdBreach] = []
    missing = sorted({m for command, metrics in COMMANDS.items() if cli.get(command) is None for m in metrics})

    def check(interface: str, metric: str, value: float) -> None:
        limit = limits.limit(device, interface, metric)
        if value > limit:
            found.append(ThresholdBreach(device, interface, metric, round(value, 1), limit))

    errors = (cli.get("show interfaces counters errors") or {}).get("interfaceErrorCounters", {})
    for name, c in sorted(errors.items()):
        check(name, "crc_errors", float(c.get("fcsErrors", 0)))
        check(name, "symbol_errors", float(c.get("symbolErrors", 0)))
    pfc = (cli.get("show priority-flow-control counters") or {}).get("interfaceCounters", {})
    for name, c in sorted(pfc.items()):
        frames = c.get("rxFrames", 0) + c.get("txFrames", 0)
        check(name, "pfc_pause_frames_per_min", rate(frames, uptime_s=uptime, window_s=60))
    ecn = (cli.get("show qos interfaces ecn counters queue") or {}).get("intfQueueCounters", {})
    for name, c in sorted(ecn.items()):
        marked = sum(v for v in c.get("queueCounters", {}).values() if isinstance(v, int))
        check(name, "ecn_marks_per_min", rate(marked, uptime_s=uptime, window_s=60))
    interfaces = (cli.get("show interfaces") or {}).get("interfaces", {})
    for name, c in sorted(interfaces.items()):
        changes = c.get("interfaceCounters", {}).get("linkStatusChanges")
        if changes is not None:
            check(name, "flaps_per_hour", rate(flaps(int(changes)), uptime_s=uptime, window_s=3600))
    if interfaces:
        for name in sorted(limits.expect_up.get(device, ())):
            if interfaces.get(name, {}).get("lineProtocolStatus") != "up":
                found.append(ThresholdBreach(device, name, "oper_status", 0, 1))
        for name in sorted(limits.shut.get(device, {})):
            if interfaces.get(name, {}).get("lineProtocolStatus") == "up":
                found.append(ThresholdBreach(device, name, "shutdown", 1, 0))
    transceivers = (cli.get("show interfaces transceiver") or {}).get("interfaces", {})
    for name, c in sorted(transceivers.items()):
        if isinstance(c, dict) and c.get("temperature") is not None:
            check(name, "optic_temperature_c", float(c["temperature"]))
    return found, missing


def shut_on_purpose(device: str, data: dict[str, Any], limits: CounterLimits) -> list[ShutPort]:
    """The ports of ``device`` shut on purpose that are down, as expected.

    Examples:
        >>> limits = CounterLimits({}, {}, {}, "", {"leaf1": {"Ethernet5": "DECOMMISSIONED_gpu1_eth0"}})
        >>> data = {"cli": {"show interfaces": {"interfaces": {"Ethernet5": {"lineProtocolStatus": "down"}}}}}
        >>> [str(p) for p in shut_on_purpose("leaf1", data, limits)]
        ['leaf1 Ethernet5: down, shut on purpose: DECOMMISSIONED_gpu1_eth0']
    """
    interfaces = (data["cli"].get("show interfaces") or {}).get("interfaces", {})
    return [
        ShutPort(device, name, reason)
        for name, reason in sorted(limits.shut.get(device, {}).items())
        if name in interfaces and interfaces[name].get("lineProtocolStatus") != "up"
    ]


def run_health(
    root: Path,
    *,
    ref: str | None = None,
    devices: Sequence[str] = (),
    lab: bool = False,
    workers: int = 20,
    progress: Callable[[int], Callable[[str], None]] | None = None,
) -> HealthReport:
    """Read and evaluate the counters of the fleet (or ``devices``).

    With ``ref``, every device of that snapshot is judged against it. Without it, the fleet is the
    newest fleet version's (else HEAD's) and every device deployed alone since (``deploy
    --devices`` tags no fleet version), and each device is judged against what it runs: the
    commit of its state of record (one snapshot per distinct commit), else the newest fleet
    version, else HEAD.
    """
    tag = latest_deploy_tag(root)
    chosen = ref or (tag.name if tag else "HEAD")
    snapshot = open_snapshot(root, chosen)
    later, unread = _deployed_alone(root, snapshot) if ref is None else ({}, {})
    target = LabTarget.load(root) if lab else None
    nornir = open_fleet(snapshot, lab=target, devices=devices, workers=workers, also=later)
    names = sorted(nornir.inventory.hosts)
    fallback = load_thresholds(snapshot)
    if ref is None:
        judged = _judged_by_record(root, names, chosen, snapshot.ref, fallback)
        judged.notes.update((name, note) for name, note in unread.items() if not devices or name in devices)
    else:
        judged = _Judged(dict.fromkeys(names, fallback), chosen, {})
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
    findings: list[ThresholdBreach] = []
    unreachable: list[str] = []
    errors: dict[str, str] = {}
    missing: dict[str, tuple[str, ...]] = {}
    shut: list[ShutPort] = []
    for name in names:
        multi = result[name]
        if multi.failed:
            exc = next((r.exception for r in multi if r.exception is not None), None)
            unreachable.append(name)
            errors[name] = " ".join(str(exc).split())[:300] if exc else "failed"
            continue
        limits = judged.limits[name]
        found, lacks = evaluate(name, multi[0].result, limits)
        findings += found
        shut += shut_on_purpose(name, multi[0].result, limits)
        if lacks:
            missing[name] = tuple(lacks)
    sources = sorted({limits.source for limits in judged.limits.values()} or {fallback.source})
    return HealthReport(
        judged.ref,
        fallback.defaults,
        ", ".join(sources),
        tuple(names),
        tuple(findings),
        tuple(unreachable),
        errors,
        missing,
        tuple(shut),
        judged.notes,
    )


def _deployed_alone(root: Path, fleet: Snapshot) -> tuple[dict[str, Snapshot], dict[str, str]]:
    """The devices the fleet version ``fleet`` lacks whose state of record names a commit of their
    own (deployed alone since), each with the snapshot of that commit (it holds their inventory
    entry); and, for those whose commit is not in this clone, why they are not read.

    A device removed from the intent since but still recorded is read too: a deploy leaves a
    device it no longer has as it is, so it still runs its recorded commit.
    """
    known = fleet.inventory()[0]
    found: dict[str, Snapshot] = {}
    unread: dict[str, str] = {}
    opened: dict[str, Snapshot | None] = {}
    for name, record in sorted(read_records(root).items()):
        if name in known or not record.commit:
            continue
        if record.commit not in opened:
            try:
                opened[record.commit] = open_snapshot(root, record.commit)
            except FabricopsError:
                opened[record.commit] = None
        at = opened[record.commit]
        if at is None:
            missing = f"its state of record names commit {record.commit[:12]}, not in this clone"
            unread[name] = f"{missing} (git fetch): not read"
        elif name in at.inventory()[0]:
            found[name] = at
    return found, unread


@dataclass(frozen=True)
class _Judged:
    """The limits each device is judged by, what the report names as its ref, and why a device fell back."""

    limits: dict[str, CounterLimits]
    ref: str
    notes: dict[str, str]


def _judged_by_record(
    root: Path, names: Sequence[str], fallback_ref: str, fallback_commit: str, fallback: CounterLimits
) -> _Judged:
    """Each device's limits at the commit of its state of record; ``fallback`` for the others, saying why."""
    records = read_records(root)
    by_commit: dict[str, list[str]] = {}
    notes: dict[str, str] = {}
    for name in names:
        record = records.get(name)
        if record is not None and record.commit:
            by_commit.setdefault(record.commit, []).append(name)
        elif record is not None:  # a restored backup: no generated/ commit says what it should run
            notes[name] = f"runs a restored backup ({record.backup}): judged against {fallback_ref}"
    limits = dict.fromkeys(names, fallback)
    tags = version_tags(open_repo(root)) if by_commit else {}
    commits: list[str] = []  # each named by its fleet version where it has one
    recorded = 0
    for commit, members in sorted(by_commit.items()):
        try:
            resolve_commit(root, commit)
        except FabricopsError:
            for name in members:
                notes[name] = (
                    f"its state of record names commit {commit[:12]}, not in this clone (git fetch): "
                    f"judged against {fallback_ref}"
                )
            continue
        at = fallback if commit == fallback_commit else load_thresholds(open_snapshot(root, commit))
        limits.update(dict.fromkeys(members, at))
        commits.append(tags.get(commit, commit[:12]))
        recorded += len(members)
    if not commits:
        return _Judged(limits, fallback_ref, notes)
    described = (
        f"state of record ({len(commits)} commit{'s' if len(commits) != 1 else ''}: {', '.join(sorted(commits))})"
    )
    if recorded < len(names):
        described += f"; {fallback_ref} for {len(names) - recorded} other device(s)"
    return _Judged(limits, described, notes)


def render_health_text(report: HealthReport) -> str:
    """One line per finding, then a summary."""
    out = [f"health against {report.ref}: thresholds from {report.thresholds_from}"]
    out += [f"{name}: {note}" for name, note in sorted(report.notes.items())]
    out += [str(f) for f in report.findings]
    out += [str(p) for p in report.shut]
    out += [f"{name}: unreachable ({report.errors.get(name, '')})" for name in report.unreachable]
    lacking = sorted({m for ms in report.not_available.values() for m in ms})
    if lacking:
        out.append(f"not available on {len(report.not_available)} device(s): {', '.join(lacking)}")
    bad = len({f.device for f in report.findings})
    healthy = len(report.devices) - bad - len(report.unreachable)
    down = len(report.unreachable)
    shut = f"; {len(report.shut)} port(s) shut on purpose" if report.shut else ""
    out.append(f"{len(report.devices)} devices: {healthy} healthy, {bad} over a threshold, {down} unreachable{shut}")
    return "\n".join(out) + "\n"


def render_health_json(report: HealthReport) -> dict[str, Any]:
    """The report as JSON."""
    data = asdict(report)
    data["healthy"] = sorted(set(report.devices) - {f.device for f in report.findings} - set(report.unreachable))
    data["exit_code"] = 1 if report.unreachable else 3 if report.findings else 0
    return data
