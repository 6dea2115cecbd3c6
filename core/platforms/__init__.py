"""Per-platform config rules as data, read by drift normalisation and by remediation alike.

A platform is a :class:`PlatformRules` value: which lines are volatile, which lines the device
prints as defaults, which commands take a single value (the new one replaces the old), how a
line is negated, and which sections keep their order. Dispatch is a plain mapping that raises
on an unknown platform, as hier_config's ``get_hconfig_driver`` does.

Examples:
    >>> get_rules("eos").name
    'eos'
    >>> get_rules("junos")
    Traceback (most recent call last):
    ...
    core.errors.FabricopsError: no config rules for platform 'junos' (known: eos)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import FabricopsError

__all__ = ["DefaultLine", "PlatformRules", "get_rules"]


@dataclass(frozen=True)
class DefaultLine:
    """A line the device prints (or hides) by itself: present on one side only, it is no drift.

    ``section`` matches the header of the parent section (``None``: a top-level line); ``line``
    matches the whole line; ``why`` is the reason, printed in ``docs/drift.md``.
    """

    section: re.Pattern[str] | None
    line: re.Pattern[str]
    why: str


@dataclass(frozen=True)
class PlatformRules:
    """Declarative rules of one platform (see :mod:`core.platforms.eos` for the values)."""

    name: str
    #: Spaces per nesting level in the running-config.
    indent: int
    #: Lines masked before comparing (headers, comments, ``end``), matched after ``rstrip``.
    volatile: tuple[re.Pattern[str], ...]
    #: Lines that carry a secret: group 1 is everything before it, group 2 the secret, group 3 the rest.
    secret_line: re.Pattern[str]
    #: Lines a device prints although nobody configured them, or hides although configured.
    default_lines: tuple[DefaultLine, ...]
    #: Section headers whose *empty* block is a default (unconfigured physical ports).
    empty_sections: tuple[re.Pattern[str], ...]
    #: Single-valued commands: the match (on the line without a leading ``no``) is the key; a new
    #: line with the same key replaces the old one, and a changed value is one "changed" line.
    idempotent: tuple[re.Pattern[str], ...]
    #: Section headers whose children are a sequence: their order is part of the meaning.
    ordered: tuple[re.Pattern[str], ...]
    #: (line pattern, negation template for ``Match.expand``), first match wins; else ``no`` toggles.
    negations: tuple[tuple[re.Pattern[str], str], ...]
    #: The escape hatch of the intent (where device lines can be kept verbatim).
    escape_hatch: str = "extra_config"


def _load() -> dict[str, PlatformRules]:
    from core.platforms.eos import EOS

    return {"eos": EOS}


def get_rules(platform: str) -> PlatformRules:
    """The rules of ``platform`` (a NAPALM driver name such as ``eos``)."""
    rules = _load()
    try:
        return rules[platform]
    except KeyError:
        raise FabricopsError(f"no config rules for platform {platform!r} (known: {', '.join(sorted(rules))})") from None
