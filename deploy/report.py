"""What a plan, deploy or rollback did, per device, as text for people and JSON for CI.

Every device ends in one of four outcomes, and the exit code says which occurred:

* ``changed``: the change is live, post-checked and confirmed;
* ``reverted``: it was committed and then undone (post-check failed, connection lost);
* ``failed``: it could not be changed (unreachable, authentication, rejected line, locked
  session, live config changed since the plan) or its state is unknown;
* ``untouched``: nothing was done to it (already in sync, or a later wave after a failure).

The text report names each device's outcome, and its status where that says more
(``reverted (rolled-back)``), so its lines add up to the counts of the summary line.

Exit codes: 0 nothing failed; 1 something failed and nothing changed; 4 something changed and
something failed or was reverted. A plan exits 3 when changes are pending.

Examples:
    >>> r = Report("deploy", "0" * 40, waves=[["a"], ["b"]])
    >>> r.devices["a"] = DeviceReport("a", Status.CHANGED, wave=1)
    >>> r.devices["b"] = DeviceReport("b", Status.NOT_TOUCHED, wave=2)
    >>> r.exit_code, r.outcomes()["untouched"]
    (0, ['b'])
    >>> r.devices["a"].status = Status.ROLLED_BACK
    >>> r.exit_code, r.summary()
    (1, 'deploy: 0 changed, 1 reverted, 0 failed, 1 untouched')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from deploy.configs import DiffSummary
from deploy.device import Status

OUTCOMES = ("changed", "reverted", "failed", "untouched")
_OUTCOME = {
    Status.CHANGED: "changed",
    Status.ROLLED_BACK: "reverted",
    Status.REVERTED: "reverted",
    Status.REJECTED: "failed",
    Status.FAILED: "failed",
    Status.UNREACHABLE: "failed",
    Status.REFUSED: "failed",
    Status.UNKNOWN: "failed",
    Status.UNCHANGED: "untouched",
    Status.PENDING: "untouched",
    Status.NOT_TOUCHED: "untouched",
    Status.ABSENT: "untouched",
}


def outcome(status: Status) -> str:
    """The outcome a status counts as (see the module docstring)."""
    return _OUTCOME[status]


@dataclass
class DeviceReport:
    """One device's line of the report."""

    device: str
    status: Status
    wave: int | None = None
    detail: str = ""
    summary: DiffSummary = field(default_factory=DiffSummary)
    diff: str = ""
    backup: str = ""
    problems: list[str] = field(default_factory=list)
    fingerprint: str = ""

    @property
    def outcome(self) -> str:
        return outcome(self.status)

    def as_dict(self, with_diff: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status.value,
            "outcome": self.outcome,
            "wave": self.wave,
            "detail": self.detail,
            **self.summary.as_dict(),
            "backup": self.backup,
            "problems": self.problems,
        }
        if self.fingerprint:
            out["fingerprint"] = self.fingerprint
        if with_diff:
            out["diff"] = self.diff
        return out


@dataclass
class Report:
    """The outcome of one run."""

    kind: str  # plan, deploy, rollback, restore
    ref: str
    waves: list[list[str]] = field(default_factory=list)
    devices: dict[str, DeviceReport] = field(default_factory=dict)
    dry_run: bool = False
    stamp: str = ""
    tag: str = ""
    record: str = ""
    by: str = ""
    halted: str = ""
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def names(self, *statuses: Status) -> list[str]:
        return sorted(n for n, d in self.devices.items() if d.status in statuses)

    def outcomes(self) -> dict[str, list[str]]:
        """Outcome -> the devices that had it, sorted."""
        out: dict[str, list[str]] = {name: [] for name in OUTCOMES}
        for name, device in sorted(self.devices.items()):
            out[device.outcome].append(name)
        return out

    @property
    def failed(self) -> list[str]:
        """Devices that failed or were reverted: what makes a run fail."""
        found = self.outcomes()
        return sorted(found["failed"] + found["reverted"])

    @property
    def exit_code(self) -> int:
        """0 ok; 3 a plan with changes; 1 a failure and nothing changed; 4 a failure and some changed."""
        if not self.failed:
            return 3 if self.kind == "plan" and self.names(Status.PENDING) else 0
        return 4 if self.names(Status.CHANGED) else 1

    def summary(self) -> str:
        """The one line that says how the run ended."""
        if self.kind == "plan" or self.dry_run:
            verb = f"{self.kind} (dry run)" if self.dry_run else self.kind
            failed = f", {len(self.failed)} failed" if self.failed else ""
            pending, in_sync = len(self.names(Status.PENDING)), len(self.names(Status.UNCHANGED))
            return f"{verb}: {pending} device(s) to change, {in_sync} in sync{failed}"
        counts = ", ".join(f"{len(names)} {name}" for name, names in self.outcomes().items())
        return f"{self.kind}: {counts}" + (f"; {self.halted}" if self.halted else "")

    def as_dict(self, with_diffs: bool = True) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "ref": self.ref,
            "dry_run": self.dry_run,
            "stamp": self.stamp,
            "tag": self.tag,
            "record": self.record,
            "by": self.by,
            "seconds": round(self.seconds, 2),
            "waves": self.waves,
            "halted": self.halted,
            **self.outcomes(),
            "notes": self.notes,
            "summary": self.summary(),
            "exit_code": self.exit_code,
            "devices": {name: d.as_dict(with_diffs) for name, d in sorted(self.devices.items())},
        }

    def text(self, show_diffs: bool = False) -> str:
        """The human report: a header, each wave with its devices, then the outcome line."""
        lines = [self._header()]
        placed = {n for wave in self.waves for n in wave}
        for index, wave in enumerate(self.waves, start=1):
            label = " (canary)" if index == 1 and len(self.waves) > 1 else ""
            lines.append(f"wave {index}{label}: {len(wave)} device(s)")
            lines += [self._device_line(self.devices[name]) for name in wave if name in self.devices]
        others = [d for n, d in sorted(self.devices.items()) if n not in placed and d.status != Status.UNCHANGED]
        if others:
            lines.append("not in any wave:")
            lines += [self._device_line(d) for d in others]
        unchanged = [n for n in self.names(Status.UNCHANGED) if n not in placed]
        if unchanged:
            untouched = "" if self.kind == "plan" or self.dry_run else "untouched, "
            lines.append(f"{untouched}in sync: {len(unchanged)} device(s)")
        if show_diffs:
            for name, d in sorted(self.devices.items()):
                if d.diff:
                    lines += ["", f"--- {name} (running) +++ {name} ({self.ref[:12]})", d.diff.rstrip("\n")]
        lines += [f"note: {note}" for note in self.notes]
        if self.tag:
            lines.append(f"tagged {self.tag} (the whole fleet runs {self.ref[:12]})")
        if self.record:
            lines.append(f"record {self.record} on branch fabricops-state")
        lines.append(self.summary())
        return "\n".join(lines)

    def _header(self) -> str:
        verb = f"{self.kind} (dry run)" if self.dry_run else self.kind
        return f"{verb} of {self.ref[:12]}: {len(self.devices)} device(s), {len(self.waves)} wave(s)"

    def _device_line(self, d: DeviceReport) -> str:
        """A device, its outcome (what the summary counts) and, where it says more, its status."""
        state = d.status.value
        if self.kind != "plan" and not self.dry_run and d.outcome != state:
            state = f"{d.outcome} ({state})"
        parts = [f"  {d.device:<22} {state:<24}"]
        if d.summary.added or d.summary.removed:
            parts.append(d.summary.short())
        if d.detail:
            parts.append(f"- {d.detail}")
        line = " ".join(parts).rstrip()
        return "\n".join([line, *(f"      {p}" for p in d.problems)])
