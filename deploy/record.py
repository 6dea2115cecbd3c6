"""Run records and the state of record on the state branch, fleet-version tags, and the plan file.

Every deploy, rollback and restore (not a dry run) ends with one commit on ``fabricops-state``:

* ``deploys/<stamp>.json``: the run's report without the diff bodies (ref, waves, per device
  its status, outcome, diff summary and the backup holding its previous config, who ran it);
* ``devices/<device>.json`` for every device the run verified (:mod:`core.deployed`).

A tag ``deploy/<stamp>`` marks a **fleet version**: it is made by a run over the whole fleet (no
``--devices``) that verified every device at the ref, when the newest fleet version is another
commit. A run over a few devices, or one that leaves a device behind, makes no tag; a later
run over the whole fleet (a no-op deploy verifies too) makes it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core import gitstate
from core.deployed import DeviceRecord, record_files
from core.errors import FabricopsError
from core.generated import DEPLOY_TAG_PREFIX, deploy_tag, deploy_tags, open_repo
from deploy.backups import STAMP_FORMAT, utc_stamp
from deploy.device import Status
from deploy.report import OUTCOMES, Report

TAG_PREFIX = DEPLOY_TAG_PREFIX
RECORDS = "deploys/"
PLAN_VERSION = 1
#: Statuses after which a device is known to run the run's config: recorded in its state of record.
VERIFIED = frozenset({Status.CHANGED, Status.UNCHANGED})


def record_path(stamp: str) -> str:
    return f"{RECORDS}{stamp}.json"


def _taken(root: Path, stamp: str) -> bool:
    return deploy_tag(stamp) in [t.name for t in open_repo(root).tags] or (
        gitstate.read_file(root, record_path(stamp)) is not None
    )


def fresh_stamp(root: Path) -> str:
    """A UTC stamp no earlier run used (one run holds the fleet at a time; wait out a same-second one)."""
    stamp = utc_stamp()
    while _taken(root, stamp):
        time.sleep(0.2)
        stamp = utc_stamp()
    return stamp


def stamp_time(stamp: str) -> str:
    """A stamp as ISO 8601.

    Example:
        >>> stamp_time("20260102T030405Z")
        '2026-01-02T03:04:05Z'
    """
    return datetime.strptime(stamp, STAMP_FORMAT).replace(tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def newest_version(root: Path) -> tuple[str, str] | None:
    """The newest fleet version: (tag, commit), or None before the first."""
    repo = open_repo(root)
    tags = deploy_tags(repo)
    if not tags:
        return None
    return tags[-1], str(repo.commit(tags[-1]).hexsha)


def write_run(root: Path, report: Report, verified: dict[str, DeviceRecord], fleet: list[str] | None) -> None:
    """Record the run and its verified devices in one commit; tag a new fleet version.

    ``fleet`` is every device of the inventory at the ref when the run covered the whole fleet
    (None otherwise): the ref is a fleet version when each of them was verified at it.
    """
    whole = bool(fleet) and all(name in verified and verified[name].commit == report.ref for name in fleet or ())
    newest = newest_version(root)
    if whole and (newest is None or newest[1] != report.ref):
        report.tag = deploy_tag(report.stamp)
    report.record = record_path(report.stamp)
    body = json.dumps(report.as_dict(with_diffs=False), indent=2, sort_keys=True) + "\n"
    files = {report.record: body.encode(), **record_files(verified)}
    gitstate.write_files(root, files, f"{report.kind} {report.stamp} of {report.ref[:12]}: {report.summary()}")
    if report.tag:
        _tag(root, report)
        gitstate.push_tag(root, report.tag)


def _tag(root: Path, report: Report) -> None:
    """Annotated tag ``deploy/<stamp>`` on the deployed commit."""
    import git

    count = len(report.devices)
    devices = ", ".join(sorted(report.devices)) if count <= 8 else f"{count} devices"
    message = f"fabricops {report.kind} {report.stamp}: {devices}\n\nrecord: {record_path(report.stamp)}"
    try:
        open_repo(root).create_tag(report.tag, ref=report.ref, message=message)
    except git.exc.GitCommandError as exc:
        raise FabricopsError(f"could not tag {report.ref[:12]} as {report.tag}: {exc.stderr.strip()}") from exc


def read_record(root: Path, stamp: str) -> dict[str, Any]:
    data = gitstate.read_file(root, record_path(stamp))
    if data is None:
        raise FabricopsError(f"no deploy record {record_path(stamp)} on branch {gitstate.BRANCH}")
    result: dict[str, Any] = json.loads(data)
    return result


@dataclass(frozen=True)
class RunEntry:
    """One line of ``fabricops history``."""

    stamp: str
    kind: str
    ref: str
    tag: str
    by: str
    result: str
    #: Outcome (changed, reverted, failed, untouched) -> how many devices.
    outcomes: dict[str, int]

    @property
    def when(self) -> str:
        return stamp_time(self.stamp)


def _result(data: dict[str, Any]) -> str:
    code = int(data.get("exit_code", 0))
    return {0: "ok", 1: "failed", 4: "partial"}.get(code, f"exit {code}")


def list_runs(root: Path) -> list[RunEntry]:
    """Every deploy, rollback and restore on record, oldest first."""
    paths = [p for p in gitstate.list_files(root, RECORDS) if p.endswith(".json")]
    runs = []
    for path, data in sorted(gitstate.read_files(root, paths).items()):
        try:
            raw = json.loads(data)
            outcomes = {name: len(raw.get(name) or []) for name in OUTCOMES}
            runs.append(
                RunEntry(
                    str(raw.get("stamp") or Path(path).stem),
                    str(raw.get("kind", "deploy")),
                    str(raw.get("ref", "")),
                    str(raw.get("tag", "")),
                    str(raw.get("by", "")),
                    _result(raw),
                    outcomes,
                )
            )
        except (ValueError, TypeError, AttributeError):
            continue
    return runs


def previous_version(root: Path) -> str | None:
    """The fleet version before the current one: the newest tag older than the newest, of another commit."""
    repo = open_repo(root)
    tags = deploy_tags(repo)
    commits = {tag: str(repo.commit(tag).hexsha) for tag in tags}
    older = [tag for tag in tags[:-1] if commits[tag] != commits[tags[-1]]]
    return older[-1] if older else None


@dataclass(frozen=True)
class PlanFile:
    """A reviewed plan: the ref it was made for and each device's live-config fingerprint."""

    ref: str
    fingerprints: dict[str, str]
    path: Path

    @classmethod
    def load(cls, path: Path) -> PlanFile:
        try:
            data = json.loads(path.read_text())
            fingerprints = {name: str(d["fingerprint"]) for name, d in data["devices"].items() if d.get("fingerprint")}
            return cls(str(data["ref"]), fingerprints, path)
        except FileNotFoundError:
            raise FabricopsError(f"plan file {path} does not exist: run 'fabricops plan --out {path}'") from None
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise FabricopsError(
                f"plan file {path} is not a fabricops plan ({exc}): run 'fabricops plan' again"
            ) from exc


def write_plan(path: Path, report: Report) -> None:
    """The plan file: the report with diffs, the ref it was made for and the format version."""
    data = {"version": PLAN_VERSION, **report.as_dict(with_diffs=True)}
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    tmp.replace(path)
