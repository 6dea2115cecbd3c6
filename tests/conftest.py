"""Fixtures shared by every test package."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_INTENT = REPO / "intent"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A scratch project root holding a copy of the example intent/."""
    shutil.copytree(EXAMPLE_INTENT, tmp_path / "intent")
    return tmp_path


@pytest.fixture
def edit(project: Path) -> Callable[[str, str, str], None]:
    """Replace text in one intent file of the scratch project; fails if the text is absent."""

    def replace(filename: str, old: str, new: str) -> None:
        path = project / "intent" / filename
        text = path.read_text()
        assert old in text, f"{old!r} not in {filename}"
        path.write_text(text.replace(old, new, 1))

    return replace
