"""The switch rules' findings kept under a switch's facts digest: the digest holds every input of
a judge, and a compile that keeps them finds what a cold run finds."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from compiler.artifacts.units import facts_digests
from compiler.checks import RULES, Finding, Judgement, checked, run_checks
from compiler.configcache import ConfigCache
from compiler.fabric import Device, ResolvedFabric, resolve
from compiler.facts.addressing import HostAddress
from compiler.facts.vlans import FabricVlan, PortVlans
from compiler.intent import Intent, load_intent
from compiler.sources import Source

REPO = Path(__file__).resolve().parents[3]
SWITCH = "rack01-leaf-a"
EDITED_PORTS = "ports:\n  rack01-leaf-a:\n    Ethernet1/3:\n      storm_control: {broadcast: 50}\n"
"""One server port of one leaf that floods its VLAN: an STC001 error about that leaf alone."""


def _switch_rules() -> list[str]:
    return [r.id for r in RULES.values() if r.judge is not None]


def _switches(kept: Mapping[str, Judgement]) -> dict[str, Judgement]:
    """The switch rules' judgements of ``kept`` (a keyed rule's are under ``<id>:<key>``, what a
    rule read of a switch under ``<id>@<digest>``)."""
    return {name: judgement for name, judgement in kept.items() if ":" not in name and "@" not in name}


def _digest_with(fabric: ResolvedFabric, device: Device) -> str:
    """The facts digest of ``device`` in ``fabric`` with it in place of its namesake."""
    return facts_digests(dataclasses.replace(fabric, devices={**fabric.devices, device.name: device}))[device.name]


def test_a_judge_is_given_the_switch_alone(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """What a judge reads is its one argument, the switch (and the code, which the file's key holds)."""
    run_checks(*resolved_example)  # every rule registered
    assert {"REF001", "STC001", "RTE001", "RTE004", "VLN001"} <= set(_switch_rules())
    for rule_id in _switch_rules():
        judge = RULES[rule_id].judge
        assert judge is not None and list(inspect.signature(judge).parameters) == ["device"], rule_id


def test_the_digest_changes_with_every_field_of_the_switch(
    resolved_example: tuple[Intent, ResolvedFabric], tmp_path: Path
) -> None:
    """Every field of the switch a judge is given (its config is built from its facts, or kept
    under this digest), each edited alone, changes its digest: the identity's to another switch's
    value, each fact to another switch's (the design, which all share, edited)."""
    _, fabric = resolved_example
    device = fabric.devices[SWITCH]
    before = facts_digests(fabric)[SWITCH]
    others = [d for d in fabric.devices.values() if d.name != SWITCH]
    identity = [f.name for f in dataclasses.fields(Device) if f.name not in ("facts", "_built")]
    assert "mlag_peer" in identity and "rack" in identity
    for name in identity:
        value = next(getattr(d, name) for d in others if getattr(d, name) != getattr(device, name))
        assert _digest_with(fabric, dataclasses.replace(device, **{name: value})) != before, name
    facts = device.facts
    design = facts.design
    spec = design.fabrics["compute"]
    vlan = FabricVlan("tenant", 300, "TENANT", "compute", None, True, Source("vlans.yaml", ("vlans", "tenant")))
    edited: dict[str, Any] = {
        "design": design.model_copy(
            update={
                "fabrics": {
                    **design.fabrics,
                    "compute": spec.model_copy(update={"spines": spec.spines.model_copy(update={"count": 9})}),
                }
            }
        ),
        "extra_config": "router bgp 65001\n   maximum-paths 1\n",
        "port_settings": resolve(_intent(tmp_path, EDITED_PORTS)).devices[SWITCH].facts.port_settings,
        "vlans": (vlan,),
        "vlan_svis": {300: HostAddress("10.50.0.2/24", "10.50.0.1")},
        "port_vlans": {"Ethernet1/3": PortVlans(access=vlan)},
        "server_trunks": True,
        "settings": facts.settings.model_copy(update={"serial": "JPE21330ABC"}),
    }
    for name in facts._fields:
        own = getattr(facts, name)
        values: list[Any] = [edited[name]] if name in edited else [getattr(d.facts, name) for d in others]
        value = next((v for v in values if v != own), own)
        assert value != own, f"no other value for {name}: edit it here"
        changed = dataclasses.replace(device, facts=facts._replace(**{name: value}))
        assert _digest_with(fabric, changed) != before, name


def _intent(root: Path, ports: str | None = None) -> Intent:
    """The example intent, copied to ``root`` (``ports``: its ``ports.yaml`` instead)."""
    if not (root / "intent").exists():
        shutil.copytree(REPO / "intent", root / "intent")
    if ports is not None:
        (root / "intent" / "ports.yaml").write_text(ports)
    return load_intent(root / "intent", budgets=False)


def test_findings_kept_after_an_edit_are_a_cold_runs(tmp_path: Path) -> None:
    """Compile, edit one switch (an error appears), compile again keeping the switch rules'
    findings in the configs' file: the findings of a cold run, the edited switch judged again."""
    cache = tmp_path / "cache"
    intent = _intent(tmp_path)
    fabric = resolve(intent)
    configs = ConfigCache(cache)
    lent = configs.lend(fabric, facts_digests(fabric))
    first, judged = checked(intent, lent, facts_digests(fabric), configs.judged)
    configs.save(lent, facts_digests(fabric), judged)
    assert first == run_checks(intent, resolve(intent))

    intent = _intent(tmp_path, EDITED_PORTS)
    fabric = resolve(intent)
    digests = facts_digests(fabric)
    configs = ConfigCache(cache)
    lent = configs.lend(fabric, digests)
    kept = configs.judged
    assert set(kept) == set(judged)
    assert len(_switches(kept).keys() - set(digests.values())) == 1  # the edited leaf's
    found, _ = checked(intent, lent, digests, kept)
    cold = run_checks(intent, resolve(intent))
    assert found == cold
    assert [f for f in cold if f not in first] == [
        Finding(
            "STC001",
            "error",
            "C2",
            SWITCH,
            "1 server-facing port(s) without broadcast storm-control at or below 10% (Ethernet1/3): "
            "set storm_control.broadcast in fabric.yaml",
        )
    ]


def test_a_kept_judgement_is_taken_as_it_is(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """Under an unchanged digest the findings kept are the findings (nothing judged again); under
    another, or naming a rule that is no switch rule, the switch is judged."""
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    cold, judged = checked(intent, fabric, digests, {})
    assert cold == run_checks(intent, fabric)
    assert set(_switches(judged)) == set(digests.values())
    kept = {**judged, digests[SWITCH]: (("VLN001", "kept, not judged"),), digests["spine01"]: (("RTE002", "x"),)}
    kept["not a digest"] = (("VLN001", "of no switch"),)
    found, again = checked(intent, fabric, digests, kept)
    assert [f for f in found if f not in cold] == [Finding("VLN001", "error", "N3", SWITCH, "kept, not judged")]
    assert again == {**judged, digests[SWITCH]: (("VLN001", "kept, not judged"),)}


@pytest.mark.parametrize("rule_id", ["REF001", "STC001", "RTE001"])
def test_a_switch_rules_check_is_its_judge_over_every_switch(
    resolved_example: tuple[Intent, ResolvedFabric], rule_id: str
) -> None:
    """``Rule.check`` (what tests and tools call) names each switch's findings under its name."""
    intent, fabric = resolved_example
    run_checks(intent, fabric)
    rule = RULES[rule_id]
    assert rule.judge is not None
    expected = [(name, m) for name, device in sorted(fabric.devices.items()) for m in rule.judge(device)]
    assert list(rule.check(intent, fabric)) == expected


def test_a_finding_pickles_back_to_an_equal_one_with_every_field() -> None:
    finding = Finding("FAB001", "error", "C3", "rack01-leaf-a", "does not reach spine03")
    back = pickle.loads(pickle.dumps([finding, finding], protocol=pickle.HIGHEST_PROTOCOL))
    assert back == [finding, finding] and type(back[0]) is Finding
    assert finding.__reduce__()[1] == dataclasses.astuple(finding)  # every field, in order
