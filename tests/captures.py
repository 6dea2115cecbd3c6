"""The real EOS running configs of ``tests/fixtures/eos-captures/``, for tests parametrised over them.

A capture added to that folder (with its source in the README there) is picked up by every test
that uses :data:`CAPTURES`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.platforms.versions import version_from_header

CAPTURES_DIR = Path(__file__).resolve().parent / "fixtures" / "eos-captures"
CAPTURES = [pytest.param(path, id=path.stem) for path in sorted(CAPTURES_DIR.glob("*.cfg"))]


def release_of(text: str) -> str:
    """The release a capture's ``! device:`` header names, as ``show version`` gives it (4.33.0F)."""
    version = version_from_header(text)
    assert version is not None, "a capture keeps its '! device:' header"
    return version.split("-")[0]


def body_of(text: str) -> list[str]:
    """A running config without its ``! Command:`` and ``! device:`` header lines."""
    return [line for line in text.splitlines() if not line.startswith(("! Command:", "! device:"))]
