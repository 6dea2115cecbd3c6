"""The drift audit: running configs through Nornir + NAPALM, judged against what was deployed and what is merged.

Each device is compared, by meaning (:mod:`drift.compare`), with two configs of ``generated/``:
the one it was **last deployed** with (its state of record on ``fabricops-state``, written by
every deploy, rollback and restore: :mod:`core.deployed`) and the one **intended** now (``--ref``,
default ``HEAD``). It ends in exactly one state:

* ``in-sync``: it runs the intended config;
* ``pending``: it runs its last deployed config and the intended one differs: a merged change
  not deployed yet. Not drift: no revert is offered, the deploy that applies it is;
* ``drift``: it differs from its last deployed config, which is also the intended one. The
  revert restores the last deployed config, never an older one;
* ``drift+pending``: it differs from its last deployed config, and a merged change is pending
  too. The changes listed are the drift (against the deployed config);
* ``unreachable``: its config could not be read; the reason is the finding (a refused
  connection, failed authentication, a timeout), never a crash;
* ``unmanaged``: a switch with no generated config: in the inventory without one, an LLDP
  neighbour of a managed switch that neither the inventory nor the cabling plan knows, or a
  device the lab serves that git does not know.

A device with no state of record is compared with the newest fleet version (``deploy/*`` tag)
that has it, else with the intended config (never deployed by fabricops).

Exit codes (:meth:`Audit.exit_code`): 1 when a device is unreachable (unless
``allow_unreachable``, then it is a finding like the others), else 3 when any device is not
in sync, else 0.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from core import gitstate
from core.configtree import Change
from core.deployed import DeviceRecord, read_records
from core.errors import FabricopsError
from core.fleet import LabTarget, describe_error, device_errors, open_fleet, preload_drivers
from core.generated import (
    configs_at,
    deploy_tags,
    open_repo,
    open_snapshot,
    unknown_names,
    version_tags,
)
from core.platforms.versions import USER_TABLE, version_from_header
from core.secrets import load_values, placeholders, run_key
from drift.memo import InSyncMemo

if TYPE_CHECKING:
    from nornir.core.task import Result, Task

__all__ = [
    "STATUSES",
    "Audit",
    "DeployTag",
    "Deployed",
    "DeviceResult",
    "DriftStatus",
    "latest_deploy_tag",
    "merge_audits",
    "parse_shard",
    "run_audit",
    "shard_of",
]

DriftStatus = Literal["in-sync", "pending", "drift", "drift+pending", "unreachable", "unmanaged"]
STATUSES: tuple[DriftStatus, ...] = ("in-sync", "pending", "drift", "drift+pending", "unreachable", "unmanaged")
#: Statuses whose device differs from what was deployed: the report offers a revert and an adoption.
DRIFTED: tuple[DriftStatus, ...] = ("drift", "drift+pending")
SCHEMA = 2


@dataclass(frozen=True)
class DeployTag:
    """A fleet-version tag: its name, commit, creation date and tagger."""

    name: str
    commit: str
    date: str
    tagger: str = ""


@dataclass(frozen=True)
class Deployed:
    """The config a device was compared with as its last deployed one, and where that came from."""

    commit: str
    backup: str = ""
    tag: str = ""
    verified: str = ""
    run: str = ""
    by: str = ""
    #: record (its state of record), fleet version (no record: the newest deploy tag that has
    #: it), or intended (never deployed by fabricops: compared with the intended config).
    source: str = "record"


@dataclass(frozen=True)
class DeviceResult:
    """The verdict for one device."""

    device: str
    status: DriftStatus
    #: The drift: how the live config differs from the last deployed one.
    changes: tuple[Change, ...] = ()
    #: What a deploy of the intended config would change (pending and drift+pending).
    pending: tuple[Change, ...] = ()
    notes: tuple[str, ...] = ()
    remediation: tuple[str, ...] = ()
    error: str = ""
    deployed: Deployed | None = None
    #: For an unmanaged switch found over LLDP: "<managed switch> <port>" it was seen from.
    seen_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Audit:
    """One audit run (or the merge of several shards)."""

    ref: str
    commit: str
    lab: bool
    started: str
    seconds: float
    devices: tuple[DeviceResult, ...]
    shards: tuple[str, ...] = ()
    allow_unreachable: bool = False
    notes: tuple[str, ...] = ()
    #: The merge of shard reports (then a shard without a report is a finding).
    merged: bool = False
    root: str = field(default=".", compare=False)

    def count(self, status: DriftStatus) -> int:
        return sum(1 for d in self.devices if d.status == status)

    def exit_code(self, allow_unreachable: bool | None = None) -> int:
        """0 all in sync, 1 an unreachable device (unless allowed), 3 any other finding."""
        allow = self.allow_unreachable if allow_unreachable is None else allow_unreachable
        if self.count("unreachable") and not allow:
            return 1
        return 3 if any(d.status != "in-sync" for d in self.devices) or self.missing_shards() else 0

    def missing_shards(self) -> list[str]:
        """Shards of a merge whose report is absent (their devices were not audited)."""
        if not self.merged or not self.shards:
            return []
        count = int(self.shards[0].split("/")[1])
        return [f"{i}/{count}" for i in range(1, count + 1) if f"{i}/{count}" not in self.shards]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict; :func:`audit_from_json` reads it back (for ``--merge``)."""
        data = asdict(self)
        data.pop("root")
        data["schema"] = SCHEMA
        return data


def _changes(raw: Iterable[dict[str, Any]]) -> tuple[Change, ...]:
    return tuple(
        Change(tuple(c["path"]), c["kind"], c["line"], c.get("expected"), tuple(c.get("block", ()))) for c in raw
    )


def audit_from_json(data: dict[str, Any]) -> Audit:
    """The :class:`Audit` that :meth:`Audit.to_json` wrote."""
    if data.get("schema") != SCHEMA:
        raise FabricopsError(f"report schema {data.get('schema')!r} is not {SCHEMA}: re-run 'fabricops drift'")
    devices = tuple(
        DeviceResult(
            device=d["device"],
            status=d["status"],
            changes=_changes(d.get("changes", ())),
            pending=_changes(d.get("pending", ())),
            notes=tuple(d.get("notes", ())),
            remediation=tuple(d.get("remediation", ())),
            error=d.get("error", ""),
            deployed=Deployed(**d["deployed"]) if d.get("deployed") else None,
            seen_by=tuple(d.get("seen_by", ())),
        )
        for d in data["devices"]
    )
    return Audit(
        ref=data["ref"],
        commit=data["commit"],
        lab=bool(data["lab"]),
        started=data["started"],
        seconds=float(data["seconds"]),
        devices=devices,
        shards=tuple(data.get("shards", ())),
        allow_unreachable=bool(data.get("allow_unreachable", False)),
        notes=tuple(data.get("notes", ())),
        merged=bool(data.get("merged", False)),
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


def latest_deploy_tag(root: Path) -> DeployTag | None:
    """The newest fleet version (``deploy/*`` tag), or ``None``."""
    tags = deploy_tags(open_repo(root))
    if not tags:
        return None
    out = str(open_repo(root).git.for_each_ref(_TAG_FORMAT, f"refs/tags/{tags[-1]}"))
    name, obj, peeled, date, tagger = (out.strip().split("\t") + [""] * 5)[:5]
    return DeployTag(name, peeled or obj, date, tagger)


class _CompareFailed(Exception):
    """A comparison raised: a bug, re-raised with its traceback, never reported as unreachable."""


@dataclass(frozen=True)
class _Read:
    """What was read from one device: its verdict and its LLDP neighbours (port -> [(name, port)])."""

    verdict: DeviceResult
    lldp: Mapping[str, list[tuple[str, str]]]


def _audit_devices(
    nornir: Any,
    progress: Callable[[str], None],
    judge: Callable[[str, str, str | None], DeviceResult],
) -> dict[str, _Read]:
    """Read each running config and LLDP neighbours through the stock NAPALM driver, and judge it.

    The release whose default lines the comparison drops is the one the running config's
    ``! device: NAME (MODEL, EOS-VERSION)`` header names, as EOS prints it; a config without
    that header asks ``get_facts`` (its ``os_version``, from ``show version``): one request
    less per device, and the largest (``get_facts`` also reads ``show interfaces``).

    The comparison runs in the device's worker thread, so it overlaps with the other devices'
    I/O instead of waiting for the slowest device.
    """

    def audit_one(task: Task) -> Result:
        from nornir.core.task import Result

        name = task.host.name
        try:
            if task.host.data.get("unreachable"):
                return Result(
                    host=task.host,
                    result=_Read(DeviceResult(name, "unreachable", error=str(task.host.data["unreachable"])), {}),
                )
            try:
                driver = task.host.get_connection("napalm", task.nornir.config)
                running = str(driver.get_config(retrieve="running")["running"])
                version = version_from_header(running) or str(driver.get_facts().get("os_version") or "") or None
                lldp = {
                    port: [(str(n.get("hostname", "")), str(n.get("port", ""))) for n in neighbours]
                    for port, neighbours in driver.get_lldp_neighbors().items()
                }
            except device_errors() as exc:
                return Result(
                    host=task.host, result=_Read(DeviceResult(name, "unreachable", error=describe_error(exc)), {})
                )
            try:
                verdict = judge(name, running, version)
            except Exception as exc:
                raise _CompareFailed(name) from exc
            return Result(host=task.host, result=_Read(verdict, lldp))
        finally:
            progress(name)

    result = nornir.run(task=audit_one, on_failed=True)
    # a device that dropped the connection must not fail the audit
    with contextlib.suppress(Exception):
        nornir.close_connections(on_failed=True)
    reads: dict[str, _Read] = {}
    for name, multi in result.items():
        if not multi.failed:
            reads[name] = multi[0].result
            continue
        exc = next((r.exception for r in multi if r.exception is not None), None)
        if isinstance(exc, _CompareFailed) and exc.__cause__ is not None:
            raise exc.__cause__
        reads[name] = _Read(DeviceResult(name, "unreachable", error=describe_error(exc) if exc else "failed"), {})
    return reads


def _short(name: str) -> str:
    """LLDP may carry the FQDN: the host part names the switch."""
    return name.split(".", 1)[0]


def _lldp_unmanaged(reads: Mapping[str, _Read], known: set[str], planned: set[tuple[str, str]]) -> dict[str, list[str]]:
    """LLDP neighbours that nothing in git knows: name -> ["<managed switch> <port>", ...].

    A port the cabling plan cables to a managed switch shows that switch, whatever hostname it
    now announces (its own audit reports a renamed switch): only the other ports are looked at.
    """
    found: dict[str, list[str]] = {}
    for device, read in sorted(reads.items()):
        for port, neighbours in sorted(read.lldp.items()):
            if (device, port) in planned:
                continue
            for neighbour, _their_port in neighbours:
                name = _short(neighbour)
                if name and name not in known:
                    found.setdefault(name, []).append(f"{device} {port}")
    return found


@dataclass(frozen=True)
class _Baseline:
    """What one device is judged against: its last deployed config and the intended one."""

    deployed_text: str
    deployed: Deployed
    intended_text: str
    #: Why the baseline is not the state of record, when it is not.
    note: str = ""


def _baselines(
    root: Path, intended: Mapping[str, str], names: Sequence[str], tags: Mapping[str, str], commit: str = ""
) -> dict[str, _Baseline]:
    """Each device's last deployed config (state of record, else the newest fleet version that has it).

    ``intended`` holds the configs at ``commit``: a device last deployed from that commit (the
    fleet in sync) takes its text from there instead of reading it from git again.
    """
    records = read_records(root)
    by_commit: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for name in names:
        record = records.get(name)
        if record is not None and record.commit == commit and name in intended:
            texts[name] = intended[name]
        elif record is not None and record.commit:
            by_commit.setdefault(record.commit, []).append(name)
    for deployed, members in by_commit.items():
        texts.update(configs_at(root, deployed, members))
    versions = list(reversed(deploy_tags(open_repo(root))))
    out = {}
    for name in names:
        record = records.get(name)
        if record is not None and record.backup:
            backup = (gitstate.read_file(root, record.backup) or b"").decode()
            out[name] = _Baseline(backup, _deployed(record, "", "record"), intended[name])
        elif record is not None and name in texts:
            out[name] = _Baseline(texts[name], _deployed(record, tags.get(record.commit, ""), "record"), intended[name])
        else:
            note = ""
            if record is not None and record.commit:  # its commit is not in this clone
                note = f"its state of record names commit {record.commit[:12]}, not in this clone: git fetch"
            out[name] = replace(_fallback(root, name, versions, intended[name]), note=note)
    return out


def _deployed(record: DeviceRecord, tag: str, source: str) -> Deployed:
    return Deployed(record.commit, record.backup, tag, record.verified, record.run, record.by, source)


def _fallback(root: Path, name: str, versions: list[str], intended: str) -> _Baseline:
    """No state of record: the newest fleet version that has the device, else the intended config."""
    repo = open_repo(root)
    for tag in versions:
        commit = str(repo.commit(tag).hexsha)
        text = configs_at(root, commit, [name]).get(name)
        if text is not None:
            return _Baseline(text, Deployed(commit, tag=tag, source="fleet version"), intended)
    return _Baseline(intended, Deployed("", source="intended"), intended)


def _verdict(name: str, base: _Baseline, compare: Callable[[str, str], Any], running: str) -> DeviceResult:
    """Compare the live config with the deployed one and, when it differs from it, the intended one."""
    drift = compare(base.deployed_text, running)
    if base.note:
        drift = replace(drift, notes=(*drift.notes, base.note))
    if base.deployed_text == base.intended_text:
        status: DriftStatus = "drift" if drift.changes else "in-sync"
        return DeviceResult(name, status, drift.changes, (), drift.notes, drift.remediation, deployed=base.deployed)
    wanted = compare(base.intended_text, running)
    if not wanted.changes:
        note = (
            "runs the intended config; its state of record lags (the next deploy records it)" if drift.changes else ""
        )
        notes = (*wanted.notes, note) if note else wanted.notes
        return DeviceResult(name, "in-sync", (), (), notes, (), deployed=base.deployed)
    if not drift.changes:
        return DeviceResult(name, "pending", (), wanted.changes, wanted.notes, (), deployed=base.deployed)
    return DeviceResult(
        name, "drift+pending", drift.changes, wanted.changes, drift.notes, drift.remediation, deployed=base.deployed
    )


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
    """Audit the fleet (or ``devices``, or one shard) against what was deployed and ``ref`` (default HEAD).

    ``progress(total)`` returns the callback that is called once per device as it finishes.
    """
    started = datetime.now(UTC)
    clock = time.perf_counter()
    note = gitstate.refresh(root)
    chosen = ref or "HEAD"
    snapshot = open_snapshot(root, chosen)
    preload_drivers()  # imported while git is read (gitpython, imported by now, is no import of theirs)
    configs = snapshot.configs()
    hosts = snapshot.hosts()
    target = LabTarget.load(root) if lab else None
    if set(devices) - set(hosts):
        raise unknown_names("device", set(devices) - set(hosts), hosts, f"generated/ at {snapshot.short}")
    wanted = [name for name in sorted(hosts) if not devices or name in devices]
    managed = [name for name in wanted if name in configs]
    unmanaged = {name: "in the inventory without a generated config" for name in wanted if name not in configs}
    if target is not None and not devices:
        unmanaged |= dict.fromkeys(set(target.endpoints) - set(hosts), "served by the lab, not in git")
    if shard is not None:
        managed = [name for name in managed if shard_of(name, shard[1]) == shard[0]]
        unmanaged = {name: why for name, why in unmanaged.items() if shard_of(name, shard[1]) == shard[0]}
    bases = _baselines(root, configs, managed, version_tags(open_repo(root)), snapshot.ref)
    texts = [text for base in bases.values() for text in (base.deployed_text, base.intended_text)]
    values = load_values(
        sorted({p for text in texts for p in placeholders(text)}),
        lab_password=target.password if target is not None else None,
    )
    key = run_key()
    memo = InSyncMemo(root)
    table = root / USER_TABLE

    def judge(name: str, running: str, version: str | None) -> DeviceResult:
        platform = hosts[name].platform

        def compare(generated: str, live: str) -> Any:
            return memo(generated, live, values=values, key=key, platform=platform, version=version, table=table)

        return _verdict(name, bases[name], compare, running)

    tick = progress(len(managed)) if progress is not None else (lambda _name: None)
    reads: dict[str, _Read] = {}
    # The cabling plan (tens of thousands of rows at scale) is parsed while the devices are read.
    with ThreadPoolExecutor(1, thread_name_prefix="fabricops-cabling") as aside:
        cabling = aside.submit(snapshot.cables)
        if managed:
            nornir = open_fleet(snapshot, lab=target, devices=managed, workers=workers)
            with memo:
                reads = _audit_devices(nornir, tick, judge)
            memo.save()
        cables = cabling.result()
    results = [reads[name].verdict for name in managed]
    known = set(hosts) | {row.a_device for row in cables} | {row.b_device for row in cables}
    planned = {(r.a_device, r.a_port) for r in cables if r.b_device in hosts}
    planned |= {(r.b_device, r.b_port) for r in cables if r.a_device in hosts}
    seen = _lldp_unmanaged(reads, known, planned)
    for name in sorted(set(unmanaged) | set(seen)):
        why = unmanaged.get(name) or f"an LLDP neighbour of {seen[name][0].split()[0]}, unknown to git"
        results.append(DeviceResult(name, "unmanaged", error=why, seen_by=tuple(seen.get(name, ()))))
    results.sort(key=lambda r: r.device)
    return Audit(
        ref=chosen,
        commit=snapshot.ref,
        lab=lab,
        started=started.strftime("%Y-%m-%dT%H:%M:%SZ"),
        seconds=round(time.perf_counter() - clock, 3),
        devices=tuple(results),
        shards=(f"{shard[0] + 1}/{shard[1]}",) if shard else (),
        allow_unreachable=allow_unreachable,
        notes=(note,) if note else (),
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

    An unmanaged switch seen from several shards is one finding, with every place it was seen.

    Examples:
        >>> a = Audit("HEAD", "c1", True, "2026-01-01T00:00:00Z", 1.0, (DeviceResult("x", "in-sync"),), ("1/2",))
        >>> b = replace(a, started="2026-01-01T00:00:05Z", devices=(DeviceResult("y", "drift"),), shards=("2/2",))
        >>> merged = merge_audits([b, a])
        >>> [d.device for d in merged.devices], merged.shards, merged.exit_code()
        (['x', 'y'], ('1/2', '2/2'), 3)
        >>> merge_audits([a]).missing_shards()
        ['2/2']
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
            known = by_device.get(result.device)
            if known is None:
                by_device[result.device] = result
            elif known.status == result.status == "unmanaged":
                by_device[result.device] = replace(known, seen_by=tuple(sorted({*known.seen_by, *result.seen_by})))
            else:
                raise FabricopsError(f"{result.device} is in more than one report: were the shards of the same N?")
    first = min(items, key=lambda a: a.started)
    return replace(
        first,
        seconds=max(a.seconds for a in items),
        devices=tuple(by_device[name] for name in sorted(by_device)),
        shards=tuple(sorted(s for a in items for s in a.shards)),
        allow_unreachable=all(a.allow_unreachable for a in items),
        notes=tuple(dict.fromkeys(n for a in items for n in a.notes)),
        merged=True,
    )
