"""The example resolved once for the rule tests of this package, and a way to alter it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

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
