"""The rule registry, the finding type and the runner."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from compiler.collection import paused
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True, slots=True)
class Finding:
    """One result of one rule, naming the objects it is about."""

    rule: str
    severity: Severity
    requirement: str
    subject: str
    message: str

    def line(self) -> str:
        return f"{self.severity} {self.rule} [{self.requirement}] {self.subject}: {self.message}"


Check = Callable[[Intent, ResolvedFabric], Iterable[tuple[str, str]]]


@dataclass(frozen=True, slots=True)
class Rule:
    """A design rule: ``check`` yields ``(subject, message)`` pairs, one per violation."""

    id: str
    severity: Severity
    requirement: str
    title: str
    check: Check


RULES: dict[str, Rule] = {}


def rule(id: str, severity: Severity, requirement: str, title: str) -> Callable[[Check], Check]:
    """Register a check function under ``id``."""

    def register(check: Check) -> Check:
        if id in RULES:
            raise ValueError(f"rule {id} is registered twice")
        RULES[id] = Rule(id, severity, requirement, title, check)
        return check

    return register


@paused
def run_checks(intent: Intent, fabric: ResolvedFabric) -> list[Finding]:
    """Every rule over the fabric; findings sorted by severity, rule, subject."""
    from compiler.checks import rules  # noqa: F401  (registers the rules)
    from compiler.checks.rules._common import fleet

    fleet(fabric).build()
    findings = [
        Finding(r.id, r.severity, r.requirement, subject, message)
        for r in RULES.values()
        for subject, message in r.check(intent, fabric)
    ]
    return sorted(set(findings), key=lambda f: (SEVERITY_ORDER[f.severity], f.rule, f.subject, f.message))
