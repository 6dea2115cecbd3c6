"""The rule registry, the finding type and the runner."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Literal, NamedTuple

from compiler.collection import paused
from compiler.fabric import Device, ResolvedFabric
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

    def __reduce__(self) -> tuple[type[Finding], tuple[str, str, str, str, str]]:
        """Pickled as its class and fields: the forked checks send their findings back pickled
        (:func:`compiler.pipeline._checks`), and the parent waits for the unpickling. The
        dataclass's own way (an empty object, then its slots set one by one in Python) took
        0.9 ms for the 497 findings at 16x, this 0.34 ms (and 0.22 ms instead of 0.85 to pickle).

        Example:
            >>> import pickle
            >>> finding = Finding("FAB001", "error", "C3", "rack01-leaf-a", "does not reach spine03")
            >>> pickle.loads(pickle.dumps(finding)) == finding
            True
        """
        return Finding, (self.rule, self.severity, self.requirement, self.subject, self.message)


Check = Callable[[Intent, ResolvedFabric], Iterable[tuple[str, str]]]
Judge = Callable[[Device], Iterable[str]]
"""A rule over one switch, given nothing but the switch: the messages of its findings about it."""

Judgement = tuple[tuple[str, str], ...]
"""Every finding of the switch rules about one switch: (rule id, message), in registry order; or
every finding of a keyed rule: (subject, message), in its order (see :func:`checked`)."""

Part = tuple[object, Callable[[], Iterable[tuple[str, str]]]]
"""One part of a keyed rule: everything its findings are made of, as plain data, and how to find
them. Its findings are kept under the fingerprint of the first (:func:`checked`); a part whose
first is None is found every time (what it reads changes with most edits, and costs no config)."""

Key = Callable[[Intent, ResolvedFabric, Mapping[str, str]], Iterable[Part]]
"""A keyed rule's parts (given the switches' facts digests): together, its findings."""

Reads = Callable[[Device], object]
"""What a fleet rule reads of one switch, as plain data (records, tuples, scalars): a function of
the switch alone, so of its facts digest (see :func:`device_rule`)."""

Shared = Callable[[Intent, ResolvedFabric], object]
"""What a fleet rule reads beside its switches (:data:`Reads`), as plain data: the cables, say."""


class Rule(NamedTuple):
    """A design rule: ``check`` yields ``(subject, message)`` pairs, one per violation (a record:
    a frozen dataclass made its methods at import, 1 ms of every start).

    ``judge``: for a switch rule (:func:`device_rule`), the rule over one switch; ``check`` runs
    it over every switch. ``key``: for a fleet rule whose findings come in parts made of few
    inputs each, those parts (:data:`Key`). ``reads`` and ``shared``: for a fleet rule whose
    findings are made of what it reads of each switch and of what it reads beside (all it reads),
    those (:func:`checked` keeps its findings under them, what it reads of a switch under the
    switch's facts digest).
    """

    id: str
    severity: Severity
    requirement: str
    title: str
    check: Check
    judge: Judge | None = None
    key: Key | None = None
    reads: Reads | None = None
    shared: Shared | None = None


RULES: dict[str, Rule] = {}


def _register(found: Rule) -> None:
    if found.id in RULES:
        raise ValueError(f"rule {found.id} is registered twice")
    RULES[found.id] = found


def rule(
    id: str,
    severity: Severity,
    requirement: str,
    title: str,
    key: Key | None = None,
    reads: Reads | None = None,
    shared: Shared | None = None,
) -> Callable[[Check], Check]:
    """Register a check function under ``id`` (``key``: its parts and what each is made of, when
    a compile may keep a part's findings from the last one while that is unchanged; ``reads``
    and ``shared``: all it reads, of each switch and beside, when a compile may keep its findings
    while that is unchanged: :func:`checked`)."""

    def register(check: Check) -> Check:
        _register(Rule(id, severity, requirement, title, check, key=key, reads=reads, shared=shared))
        return check

    return register


def device_rule(id: str, severity: Severity, requirement: str, title: str) -> Callable[[Judge], Judge]:
    """Register a switch rule under ``id``: ``judge(device)`` yields the messages of its findings
    about that switch, each found under the switch's name.

    A judge is given the switch alone (its identity, its facts and the structured config built
    from them), so what it finds is a function of the switch's facts digest
    (:func:`compiler.artifacts.units.facts_digests`) under the running code: a compile keeps it
    from the last one for a switch whose digest is unchanged (:func:`checked`).

    Example:
        >>> @device_rule("XMP001", "info", "-", "example")
        ... def hostname(device: Device) -> Iterator[str]:
        ...     yield f"named {device.config.hostname}"
        >>> from pathlib import Path
        >>> from compiler.intent import load_intent
        >>> from compiler.fabric import resolve
        >>> fabric = resolve(load_intent(Path("intent")))
        >>> next(iter(RULES.pop("XMP001").check(None, fabric)))  # type: ignore[arg-type]
        ('mgmt-core01', 'named mgmt-core01')
    """

    def register(judge: Judge) -> Judge:
        @functools.wraps(judge)  # its module and name, where the rule is written
        def check(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
            del intent
            for name, device in sorted(fabric.devices.items()):
                for message in judge(device):
                    yield name, message

        _register(Rule(id, severity, requirement, title, check, judge))
        return judge

    return register


def _ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Findings once each, sorted by severity, rule, subject and message: the runner's order,
    whatever order they were found in."""
    return sorted(set(findings), key=lambda f: (SEVERITY_ORDER[f.severity], f.rule, f.subject, f.message))


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
    return _ordered(findings)


@paused
def checked(
    intent: Intent, fabric: ResolvedFabric, digests: Mapping[str, str], kept: Mapping[str, Judgement]
) -> tuple[list[Finding], dict[str, Judgement]]:
    """:func:`run_checks`, the switch rules' findings about a switch taken from ``kept`` under
    its facts digest (``digests``) where they are there, a keyed rule's part's under
    ``<id>:<fingerprint of its inputs>``, a rule that says all it reads (``reads``, ``shared``)
    under ``<id>:<fingerprint of that>``; and, for the next compile, all three: the switch rules'
    findings about every switch, by its digest, each keyed part's, by its inputs, each such rule's
    by what it read (and what it read of each switch, by the switch's digest: not read again
    while that is unchanged).

    The same findings in the same order as :func:`run_checks`: a judge reads the switch alone,
    which its digest stands for (see :func:`device_rule`), a keyed part what its inputs hold, a
    rule with ``reads`` what its fingerprint is made of, and the runner sorts every finding. A
    judgement naming a rule that is not a switch rule (a file from elsewhere) is judged again.
    """
    from compiler.checks import rules  # noqa: F401  (registers the rules)

    # The shared look-ups (compiler.checks.rules._common.Fleet) are built as the rules ask for
    # them, not up front: the rules whose findings are kept ask for none.
    findings: list[Finding] = []
    judged: dict[str, Judgement] = {}
    for r in RULES.values():
        if r.judge is None:
            found: Iterable[tuple[str, str]]
            if r.reads is not None:
                found = _whole(r, intent, fabric, digests, kept, judged)
            elif r.key is not None:
                found = _parts(r, r.key(intent, fabric, digests), kept, judged)
            else:
                found = r.check(intent, fabric)
            findings.extend(Finding(r.id, r.severity, r.requirement, subject, message) for subject, message in found)
    findings.extend(_judged(fabric, digests, kept, judged))
    return _ordered(findings), judged


def _parts(
    r: Rule, parts: Iterable[Part], kept: Mapping[str, Judgement], judged: dict[str, Judgement]
) -> Iterator[tuple[str, str]]:
    """A keyed rule's findings, part by part: kept under its inputs' fingerprint, or found; each
    part's put in ``judged`` (a part without inputs: found, not kept)."""
    from compiler.cache import fingerprinter

    take = fingerprinter()
    for inputs, find in parts:
        if inputs is None:
            yield from find()
            continue
        name = f"{r.id}:{take(inputs)}"
        part = kept.get(name)
        judged[name] = part = tuple(find()) if part is None else part
        yield from part


def _whole(
    r: Rule,
    intent: Intent,
    fabric: ResolvedFabric,
    digests: Mapping[str, str],
    kept: Mapping[str, Judgement],
    judged: dict[str, Judgement],
) -> Judgement:
    """A rule's findings kept under ``<id>:<fingerprint>`` of what it reads (``reads`` of every
    switch, by name, and ``shared``), or found; put in ``judged`` with what it read of each
    switch (:func:`_read`)."""
    from compiler.cache import fingerprint

    assert r.reads is not None
    shared = r.shared(intent, fabric) if r.shared is not None else None
    name = f"{r.id}:{fingerprint((shared, tuple(_read(r.id, r.reads, fabric, digests, kept, judged))))}"
    found = kept.get(name)
    judged[name] = found = tuple(r.check(intent, fabric)) if found is None else found
    return found


def _read(
    rule_id: str,
    reads: Reads,
    fabric: ResolvedFabric,
    digests: Mapping[str, str],
    kept: Mapping[str, Judgement],
    judged: dict[str, Judgement],
) -> Iterator[tuple[str, str]]:
    """Per switch, by name: its name and the fingerprint of what ``reads`` reads of it, kept
    under ``<id>@<its facts digest>`` as ``(("", fingerprint),)``, or taken (an unchanged switch is
    not read again); each put in ``judged``."""
    from compiler.cache import fingerprinter

    take = fingerprinter()
    for name, device in sorted(fabric.devices.items()):
        at = f"{rule_id}@{digests[name]}"
        held = kept.get(at)
        kept_one = held is not None and len(held) == 1 and held[0][0] == ""
        summary = held[0][1] if held is not None and kept_one else take(reads(device))
        judged[at] = (("", summary),)
        yield name, summary


def _judged(
    fabric: ResolvedFabric, digests: Mapping[str, str], kept: Mapping[str, Judgement], judged: dict[str, Judgement]
) -> Iterator[Finding]:
    """The switch rules' findings, switch by switch: kept under its facts digest, or judged;
    each switch's put in ``judged``."""
    judges = [(r, r.judge) for r in RULES.values() if r.judge is not None]
    by_id = {r.id: r for r, _ in judges}
    for name, device in fabric.devices.items():
        digest = digests[name]
        judgement = kept.get(digest)
        if judgement is None or not all(rule_id in by_id for rule_id, _ in judgement):
            judgement = tuple((r.id, message) for r, judge in judges for message in judge(device))
        judged[digest] = judgement
        for rule_id, message in judgement:
            r = by_id[rule_id]
            yield Finding(r.id, r.severity, r.requirement, name, message)
