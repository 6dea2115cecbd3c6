"""What a plan, deploy or rollback did, per device, as text for people and JSON for CI.

Examples:
    >>> r = Report("deploy", "0" * 40, waves=[["a"], ["b"]])
    >>> r.devices["a"] = DeviceReport("a", Status.CHANGED, wave=1)
    >>> r.devices["b"] = DeviceReport("b", Status.NOT_TOUCHED, wave=2)
    >>> r.exit_code, r.names(Status.NOT_TOUCHED)
    (4, ['b'])
    >>> r.devices["a"].status = Status.ROLLED_BACK
    >>> r.exit_code
    1
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from deploy.configs import DiffSummary
from deploy.device import UNTOUCHED, WAVE_FAILURES, Status

#: Statuses that make a deploy fail (exit 1, or 4 when other devices did change).
FAILURES = WAVE_FAILURES | {Status.NOT_TOUCHED}


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

    def as_dict(self, with_diff: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status.value,
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

    kind: str  # plan, deploy, rollback
    ref: str
    waves: list[list[str]] = field(default_factory=list)
    devices: dict[str, DeviceReport] = field(default_factory=dict)
    dry_run: bool = False
    stamp: str = ""
    tag: str = ""
    record: str = ""
    halted_after: int | None = None
    seconds: float = 0.0

    def names(self, *statuses: Status) -> list[str]:
        return sorted(n for n, d in self.devices.items() if d.status in statuses)

    @property
    def failed(self) -> list[str]:
        return self.names(*FAILURES)

    @property
    def exit_code(self) -> int:
        """0 ok; 3 a plan with changes; 1 a failure and nothing changed; 4 a failure and some changed."""
        if not self.failed:
            return 3 if self.kind == "plan" and self.names(Status.PENDING) else 0
        return 4 if self.names(Status.CHANGED) else 1

    def as_dict(self, with_diffs: bool = True) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "ref": self.ref,
            "dry_run": self.dry_run,
            "stamp": self.stamp,
            "tag": self.tag,
            "record": self.record,
            "seconds": round(self.seconds, 2),
            "waves": self.waves,
            "halted_after_wave": self.halted_after,
            "changed": self.names(Status.CHANGED),
            "rolled_back": self.names(Status.ROLLED_BACK, Status.REVERTED),
            "not_touched": self.names(*(UNTOUCHED - {Status.UNCHANGED})),
            "failed": self.failed,
            "exit_code": self.exit_code,
            "devices": {name: d.as_dict(with_diffs) for name, d in sorted(self.devices.items())},
        }

    def text(self, show_diffs: bool = False) -> str:
        """The human report: a header, each wave with its devices, then the outcome lines."""
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
        unchanged = self.names(Status.UNCHANGED)
        if unchanged:
            lines.append(f"in sync: {len(unchanged)} device(s)")
        if show_diffs:
            for name, d in sorted(self.devices.items()):
                if d.diff:
                    lines += ["", f"--- {name} (running) +++ {name} ({self.ref[:12]})", d.diff.rstrip("\n")]
        lines += self._footer()
        return "\n".join(lines)

    def _header(self) -> str:
        verb = f"{self.kind} (dry run)" if self.dry_run else self.kind
        return f"{verb} of {self.ref[:12]}: {len(self.devices)} device(s), {len(self.waves)} wave(s)"

    @staticmethod
    def _device_line(d: DeviceReport) -> str:
        parts = [f"  {d.device:<22} {d.status.value:<12}"]
        if d.summary.added or d.summary.removed:
            parts.append(d.summary.short())
        if d.detail:
            parts.append(f"- {d.detail}")
        line = " ".join(parts)
        return "\n".join([line, *(f"      {p}" for p in d.problems)])

    def _footer(self) -> list[str]:
        out = []
        if self.kind == "plan" or self.dry_run:
            pending = self.names(Status.PENDING)
            out.append(f"{len(pending)} device(s) to change, {len(self.names(Status.UNCHANGED))} in sync")
        else:
            out.append(f"changed: {', '.join(self.names(Status.CHANGED)) or 'none'}")
            back = self.names(Status.ROLLED_BACK, Status.REVERTED)
            if back:
                out.append(f"rolled back: {', '.join(back)}")
            untouched = self.names(*(UNTOUCHED - {Status.UNCHANGED, Status.PENDING}))
            if untouched:
                out.append(f"not touched: {', '.join(untouched)}")
            unknown = self.names(Status.UNKNOWN)
            if unknown:
                out.append(f"state unknown (check them now): {', '.join(unknown)}")
        if self.halted_after is not None:
            out.append(f"halted after wave {self.halted_after}: later waves were not started")
        if self.tag:
            out.append(f"tagged {self.tag}")
        if self.record:
            out.append(f"record {self.record} on branch fabricops-state")
        return out
