"""Pre-change backups of running configs, kept on the ``fabricops-state`` branch.

A backup is ``backups/<device>/<UTC stamp>.cfg``: the running config as the device printed it,
with every secret whose value the secret store holds turned back into its ``<secret:NAME>``
placeholder and any other secret replaced by ``<masked:HASH>``, a keyed hash under a key that
outlives the run (:mod:`core.masking`): no value lands in git, and a restore matches each hash
against the live device's secrets and the store (:mod:`deploy.rollback`).
A device whose running config is the same as its newest backup gets no new file: that backup
already holds it.

Examples:
    >>> backup_path("rack01-leaf-a", "20250102T030405Z")
    'backups/rack01-leaf-a/20250102T030405Z.cfg'
    >>> parse_backup_path("backups/rack01-leaf-a/20250102T030405Z.cfg")
    Backup(device='rack01-leaf-a', stamp='20250102T030405Z')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from core import gitstate
from core.errors import FabricopsError

PREFIX = "backups/"
STAMP_FORMAT = "%Y%m%dT%H%M%SZ"
_PATH = re.compile(r"^backups/(?P<device>[^/]+)/(?P<stamp>\d{8}T\d{6}Z)\.cfg$")


@dataclass(frozen=True)
class Backup:
    """One stored backup."""

    device: str
    stamp: str

    @property
    def path(self) -> str:
        return backup_path(self.device, self.stamp)


def utc_stamp(now: datetime | None = None) -> str:
    """The compact UTC timestamp used in backup paths, record names and deploy tags.

    Examples:
        >>> utc_stamp(datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC))
        '20250102T030405Z'
    """
    return (now or datetime.now(UTC)).astimezone(UTC).strftime(STAMP_FORMAT)


def backup_path(device: str, stamp: str) -> str:
    return f"{PREFIX}{device}/{stamp}.cfg"


def parse_backup_path(path: str) -> Backup | None:
    match = _PATH.match(path)
    return Backup(match.group("device"), match.group("stamp")) if match else None


def when_prefix(when: str) -> str:
    """A ``--at WHEN`` value as a stamp prefix: a stamp prefix as is, an ISO date or time compacted.

    Examples:
        >>> when_prefix("2025-01-02")
        '20250102'
        >>> when_prefix("2025-01-02T03:04:05Z")
        '20250102T030405Z'
        >>> when_prefix("2025-01-02 03:04")
        '20250102T0304'
        >>> when_prefix("20250102T03")
        '20250102T03'
    """
    text = when.strip().replace(" ", "T").replace("-", "").replace(":", "")
    if text.endswith("+0000"):
        text = text[: -len("+0000")] + "Z"
    if not re.fullmatch(r"\d{1,8}(T\d{0,6}Z?)?", text):
        raise FabricopsError(f"--at {when!r}: give a backup stamp (20250102T030405Z), a prefix of one, or an ISO date")
    return text


def at_or_before(stamps: list[str], when: str) -> str | None:
    """The newest stamp at or before ``when`` (a prefix covers every stamp that starts with it).

    Examples:
        >>> stamps = ["20250101T100000Z", "20250102T090000Z", "20250102T180000Z", "20250103T000000Z"]
        >>> at_or_before(stamps, "2025-01-02")
        '20250102T180000Z'
        >>> at_or_before(stamps, "20250102T12")
        '20250102T090000Z'
        >>> at_or_before(stamps, "2024") is None
        True
    """
    prefix = when_prefix(when)
    eligible = [s for s in stamps if s[: len(prefix)] <= prefix]
    return max(eligible) if eligible else None


def list_backups(root: Path, device: str | None = None) -> list[Backup]:
    """Every backup (of one device if given), oldest first per device."""
    prefix = f"{PREFIX}{device}/" if device else PREFIX
    found = [parse_backup_path(p) for p in gitstate.list_files(root, prefix)]
    return sorted((b for b in found if b is not None), key=lambda b: (b.device, b.stamp))


def find_backup(root: Path, device: str, when: str | None = None) -> Backup:
    """The newest backup of ``device`` at or before ``when`` (the newest of all without it)."""
    backups = list_backups(root, device)
    if not backups:
        raise FabricopsError(f"{device}: no backup on branch {gitstate.BRANCH}: a deploy takes one before each change")
    if when is None:
        return backups[-1]
    stamp = at_or_before([b.stamp for b in backups], when)
    if stamp is None:
        oldest = backups[0].stamp
        raise FabricopsError(f"{device}: no backup at or before {when} (oldest {oldest}): see 'fabricops backups list'")
    return Backup(device, stamp)


def read_backup(root: Path, backup: Backup) -> str:
    data = gitstate.read_file(root, backup.path)
    if data is None:
        raise FabricopsError(f"{backup.path} is not on branch {gitstate.BRANCH}")
    return data.decode()


def write_backups(root: Path, configs: Mapping[str, str], stamp: str, message: str) -> dict[str, Backup]:
    """Store each device's (already secret-free) running config; returns the backup holding each.

    Devices whose config equals their newest backup keep that backup; the rest are committed
    together in one commit on the state branch, before this function returns.
    """
    newest: dict[str, Backup] = {b.device: b for b in list_backups(root) if b.device in configs}
    stored = gitstate.read_files(root, [b.path for b in newest.values()])
    holding: dict[str, Backup] = {}
    new: dict[str, bytes] = {}
    for device, text in sorted(configs.items()):
        latest = newest.get(device)
        if latest is not None and stored.get(latest.path) == text.encode():
            holding[device] = latest
            continue
        backup = Backup(device, stamp)
        new[backup.path] = text.encode()
        holding[device] = backup
    if new:
        gitstate.write_files(root, new, message)
    return holding
