"""The state of record: per device, what its running config was last verified to be.

Every deploy, rollback and restore writes ``devices/<device>.json`` on the state branch for
each device it verified: changed and confirmed, or found already in sync (verifying is
recording). The record names the ``generated/`` commit the device runs (or the backup it was
restored to), when, and by which run. Deploy writes it; drift reads it to tell a merged change
that is not deployed yet (``pending``) from a change made outside git (``drift``); ``fabricops
status`` shows it.

Example:
    >>> r = DeviceRecord("leaf1", "a" * 40, verified="2026-01-02T03:04:05Z", run="deploy 20260102T030405Z")
    >>> DeviceRecord.from_json(r.to_json()) == r
    True
    >>> record_path("leaf1"), r.source
    ('devices/leaf1.json', 'aaaaaaaaaaaa')
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

from core import gitstate

PREFIX = "devices/"


def record_path(device: str) -> str:
    return f"{PREFIX}{device}.json"


@dataclass(frozen=True)
class DeviceRecord:
    """What one device was last verified to run."""

    device: str
    #: The generated/ commit (full sha) whose config it runs; "" when it runs a restored backup.
    commit: str
    #: The backup it was restored to (``backups/<device>/<stamp>.cfg``), else "".
    backup: str = ""
    #: When it was verified (UTC, ISO 8601).
    verified: str = ""
    #: The run that verified it: "<kind> <stamp>" (deploy, rollback, restore).
    run: str = ""
    #: That run's record on the state branch.
    record: str = ""
    by: str = ""
    ci_run: str = ""

    @property
    def source(self) -> str:
        """The short commit, or the backup, it runs."""
        return self.commit[:12] if self.commit else self.backup

    def to_json(self) -> bytes:
        return (json.dumps(asdict(self), indent=2, sort_keys=True) + "\n").encode()

    @classmethod
    def from_json(cls, data: bytes) -> DeviceRecord:
        raw = json.loads(data)
        fields = {name: str(raw.get(name) or "") for name in cls.__dataclass_fields__}
        return cls(**fields)


def read_records(root: Path) -> dict[str, DeviceRecord]:
    """Every device's record on the state branch, by device name."""
    paths = [p for p in gitstate.list_files(root, PREFIX) if p.endswith(".json")]
    out = {}
    for path, data in gitstate.read_files(root, paths).items():
        try:
            record = DeviceRecord.from_json(data)
        except (ValueError, TypeError):
            continue  # not ours to guess at: such a device reads as never recorded
        out[PurePosixPath(path).stem] = record
    return out


def record_files(records: dict[str, DeviceRecord]) -> dict[str, bytes]:
    """The files that store ``records`` on the state branch."""
    return {record_path(name): record.to_json() for name, record in sorted(records.items())}


@dataclass(frozen=True)
class StatusRow:
    """One line of ``fabricops status``."""

    device: str
    record: DeviceRecord | None
    tag: str
    #: current (HEAD gives it the config it runs), pending (HEAD gives another), never deployed,
    #: gone (not in generated/ at HEAD), or unknown (its recorded commit is not in this clone).
    intent: str

    def as_dict(self) -> dict[str, str]:
        record = self.record or DeviceRecord(self.device, "")
        return {**asdict(record), "device": self.device, "tag": self.tag, "intent": self.intent}


def fleet_status(root: Path, devices: list[str]) -> list[StatusRow]:
    """The state of record of ``devices`` (default: the inventory at HEAD and every recorded device)."""
    from core.generated import config_at, open_repo, open_snapshot, unknown_names, version_tags

    gitstate.pull(root)
    head = open_snapshot(root, "HEAD")
    configs = head.configs()
    records = read_records(root)
    known = set(head.hosts()) | set(records)
    if set(devices) - known:
        raise unknown_names("device", set(devices) - known, known, f"generated/ at {head.short} or the state of record")
    tags = version_tags(open_repo(root))
    rows = []
    for name in devices or sorted(known):
        record = records.get(name)
        if name not in configs:
            intent = "gone"
        elif record is None:
            intent = "never deployed"
        elif record.commit and (deployed := config_at(root, record.commit, name)) is None:
            intent = "unknown"  # the recorded commit is not in this clone (git fetch)
        elif record.commit and deployed == configs[name]:
            intent = "current"
        else:
            intent = "pending"
        rows.append(StatusRow(name, record, tags.get(record.commit, "") if record else "", intent))
    return rows


def render_status(rows: list[StatusRow]) -> str:
    """The text table of ``fabricops status``."""
    width = max([len(row.device) for row in rows] + [6])
    out = [f"{'device':<{width}}  {'deployed':<37}  {'verified':<20}  {'run':<25}  {'intent':<14}  by"]
    for row in rows:
        r = row.record
        deployed = f"{r.source} {row.tag}".strip() if r else "-"
        by = (r.by + (f" {r.ci_run}" if r.ci_run else "")) if r else ""
        verified, run = (r.verified, r.run) if r else ("-", "-")
        out.append(f"{row.device:<{width}}  {deployed:<37}  {verified:<20}  {run:<25}  {row.intent:<14}  {by}".rstrip())
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.intent] = counts.get(row.intent, 0) + 1
    out.append(f"{len(rows)} devices: " + ", ".join(f"{n} {intent}" for intent, n in sorted(counts.items())))
    return "\n".join(out) + "\n"
