"""Rollbacks: a fleet version by name (``previous`` too), or devices' own backups, through the deploy path.

``rollback --to VERSION`` is a deploy of ``generated/`` at that version (a deploy tag, any ref,
or ``previous``: the fleet version before the current one). A device of today's fleet that the
version did not have is reported ``absent`` and left as it is; ``--reset-missing`` returns such
devices to their **base config**: their oldest backup, the config they ran before fabricops
first changed them.

``rollback --to-backup DEVICE@WHEN`` applies a backup taken by an earlier deploy, with the same
safety: a fresh backup, diff, commit-confirm and post-checks. A backup stores secrets as
``<secret:NAME>`` placeholders, resolved again here; a secret fabricops did not know when the
backup was taken was stored only as ``<redacted:...>`` and such a backup is refused.

Examples:
    >>> parse_spec("rack01-leaf-a@2025-01-02")
    ('rack01-leaf-a', '2025-01-02')
    >>> parse_spec("spine01")
    ('spine01', None)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from core.errors import FabricopsError
from core.generated import resolve_commit
from deploy.backups import REDACTED, Backup, find_backup, list_backups, read_backup
from deploy.record import previous_version
from deploy.report import Report
from deploy.run import Progress, RunOptions, run_deploy
from deploy.targets import MeaningCompare, open_target

PREVIOUS = "previous"


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``DEVICE@WHEN`` (or just ``DEVICE``: its newest backup) as (device, when)."""
    device, _, when = spec.partition("@")
    if not device:
        raise FabricopsError(f"--to-backup {spec!r}: give DEVICE@WHEN, e.g. rack01-leaf-a@2025-01-02")
    return device, when or None


def resolve_version(root: Path, to: str) -> str:
    """The ref ``--to`` names: ``previous`` is the fleet version before the current one."""
    if to != PREVIOUS:
        resolve_commit(root, to)  # a bad tag or ref is one line naming it and what exists
        return to
    found = previous_version(root)
    if found is None:
        raise FabricopsError("--to previous: there is no earlier fleet version (see 'fabricops history')")
    return found


def base_backups(root: Path, devices: Iterable[str]) -> dict[str, Backup]:
    """Each device's base config: its oldest backup (what it ran before fabricops first changed it)."""
    out = {}
    for device in devices:
        found = list_backups(root, device)
        if not found:
            raise FabricopsError(f"{device}: no backup on the state branch, so no base config to return it to")
        out[device] = found[0]
    return out


def restore_backups(
    root: Path,
    backups: dict[str, Backup],
    options: RunOptions,
    *,
    lab: bool = False,
    workers: int = 20,
    progress: Progress | None = None,
    meaning: MeaningCompare | None = None,
) -> Report:
    """Apply each device's given backup in one run; returns the run's report."""
    texts = {device: read_backup(root, backup) for device, backup in backups.items()}
    for device, text in texts.items():
        if REDACTED in text:
            raise FabricopsError(
                f"{backups[device].path} holds a secret that was redacted when it was stored: "
                "it cannot be restored as is",
                [
                    "set the secret in FABRICOPS_SECRET_<NAME> before the next deploy so backups keep a placeholder,",
                    f"or restore with 'fabricops rollback --to <deploy tag> --devices {device}'",
                ],
            )
    restore = {device: (backups[device].path, texts[device]) for device in backups}
    target = open_target(
        root, None, devices=sorted(backups), lab=lab, workers=workers, restore=restore, meaning=meaning
    )
    report = run_deploy(target, replace(options, tag=False, plan=None), kind="restore", progress=progress)
    for device, entry in report.devices.items():
        entry.detail = entry.detail or f"restored {backups[device].path}"
    return report


def restore_backup(
    root: Path,
    spec: str,
    options: RunOptions,
    *,
    lab: bool = False,
    workers: int = 20,
    progress: Progress | None = None,
    meaning: MeaningCompare | None = None,
) -> Report:
    """Apply the newest backup of the device at or before WHEN; returns the run's report."""
    device, when = parse_spec(spec)
    backup = find_backup(root, device, when)
    return restore_backups(
        root, {device: backup}, options, lab=lab, workers=workers, progress=progress, meaning=meaning
    )
