"""Escape-hatch rules: ``extra_config`` says only what the schema cannot, once, on what exists.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
EXT001    error     G1           no line of ``extra_config`` is one the schema writes
                                 (``ports.yaml``, ``vlans.yaml``, ``devices.yaml``):
                                 the message gives the entry to write instead
EXT002    error     G1           each section once per block, on interfaces its switch
                                 has, one interface per section (no range), no
                                 ``no shutdown`` of a port ``ports.yaml`` shuts
========  ========  ===========  =====================================================

The lines that stay are merged into the switch's config (:mod:`compiler.facts.extra`), so every
other rule sees them: ``mtu 1500`` on a spine's fabric port fails LNK002 at its line.
"""

from __future__ import annotations

from collections.abc import Iterator

from compiler.checks.base import rule
from compiler.checks.rules._common import problems
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent


@rule("EXT001", "error", "G1", "extra_config holds only what the schema cannot say")
def schema_lines(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each ``extra_config`` line a specific file of the intent writes, with that entry."""
    del intent
    yield from problems(fabric, "EXT001")


@rule("EXT002", "error", "G1", "extra_config: one section each, on interfaces that exist")
def block_shape(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each section written twice in one block, and each interface its switch lacks."""
    del intent
    yield from problems(fabric, "EXT002")
