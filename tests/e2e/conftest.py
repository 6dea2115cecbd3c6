"""Every test under tests/e2e/ is in the e2e tier (``make test-e2e``), marked or not."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark before ``-m`` selects (tryfirst), whatever the order conftests were loaded in."""
    for item in items:
        if HERE in item.path.resolve().parents:
            item.add_marker(pytest.mark.e2e)
