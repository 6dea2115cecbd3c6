"""The per-device safe path, as Nornir tasks over the stock NAPALM ``eos`` driver.

:func:`survey_task` reads the running config and the diff to the target (load, compare,
discard: nothing changes). :func:`apply_task` changes one device:

1. re-read the running config and refuse if it no longer matches the backup taken for it;
2. ``load_replace_candidate`` + ``compare_config`` (a rejected line aborts the session: the
   device is unchanged and the line is reported);
3. ``commit_config(revert_in=N)``: the change is live, and EOS reverts it by itself unless it
   is confirmed within N seconds;
4. post-checks (:mod:`deploy.postchecks`), retried for ``settle`` seconds;
5. pass: ``confirm_commit``. Fail: ``discard_config``, which sends ``configure session X
   abort``; on a session whose commit timer runs, EOS restores the pre-commit checkpoint at
   once. NAPALM's ``rollback()`` is not used: on EOS it restores ``flash:rollback-0``, a copy
   of the *startup* config, which loses any running change never written to startup.

When the connection is lost once the commit has been sent (or while confirming, or while
rolling back), the task does not touch that driver again: ``close()`` or ``discard_config()``
would abort the session, and an abort that races a half-delivered confirm is worse than the
timer. It sets ``driver.config_session = None`` (so Nornir's close sends nothing), waits for
the commit timer to expire, reconnects and verifies what the device runs: the backup's config
(``reverted``), the target (``changed``: the confirm did arrive) or anything else (``unknown``).
Every result is a :class:`Outcome`; no device error escapes as an exception.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from core.fleet import describe_error, device_errors
from deploy.configs import fingerprint
from deploy.postchecks import Expectations, evaluate, gather

if TYPE_CHECKING:
    from nornir.core.task import Result, Task

    from core.hardware import Catalog

CONNECTION = "napalm"
#: Seconds to wait past the commit timer before checking that the device reverted.
REVERT_GRACE = 1.5
#: Seconds to keep trying to reconnect to a device after its commit timer expired.
RECONNECT_WINDOW = 15.0


class Status(StrEnum):
    """What happened to one device."""

    CHANGED = "changed"  # committed, post-checked and confirmed
    UNCHANGED = "unchanged"  # already in sync: nothing to do
    PENDING = "pending"  # would change (plan, dry-run)
    ROLLED_BACK = "rolled-back"  # post-checks failed: the commit was aborted, old config verified
    REVERTED = "reverted"  # connection lost after commit: the commit timer restored the old config
    REJECTED = "rejected"  # the device refused a config line: session aborted, device unchanged
    FAILED = "failed"  # an error before the commit: device unchanged
    UNREACHABLE = "unreachable"  # could not connect before the change: skipped
    REFUSED = "refused"  # live config differs from the reviewed plan or the backup: not touched
    NOT_TOUCHED = "not-touched"  # a later wave after a failed one
    UNKNOWN = "unknown"  # after a failure the device's config could not be verified
    ABSENT = "absent"  # not in generated/ at the version rolled back to: left as it is


#: Statuses that stop the rollout (unless --continue-on-error): any failure, before or after the change.
WAVE_FAILURES = frozenset({Status.ROLLED_BACK, Status.REVERTED, Status.REJECTED, Status.FAILED, Status.UNKNOWN})
WAVE_FAILURES |= {Status.UNREACHABLE, Status.REFUSED}


@dataclass
class Survey:
    """A device's live config and its diff to the target, read without changing anything."""

    device: str
    status: Status
    running: str = field(default="", repr=False)
    fingerprint: str = ""
    diff: str = field(default="", repr=False)
    error: str = ""


@dataclass
class Outcome:
    """The result of :func:`apply_task` on one device."""

    device: str
    status: Status
    detail: str = ""
    diff: str = field(default="", repr=False)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DeviceJob:
    """What to apply to one device and what it must look like before and after."""

    config: str = field(repr=False)
    expected_fingerprint: str
    expectations: Expectations
    #: The key of the fingerprints (:func:`deploy.configs.fingerprint`).
    key: bytes = field(repr=False)


@dataclass(frozen=True)
class ApplyOptions:
    """Options of one wave."""

    revert_in: int
    settle: float
    settled: frozenset[str]


ProgressCallback = Callable[[str, str], None]
#: Whether a device's running config is its target by meaning: (device, running) -> bool.
InSync = Callable[[str, str], bool]


def _connect(task: Task) -> Any:
    return task.host.get_connection(CONNECTION, task.nornir.config)


def _result(task: Task, value: Survey | Outcome) -> Result:
    from nornir.core.task import Result

    return Result(host=task.host, result=value, changed=getattr(value, "status", None) == Status.CHANGED)


def model_in_header(running: str) -> str | None:
    """The model a running config's ``! device: NAME (MODEL, EOS-VERSION)`` header names.

    Examples:
        >>> model_in_header("! Command: show running-config\\n! device: ta373 (DCS-7280SR2K-48C6-M, EOS-4.25.1F)\\n")
        'DCS-7280SR2K-48C6-M'
        >>> model_in_header("hostname a\\n") is None
        True
    """
    match = _HEADER_MODEL.search(running, 0, 512)
    return match.group(1) if match else None


_HEADER_MODEL = re.compile(r"^! device: \S+ \(([^,()\s]+), EOS-", re.MULTILINE)


def wrong_model(task: Task, driver: Any, models: Catalog, running: str = "") -> str | None:
    """Why the switch is not the model, or the unit, ``generated/`` names; None when it is.

    The model is checked only when ``generated/inventory/hosts.yaml`` names a model of ``models``
    (the catalog with the repository's own models, :meth:`core.generated.Snapshot.catalog`): the
    ``modelName`` of ``show version`` (what NAPALM's ``get_facts()["model"]`` reports), with an
    airflow suffix (``DCS-7060DX5-32-F``); the base models are compared. The unit is checked only
    when the inventory names one (``intent/devices.yaml`` ``serial`` and ``base_mac``): a switch
    replaced after a failure whose new unit intent does not name yet is refused, so a config
    meant for one box never lands on another by mistake. When the ``! device:`` header of the
    switch's ``running`` config (EOS prints its model there) already names the expected model
    and no unit is to be checked, that is the answer: one request less per switch. Otherwise
    ``show version`` is read through NAPALM's ``cli`` as JSON (``get_facts`` would also fetch
    ``show interfaces``, tens to hundreds of kilobytes per switch, for the same fields) and
    decides, so a refusal names the model as ``show version`` does.
    """
    expected = str(task.host.data.get("model") or "")
    serial = str(task.host.data.get("serial") or "")
    wanted = models.match(expected)
    if wanted is None and not serial:
        return None
    header = model_in_header(running)
    in_header = models.match(header) if header else None
    if not serial and wanted is not None and in_header is not None and in_header.id == wanted.id:
        return None
    version = driver.cli(["show version"], encoding="json")["show version"]
    live = str(version.get("modelName") or "")
    found = models.match(live)
    if wanted is not None and (found is None or found.id != wanted.id):
        return f"live model {live}, generated/ expects {expected}: rack the {expected} or correct the model in intent"
    return wrong_unit(task.host.name, version, serial, str(task.host.data.get("base_mac") or ""))


def wrong_unit(device: str, version: dict[str, Any], serial: str, base_mac: str) -> str | None:
    """Why the live unit (``show version``) is not the one intent names, or None.

    Examples:
        >>> live = {"serialNumber": "JPE1", "systemMacAddress": "00:1c:73:00:00:01"}
        >>> wrong_unit("leaf1", live, "JPE1", "00:1c:73:00:00:01") is None
        True
        >>> print(wrong_unit("leaf1", live, "JPE2", "00:1c:73:00:00:02")[:82])
        live serial JPE1 (base MAC 00:1c:73:00:00:01), intent/devices.yaml names JPE2 (00:
    """
    if not serial:
        return None
    live = str(version.get("serialNumber") or "")
    mac = str(version.get("systemMacAddress") or "").lower()
    if live == serial and (not base_mac or mac == base_mac.lower()):
        return None
    return (
        f"live serial {live} (base MAC {mac}), intent/devices.yaml names {serial} ({base_mac}) for {device}: "
        f"set {device}'s serial and base_mac in intent/devices.yaml to the unit in the rack, or rack that unit"
    )


def read_task(task: Task, key: bytes, models: Catalog, progress: ProgressCallback | None = None) -> Result:
    """Read the running config (a getter only: nothing is loaded); a switch of another model
    than ``generated/`` names is refused (:func:`wrong_model`)."""
    name = task.host.name
    try:
        driver = _connect(task)
        running = driver.get_config(retrieve="running")["running"]
        mismatch = wrong_model(task, driver, models, running)
        if mismatch is not None:
            survey = Survey(name, Status.REFUSED, error=mismatch)
        else:
            survey = Survey(name, Status.UNCHANGED, running=running, fingerprint=fingerprint(running, key))
    except device_errors() as exc:
        survey = Survey(name, Status.UNREACHABLE, error=describe_error(exc))
    if progress is not None:
        progress(name, "read" if survey.status != Status.UNREACHABLE else survey.status.value)
    return _result(task, survey)


def survey_task(
    task: Task,
    configs: Mapping[str, str],
    key: bytes,
    models: Catalog,
    progress: ProgressCallback | None = None,
    in_sync: InSync | None = None,
) -> Result:
    """Read running-config and the diff to ``configs[host]``; the candidate is always discarded.

    A switch of another model than ``generated/`` names is refused (:func:`wrong_model`).
    When ``in_sync(device, running)`` says the running config is the target by meaning, the
    device is unchanged and no config session is opened: loading a whole config into a session
    only to diff and abort it is most of a plan's work on the switch, and its answer could only
    be "no change" or a difference that is none by meaning.
    """
    name = task.host.name
    survey: Survey
    try:
        driver = _connect(task)
        running = driver.get_config(retrieve="running")["running"]
        mismatch = wrong_model(task, driver, models, running)
    except device_errors() as exc:
        survey = Survey(name, Status.UNREACHABLE, error=describe_error(exc))
    else:
        survey = (
            Survey(name, Status.REFUSED, error=mismatch)
            if mismatch
            else _diff(driver, name, configs[name], key, running, in_sync)
        )
    if progress is not None:
        progress(name, survey.status.value)
    return _result(task, survey)


def _diff(driver: Any, name: str, config: str, key: bytes, running: str, in_sync: InSync | None = None) -> Survey:
    """The diff of ``running`` to ``config``: load, compare, and always discard
    (nothing loaded when ``in_sync`` finds the running config the same by meaning)."""
    from napalm.base.exceptions import ReplaceConfigException

    survey = Survey(name, Status.UNCHANGED, running=running, fingerprint=fingerprint(running, key))
    if in_sync is not None and in_sync(name, running):
        return survey
    try:
        driver.load_replace_candidate(config=config)
        survey.diff = driver.compare_config()
        survey.status = Status.PENDING if survey.diff else Status.UNCHANGED
    except ReplaceConfigException as exc:  # napalm has already aborted the session
        survey = Survey(name, Status.REJECTED, running=running, error=describe_error(exc))
    except device_errors() as exc:
        survey = Survey(name, Status.FAILED, error=describe_error(exc))
    finally:
        _discard_quietly(driver)
    return survey


def _discard_quietly(driver: Any) -> None:
    """Abort an uncommitted candidate; only ever called when no commit timer can be running."""
    try:
        driver.discard_config()
    except device_errors():
        driver.config_session = None


def apply_task(
    task: Task, jobs: Mapping[str, DeviceJob], options: ApplyOptions, progress: ProgressCallback | None = None
) -> Result:
    """Change one device through the safe path (see the module docstring)."""
    outcome = _apply(task, jobs[task.host.name], options)
    if progress is not None:
        progress(task.host.name, outcome.status.value)
    return _result(task, outcome)


def _apply(task: Task, job: DeviceJob, options: ApplyOptions) -> Outcome:  # noqa: PLR0911 - one exit per outcome
    from napalm.base.exceptions import CommitError, ReplaceConfigException

    name = task.host.name
    errors = device_errors()
    try:
        driver = _connect(task)
        running = driver.get_config(retrieve="running")["running"]
    except errors as exc:
        return Outcome(name, Status.UNREACHABLE, f"not reachable before the change: {describe_error(exc)}")
    if fingerprint(running, job.key) != job.expected_fingerprint:
        return Outcome(name, Status.REFUSED, "running config changed since it was backed up: run the deploy again")
    try:
        driver.load_replace_candidate(config=job.config)
        diff = driver.compare_config()
    except ReplaceConfigException as exc:
        return Outcome(name, Status.REJECTED, describe_error(exc))
    except errors as exc:
        _discard_quietly(driver)
        return Outcome(name, Status.FAILED, f"before the commit: {describe_error(exc)}")
    if not diff:
        _discard_quietly(driver)
        return Outcome(name, Status.UNCHANGED)
    session = str(driver.config_session)
    started = time.monotonic()
    try:
        driver.commit_config(revert_in=options.revert_in)
    except CommitError as exc:  # another commit timer is pending: ours was not committed
        _discard_quietly(driver)
        return Outcome(name, Status.FAILED, f"not committed: {describe_error(exc)}", diff)
    except errors as exc:
        return _await_revert(task, driver, session, started, job, options, diff, f"lost during commit: {exc}")
    problems = _post_check(driver, job.expectations, options)
    if problems:
        try:
            driver.discard_config()  # abort the timer session: EOS restores the checkpoint now
        except errors as exc:
            why = f"post-checks failed, then lost during the abort: {describe_error(exc)}"
            outcome = _await_revert(task, driver, session, started, job, options, diff, why)
            outcome.problems = problems
            return outcome
        verified = _runs(driver, job)
        status = Status.ROLLED_BACK if verified else Status.UNKNOWN
        detail = "post-checks failed; commit aborted, previous config verified"
        if not verified:
            detail = "post-checks failed; commit aborted but the running config is not the backup"
        return Outcome(name, status, detail, diff, problems)
    try:
        driver.confirm_commit()
    except errors as exc:
        return _await_revert(task, driver, session, started, job, options, diff, f"lost during confirm: {exc}")
    return Outcome(name, Status.CHANGED, "", diff)


def _post_check(driver: Any, exp: Expectations, options: ApplyOptions) -> list[str]:
    """Post-check problems, retried until they clear or ``settle`` seconds have passed."""
    deadline = time.monotonic() + options.settle
    while True:
        try:
            facts, lldp, interfaces = gather(driver)
        except device_errors() as exc:
            return [f"device stopped answering after the commit: {describe_error(exc)}"]
        problems = evaluate(exp, facts, lldp, interfaces, set(options.settled))
        if not problems or time.monotonic() >= deadline:
            return problems
        time.sleep(min(2.0, max(0.0, deadline - time.monotonic())))


def _runs(driver: Any, job: DeviceJob) -> bool:
    """Whether the device's running config is the one it had before the change (the job's fingerprint)."""
    try:
        return fingerprint(driver.get_config(retrieve="running")["running"], job.key) == job.expected_fingerprint
    except device_errors():
        return False


def _await_revert(
    task: Task,
    driver: Any,
    session: str,
    started: float,
    job: DeviceJob,
    options: ApplyOptions,
    diff: str,
    why: str,
) -> Outcome:
    """The connection failed with a commit timer possibly running: let the timer revert, then verify."""
    name = task.host.name
    # Gotcha: close() and discard_config() on this driver would abort the session, i.e. roll back
    # at once on a half-known state. Forget the session so that Nornir's close sends nothing.
    driver.config_session = None
    _close(task)
    time.sleep(max(0.0, started + options.revert_in + REVERT_GRACE - time.monotonic()))
    fresh = _reconnect(task)
    if fresh is None:
        detail = f"{why}; unreachable after its {options.revert_in}s commit timer: verify with 'fabricops plan'"
        return Outcome(name, Status.UNKNOWN, detail, diff)
    # If the commit never reached the device, its session is still pending and would lock every
    # later NAPALM load out: abort it by name (no effect on a session that already reverted).
    fresh.config_session = session
    _discard_quietly(fresh)
    if _runs(fresh, job):
        return Outcome(name, Status.REVERTED, f"{why}; the commit timer restored the previous config", diff)
    try:
        fresh.load_replace_candidate(config=job.config)
        in_sync = not fresh.compare_config()
    except device_errors():
        in_sync = False
    finally:
        _discard_quietly(fresh)
    if in_sync:
        return Outcome(name, Status.CHANGED, f"{why}; the confirm had reached the device", diff)
    return Outcome(name, Status.UNKNOWN, f"{why}; runs neither its backup nor the target", diff)


def _close(task: Task) -> None:
    """Drop the host's connection (Nornir forgets it even when closing fails)."""
    from nornir.core.exceptions import ConnectionNotOpen

    expected: tuple[type[BaseException], ...] = (ConnectionNotOpen, *device_errors())
    with contextlib.suppress(*expected):
        task.host.close_connection(CONNECTION)


def _reconnect(task: Task) -> Any:
    deadline = time.monotonic() + RECONNECT_WINDOW
    while True:
        _close(task)
        try:
            return _connect(task)
        except device_errors():
            if time.monotonic() >= deadline:
                return None
            time.sleep(1.0)
