"""TEL002's findings are kept under its key: the key changes with each input of the rule, and
only with those (a switch that stands for no other leaves it as it is)."""

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


def _key(intent: Intent, fabric: ResolvedFabric, digests: dict[str, str]) -> str:
    return fingerprint(alerts_key(intent, fabric, digests))


def test_the_key_changes_with_every_input(
    resolved_example: tuple[Intent, ResolvedFabric], monkeypatch: pytest.MonkeyPatch
) -> None:
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    before = _key(intent, fabric, digests)
    standing = [device.name for device in telemetry._standing(fabric)]
    assert "rack01-leaf-a" in standing and "rack02-leaf-a" not in standing
    # A switch's facts (its name, network, used ports: its alert group), for one that stands.
    assert _key(intent, fabric, {**digests, "rack01-leaf-a": "edited"}) != before
    assert _key(intent, fabric, {**digests, "rack02-leaf-a": "edited"}) == before
    # The thresholds the alerts are written with.
    thresholds = intent.fabric.thresholds.model_copy(update={"ecn_marks_per_min": 5})
    edited = dataclasses.replace(intent, fabric=intent.fabric.model_copy(update={"thresholds": thresholds}))
    assert _key(edited, fabric, digests) != before
    # The lossless queue of a RoCE fabric.
    qos = fabric.facts.qos
    compute = qos.fabrics["compute"]
    queues = qos._replace(fabrics={**qos.fabrics, "compute": compute._replace(ecn_queue=compute.ecn_queue + 1)})
    assert _key(intent, dataclasses.replace(fabric, facts=fabric.facts._replace(qos=queues)), digests) != before
    # What the collector subscribes to.
    config = telemetry._gnmic_config(intent, fabric)
    fewer = {**config, "subscriptions": dict(list(config["subscriptions"].items())[1:])}
    monkeypatch.setattr(telemetry, "_gnmic_config", lambda intent, fabric: fewer)
    assert _key(intent, fabric, digests) != before


def test_findings_kept_under_the_key_are_taken(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """Under an unchanged key the kept findings stand for the rule's (it is not run); under
    another key it runs."""
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    assert RULES["TEL002"].key is alerts_key
    name = f"TEL002:{_key(intent, fabric, digests)}"
    cold, kept = checked(intent, fabric, digests, {})
    assert cold == run_checks(intent, fabric) and kept[name] == ()
    found, _ = checked(intent, fabric, digests, {**kept, name: (("monitoring/rules/x.rules.yaml", "kept"),)})
    assert [f.line() for f in found if f not in cold] == ["error TEL002 [O2] monitoring/rules/x.rules.yaml: kept"]
    found, _ = checked(intent, fabric, digests, {**kept, "TEL002:other": (("x", "kept"),)})
    assert found == cold
