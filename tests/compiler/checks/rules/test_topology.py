"""LNK002's findings: the links whose ends differ found every time, each switch's configured MTUs
kept under its name, facts digest, cabled ports' planned MTUs and its extra_config block's places:
each input edited alone changes that switch's part."""

from __future__ import annotations

import dataclasses

from compiler.artifacts.units import facts_digests
from compiler.checks import RULES
from compiler.checks.rules.topology import mtus_key
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from compiler.sources import SourceLines
from tests.compiler.checks.conftest import kept_equals_cold, kept_names, with_interfaces

SWITCH = "rack01-leaf-a"


def _changed(before: list[str], after: list[str]) -> list[int]:
    return [index for index, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]


def _with_block(intent: Intent, block: str, raw: bytes | None = None) -> Intent:
    """The intent with an ``extra_config`` block for :data:`SWITCH` (``raw``: fabric.yaml's text)."""
    fabric = intent.fabric.model_copy(update={"extra_config": {**intent.fabric.extra_config, SWITCH: block}})
    lines = intent.lines
    if raw is not None:
        lines = SourceLines(lines.directory, {**lines.raw, "fabric.yaml": raw})
    return dataclasses.replace(intent, fabric=fabric, lines=lines)


def test_lnk002s_key_changes_with_every_input(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    before = kept_names("LNK002", intent, fabric, digests)
    switches = [inputs[0] for inputs, _ in mtus_key(intent, fabric, digests) if inputs is not None]
    assert len(before) == len(set(before)) == len(switches) and SWITCH in switches
    at = switches.index(SWITCH)
    assert _changed(before, kept_names("LNK002", intent, fabric, {**digests, SWITCH: "edited"})) == [at]
    cable = next(i for i, link in enumerate(fabric.links) if link.kind == "server" and link.a.device == SWITCH)
    link = fabric.links[cable]
    for planned in (link._replace(a_mtu=1500), link._replace(a=link.a._replace(port="Ethernet99/1"))):
        links = (*fabric.links[:cable], planned, *fabric.links[cable + 1 :])
        assert _changed(before, kept_names("LNK002", intent, dataclasses.replace(fabric, links=links), digests)) == [at]
    block = _with_block(intent, "interface Ethernet1/1\n   mtu 1500\n")
    assert _changed(before, kept_names("LNK002", block, fabric, digests)) == [at]
    other = _with_block(intent, "interface Ethernet1/1\n   mtu 1400\n")
    assert _changed(kept_names("LNK002", block, fabric, digests), kept_names("LNK002", other, fabric, digests)) == [at]
    above = b"# a line above\n" + intent.lines.raw["fabric.yaml"]
    moved = _with_block(intent, "interface Ethernet1/1\n   mtu 1500\n", above)
    assert _changed(kept_names("LNK002", block, fabric, digests), kept_names("LNK002", moved, fabric, digests)) == [at]


def test_lnk002s_parts_find_what_the_rule_finds(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    port = next(link.a.port for link in fabric.links if link.kind == "server" and link.a.device == SWITCH)
    changed = with_interfaces(fabric, SWITCH, {port: {"mtu": 1500}})
    parts = [pair for _, find in mtus_key(intent, changed, facts_digests(fabric)) for pair in find()]
    assert parts == list(RULES["LNK002"].check(intent, changed)) != []
    kept_equals_cold(intent, fabric, changed, facts_digests(fabric), [SWITCH])
