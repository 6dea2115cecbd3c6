"""``fabricops plan|deploy|rollback|status|history|lock|backups``: apply generated/ to the fleet, and its record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from compiler.collection import paused
from core.generated import PLAN_FILE
from fabricops.commands.compile import frozen_on_return

FORMATS = click.Choice(["text", "json"])
DEFAULT_PLAN = PLAN_FILE

root_option = click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Repository root (a git work tree holding generated/).",
)


def _devices(values: tuple[str, ...]) -> list[str]:
    return sorted({name.strip() for value in values for name in value.split(",") if name.strip()})


def _common(func: Any) -> Any:
    """Options every device verb takes."""
    options = [
        root_option,
        click.option("--lab", is_flag=True, help="Target the running lab (.lab/lab.json) instead of the fleet."),
        click.option("--devices", multiple=True, help="Only these devices (comma-separated or repeated)."),
        click.option("--format", "fmt", type=FORMATS, default="text", show_default=True),
        click.option("--workers", type=click.IntRange(1, 200), default=20, show_default=True, help="Devices at once."),
        click.option(
            "--batch",
            type=click.IntRange(1),
            default=10,
            show_default=True,
            help="Most devices in one wave (after the single-device canary).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _safety(func: Any) -> Any:
    """Options of the verbs that change devices."""
    options = [
        click.option("--dry-run", is_flag=True, help="Diff and show the waves; change nothing."),
        click.option(
            "--revert-in",
            type=click.IntRange(1, 86399),
            default=300,
            show_default=True,
            help="Commit timer: EOS reverts a change not confirmed within this many seconds.",
        ),
        click.option(
            "--settle",
            type=click.FloatRange(0),
            default=10.0,
            show_default=True,
            help="Seconds post-checks may retry before a change is rolled back.",
        ),
        click.option(
            "--continue-on-error",
            is_flag=True,
            help="Go on past failed devices and waves (by default the first failure stops the rollout).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _meaning(root: Path | None = None) -> Any:
    """The comparison by meaning that drift uses: plan and deploy judge "no change" by it too,
    with the in-sync verdicts of earlier runs in ``root`` remembered (:mod:`drift.memo`)."""
    from drift.memo import InSyncMemo

    return InSyncMemo(root)


def _finish(*reports: Any, fmt: str, show_diffs: bool) -> None:
    """Print the report(s), then exit with the worst code (a result, not an error: no 'Error:' line)."""
    if fmt == "json":
        data = [r.as_dict(with_diffs=True) for r in reports]
        click.echo(json.dumps(data[0] if len(data) == 1 else data, indent=2, sort_keys=True))
        for report in reports:
            click.echo(report.summary(), err=True)
    else:
        click.echo("\n\n".join(r.text(show_diffs=show_diffs) for r in reports))
    code = combined_exit(reports)
    if code:
        raise click.exceptions.Exit(code)


def combined_exit(reports: Any) -> int:
    """The exit code of several runs of one command (a rollback and the reset of missing devices)."""
    from deploy import Status

    changed = any(r.names(Status.CHANGED) for r in reports)
    if any(r.failed for r in reports):
        return 4 if changed else 1
    return max(int(r.exit_code) for r in reports)


def _options(
    revert_in: int, settle: float, batch: int, dry_run: bool, continue_on_error: bool, plan: Path | None
) -> Any:
    from deploy import PlanFile, RunOptions

    return RunOptions(
        revert_in=revert_in,
        settle=settle,
        max_batch=batch,
        dry_run=dry_run,
        plan=PlanFile.load(plan) if plan is not None else None,
        continue_on_error=continue_on_error,
    )


@click.command("plan")
@_common
@click.option("--ref", default=None, help="Git ref of generated/ to plan (default: HEAD).")
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Plan file (default: ROOT/plan.json)."
)
@click.option("--summary", is_flag=True, help="Text output without the diff bodies.")
@frozen_on_return
@paused
def plan_cmd(
    root: Path,
    lab: bool,
    devices: tuple[str, ...],
    fmt: str,
    workers: int,
    batch: int,
    ref: str | None,
    out: Path | None,
    summary: bool,
) -> None:
    """Diff each device's live config against generated/ at REF, grouped into deploy waves.

    Nothing is changed: each candidate is loaded into a configure session, diffed and
    discarded. A difference that is none by meaning (entries printed in another order) is no
    change. The plan file holds the ref and a keyed fingerprint of each device's live config, so
    that 'deploy --plan' applies exactly what was reviewed. Exit 0 when every device is in
    sync, 3 when changes are pending, 1 when a device cannot be planned.

    \b
    Examples:
      fabricops plan --lab
      fabricops plan --ref origin/main --devices rack03-leaf-a,rack03-leaf-b --summary
      fabricops plan --format json --out /tmp/plan.json
    """
    from deploy import open_target, run_plan, write_plan
    from deploy.progress import device_progress

    with _meaning(root) as meaning:
        target = open_target(root, ref, devices=_devices(devices), lab=lab, workers=workers, meaning=meaning)
        with device_progress(fmt == "text") as progress:
            report = run_plan(target, batch, progress)
        target.close()
    meaning.save()
    path = out or root / DEFAULT_PLAN
    write_plan(path, report)
    if fmt == "text":
        click.echo(f"plan written to {path}", err=True)
    _finish(report, fmt=fmt, show_diffs=not summary)


@click.command("deploy")
@_common
@_safety
@click.option("--ref", default=None, help="Git ref of generated/ to apply (default: HEAD).")
@click.option(
    "--plan",
    "plan",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Apply only what this plan showed: refuse devices whose live config changed since.",
)
def deploy_cmd(
    root: Path,
    lab: bool,
    devices: tuple[str, ...],
    fmt: str,
    workers: int,
    batch: int,
    dry_run: bool,
    revert_in: int,
    settle: float,
    continue_on_error: bool,
    ref: str | None,
    plan: Path | None,
) -> None:
    """Apply generated/ at REF to every device that differs, in waves, with commit-confirm.

    Under the fleet lock: per device a backup of the running config (committed on branch
    fabricops-state before anything is loaded), load + diff, commit with a revert timer,
    post-checks (the device answers, LLDP matches the cabling plan, cabled links are up), then
    confirm, or abort so that EOS restores the previous config. A canary goes first; no wave
    holds both leaves of an MLAG pair or two spines. The first failure, before or after the
    change, stops the rollout (--continue-on-error goes on). Every device verified to run REF
    is recorded on fabricops-state; when the whole fleet runs it, REF is tagged
    deploy/<UTC stamp>. Exit 0 ok, 1 failed and nothing changed, 4 some devices changed and
    some failed or were reverted.

    \b
    Examples:
      fabricops deploy --lab
      fabricops plan --out plan.json && fabricops deploy --plan plan.json
      fabricops deploy --devices rack03-leaf-a --dry-run
      fabricops deploy --format json --revert-in 120 --batch 4
    """
    from deploy import open_target, run_deploy
    from deploy.progress import device_progress

    options = _options(revert_in, settle, batch, dry_run, continue_on_error, plan)
    if plan is not None and ref is None:
        ref = options.plan.ref
    with _meaning(root) as meaning:
        target = open_target(root, ref, devices=_devices(devices), lab=lab, workers=workers, meaning=meaning)
        with device_progress(fmt == "text") as progress:
            report = run_deploy(target, options, progress=progress)
        target.close()
    meaning.save()
    _finish(report, fmt=fmt, show_diffs=dry_run)


@click.command("rollback")
@_common
@_safety
@click.option(
    "--to",
    "to_version",
    default=None,
    metavar="VERSION",
    help="A deploy tag, any ref, or 'previous' (the fleet version before the current one).",
)
@click.option(
    "--to-backup",
    "to_backup",
    default=None,
    metavar="DEVICE@WHEN",
    help="Restore one device's own backup, the newest at or before WHEN.",
)
@click.option(
    "--reset-missing",
    is_flag=True,
    help="Return devices that VERSION did not have to their base config (their oldest backup).",
)
def rollback_cmd(
    root: Path,
    lab: bool,
    devices: tuple[str, ...],
    fmt: str,
    workers: int,
    batch: int,
    dry_run: bool,
    revert_in: int,
    settle: float,
    continue_on_error: bool,
    to_version: str | None,
    to_backup: str | None,
    reset_missing: bool,
) -> None:
    """Return devices to a fleet version of generated/, or one device to its own backup.

    Both go through the deploy path under the fleet lock: a fresh backup, diff,
    commit-confirm, post-checks and waves. NAPALM's rollback() is never used (on EOS it
    restores the startup config). A device that did not exist in VERSION is reported
    'absent' and left as it is, unless --reset-missing. A rollback of a few devices is
    recorded per device but is no fleet version: no tag.

    \b
    Examples:
      fabricops rollback --to previous --lab
      fabricops rollback --to deploy/20250102T030405Z --devices spine01 --dry-run
      fabricops rollback --to-backup rack03-leaf-a@2025-01-02 --lab
    """
    from core import gitstate
    from deploy import base_backups, open_target, resolve_version, restore_backup, restore_backups, run_deploy
    from deploy.progress import device_progress

    if (to_version is None) == (to_backup is None):
        raise click.UsageError("give exactly one of --to VERSION or --to-backup DEVICE@WHEN")
    if to_backup is not None and (devices or reset_missing):
        raise click.UsageError("--to-backup names its device: drop --devices and --reset-missing")
    options = _options(revert_in, settle, batch, dry_run, continue_on_error, None)
    reports = []
    with device_progress(fmt == "text") as progress, _meaning() as meaning:
        if to_backup is not None:
            reports.append(
                restore_backup(root, to_backup, options, lab=lab, workers=workers, progress=progress, meaning=meaning)
            )
        else:
            assert to_version is not None
            gitstate.refresh(root)  # the fleet versions and state of record of every clone
            ref = resolve_version(root, to_version)
            target = open_target(
                root, ref, devices=_devices(devices), lab=lab, workers=workers, meaning=meaning, absent_ok=True
            )
            reports.append(run_deploy(target, options, kind="rollback", progress=progress))
            target.close()
            if reset_missing and target.absent:
                bases = base_backups(root, target.absent)
                reports.append(
                    restore_backups(root, bases, options, lab=lab, workers=workers, progress=progress, meaning=meaning)
                )
    _finish(*reports, fmt=fmt, show_diffs=dry_run)


@click.command("status")
@root_option
@click.option("--devices", multiple=True, help="Only these devices (comma-separated or repeated).")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def status_cmd(root: Path, devices: tuple[str, ...], fmt: str) -> None:
    """What each device was last verified to run: the generated/ commit, when, by which run.

    Read from the state of record on branch fabricops-state (fetched from the shared remote).
    'intent' says whether generated/ at HEAD still gives the device that config ('current'),
    another one ('pending': merged, not deployed), or whether it was never deployed. Exit 0
    when every device runs HEAD's config, 3 when some are pending or never deployed.

    \b
    Examples:
      fabricops status
      fabricops status --devices rack03-leaf-a --format json
    """
    from core.deployed import fleet_status, render_status

    rows = fleet_status(root, _devices(devices))
    if fmt == "json":
        click.echo(json.dumps([row.as_dict() for row in rows], indent=2))
    else:
        click.echo(render_status(rows), nl=False)
    if any(row.intent != "current" for row in rows):
        raise click.exceptions.Exit(3)


@click.command("history")
@root_option
@click.option("--limit", type=click.IntRange(1), default=20, show_default=True, help="The newest N runs.")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def history_cmd(root: Path, limit: int, fmt: str) -> None:
    """Deploys, rollbacks and restores, newest first: tag, when, who, devices, result.

    Read from the run records on branch fabricops-state (fetched from the shared remote). A
    tag marks a fleet version: the whole fleet was verified to run that commit.

    \b
    Examples:
      fabricops history
      fabricops history --limit 5 --format json
    """
    from core import gitstate
    from deploy import list_runs

    gitstate.pull(root)
    runs = list(reversed(list_runs(root)))[:limit]
    if fmt == "json":
        rows = [
            {
                "stamp": r.stamp,
                "when": r.when,
                "kind": r.kind,
                "tag": r.tag,
                "ref": r.ref,
                "by": r.by,
                "outcomes": r.outcomes,
                "result": r.result,
            }
            for r in runs
        ]
        click.echo(json.dumps(rows, indent=2))
        return
    if not runs:
        click.echo("no deploys on record (branch fabricops-state)")
        return
    head = f"{'when':<20}  {'kind':<8}  {'fleet version':<24}  {'commit':<12}  {'result':<7}  {'devices':<40}  by"
    click.echo(head)
    for r in runs:
        devices = ", ".join(f"{n} {outcome}" for outcome, n in r.outcomes.items() if n) or "none"
        line = f"{r.when:<20}  {r.kind:<8}  {r.tag or '-':<24}  {r.ref[:12]:<12}  {r.result:<7}  {devices:<40}  {r.by}"
        click.echo(line)


@click.group("lock")
def lock_group() -> None:
    """The fleet lock: one deploy or rollback at a time, from any clone.

    It lives on branch fabricops-state of the shared remote (origin, or FABRICOPS_REMOTE).

    \b
    Examples:
      fabricops lock status
      fabricops lock break
    """


@lock_group.command("status")
@root_option
def lock_status_cmd(root: Path) -> None:
    """Who holds the fleet lock, since when (exit 0 either way)."""
    from deploy import read_lock

    held = read_lock(root)
    if held is None:
        click.echo("the fleet lock is free")
        return
    state = "held" if held.alive() else "stale (its process is gone)"
    click.echo(f"the fleet lock is {state}: {held.describe()}")


@lock_group.command("break")
@root_option
def lock_break_cmd(root: Path) -> None:
    """Remove the fleet lock, whoever holds it: only when its run is known to be dead."""
    from deploy import break_lock

    broken = break_lock(root)
    if broken is None:
        click.echo("the fleet lock is free: nothing to break")
    else:
        click.echo(f"broke the fleet lock of {broken.describe()}")


@click.group("backups")
def backups_group() -> None:
    """Pre-change backups of running configs, kept on branch fabricops-state.

    \b
    Examples:
      fabricops backups list
      fabricops backups list rack03-leaf-a --format json
      fabricops backups show rack03-leaf-a --at 2025-01-02
    """


@backups_group.command("list")
@click.argument("device", required=False)
@root_option
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def backups_list_cmd(device: str | None, root: Path, fmt: str) -> None:
    """Every backup (of DEVICE), oldest first: device, UTC stamp, path.

    \b
    Examples:
      fabricops backups list
      fabricops backups list spine01
    """
    from deploy import list_backups

    backups = list_backups(root, device)
    if fmt == "json":
        rows = [{"device": b.device, "stamp": b.stamp, "path": b.path} for b in backups]
        click.echo(json.dumps(rows, indent=2))
        return
    if not backups:
        click.echo(f"no backups{' of ' + device if device else ''} on branch fabricops-state")
        return
    for b in backups:
        click.echo(f"{b.device:<22} {b.stamp}  {b.path}")


@backups_group.command("show")
@click.argument("device")
@click.option("--at", "when", default=None, help="A stamp, a prefix of one, or an ISO date: newest at or before it.")
@root_option
def backups_show_cmd(device: str, when: str | None, root: Path) -> None:
    """Print one backup of DEVICE (the newest, or the newest at or before --at).

    \b
    Examples:
      fabricops backups show spine01
      fabricops backups show spine01 --at 20250102T03
    """
    from deploy import find_backup, read_backup

    backup = find_backup(root, device, when)
    click.echo(f"! backup {backup.path}", err=True)
    click.echo(read_backup(root, backup), nl=False)
