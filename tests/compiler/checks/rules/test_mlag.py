"""MLG001's findings are kept per leaf pair, under the pair's names and facts digests and whether
a peer-link cable joins them: each input edited alone changes its pair's key and no other."""

from __future__ import annotations

import dataclasses

from compiler.artifacts.units import facts_digests
from compiler.checks import RULES
from compiler.checks.rules.mlag import pairs_key
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from tests.compiler.checks.conftest import edited, kept_equals_cold, kept_names

LEAF, PEER = "rack01-leaf-a", "rack01-leaf-b"


def _changed(before: list[str], after: list[str]) -> list[int]:
    return [index for index, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]


def test_a_pairs_key_changes_with_each_input(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    before = kept_names("MLG001", intent, fabric, digests)
    assert len(before) == len(set(before)) == len(list(pairs_key(intent, fabric, digests)))
    first, _ = next(iter(pairs_key(intent, fabric, digests)))
    assert first == (LEAF, digests[LEAF], PEER, digests[PEER], True)  # the first pair by name
    for name in (LEAF, PEER):
        assert _changed(before, kept_names("MLG001", intent, fabric, {**digests, name: "edited"})) == [0]
    joining = {LEAF, PEER}
    links = tuple(
        link for link in fabric.links if link.kind != "peer-link" or {link.a.device, link.b.device} != joining
    )
    uncabled = dataclasses.replace(fabric, links=links)
    assert _changed(before, kept_names("MLG001", intent, uncabled, digests)) == [0]
    # A leaf whose peer is no switch: its part is made of the peer it names.
    lone = {**fabric.devices, LEAF: dataclasses.replace(fabric.devices[LEAF], mlag_peer="nobody")}
    alone = kept_names("MLG001", intent, dataclasses.replace(fabric, devices=lone), digests)
    lone[LEAF] = dataclasses.replace(fabric.devices[LEAF], mlag_peer="nobody-else")
    assert alone[0] != kept_names("MLG001", intent, dataclasses.replace(fabric, devices=lone), digests)[0]


def test_the_parts_find_what_the_rule_finds(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    mlag = fabric.devices[LEAF].config.mlag
    assert mlag is not None
    changed = edited(fabric, LEAF, mlag=mlag._replace(domain_id="other"))
    parts = [pair for _, find in pairs_key(intent, changed, facts_digests(fabric)) for pair in find()]
    assert parts == list(RULES["MLG001"].check(intent, changed)) != []
    kept_equals_cold(intent, fabric, changed, facts_digests(fabric), [LEAF])
