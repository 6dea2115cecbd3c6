"""TEL002's findings are kept in parts, one per standing switch, each under its inputs: a part's
key changes with each input of it, and only with those (a switch that stands for no other
changes none). TEL001's, one per switch the collector targets."""

from __future__ import annotations

import dataclasses
from ipaddress import IPv4Address

import pytest

from compiler.artifacts.units import facts_digests
from compiler.cache import fingerprint
from compiler.checks import RULES, checked, run_checks
from compiler.checks.rules import telemetry
from compiler.checks.rules.telemetry import alerts_key, targets_key
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from tests.compiler.checks.conftest import edited, kept_equals_cold, kept_names


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


def test_tel001s_key_changes_with_every_input(
    resolved_example: tuple[Intent, ResolvedFabric], monkeypatch: pytest.MonkeyPatch
) -> None:
    """TEL001 in parts: whether the collector verifies TLS, then one per target switch (the port
    dialled, its name and digest, the collectors); each input edited alone changes its parts."""
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    before = kept_names("TEL001", intent, fabric, digests)
    config = telemetry._gnmic_config(intent, fabric)
    targets = [device.name for device, _ in telemetry._targets(fabric, config)]
    assert len(before) == len(set(before)) == len(targets) + 1
    switch = targets.index("rack01-leaf-a") + 1
    assert _changed(before, kept_names("TEL001", intent, fabric, {**digests, "rack01-leaf-a": "edited"})) == [switch]
    collectors = intent.fabric.services.collectors.model_copy(update={"gnmi": (IPv4Address("172.20.0.41"),)})
    services = intent.fabric.services.model_copy(update={"collectors": collectors})
    moved = dataclasses.replace(intent, fabric=intent.fabric.model_copy(update={"services": services}))
    assert _changed(before, kept_names("TEL001", moved, fabric, digests)) == list(range(1, len(before)))
    address, target = sorted(config["targets"].items())[switch - 1]
    port = f"{address.rsplit(':', 1)[0]}:6031"
    for edit in (
        {"skip-verify": True},
        {"tls-ca": None},
        {"targets": {**config["targets"], address: {**target, "name": "rack01-leaf-b"}}},
        {"targets": {**{a: t for a, t in config["targets"].items() if a != address}, port: target}},
    ):
        monkeypatch.setattr(telemetry, "_gnmic_config", lambda intent, fabric, edit=edit: {**config, **edit})
        after = kept_names("TEL001", intent, fabric, digests)
        gone = [name for name in before if name not in after]
        assert gone == ([before[0]] if "targets" not in edit else [before[switch]]), edit


def test_tel001s_parts_find_what_the_rule_finds(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    gnmi = fabric.devices["rack01-leaf-a"].config.management_gnmi
    assert gnmi is not None
    changed = edited(fabric, "rack01-leaf-a", management_gnmi=gnmi._replace(port=1234))
    parts = [pair for _, find in targets_key(intent, changed, facts_digests(fabric)) for pair in find()]
    assert parts == list(RULES["TEL001"].check(intent, changed)) != []
    kept_equals_cold(intent, fabric, changed, facts_digests(fabric), ["rack01-leaf-a"])
