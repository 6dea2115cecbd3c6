"""The drift audit: running configs through Nornir + NAPALM, compared with generated/ at a ref.

Each device ends in one of four states:

* ``in-sync``: equal by meaning (:mod:`drift.compare`);
* ``drifted``: at least one change;
* ``unreachable``: the running config could not be read (connection refused, timeout, error);
* ``unmanaged``: a device the fleet serves that git does not know. With ``--lab`` these are the
  devices of ``.lab/lab.json`` absent from the inventory at the ref; against real switches
  the inventory is the only list of devices, so there are none.

Exit codes (:meth:`Audit.exit_code`): 1 when a device is unreachable (unless
``allow_unreachable``), else 3 when one drifted or is unmanaged, else 0.

Examples:
    >>> shard_of("rack01-leaf-a", 4) == shard_of("rack01-leaf-a", 4)
    True
    >>> sorted({shard_of(f"leaf{i}", 3) for i in range(30)})
    [0, 1, 2]
    >>> parse_shard("2/4")
    (1, 4)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core.configtree import Change
from core.errors import FabricopsError
from core.fleet import LabTarget, open_fleet
from core.generated import Snapshot, open_snapshot
from core.secrets import load_values, placeholders, run_key
from drift.compare import compare_config

if TYPE_CHECKING:
    from nornir.core.task import Result, Task

__all__ = [
    "Audit",
    "DeployTag",
    "DeviceResult",
    "Status",
    "latest_deploy_tag",
    "merge_audits",
    "parse_shard",
    "run_audit",
    "shard_of",
]

Status = Literal["in-sync", "drifted", "unreachable", "unmanaged"]
DEPLOY_TAGS = "refs/tags/deploy/"
SCHEMA = 1


@dataclass(frozen=True)
class DeployTag:
    """The deploy tag that names what should run: its name, commit, creation date and tagger."""

    name: str
    commit: str
    date: str
    tagger: str = ""


@dataclass(frozen=True)
class DeviceResult:
    """The verdict for one device."""

    device: str
    status: Status
    changes: tuple[Change, ...] = ()
    notes: tuple[str, ...] = ()
    remediation: tuple[str, ...] = ()
    error: str = ""


@dataclass(frozen=True)
class Audit:
    """One audit run (or the merge of several shards)."""

    ref: str
    commit: str
    deploy_tag: DeployTag | None
    lab: bool
    started: str
    seconds: float
    devices: tuple[DeviceResult, ...]
    shards: tuple[str, ...] = ()
    allow_unreachable: bool = False
    root: str = field(default=".", compare=False)

    def count(self, status: Status) -> int:
        return sum(1 for d in self.devices if d.status == status)

    def exit_code(self, allow_unreachable: bool | None = None) -> int:
        """0 all in sync, 1 an unreachable device (unless allowed), 3 drift or unmanaged devices."""
        allow = self.allow_unreachable if allow_unreachable is None else allow_unreachable
        if self.count("unreachable") and not allow:
            return 1
        if self.count("drifted") or self.count("unmanaged"):
            return 3
        return 0

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict; :func:`audit_from_json` reads it back (for ``--merge``)."""
        data = asdict(self)
        data.pop("root")
        data["schema"] = SCHEMA
        return data


def audit_from_json(data: dict[str, Any]) -> Audit:
    """The :class:`Audit` that :meth:`Audit.to_json` wrote."""
    if data.get("schema") != SCHEMA:
        raise FabricopsError(f"report schema {data.get('schema')!r} is not {SCHEMA}: re-run 'fabricops drift'")
    tag = data.get("deploy_tag")
    devices = tuple(
        DeviceResult(
            device=d["device"],
            status=d["status"],
            changes=tuple(
                Change(tuple(c["path"]), c["kind"], c["line"], c.get("expected"), tuple(c.get("block", ())))
                for c in d.get("changes", ())
            ),
            notes=tuple(d.get("notes", ())),
            remediation=tuple(d.get("remediation", ())),
            error=d.get("error", ""),
        )
        for d in data["devices"]
    )
    return Audit(
        ref=data["ref"],
        commit=data["commit"],
        deploy_tag=DeployTag(**tag) if tag else None,
        lab=bool(data["lab"]),
        started=data["started"],
        seconds=float(data["seconds"]),
        devices=devices,
        shards=tuple(data.get("shards", ())),
        allow_unreachable=bool(data.get("allow_unreachable", False)),
    )


def shard_of(name: str, count: int) -> int:
    """The shard (0-based) of a device: sha1 of its name, so it never moves when others are added."""
    return int(hashlib.sha1(name.encode()).hexdigest(), 16) % count


def parse_shard(text: str) -> tuple[int, int]:
    """``i/N`` (1-based, as CI matrices count) -> (0-based index, N)."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise FabricopsError(f"--shard {text!r}: expected i/N, e.g. 1/4") from None
    if not 1 <= index <= count:
        raise FabricopsError(f"--shard {text!r}: i must be between 1 and N")
    return index - 1, count


_TAG_FORMAT = "--format=%(refname:short)%09%(objectname)%09%(*objectname)%09%(creatordate:iso-strict)%09%(taggername)"


def _parse_tag(out: str) -> DeployTag:
    name, obj, peeled, date, tagger = (out.strip().split("\t") + [""] * 5)[:5]
    return DeployTag(name, peeled or obj, date, tagger)


def latest_deploy_tag(root: Path) -> DeployTag | None:
    """The most recently created ``deploy/*`` tag, or ``None``."""
    import git

    try:
        repo = git.Repo(root)
        out = repo.git.for_each_ref(
            "--sort=-creatordate",
            "--count=1",
            _TAG_FORMAT,
            DEPLOY_TAGS,
        )
    except git.exc.GitError as exc:
        raise FabricopsError(f"cannot read deploy tags in {root}: {exc}") from exc
    if not out.strip():
        return None
    return _parse_tag(out)


def _tag_of(root: Path, ref: str) -> DeployTag | None:
    """The deploy tag ``ref`` names, if it is one (for the 'who could have caused it' line)."""
    import git

    short = ref.removeprefix("refs/tags/")
    if not short.startswith("deploy/"):
        return None
    try:
        out = git.Repo(root).git.for_each_ref(
            _TAG_FORMAT,
            f"refs/tags/{short}",
        )
    except git.exc.GitError:
        return None
    if not out.strip():
        return None
    return _parse_tag(out)


class _CompareFailed(Exception):
    """A comparison raised: a bug, re-raised with its traceback, never reported as unreachable."""


def _audit_devices(
    snapshot: Snapshot,
    names: Sequence[str],
    lab: LabTarget | None,
    workers: int,
    progress: Callable[[str], None],
    judge: Callable[[str, str], DeviceResult],
) -> dict[str, DeviceResult]:
    """Read each running config via Nornir + NAPALM ``get_config(retrieve='running')`` and judge it.

    The comparison runs in the device's worker thread, so it overlaps with the other devices'
    I/O instead of waiting for the slowest device.
    """
    from nornir_napalm.plugins.tasks import napalm_get

    nornir = open_fleet(snapshot, lab=lab, devices=names, workers=workers)

    def audit_one(task: Task) -> Result:
        from nornir.core.task import Result

        try:
            if task.host.data.get("unreachable"):
                raise FabricopsError(str(task.host.data["unreachable"]))
            sub = task.run(task=napalm_get, getters=["config"], getters_options={"config": {"retrieve": "running"}})
            running = str(sub[0].result["config"]["running"])
            try:
                verdict = judge(task.host.name, running)
            except Exception as exc:
                raise _CompareFailed(task.host.name) from exc
            return Result(host=task.host, result=verdict)
        finally:
            progress(task.host.name)

    result = nornir.run(task=audit_one, on_failed=True)
    # a device that dropped the connection must not fail the audit
    with contextlib.suppress(Exception):
        nornir.close_connections(on_failed=True)
    verdicts: dict[str, DeviceResult] = {}
    for name, multi in result.items():
        if not multi.failed:
            verdicts[name] = multi[0].result
            continue
        exc = next((r.exception for r in multi if r.exception is not None), None)
        if isinstance(exc, _CompareFailed) and exc.__cause__ is not None:
            raise exc.__cause__
        verdicts[name] = DeviceResult(name, "unreachable", error=_one_line(exc))
    return verdicts


def _one_line(exc: BaseException | None) -> str:
    if exc is None:
        return "failed"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:300]


def run_audit(
    root: Path,
    *,
    ref: str | None = None,
    devices: Sequence[str] = (),
    lab: bool = False,
    shard: tuple[int, int] | None = None,
    allow_unreachable: bool = False,
    workers: int = 20,
    progress: Callable[[int], Callable[[str], None]] | None = None,
) -> Audit:
    """Audit the fleet (or ``devices``, or one shard) against generated/ at ``ref``.

    ``ref`` defaults to the latest deploy tag, else ``HEAD``. ``progress(total)`` returns the
    callback that is called once per device as it finishes.
    """
    started = datetime.now(UTC)
    clock = time.perf_counter()
    deploy_tag = latest_deploy_tag(root)
    chosen = ref or (deploy_tag.name if deploy_tag else "HEAD")
    snapshot = open_snapshot(root, chosen)
    if ref is not None:
        deploy_tag = _tag_of(root, ref) or deploy_tag
    configs = snapshot.configs()
    hosts = snapshot.hosts()
    target = LabTarget.load(root) if lab else None
    known = sorted(hosts)
    unknown = sorted(set(devices) - set(known))
    if unknown:
        raise FabricopsError(f"unknown device(s) {', '.join(unknown)}: not in generated/inventory at {chosen}")
    managed = [name for name in known if not devices or name in devices]
    unmanaged = sorted(set(target.endpoints) - set(known)) if target is not None and not devices else []
    if shard is not None:
        managed = [name for name in managed if shard_of(name, shard[1]) == shard[0]]
        unmanaged = [name for name in unmanaged if shard_of(name, shard[1]) == shard[0]]
    names = sorted({p for text in configs.values() for p in placeholders(text)})
    values = load_values(names, lab_password=target.password if target is not None else None)
    key = run_key()

    def judge(name: str, running: str) -> DeviceResult:
        if name not in configs:
            return DeviceResult(name, "drifted", error=f"no generated/configs/{name}.cfg at {chosen}")
        platform = hosts[name].platform if name in hosts else "eos"
        comparison = compare_config(configs[name], running, values=values, key=key, platform=platform)
        status: Status = "drifted" if comparison.changes else "in-sync"
        return DeviceResult(name, status, comparison.changes, comparison.notes, comparison.remediation)

    tick = progress(len(managed)) if progress is not None else (lambda _name: None)
    verdicts = _audit_devices(snapshot, managed, target, workers, tick, judge) if managed else {}
    results = [verdicts[name] for name in managed]
    results += [DeviceResult(name, "unmanaged", error="served by the lab, not in git") for name in unmanaged]
    results.sort(key=lambda r: r.device)
    return Audit(
        ref=chosen,
        commit=snapshot.ref,
        deploy_tag=deploy_tag,
        lab=lab,
        started=started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        seconds=round(time.perf_counter() - clock, 3),
        devices=tuple(results),
        shards=(f"{shard[0] + 1}/{shard[1]}",) if shard else (),
        allow_unreachable=allow_unreachable,
        root=str(root),
    )


def load_report(path: Path) -> Audit:
    """An audit from a ``report.json`` (or a directory holding one)."""
    file = path / "report.json" if path.is_dir() else path
    try:
        return audit_from_json(json.loads(file.read_text()))
    except FileNotFoundError:
        raise FabricopsError(f"{file} does not exist: pass the --report-dir of a shard run") from None
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise FabricopsError(f"{file} is not a drift report: {exc}") from exc


def merge_audits(audits: Iterable[Audit]) -> Audit:
    """One audit from the reports of several shards of the same ref.

    Examples:
        >>> a = Audit("HEAD", "c1", None, True, "2026-01-01T00:00:00Z", 1.0, (DeviceResult("x", "in-sync"),), ("1/2",))
        >>> b = replace(a, started="2026-01-01T00:00:05Z", devices=(DeviceResult("y", "drifted"),), shards=("2/2",))
        >>> merged = merge_audits([b, a])
        >>> [d.device for d in merged.devices], merged.shards, merged.exit_code()
        (['x', 'y'], ('1/2', '2/2'), 3)
    """
    items = list(audits)
    if not items:
        raise FabricopsError("--merge needs at least one report directory")
    commits = {a.commit for a in items}
    if len(commits) > 1:
        raise FabricopsError(f"the reports audit different commits ({', '.join(sorted(commits))}): re-run the shards")
    by_device: dict[str, DeviceResult] = {}
    for audit in items:
        for result in audit.devices:
            if result.device in by_device:
                raise FabricopsError(f"{result.device} is in more than one report: were the shards of the same N?")
            by_device[result.device] = result
    first = min(items, key=lambda a: a.started)
    return replace(
        first,
        seconds=max(a.seconds for a in items),
        devices=tuple(by_device[name] for name in sorted(by_device)),
        shards=tuple(sorted(s for a in items for s in a.shards)),
        allow_unreachable=all(a.allow_unreachable for a in items),
    )
