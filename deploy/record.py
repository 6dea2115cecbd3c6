"""Deploy records on the state branch, deploy tags on the deployed commit, and the plan file.

A record (``deploys/<stamp>.json``) is the report of one deploy, rollback or restore without
the diff bodies: ref, waves, and per device its status, diff summary and the backup that holds
its previous config. A successful deploy also gets an annotated tag ``deploy/<stamp>`` on the
commit whose ``generated/`` it applied; drift and ``rollback --to`` use those tags.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import gitstate
from core.errors import FabricopsError
from core.generated import DEPLOY_TAG_PREFIX
from deploy.backups import utc_stamp
from deploy.report import Report

TAG_PREFIX = DEPLOY_TAG_PREFIX
RECORDS = "deploys/"
PLAN_VERSION = 1


def record_path(stamp: str) -> str:
    return f"{RECORDS}{stamp}.json"


def _taken(root: Path, stamp: str) -> bool:
    import git

    repo = git.Repo(root)
    return f"{TAG_PREFIX}{stamp}" in repo.tags or gitstate.read_file(root, record_path(stamp)) is not None


def fresh_stamp(root: Path) -> str:
    """A UTC stamp no earlier deploy used (one deploy runs at a time; wait out a same-second one)."""
    stamp = utc_stamp()
    while _taken(root, stamp):
        time.sleep(0.2)
        stamp = utc_stamp()
    return stamp


def write_record(root: Path, report: Report) -> str:
    """Commit the report (without diff bodies) as ``deploys/<stamp>.json``; returns the path."""
    path = record_path(report.stamp)
    body = json.dumps(report.as_dict(with_diffs=False), indent=2, sort_keys=True) + "\n"
    gitstate.write_files(root, {path: body.encode()}, f"{report.kind} {report.stamp} of {report.ref[:12]}")
    return path


def tag_deploy(root: Path, report: Report) -> str:
    """Annotated tag ``deploy/<stamp>`` on the deployed commit; returns its name."""
    import git

    name = f"{TAG_PREFIX}{report.stamp}"
    devices = ", ".join(sorted(report.devices)) if len(report.devices) <= 8 else f"{len(report.devices)} devices"
    message = f"fabricops {report.kind} {report.stamp}: {devices}\n\nrecord: {record_path(report.stamp)}"
    try:
        git.Repo(root).create_tag(name, ref=report.ref, message=message)
    except git.exc.GitCommandError as exc:
        raise FabricopsError(f"could not tag {report.ref[:12]} as {name}: {exc.stderr.strip()}") from exc
    return name


def read_record(root: Path, stamp: str) -> dict[str, Any]:
    data = gitstate.read_file(root, record_path(stamp))
    if data is None:
        raise FabricopsError(f"no deploy record {record_path(stamp)} on branch {gitstate.BRANCH}")
    result: dict[str, Any] = json.loads(data)
    return result


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
