"""QOS001 and QOS003 judge each distinct QoS config once: a switch whose config differs from its
peers' is judged on its own, and a config built by hand with lists is judged too."""

from __future__ import annotations

import dataclasses
from typing import Any

from compiler.artifacts.units import facts_digests
from compiler.checks import RULES, checked
from compiler.checks.rules import qos
from compiler.checks.rules.qos import roce_qos, stray_dscps
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from compiler.structured import QosMap
from tests.compiler.checks.conftest import edited, kept_equals_cold, kept_names


def _qos_replaced(fabric: ResolvedFabric, name: str, **changes: Any) -> ResolvedFabric:
    device = fabric.devices[name]
    assert device.config.qos is not None
    config = device.config._replace(qos=device.config.qos._replace(**changes))
    return dataclasses.replace(fabric, devices={**fabric.devices, name: device.with_config(config)})


def test_one_switch_off_its_peers_config(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    assert list(stray_dscps(intent, fabric)) == list(roce_qos(intent, fabric)) == []
    maps = [QosMap("26 27", 3), QosMap("48", 6)]  # a list: not hashable
    fabric = _qos_replaced(fabric, "spine02", dscp_maps=maps)
    fabric = _qos_replaced(fabric, "rack03-leaf-b", dscp_maps=(QosMap("26", 3), QosMap("48", 6)))
    assert sorted({subject for subject, _ in stray_dscps(intent, fabric)}) == ["rack03-leaf-b", "spine02"]
    assert [subject for subject, _ in roce_qos(intent, fabric)] == ["rack03-leaf-b"]


def test_qos001s_key_changes_with_every_input(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """QOS001 in parts, one per RoCE switch: its profile, its name and digest, its cabled RoCE
    ports; each edited alone changes that switch's part (the profile: every part of its fabric)."""
    intent, fabric = resolved_example
    digests, before, leaf = _one_part_per_roce_switch("QOS001", intent, fabric)
    cable = next(i for i, link in enumerate(fabric.links) if link.kind == "server" and link.a.device == "rack01-leaf-a")
    uncabled = dataclasses.replace(fabric, links=fabric.links[:cable] + fabric.links[cable + 1 :])
    assert _changed(before, kept_names("QOS001", intent, uncabled, digests)) == [leaf]


def test_qos001s_parts_find_what_the_rule_finds(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    config = fabric.devices["rack01-leaf-a"].config
    assert config.qos is not None
    changed = edited(fabric, "rack01-leaf-a", qos=config.qos._replace(dscp_maps=()))
    parts = [pair for _, find in qos.roce_key(intent, changed, facts_digests(fabric)) for pair in find()]
    assert parts == list(RULES["QOS001"].check(intent, changed)) != []
    kept_equals_cold(intent, fabric, changed, facts_digests(fabric), ["rack01-leaf-a"])


def _one_part_per_roce_switch(
    rule: str, intent: Intent, fabric: ResolvedFabric
) -> tuple[dict[str, str], list[str], int]:
    """The facts' digests, ``rule``'s part names and rack01-leaf-a's index among them, once it is
    held that there is one part per RoCE switch, that a switch's digest changes its part alone and
    that a QoS profile changes the parts of the switches on it."""
    digests = facts_digests(fabric)
    before = kept_names(rule, intent, fabric, digests)
    roce = [device.name for device, _ in qos._roce_devices(intent, fabric)]
    assert len(before) == len(set(before)) == len(roce)
    leaf = roce.index("rack01-leaf-a")
    assert _changed(before, kept_names(rule, intent, fabric, {**digests, "rack01-leaf-a": "edited"})) == [leaf]
    other, profile = _profile_edited(intent)
    on_it = [i for i, device in enumerate(roce) if qos._profile(intent, fabric.devices[device]) is profile]
    assert on_it and _changed(before, kept_names(rule, other, fabric, digests)) == on_it
    return digests, before, leaf


def _changed(before: list[str], after: list[str]) -> list[int]:
    return [index for index, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]


def test_qos003s_key_changes_with_every_input(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """QOS003 in parts, one per RoCE switch: its profile, its name and digest; each edited alone
    changes that switch's part (the profile: every part of its fabric)."""
    intent, fabric = resolved_example
    digests, _, _ = _one_part_per_roce_switch("QOS003", intent, fabric)
    config = fabric.devices["rack01-leaf-a"].config
    assert config.qos is not None
    changed = edited(fabric, "rack01-leaf-a", qos=config.qos._replace(dscp_maps=(QosMap("0 26 27", 3),)))
    kept_equals_cold(intent, fabric, changed, digests, ["rack01-leaf-a"])


def test_qos004s_key_changes_with_every_input(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """QOS004 is kept under what it reads: of each RoCE switch its profile's name and its QoS
    profiles' speeds, and the intent's QoS profiles."""
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    (before,) = kept_names("QOS004", intent, fabric, digests)
    config = fabric.devices["rack01-leaf-a"].config
    assert config.qos is not None
    first, *rest = config.qos.profiles
    faster = edited(fabric, "rack01-leaf-a", qos=config.qos._replace(profiles=(first._replace(speed="800g"), *rest)))
    new = {**digests, "rack01-leaf-a": "edited"}
    assert kept_names("QOS004", intent, faster, new) != [before]
    other, _ = _profile_edited(intent)
    assert kept_names("QOS004", other, fabric, digests) != [before]
    # Under the same digest, what was read of the switch is kept (its config is not read again).
    _, kept = checked(intent, fabric, digests, {})
    assert kept_names("QOS004", intent, faster, digests, kept) == [before]


def _profile_edited(intent: Intent) -> tuple[Intent, Any]:
    """The intent with its first QoS profile's no-drop priority moved, and that profile as it was."""
    name, profile = next(iter(intent.fabric.qos_profiles.items()))
    edited_profile = profile.model_copy(update={"pfc_priority": profile.pfc_priority + 1})
    profiles = {**intent.fabric.qos_profiles, name: edited_profile}
    return dataclasses.replace(intent, fabric=intent.fabric.model_copy(update={"qos_profiles": profiles})), profile
