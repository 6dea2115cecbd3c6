"""Fixtures of the compiler tests: the bench's 16x intent, resolved once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.scale import scaled_intent
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import Intent, load_intent


@pytest.fixture(scope="session")
def fabric_16x(tmp_path_factory: pytest.TempPathFactory) -> tuple[Intent, ResolvedFabric]:
    """The 16x intent (768 switches, 1,732 servers, three-stage) and its resolved fabric (read-only)."""
    root: Path = tmp_path_factory.mktemp("intent-16x")
    scaled_intent(16, root)
    intent = load_intent(root)
    return intent, resolve(intent)
