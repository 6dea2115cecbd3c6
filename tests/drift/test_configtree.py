"""The config tree on golden cases, and hier_config's circular test.

Each case is a pair ``<case>_generated.conf`` (git) / ``<case>_running.conf`` (what the
device printed) in ``fixtures/`` with the expected outcome beside it: ``<case>_changes.txt``
(one :class:`core.configtree.Change` per line) and ``<case>_remediation.conf`` (the lines
that restore git). Adding a case is adding files; ``FABRICOPS_UPDATE_GOLDEN=1`` rewrites
the expected files for review.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.configtree import Node, diff, future, normalise, parse, remediation
from core.masking import keyed_hash as fingerprint
from core.platforms import get_rules
from core.secrets import PLACEHOLDER

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(p.name.removesuffix("_running.conf") for p in FIXTURES.glob("*_running.conf"))
EOS = get_rules("eos")
KEY = b"golden-test-key"
#: The reviewed value of each secret the fixtures reference; ops_sha512 is deliberately unknown.
SECRET_VALUES = {"admin_sha512": "$6$reviewed$reviewedbody"}
UPDATE = os.environ.get("FABRICOPS_UPDATE_GOLDEN") == "1"


def expected_fp(secret: str) -> str | None:
    match = PLACEHOLDER.fullmatch(secret)
    if match is None:
        return fingerprint(secret, KEY)
    value = SECRET_VALUES.get(match.group(1))
    return None if value is None else fingerprint(value, KEY)


def trees(case: str) -> tuple[Node, Node]:
    want = normalise(parse((FIXTURES / f"{case}_generated.conf").read_text(), EOS, expected_fp), EOS)
    have = normalise(parse((FIXTURES / f"{case}_running.conf").read_text(), EOS, lambda s: fingerprint(s, KEY)), EOS)
    return want, have


def golden(path: Path, actual: str) -> str:
    if UPDATE:
        path.write_text(actual)
    return path.read_text()


@pytest.mark.parametrize("case", CASES)
def test_changes_match_golden(case: str) -> None:
    """Only the real changes are drift: each case lists exactly the differences it holds."""
    want, have = trees(case)
    actual = "".join(f"{change}\n" for change in diff(want, have, EOS))
    assert actual == golden(FIXTURES / f"{case}_changes.txt", actual)


@pytest.mark.parametrize("case", CASES)
def test_remediation_matches_golden(case: str) -> None:
    want, have = trees(case)
    actual = "".join(f"{line}\n" for line in remediation(want, have, EOS))
    assert actual == golden(FIXTURES / f"{case}_remediation.conf", actual)


@pytest.mark.parametrize("case", CASES)
def test_circle_running_remediation_future_is_generated(case: str) -> None:
    """running -> remediation -> future == generated, then rollback -> running (hier_config's circle)."""
    want, have = trees(case)
    fixed = future(have, remediation(want, have, EOS), EOS, expected_fp)
    assert diff(want, fixed, EOS) == []
    back = future(want, remediation(have, want, EOS), EOS, lambda s: fingerprint(s, KEY))
    assert diff(have, back, EOS) == []


@pytest.mark.parametrize("case", CASES)
def test_remediation_is_empty_exactly_when_nothing_differs(case: str) -> None:
    """``compare_config`` computes remediation only when diff lists a change: on every case, each way
    round, after the fix and against itself, both agree on whether anything differs."""
    want, have = trees(case)
    fixed = future(have, remediation(want, have, EOS), EOS, expected_fp)
    for expected, actual in ((want, have), (have, want), (want, fixed), (want, want), (have, have)):
        assert bool(diff(expected, actual, EOS)) == bool(remediation(expected, actual, EOS))


def test_cases_cover_every_kind_of_out_of_band_edit() -> None:
    """The golden set holds every change kind, and a case with none (equivalent configs)."""
    kinds = {c.kind for case in CASES for c in diff(*trees(case), EOS)}
    assert kinds == {"added", "removed", "changed", "secret", "order"}
    assert any(diff(*trees(case), EOS) == [] for case in CASES)


def test_parse_keeps_the_generated_sub_modes_nested() -> None:
    """``interface X`` > ``uc-tx-queue 3`` > ``random-detect ecn count`` stays three levels deep."""
    tree = parse((FIXTURES / "reordered_generated.conf").read_text(), EOS)
    queue = tree.children["interface Ethernet1"].children["uc-tx-queue 3"]
    assert list(queue.children) == ["random-detect ecn count"]


def test_no_secret_value_in_changes_or_tree_text() -> None:
    want, have = trees("secret")
    texts = [str(c) for c in diff(want, have, EOS)] + have.body(EOS) + want.body(EOS)
    assert texts and not any("$6$" in t or "<secret:" in t for t in texts)
