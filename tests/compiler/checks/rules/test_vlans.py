"""VLN004's findings are kept per leaf pair, under the pair's names and facts digests and the
sources of the VLANs they carry with what their places are made of: each edited alone changes
its pair's part and no other."""

from __future__ import annotations

import dataclasses

from compiler.artifacts.units import facts_digests
from compiler.checks import RULES
from compiler.checks.rules.vlans import peer_vlans_key
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from compiler.sources import Source, SourceLines
from tests.compiler.checks.conftest import edited, kept_equals_cold, kept_names

LEAF, PEER = "rack01-leaf-a", "rack01-leaf-b"


def _changed(before: list[str], after: list[str]) -> list[int]:
    return [index for index, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]


def test_vln004s_key_changes_with_every_input(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    before = kept_names("VLN004", intent, fabric, digests)
    first, _ = next(iter(peer_vlans_key(intent, fabric, digests)))
    assert len(before) == len(set(before)) == len(list(peer_vlans_key(intent, fabric, digests)))
    assert first[:4] == (LEAF, digests[LEAF], PEER, digests[PEER])  # type: ignore[index]
    for name in (LEAF, PEER):
        assert _changed(before, kept_names("VLN004", intent, fabric, {**digests, name: "edited"})) == [0]
    vlans = fabric.facts.provenance.vlans
    for name in (LEAF, PEER):
        moved = {**vlans, name: {**vlans.get(name, {}), 4000: Source("vlans.yaml", ("vlans", "moved"))}}
        provenance = fabric.facts.provenance._replace(vlans=moved)
        other = dataclasses.replace(fabric, facts=fabric.facts._replace(provenance=provenance))
        assert _changed(before, kept_names("VLN004", intent, other, digests)) == [0]
    files = {source.file for source in vlans.get(LEAF, {}).values()}
    assert files
    for file in files:
        raw = {**intent.lines.raw, file: b"# a line above\n" + intent.lines.raw.get(file, b"")}
        shifted = dataclasses.replace(intent, lines=SourceLines(intent.lines.directory, raw))
        assert 0 in _changed(before, kept_names("VLN004", shifted, fabric, digests))


def test_vln004s_parts_find_what_the_rule_finds(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    changed = edited(fabric, LEAF, vlans=fabric.devices[LEAF].config.vlans[1:])
    parts = [pair for _, find in peer_vlans_key(intent, changed, facts_digests(fabric)) for pair in find()]
    assert parts == list(RULES["VLN004"].check(intent, changed)) != []
    kept_equals_cold(intent, fabric, changed, facts_digests(fabric), [LEAF])
