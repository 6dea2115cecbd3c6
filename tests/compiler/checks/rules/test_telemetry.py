"""TEL002's findings are kept in parts, one per standing switch, each under its inputs: a part's
key changes with each input of it, and only with those (a switch that stands for no other
changes none)."""

from __future__ import annotations

import dataclasses

import pytest

from compiler.artifacts.units import facts_digests
from compiler.cache import fingerprint
from compiler.checks import RULES, checked, run_checks
from compiler.checks.rules import telemetry
from compiler.checks.rules.telemetry import alerts_key
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent


def _key(intent: Intent, fabric: ResolvedFabric, digests: dict[str, str]) -> list[str]:
    """The fingerprint of each part's inputs, and the findings of each part."""
    return [fingerprint(inputs) for inputs, _ in alerts_key(intent, fabric, digests)]


def _changed(before: list[str], after: list[str]) -> list[int]:
    return [index for index, (old, new) in enumerate(zip(before, after, strict=True)) if old != new]


def test_the_key_changes_with_every_input(
    resolved_example: tuple[Intent, ResolvedFabric], monkeypatch: pytest.MonkeyPatch
) -> None:
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    before = _key(intent, fabric, digests)
    standing = [device.name for device in telemetry._standing(fabric)]
    assert "rack01-leaf-a" in standing and "rack02-leaf-a" not in standing
    assert len(before) == len(standing) == len(set(before))
    every = list(range(len(standing)))
    # A switch's facts (its name, network, used ports: its alert group): its part, if it stands.
    assert _changed(before, _key(intent, fabric, {**digests, "rack01-leaf-a": "edited"})) == [
        standing.index("rack01-leaf-a")
    ]
    assert _changed(before, _key(intent, fabric, {**digests, "rack02-leaf-a": "edited"})) == []
    # The thresholds the alerts are written with: every part.
    thresholds = intent.fabric.thresholds.model_copy(update={"ecn_marks_per_min": 5})
    edited = dataclasses.replace(intent, fabric=intent.fabric.model_copy(update={"thresholds": thresholds}))
    assert _changed(before, _key(edited, fabric, digests)) == every
    # The lossless queue of a RoCE fabric: the parts of its switches.
    qos = fabric.facts.qos
    compute = qos.fabrics["compute"]
    queues = qos._replace(fabrics={**qos.fabrics, "compute": compute._replace(ecn_queue=compute.ecn_queue + 1)})
    queued = _key(intent, dataclasses.replace(fabric, facts=fabric.facts._replace(qos=queues)), digests)
    on_compute = [i for i, name in enumerate(standing) if fabric.devices[name].network == "compute"]
    assert on_compute and _changed(before, queued) == on_compute
    # What the collector subscribes to: every part.
    config = telemetry._gnmic_config(intent, fabric)
    fewer = {**config, "subscriptions": dict(list(config["subscriptions"].items())[1:])}
    monkeypatch.setattr(telemetry, "_gnmic_config", lambda intent, fabric: fewer)
    assert _changed(before, _key(intent, fabric, digests)) == every


def test_findings_kept_under_the_key_are_taken(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """Under an unchanged key the kept findings stand for the part's (it is not run); under
    another key it runs; the parts together find what the rule finds."""
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    assert RULES["TEL002"].key is alerts_key
    parts = [pair for _, find in alerts_key(intent, fabric, digests) for pair in find()]
    assert parts == list(RULES["TEL002"].check(intent, fabric))
    name = f"TEL002:{_key(intent, fabric, digests)[0]}"
    cold, kept = checked(intent, fabric, digests, {})
    assert cold == run_checks(intent, fabric) and kept[name] == ()
    found, _ = checked(intent, fabric, digests, {**kept, name: (("monitoring/rules/x.rules.yaml", "kept"),)})
    assert [f.line() for f in found if f not in cold] == ["error TEL002 [O2] monitoring/rules/x.rules.yaml: kept"]
    found, _ = checked(intent, fabric, digests, {**kept, "TEL002:other": (("x", "kept"),)})
    assert found == cold
