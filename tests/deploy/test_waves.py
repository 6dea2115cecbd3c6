"""Wave planning over the example inventory: the redundancy rules hold for any set of changes."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
import yaml

from deploy.waves import Member, pick_canary, plan_waves, wave_violations

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def members() -> list[Member]:
    hosts = yaml.safe_load((REPO / "generated" / "inventory" / "hosts.yaml").read_text())
    return [Member(name, h["data"]["role"], h["data"].get("redundancy_group", "")) for name, h in hosts.items()]


@pytest.mark.parametrize("max_batch", [1, 3, 10, 60])
def test_every_device_once_and_no_redundancy_group_twice_in_a_wave(members: list[Member], max_batch: int) -> None:
    names = [m.name for m in members]
    waves = plan_waves(members, names, max_batch)
    flat = list(itertools.chain.from_iterable(waves))
    assert sorted(flat) == sorted(names) and len(flat) == len(set(flat))
    assert wave_violations(members, waves, max_batch) == []
    assert len(waves[0]) == 1


def test_fewest_waves_the_rules_allow(members: list[Member]) -> None:
    """After the canary: as many waves as the largest group or ceil(n / batch), no more."""
    names = [m.name for m in members]
    waves = plan_waves(members, names, max_batch=10)
    rest = [m for m in members if m.name != waves[0][0]]
    largest = max(sum(1 for m in rest if m.group == g) for g in {m.group for m in rest})
    assert len(waves) - 1 == max(largest, -(-len(rest) // 10))


def test_canary_is_a_leaf_whose_pair_is_otherwise_unchanged(members: list[Member]) -> None:
    changed = ["rack01-leaf-a", "rack01-leaf-b", "rack02-leaf-b", "spine01", "spine02"]
    assert pick_canary(members, changed) == "rack02-leaf-b"
    waves = plan_waves(members, changed, max_batch=10)
    assert waves[0] == ["rack02-leaf-b"]
    assert all(not {"rack01-leaf-a", "rack01-leaf-b"} <= set(w) for w in waves)
    assert all(len({"spine01", "spine02"} & set(w)) <= 1 for w in waves)


def test_both_leaves_of_a_pair_still_get_a_leaf_canary(members: list[Member]) -> None:
    assert plan_waves(members, ["rack01-leaf-b", "rack01-leaf-a"]) == [["rack01-leaf-a"], ["rack01-leaf-b"]]


def test_deterministic_whatever_the_input_order(members: list[Member]) -> None:
    names = [m.name for m in members]
    shuffled = names[:]
    random.Random(7).shuffle(shuffled)
    assert plan_waves(members, names, 7) == plan_waves(list(reversed(members)), shuffled, 7)


def test_violations_are_named() -> None:
    spines = [Member("s1", "spine", "compute-spines"), Member("s2", "spine", "compute-spines")]
    assert wave_violations(spines, [["s1", "s2"]], 1) == [
        "wave 1 holds 2 devices (max 1)",
        "wave 1 holds s1, s2 of compute-spines",
    ]


def test_zero_batch_is_refused(members: list[Member]) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        plan_waves(members, ["spine01"], 0)
