"""Waves: the order in which changed devices are deployed, so that redundancy always survives.

A wave is a batch of devices changed at the same time. The rules:

* wave 1 is a single canary: a leaf whose redundancy group (its MLAG pair) has no other changed
  member if there is one, so a bad change hurts one leaf while its peer carries the traffic;
* no wave holds two members of one redundancy group: never both leaves of an MLAG pair
  (``compute-pair03``), never two spines of one fabric (``compute-spines``; of one pod,
  ``compute-pod03-spines``, or two super-spines of one plane, ``compute-plane2``, in a
  three-stage fabric);
* no wave holds more than ``max_batch`` devices.

Batches are packed most-constrained group first, so the number of waves after the canary is
the least possible: ``max(largest group, ceil(devices / max_batch))``. Everything is sorted, so
the same input always gives the same waves.

Examples:
    >>> members = [
    ...     Member("rack01-leaf-a", "leaf", "compute-pair01"),
    ...     Member("rack01-leaf-b", "leaf", "compute-pair01"),
    ...     Member("rack02-leaf-a", "leaf", "compute-pair02"),
    ...     Member("spine01", "spine", "compute-spines"),
    ...     Member("spine02", "spine", "compute-spines"),
    ... ]
    >>> plan_waves(members, changed=["rack01-leaf-a", "rack01-leaf-b", "rack02-leaf-a", "spine01", "spine02"])
    [['rack02-leaf-a'], ['rack01-leaf-a', 'spine01'], ['rack01-leaf-b', 'spine02']]
    >>> plan_waves(members, changed=["spine01", "spine02"], max_batch=5)
    [['spine01'], ['spine02']]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_MAX_BATCH = 10


@dataclass(frozen=True)
class Member:
    """A device as the wave planner sees it: its name, role and redundancy group ("" if none)."""

    name: str
    role: str
    group: str = ""


def group_key(member: Member) -> str:
    """The key no two devices of one wave may share: the redundancy group, or the device itself.

    Examples:
        >>> group_key(Member("rack03-leaf-a", "leaf", "compute-pair03"))
        'compute-pair03'
        >>> group_key(Member("oob1", "mgmt"))
        'device:oob1'
    """
    return member.group or f"device:{member.name}"


def pick_canary(members: Iterable[Member], changed: Iterable[str]) -> str | None:
    """The canary: a leaf alone in its group among the changed devices, else the best we have.

    Preference, each level sorted by name: a leaf whose group has no other changed member; any
    leaf; any device alone in its group; any device.

    Examples:
        >>> m = [Member("a1", "leaf", "p1"), Member("a2", "leaf", "p1"), Member("b1", "leaf", "p2")]
        >>> pick_canary(m, ["a1", "a2", "b1"])
        'b1'
        >>> pick_canary(m, ["a1", "a2"])
        'a1'
        >>> pick_canary(m, []) is None
        True
    """
    wanted = set(changed)
    candidates = sorted((m for m in members if m.name in wanted), key=lambda m: m.name)
    if not candidates:
        return None
    per_group: dict[str, int] = {}
    for m in candidates:
        per_group[group_key(m)] = per_group.get(group_key(m), 0) + 1
    tiers = (
        [m for m in candidates if m.role == "leaf" and per_group[group_key(m)] == 1],
        [m for m in candidates if m.role == "leaf"],
        [m for m in candidates if per_group[group_key(m)] == 1],
        candidates,
    )
    return next(tier[0].name for tier in tiers if tier)


def plan_waves(
    members: Iterable[Member], changed: Iterable[str], max_batch: int = DEFAULT_MAX_BATCH
) -> list[list[str]]:
    """Waves over the ``changed`` devices: the canary alone, then batches that keep redundancy.

    Devices in ``changed`` that are not among ``members`` are treated as groupless.

    Examples:
        >>> m = [Member(f"s{i}", "spine", "spines") for i in range(1, 4)] + [Member("x", "mgmt")]
        >>> plan_waves(m, ["s1", "s2", "s3", "x"], max_batch=2)
        [['x'], ['s1'], ['s2'], ['s3']]
        >>> plan_waves(m, [])
        []
    """
    if max_batch < 1:
        raise ValueError("max_batch must be at least 1")
    known = {m.name: m for m in members}
    pool = [known.get(name, Member(name, "")) for name in sorted(set(changed))]
    canary = pick_canary(pool, [m.name for m in pool])
    if canary is None:
        return []
    groups: dict[str, list[str]] = {}
    for m in pool:
        if m.name != canary:
            groups.setdefault(group_key(m), []).append(m.name)
    waves = [[canary]]
    while groups:
        # Most remaining members first: those groups set the lower bound on the number of waves.
        order = sorted(groups, key=lambda key: (-len(groups[key]), groups[key][0]))
        batch = []
        for key in order[:max_batch]:
            batch.append(groups[key].pop(0))
            if not groups[key]:
                del groups[key]
        waves.append(sorted(batch))
    return waves


def wave_violations(members: Iterable[Member], waves: list[list[str]], max_batch: int) -> list[str]:
    """Every broken rule in ``waves`` (empty when they are safe); used by tests and by ``--plan``.

    Examples:
        >>> m = [Member("a1", "leaf", "p1"), Member("a2", "leaf", "p1")]
        >>> wave_violations(m, [["a1", "a2"]], max_batch=5)
        ['wave 1 holds a1, a2 of p1']
        >>> wave_violations(m, [["a1"], ["a2"]], max_batch=5)
        []
    """
    known = {m.name: m for m in members}
    problems = []
    for index, wave in enumerate(waves, start=1):
        if len(wave) > max_batch:
            problems.append(f"wave {index} holds {len(wave)} devices (max {max_batch})")
        seen: dict[str, list[str]] = {}
        for name in wave:
            seen.setdefault(group_key(known.get(name, Member(name, ""))), []).append(name)
        for key, names in sorted(seen.items()):
            if len(names) > 1:
                problems.append(f"wave {index} holds {', '.join(sorted(names))} of {key}")
    return problems
