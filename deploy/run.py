"""Plan and deploy runs: read, back up, diff, then change the fleet wave by wave.

A deploy, in order:

1. take the fleet lock (:mod:`deploy.lock`: on the state branch of the shared remote);
2. read every target's running config (a getter: nothing loaded); with ``--plan``, devices
   whose live config no longer has the fingerprint in the plan are refused;
3. back up every device read, and commit the backups on ``fabricops-state`` — before any
   candidate is loaded anywhere;
4. diff each device against its target (load, compare, discard). A difference that is not one
   by meaning (entries EOS keeps in any order, printed in another order) is no change;
5. if any device failed in 2-4 (unreachable, authentication, rejected line, locked session,
   refused), stop: no wave starts, nothing is changed. Otherwise deploy the devices that
   differ in waves (:mod:`deploy.waves`), each through :func:`deploy.device.apply_task`; after
   a wave with any failure the rollout stops and later waves are reported untouched.
   ``continue_on_error`` is the explicit opt-in to go on past failed devices and waves;
6. record the run and the state of record of every device it verified (changed, or found in
   sync) in one commit, tag a new fleet version (:mod:`deploy.record`), release the lock and
   publish the state branch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from core.actor import Actor
from core.deployed import DeviceRecord
from core.errors import FabricopsError
from deploy.backups import write_backups
from deploy.configs import summarise_diff
from deploy.device import (
    WAVE_FAILURES,
    ApplyOptions,
    DeviceJob,
    Outcome,
    Status,
    Survey,
    apply_task,
    read_task,
    survey_task,
)
from deploy.lock import FleetLock
from deploy.record import VERIFIED, PlanFile, fresh_stamp, record_path, write_run
from deploy.report import DeviceReport, Report
from deploy.targets import Target
from deploy.waves import DEFAULT_MAX_BATCH, plan_waves

DEFAULT_REVERT_IN = 300
DEFAULT_SETTLE = 10.0


class Progress(Protocol):
    """Where runs report progress (a rich progress bar in the CLI)."""

    def phase(self, name: str, total: int) -> None: ...

    def advance(self, device: str, status: str) -> None: ...


class _Silent:
    def phase(self, name: str, total: int) -> None:
        pass

    def advance(self, device: str, status: str) -> None:
        pass


@dataclass(frozen=True)
class RunOptions:
    """How to deploy."""

    revert_in: int = DEFAULT_REVERT_IN
    settle: float = DEFAULT_SETTLE
    max_batch: int = DEFAULT_MAX_BATCH
    dry_run: bool = False
    plan: PlanFile | None = None
    continue_on_error: bool = False
    tag: bool = True


def _run(target: Target, names: Iterable[str], task: Callable[..., Any], **kwargs: Any) -> dict[str, Any]:
    """Run ``task`` on ``names``; device name -> the task's value, or the exception it raised."""
    wanted = set(names)
    if not wanted:
        return {}
    nornir = target.nornir.filter(filter_func=lambda host: host.name in wanted)
    results = nornir.run(task=task, on_failed=True, **kwargs)
    target.nornir.data.reset_failed_hosts()
    out: dict[str, Any] = {}
    for name, multi in results.items():
        first = multi[0]
        out[name] = first.result if first.exception is None else first.exception
    return out


def _as_survey(name: str, value: Any) -> Survey:
    if isinstance(value, Survey):
        return value
    return Survey(name, Status.FAILED, error=f"internal error: {value!r}")


def _as_outcome(name: str, value: Any) -> Outcome:
    if isinstance(value, Outcome):
        return value
    # A bug in a task: Nornir's close() aborts any session left open, which on EOS undoes it.
    return Outcome(name, Status.UNKNOWN, f"internal error: {value!r}")


def _surveys(target: Target, names: list[str], progress: Progress) -> dict[str, Any]:
    """:func:`survey_task` on ``names``: a device in sync by meaning gets no config session."""
    in_sync = target.same_meaning if target.meaning is not None else None
    configs = {name: target.resolved(name) for name in names}
    return _run(
        target,
        names,
        survey_task,
        configs=configs,
        key=target.key,
        models=target.models,
        progress=progress.advance,
        in_sync=in_sync,
    )


def _survey_reports(target: Target, names: list[str], progress: Progress) -> dict[str, tuple[Survey, DeviceReport]]:
    progress.phase("diffing", len(names))
    values = _surveys(target, names, progress)
    out = {}
    for name in names:
        survey = _as_survey(name, values.get(name))
        diff = target.scrub(survey.diff)
        report = DeviceReport(
            name,
            survey.status,
            detail=target.scrub(survey.error),
            summary=summarise_diff(diff, target.scrub(survey.running) if diff else ""),
            diff=diff,
            fingerprint=survey.fingerprint,
        )
        out[name] = (survey, report)
    return out


def _place_in_waves(report: Report, target: Target, max_batch: int) -> None:
    report.waves = plan_waves(target.members(), report.names(Status.PENDING), max_batch)
    for index, wave in enumerate(report.waves, start=1):
        for name in wave:
            report.devices[name].wave = index


def _absent(report: Report, target: Target) -> None:
    """Devices of the fleet that the version being applied does not have: said so, left as they are."""
    for name in target.absent:
        why = f"not in generated/ at {target.ref[:12]}: left as it is (--reset-missing returns it to its base config)"
        report.devices[name] = DeviceReport(name, Status.ABSENT, detail=why)


def run_plan(target: Target, max_batch: int = DEFAULT_MAX_BATCH, progress: Progress | None = None) -> Report:
    """Diff every target device against its config, grouped into the waves a deploy would use."""
    started = time.monotonic()
    report = Report("plan", target.ref)
    for name, (_survey, device) in _survey_reports(target, target.devices, progress or _Silent()).items():
        report.devices[name] = device
    _absent(report, target)
    _place_in_waves(report, target, max_batch)
    report.seconds = time.monotonic() - started
    return report


def run_deploy(target: Target, options: RunOptions, kind: str = "deploy", progress: Progress | None = None) -> Report:
    """Deploy ``target`` (see the module docstring); never raises for a device failure."""
    if options.revert_in < 1:
        raise FabricopsError("--revert-in must be at least 1 second")
    if options.revert_in <= options.settle:
        raise FabricopsError(f"--revert-in ({options.revert_in}s) must exceed --settle ({options.settle}s)")
    if options.plan is not None and options.plan.ref != target.ref:
        raise FabricopsError(
            f"plan {options.plan.path} was made for {options.plan.ref[:12]}, not {target.ref[:12]}: "
            "run 'fabricops plan' for this ref, or deploy --ref with the plan's ref"
        )
    if options.dry_run:
        report = run_plan(target, options.max_batch, progress)
        report.kind, report.dry_run = kind, True
        _refuse_stale(report, options.plan, {n: d.fingerprint for n, d in report.devices.items() if d.fingerprint})
        return report
    lock = FleetLock(target.root, kind)
    lock.acquire()
    try:
        report = _deploy_locked(target, options, kind, progress or _Silent())
    finally:
        problem = lock.release()
    if problem:
        report.notes.append(problem)
    return report


def _refuse_stale(report: Report, plan: PlanFile | None, live: dict[str, str]) -> list[str]:
    """Mark devices whose live config is not the one the plan was reviewed against; their names."""
    if plan is None:
        return []
    refused = []
    for name, fp in sorted(live.items()):
        planned = plan.fingerprints.get(name)
        if planned is None:
            why = f"not in plan {plan.path.name}: run 'fabricops plan' again and review it"
        elif planned != fp:
            why = f"live config changed since plan {plan.path.name} was made: run 'fabricops plan' again and review it"
        else:
            continue
        device = report.devices.setdefault(name, DeviceReport(name, Status.REFUSED))
        device.status, device.detail = Status.REFUSED, why
        refused.append(name)
    return refused


def _deploy_locked(target: Target, options: RunOptions, kind: str, progress: Progress) -> Report:
    started = time.monotonic()
    actor = Actor.current()
    report = Report(kind, target.ref, stamp=fresh_stamp(target.root), by=actor.describe())
    fingerprints = _read_and_back_up(target, options, report, progress)
    _absent(report, target)
    _place_in_waves(report, target, options.max_batch)
    early = report.failed
    if early and not options.continue_on_error:
        report.halted = f"halted before the first wave: {len(early)} device(s) failed before any change"
        for name in report.names(Status.PENDING):
            report.devices[name].status, report.devices[name].detail = Status.NOT_TOUCHED, "halted before any change"
    else:
        _roll_out(target, options, report, fingerprints, progress)
    target.close()
    report.seconds = time.monotonic() - started
    _record(target, report, actor, options.tag)
    return report


def _record(target: Target, report: Report, actor: Actor, tag: bool) -> None:
    """Step 6: the run record, the state of record of every verified device, a fleet-version tag."""
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    verified = {
        name: DeviceRecord(
            name,
            commit="" if name in target.restored else target.ref,
            backup=target.restored.get(name, ""),
            verified=now,
            run=f"{report.kind} {report.stamp}",
            record=record_path(report.stamp),
            by=actor.who,
            ci_run=actor.ci_run,
        )
        for name, device in report.devices.items()
        if device.status in VERIFIED
    }
    whole = tag and target.scope == target.fleet
    write_run(target.root, report, verified, target.fleet if whole else None)


def _read_and_back_up(target: Target, options: RunOptions, report: Report, progress: Progress) -> dict[str, str]:
    """Steps 2-4: read, refuse stale, back up (committed), diff. Returns each device's fingerprint."""
    progress.phase("reading", len(target.devices))
    values = _run(target, target.devices, read_task, key=target.key, models=target.models, progress=progress.advance)
    reads = {n: _as_survey(n, v) for n, v in values.items()}
    for name, read in reads.items():
        if read.status == Status.REFUSED:  # another model than generated/ names
            report.devices[name] = DeviceReport(name, Status.REFUSED, detail=target.scrub(read.error))
        elif read.status != Status.UNCHANGED:
            detail = f"not reachable before the change: {target.scrub(read.error)}"
            report.devices[name] = DeviceReport(name, Status.UNREACHABLE, detail=detail)
    readable = {n: r for n, r in reads.items() if n not in report.devices}
    refused = _refuse_stale(report, options.plan, {n: r.fingerprint for n, r in readable.items()})
    readable = {n: r for n, r in readable.items() if n not in refused}

    # Backups first: committed before any candidate is loaded on any device.
    holding = write_backups(
        target.root,
        {name: target.scrub(read.running) for name, read in readable.items()},
        report.stamp,
        f"backups before {report.kind} {report.stamp} of {target.ref[:12]}",
    )
    for name, (survey, device) in _survey_reports(target, sorted(readable), progress).items():
        device.backup = holding[name].path
        if survey.status in (Status.PENDING, Status.UNCHANGED) and survey.fingerprint != readable[name].fingerprint:
            device.status, device.detail = Status.REFUSED, "running config changed during the deploy: run it again"
        report.devices[name] = device
    return {name: read.fingerprint for name, read in readable.items()}


def _settled_neighbours(target: Target, report: Report, progress: Progress) -> set[str]:
    """Neighbours outside the scope that run their config: post-checks may judge links to them.

    Read like a plan (load, compare, discard); with the whole fleet in scope there are none.
    """
    outside = target.neighbours(report.names(Status.PENDING))
    if not outside:
        return set()
    progress.phase("checking neighbours", len(outside))
    values = _surveys(target, outside, progress)
    return {name for name in outside if _as_survey(name, values.get(name)).status == Status.UNCHANGED}


def _roll_out(
    target: Target, options: RunOptions, report: Report, fingerprints: dict[str, str], progress: Progress
) -> None:
    """Step 5: the waves, stopping after the first one with a failure (unless continue_on_error)."""
    settled = set(report.names(Status.UNCHANGED)) | _settled_neighbours(target, report, progress)
    jobs = {
        name: DeviceJob(target.resolved(name), fingerprints[name], target.expectations(name), target.key)
        for name in report.names(Status.PENDING)
    }
    progress.phase("deploying", len(jobs))
    for index, wave in enumerate(report.waves, start=1):
        wave_options = ApplyOptions(options.revert_in, options.settle, frozenset(settled - set(wave)))
        values = _run(target, wave, apply_task, jobs=jobs, options=wave_options, progress=progress.advance)
        for name in wave:
            outcome = _as_outcome(name, values.get(name))
            device = report.devices[name]
            device.status, device.problems = outcome.status, outcome.problems
            device.detail = target.scrub(outcome.detail)
            if outcome.status == Status.CHANGED:
                settled.add(name)
        failed = [name for name in wave if report.devices[name].status in WAVE_FAILURES]
        if failed and not options.continue_on_error and index < len(report.waves):
            report.halted = f"halted after wave {index} ({', '.join(failed)} failed): later waves were not started"
            for later in report.waves[index:]:
                for name in later:
                    report.devices[name].status = Status.NOT_TOUCHED
                    report.devices[name].detail = f"wave {index} failed"
            return
