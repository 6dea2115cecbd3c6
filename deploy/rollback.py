"""Rollbacks: a fleet version by name (``previous`` too), or devices' own backups, through the deploy path.

``rollback --to VERSION`` is a deploy of ``generated/`` at that version (a deploy tag, any ref,
or ``previous``: the fleet version before the current one). A device of today's fleet that the
version did not have is reported ``absent`` and left as it is; ``--reset-missing`` returns such
devices to their **base config**: their oldest backup, the config they ran before fabricops
first changed them.

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

from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from core.errors import FabricopsError
from core.generated import resolve_commit
from core.masking import MASKED, secret_values, unmask
from core.secrets import store_values
from deploy.backups import Backup, find_backup, list_backups, read_backup
from deploy.record import previous_version
from deploy.report import Report
from deploy.run import Progress, RunOptions, run_deploy
from deploy.targets import MeaningCompare, Target, open_target

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
    restore = {device: (backups[device].path, texts[device]) for device in backups}
    target = open_target(
        root, None, devices=sorted(backups), lab=lab, workers=workers, restore=restore, meaning=meaning
    )
    for device, text in texts.items():
        if MASKED.search(text):
            target.desired[device] = _unmasked(target, device, backups[device], text)
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


def _unmasked(target: Target, device: str, backup: Backup, text: str) -> str:
    """``text`` with each masked secret filled from the device or the secret store, by keyed hash."""
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
    return restored


def _live_secrets(target: Target, device: str) -> list[str]:
    """The secret values the device holds now (none when it cannot be read: the run reports that)."""
    from nornir_napalm.plugins.tasks import napalm_get

    result = target.nornir.filter(filter_func=lambda host: host.name == device).run(
        task=napalm_get, getters=["config"], getters_options={"config": {"retrieve": "running"}}
    )
    target.nornir.data.reset_failed_hosts()
    multi = result[device]
    return [] if multi.failed else secret_values(str(multi[0].result["config"]["running"]))
