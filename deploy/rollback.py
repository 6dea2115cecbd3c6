"""Restore one device's own pre-change backup through the deploy path.

``rollback --to TAG`` needs nothing of its own: it is a deploy of ``generated/`` at the tag.
``rollback --to-backup DEVICE@WHEN`` applies a backup taken by an earlier deploy, with the same
safety: a fresh backup, diff, commit-confirm and post-checks. A backup holds no secret value:
a value of the secret store is its ``<secret:NAME>`` placeholder, resolved again here; any other
is ``<masked:HASH>``, a keyed hash, restored from the live device's secrets or the store values
whose hash matches (:func:`core.masking.unmask`). A secret that neither holds is named and the
backup is not applied: nothing is dropped silently.

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
from core.masking import MASKED, secret_values, unmask
from core.secrets import store_values
from deploy.backups import find_backup, read_backup
from deploy.report import Report
from deploy.run import Progress, RunOptions, run_deploy
from deploy.targets import Target, open_target


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
    target = open_target(root, None, devices=[device], lab=lab, workers=workers, desired={device: text})
    if MASKED.search(text):
        candidates = [*_live_secrets(target, device), *store_values().values()]
        restored, missing = unmask(text, candidates, target.key)
        if missing:
            target.close()
            raise FabricopsError(
                f"{backup.path}: {len(missing)} secret(s) cannot be restored: {device} no longer has them "
                "and the secret store does not hold them; nothing was changed",
                [
                    *missing,
                    "add each value to the secret store (FABRICOPS_SECRET_<NAME> or the secrets file) and retry,",
                    f"or restore with 'fabricops rollback --to <deploy tag> --devices {device}'",
                ],
            )
        target.desired[device] = restored
    report = run_deploy(target, replace(options, tag=False, plan=None), kind="restore", progress=progress)
    for entry in report.devices.values():
        entry.detail = entry.detail or f"restored {backup.path}"
    return report


def _live_secrets(target: Target, device: str) -> list[str]:
    """The secret values the device holds now (none when it cannot be read: the run reports that)."""
    from nornir_napalm.plugins.tasks import napalm_get

    result = target.nornir.filter(filter_func=lambda host: host.name == device).run(
        task=napalm_get, getters=["config"], getters_options={"config": {"retrieve": "running"}}
    )
    target.nornir.data.reset_failed_hosts()
    multi = result[device]
    return [] if multi.failed else secret_values(str(multi[0].result["config"]["running"]))
