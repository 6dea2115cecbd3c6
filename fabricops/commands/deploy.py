"""``fabricops plan``, ``deploy``, ``rollback`` and ``backups``: apply generated/ to the fleet safely."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from core.errors import DifferencesFound, FabricopsError, PartialDeployFailure
from core.generated import PLAN_FILE

FORMATS = click.Choice(["text", "json"])
DEFAULT_PLAN = PLAN_FILE


def _devices(values: tuple[str, ...]) -> list[str]:
    return sorted({name.strip() for value in values for name in value.split(",") if name.strip()})


def _common(func: Any) -> Any:
    """Options every device verb takes."""
    options = [
        click.option(
            "--root",
            type=click.Path(file_okay=False, path_type=Path),
            default=Path("."),
            show_default=True,
            help="Repository root (a git work tree holding generated/).",
        ),
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
        click.option("--break-lock", is_flag=True, help="Take over a deploy lock left by a dead deploy."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _emit(report: Any, fmt: str, show_diffs: bool) -> None:
    if fmt == "json":
        click.echo(json.dumps(report.as_dict(with_diffs=True), indent=2, sort_keys=True))
    else:
        click.echo(report.text(show_diffs=show_diffs))


def _fail_on(report: Any) -> None:
    """Raise the error matching the report's exit code (after the report was printed)."""
    code = report.exit_code
    if code == 0:
        return
    failed = report.failed
    if code == 3:
        from deploy import Status

        pending = report.names(Status.PENDING)
        raise DifferencesFound(
            f"{len(pending)} device(s) have changes pending: review the plan, then 'fabricops deploy'"
        )
    names = ", ".join(failed[:10]) + (f" and {len(failed) - 10} more" if len(failed) > 10 else "")
    problems = [f"{n}: {report.devices[n].status.value} {report.devices[n].detail}".rstrip() for n in failed[:20]]
    if code == 4:
        raise PartialDeployFailure(
            f"{report.kind} partly failed: {len(failed)} device(s) not changed ({names})", problems
        )
    raise FabricopsError(f"{report.kind} failed: {len(failed)} device(s) not changed ({names})", problems)


def _options(revert_in: int, settle: float, batch: int, dry_run: bool, break_lock: bool, plan: Path | None) -> Any:
    from deploy import PlanFile, RunOptions

    return RunOptions(
        revert_in=revert_in,
        settle=settle,
        max_batch=batch,
        dry_run=dry_run,
        plan=PlanFile.load(plan) if plan is not None else None,
        break_lock=break_lock,
    )


@click.command("plan")
@_common
@click.option("--ref", default=None, help="Git ref of generated/ to plan (default: HEAD).")
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Plan file (default: ROOT/plan.json)."
)
@click.option("--summary", is_flag=True, help="Text output without the diff bodies.")
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
    discarded. The plan file holds the ref and a fingerprint of each device's live config,
    so that 'deploy --plan' applies exactly what was reviewed. Exit 0 when every device is
    in sync, 3 when changes are pending.

    \b
    Examples:
      fabricops plan --lab
      fabricops plan --ref origin/main --devices rack03-leaf-a,rack03-leaf-b --summary
      fabricops plan --format json --out /tmp/plan.json
    """
    from deploy import open_target, run_plan, write_plan
    from deploy.progress import device_progress

    target = open_target(root, ref, devices=_devices(devices), lab=lab, workers=workers)
    with device_progress(fmt == "text") as progress:
        report = run_plan(target, batch, progress)
    target.close()
    path = out or root / DEFAULT_PLAN
    write_plan(path, report)
    _emit(report, fmt, show_diffs=not summary)
    if fmt == "text":
        click.echo(f"plan written to {path}")
    _fail_on(report)


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
    break_lock: bool,
    ref: str | None,
    plan: Path | None,
) -> None:
    """Apply generated/ at REF to every device that differs, in waves, with commit-confirm.

    Per device: backup of the running config (committed on branch fabricops-state before
    anything is loaded), load + diff, commit with a revert timer, post-checks (the device
    answers, LLDP matches the cabling plan, cabled links are up), then confirm, or abort so
    that EOS restores the previous config. A canary goes first; no wave holds both leaves of
    an MLAG pair or two spines; a wave with a failure stops the rollout. On success the
    deployed commit is tagged deploy/<UTC stamp>. Exit 0 ok, 1 failed before any change,
    4 some devices changed and some did not.

    \b
    Examples:
      fabricops deploy --lab
      fabricops plan --out plan.json && fabricops deploy --plan plan.json
      fabricops deploy --devices rack03-leaf-a --dry-run
      fabricops deploy --format json --revert-in 120 --batch 4
    """
    from deploy import open_target, run_deploy
    from deploy.progress import device_progress

    options = _options(revert_in, settle, batch, dry_run, break_lock, plan)
    if plan is not None and ref is None:
        ref = options.plan.ref
    target = open_target(root, ref, devices=_devices(devices), lab=lab, workers=workers)
    with device_progress(fmt == "text") as progress:
        report = run_deploy(target, options, progress=progress)
    target.close()
    _emit(report, fmt, show_diffs=dry_run)
    _fail_on(report)


@click.command("rollback")
@_common
@_safety
@click.option("--to", "to_tag", default=None, help="A deploy tag (or any ref): re-apply generated/ as it was there.")
@click.option(
    "--to-backup",
    "to_backup",
    default=None,
    metavar="DEVICE@WHEN",
    help="Restore one device's own backup, the newest at or before WHEN.",
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
    break_lock: bool,
    to_tag: str | None,
    to_backup: str | None,
) -> None:
    """Return devices to a tagged version of generated/, or one device to its own backup.

    Both go through the deploy path: a fresh backup, diff, commit-confirm, post-checks and
    waves. NAPALM's rollback() is never used (on EOS it restores the startup config).

    \b
    Examples:
      fabricops rollback --to deploy/20250102T030405Z --lab
      fabricops rollback --to deploy/20250102T030405Z --devices spine01 --dry-run
      fabricops rollback --to-backup rack03-leaf-a@2025-01-02 --lab
    """
    from deploy import open_target, restore_backup, run_deploy
    from deploy.progress import device_progress

    if (to_tag is None) == (to_backup is None):
        raise click.UsageError("give exactly one of --to TAG or --to-backup DEVICE@WHEN")
    options = _options(revert_in, settle, batch, dry_run, break_lock, None)
    with device_progress(fmt == "text") as progress:
        if to_backup is not None:
            if devices:
                raise click.UsageError("--to-backup names its device: drop --devices")
            report = restore_backup(root, to_backup, options, lab=lab, workers=workers, progress=progress)
        else:
            assert to_tag is not None
            target = open_target(root, to_tag, devices=_devices(devices), lab=lab, workers=workers)
            report = run_deploy(target, options, kind="rollback", progress=progress)
            target.close()
    _emit(report, fmt, show_diffs=dry_run)
    _fail_on(report)


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
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True)
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
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True)
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
