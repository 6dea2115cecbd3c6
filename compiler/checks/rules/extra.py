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
EXT003    error     G1           outside the interfaces (merged into their fields),
                                 ``extra_config`` adds lines and never replaces a
                                 single-valued line the design sets (``maximum-paths``,
                                 ``router-id``, a VLAN's ``name``): the checks read the
                                 design's value
========  ========  ===========  =====================================================

The lines that stay are merged into the switch's config (:mod:`compiler.facts.extra`), so every
other rule sees them: ``mtu 1500`` on a spine's fabric port fails LNK002 at its line.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from compiler.checks.base import rule
from compiler.checks.rules._common import problems
from compiler.fabric import ResolvedFabric
from compiler.facts.extra import extra_where, parse_block
from compiler.intent import Intent

if TYPE_CHECKING:
    from core.configtree import Node


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


@rule("EXT003", "error", "G1", "extra_config adds to the design's sections, never replaces their values")
def no_hidden_override(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each line of ``extra_config`` (outside the merged interfaces) that would replace a
    single-valued line of the generated config in the same section, as EOS would."""
    for name, device in sorted(fabric.devices.items()):
        if not device.facts.extra_config:
            continue  # no block: its config holds no extra lines (and is not read: a kept switch's is not loaded)
        rest = device.config.extra_config
        if not rest:
            continue
        # Jinja2, the config tree and the platform's rules: only for a switch with such lines
        # (a check or compile without extra_config imports and reads none of them).
        from compiler.render import render_device
        from core.configtree import line_key, parse
        from core.platforms import get_rules

        rules = get_rules("eos")

        design = device.with_config(device.config._replace(extra_config=None))
        generated = parse(render_device(design), rules)
        for path, text in _lines(parse(rest, rules)):
            section = _section(generated, path)
            key = line_key(text, rules) if section is not None else None
            if section is None or key is None:
                continue
            replaced = next((t for t in section.children if t != text and line_key(t, rules) == key), None)
            if replaced is not None:
                where = " > ".join(path) or "the top level"
                yield (
                    _where(intent, name, text),
                    f"{text!r} would replace {replaced!r} of {where}, which the design sets and the checks "
                    "read: change it in the intent's design instead",
                )


def _lines(tree: Node, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    for text, node in tree.children.items():
        yield path, text
        yield from _lines(node, (*path, text))


def _section(tree: Node, path: tuple[str, ...]) -> Node | None:
    node: Node | None = tree
    for header in path:
        node = node.children.get(header) if node is not None else None
    return node


def _where(intent: Intent, device: str, text: str) -> str:
    """The line of the block that writes ``text``."""
    for section in parse_block(intent.fabric.extra_config.get(device, "")):
        for line in (section.header, *section.children):
            if line.text == text:
                return extra_where(intent, device, line.offset)
    return extra_where(intent, device, 0)
