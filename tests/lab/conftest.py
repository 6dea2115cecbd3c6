"""Fixtures of the lab tests: the sample fabric of :mod:`lab.testing`, reference configs."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lab import DeviceSpec, Lab
from lab.testing import SAMPLE_HASH, SAMPLE_LINKS, running_lab, sample_fabric_specs

FIXTURES = Path(__file__).parent / "fixtures"
HASH = SAMPLE_HASH


def substitute_placeholders(text: str) -> str:
    """Fill the reference configs' <...> placeholders with values a switch accepts."""
    text = text.replace("<SHA512_CRYPT_HASH_PLACEHOLDER>", HASH)
    text = text.replace("<TYPE7_KEY_PLACEHOLDER>", "070C285F4D06")
    return re.sub(r"<([A-Z0-9_]+)_PLACEHOLDER>", lambda m: m.group(1).lower(), text)


@pytest.fixture
def reference_config() -> Callable[[str], str]:
    """Reads a reference config from fixtures/ with its placeholders filled in."""
    return lambda name: substitute_placeholders((FIXTURES / name).read_text())


@pytest.fixture
def fabric() -> Iterator[Lab]:
    """A fresh three-switch fabric per test (starting one takes milliseconds)."""
    with running_lab(sample_fabric_specs(), SAMPLE_LINKS) as lab:
        yield lab


@pytest.fixture
def blank() -> Iterator[Lab]:
    """One factory-default switch."""
    with running_lab([DeviceSpec("sw1", None, ethernet_ports=4)]) as lab:
        yield lab
