"""The example resolved once for the rule tests of this package, and a way to alter it."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from compiler.checks import Judgement
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import Intent, load_intent

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def resolved_example() -> tuple[Intent, ResolvedFabric]:
    """The example intent, resolved (read-only: alter it with :func:`with_interfaces`)."""
    intent = load_intent(REPO / "intent", budgets=False)
    return intent, resolve(intent)


def with_interfaces(fabric: ResolvedFabric, name: str, changes: dict[str, dict[str, Any]]) -> ResolvedFabric:
    """The fabric with fields of some interfaces (by name) of device ``name`` replaced."""
    device = fabric.devices[name]
    interfaces = tuple(i._replace(**changes[i.name]) if i.name in changes else i for i in device.config.interfaces)
    devices = {
        **fabric.devices,
        name: device.with_config(device.config._replace(interfaces=interfaces)),
    }
    return dataclasses.replace(fabric, devices=devices)


def kept_names(
    rule_id: str,
    intent: Intent,
    fabric: ResolvedFabric,
    digests: Mapping[str, str],
    kept: Mapping[str, Judgement] | None = None,
) -> list[str]:
    """The names a compile keeps ``rule_id``'s findings under (``<id>:<key>``, in order), what it
    read of each switch left out (``<id>@<digest>``), given what the last one kept (``kept``)."""
    from compiler.checks import RULES, base

    r, judged, last = RULES[rule_id], dict[str, Judgement](), kept or {}
    if r.reads is not None:
        base._whole(r, intent, fabric, digests, last, judged)
    else:
        assert r.key is not None
        list(base._parts(r, r.key(intent, fabric, digests), last, judged))
    return [name for name in judged if name.startswith(f"{rule_id}:")]


def edited(fabric: ResolvedFabric, name: str, **config: Any) -> ResolvedFabric:
    """The fabric with fields of device ``name``'s structured config replaced."""
    device = fabric.devices[name]
    devices = {**fabric.devices, name: device.with_config(device.config._replace(**config))}
    return dataclasses.replace(fabric, devices=devices)


def kept_equals_cold(
    intent: Intent, fabric: ResolvedFabric, changed: ResolvedFabric, digests: Mapping[str, str], edits: list[str]
) -> None:
    """A compile of ``changed`` (its switches ``edits`` edited: their digests changed) keeping the
    findings of a compile of ``fabric`` finds what a cold run of ``changed`` finds."""
    from compiler.checks import checked, run_checks

    _, kept = checked(intent, fabric, digests, {})
    new = {**digests, **{name: f"edited {name}" for name in edits}}
    found, _ = checked(intent, changed, new, kept)
    cold = run_checks(intent, changed)
    assert found == cold and cold != run_checks(intent, fabric)
