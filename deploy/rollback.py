"""Restore one device's own pre-change backup through the deploy path.

``rollback --to TAG`` needs nothing of its own: it is a deploy of ``generated/`` at the tag.
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

from dataclasses import replace
from pathlib import Path

from core.errors import FabricopsError
from deploy.backups import REDACTED, find_backup, read_backup
from deploy.report import Report
from deploy.run import Progress, RunOptions, run_deploy
from deploy.targets import open_target


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``DEVICE@WHEN`` (or just ``DEVICE``: its newest backup) as (device, when)."""
    device, _, when = spec.partition("@")
    if not device:
        raise FabricopsError(f"--to-backup {spec!r}: give DEVICE@WHEN, e.g. rack01-leaf-a@2025-01-02")
    return device, when or None


def restore_backup(
    root: Path,
    spec: str,
    options: RunOptions,
    *,
    lab: bool = False,
    workers: int = 20,
    progress: Progress | None = None,
) -> Report:
    """Apply the newest backup of the device at or before WHEN; returns the run's report."""
    device, when = parse_spec(spec)
    backup = find_backup(root, device, when)
    text = read_backup(root, backup)
    if REDACTED in text:
        raise FabricopsError(
            f"{backup.path} holds a secret that was redacted when it was stored: it cannot be restored as is",
            [
                "set the secret in FABRICOPS_SECRET_<NAME> before the next deploy so backups keep a placeholder,",
                f"or restore with 'fabricops rollback --to <deploy tag> --devices {device}'",
            ],
        )
    target = open_target(root, None, devices=[device], lab=lab, workers=workers, desired={device: text})
    report = run_deploy(target, replace(options, tag=False, plan=None), kind="restore", progress=progress)
    for entry in report.devices.values():
        entry.detail = entry.detail or f"restored {backup.path}"
    return report
