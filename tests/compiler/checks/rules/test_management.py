"""MGT001's findings are kept per switch, under its name and facts digest and what no ACL may
admit: a switch's digest changes its part alone, the server side every part."""

from __future__ import annotations

import dataclasses

from compiler.artifacts.units import facts_digests
from compiler.checks import RULES
from compiler.checks.rules.management import acls_key
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from tests.compiler.checks.conftest import edited, kept_equals_cold, kept_names

SWITCH = "rack01-leaf-a"


def _changed(before: list[str], after: list[str]) -> list[int]:
    return [index for index, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]


def test_a_switchs_key_changes_with_each_input(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    before = kept_names("MGT001", intent, fabric, digests)
    names = sorted(fabric.devices)
    assert len(before) == len(set(before)) == len(names)
    assert _changed(before, kept_names("MGT001", intent, fabric, {**digests, SWITCH: "edited"})) == [
        names.index(SWITCH)
    ]
    every = list(range(len(names)))
    management = fabric.facts.management
    rack, *_ = management.racks
    racks = {**management.racks, rack: management.racks[rack]._replace(server_subnet="10.250.0.0/24")}
    moved = dataclasses.replace(fabric, facts=fabric.facts._replace(management=management._replace(racks=racks)))
    assert _changed(before, kept_names("MGT001", intent, moved, digests)) == every
    relabelled = {**management.racks, rack: management.racks[rack]._replace(rack=99)}
    renamed = dataclasses.replace(fabric, facts=fabric.facts._replace(management=management._replace(racks=relabelled)))
    assert _changed(before, kept_names("MGT001", intent, renamed, digests)) == every
    hosts = next(i for i, pool in enumerate(fabric.pools) if pool.name == "hosts")
    for pool in (
        fabric.pools[hosts]._replace(cidr="10.251.0.0/16"),
        fabric.pools[hosts]._replace(network="storage"),
        fabric.pools[hosts]._replace(name="other"),
    ):
        pools = (*fabric.pools[:hosts], pool, *fabric.pools[hosts + 1 :])
        assert (
            _changed(before, kept_names("MGT001", intent, dataclasses.replace(fabric, pools=pools), digests)) == every
        )


def test_the_parts_find_what_the_rule_finds(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    api = fabric.devices[SWITCH].config.management_api
    changed = edited(fabric, SWITCH, management_api=api._replace(access_group=None))
    parts = [pair for _, find in acls_key(intent, changed, facts_digests(fabric)) for pair in find()]
    assert parts == list(RULES["MGT001"].check(intent, changed)) != []
    kept_equals_cold(intent, fabric, changed, facts_digests(fabric), [SWITCH])
