"""Per-platform config rules as data, read by drift normalisation and by remediation alike.

A platform is a :class:`PlatformRules` value: which lines are volatile, which lines the device
prints as defaults, which commands take a single value (the new one replaces the old), how a
line is negated, and which sections keep their order. Dispatch is a plain mapping that raises
on an unknown platform, as hier_config's ``get_hconfig_driver`` does. The default lines depend
on the release a device runs: they come from a table of data (:mod:`core.platforms.versions`),
read for the version given.

Examples:
    >>> get_rules("eos").name
    'eos'
    >>> len(get_rules("eos", "4.33.0F").default_lines) > len(get_rules("eos", "4.27.1F").default_lines)
    True
    >>> get_rules("junos")
    Traceback (most recent call last):
    ...
    core.errors.FabricopsError: no config rules for platform 'junos' (known: eos)
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from pathlib import Path

from core.errors import FabricopsError
from core.masking import SecretRule

__all__ = ["DefaultIndex", "DefaultLine", "PlatformRules", "get_rules"]


@dataclass(frozen=True)
class DefaultLine:
    """A line the device prints (or hides) by itself: present on one side only, it is no drift.

    ``path`` matches the headers above the line, outermost first (empty: a top-level line), one
    pattern per level; ``line`` matches the whole line; ``why`` is the reason.
    """

    path: tuple[re.Pattern[str], ...]
    line: re.Pattern[str]
    why: str

    def matches(self, path: tuple[str, ...], text: str) -> bool:
        """Whether ``text`` under the headers ``path`` is this default."""
        return (
            len(path) == len(self.path)
            and all(rx.match(header) for rx, header in zip(self.path, path, strict=True))
            and self.line.match(text) is not None
        )


class DefaultIndex:
    """The default lines grouped by depth, each group behind one alternation of its line patterns.

    A config line is looked up once per comparison side: one regex call tells the (almost
    all) lines that are no default at that depth, and only a line that matches one of the
    patterns has its headers checked.

    Example:
        >>> rx = re.compile
        >>> index = DefaultIndex((DefaultLine((rx("interface"),), rx("no shutdown$"), "admin up"),))
        >>> index.matches(("interface Ethernet1",), "no shutdown"), index.matches((), "no shutdown")
        (True, False)
    """

    def __init__(self, lines: tuple[DefaultLine, ...]) -> None:
        by_depth: dict[int, list[DefaultLine]] = {}
        for line in lines:
            by_depth.setdefault(len(line.path), []).append(line)
        self._by_depth = {depth: (_any_of(group), tuple(group)) for depth, group in by_depth.items()}

    def matches(self, path: tuple[str, ...], text: str) -> bool:
        """Whether ``text`` under the headers ``path`` is one of the default lines."""
        group = self._by_depth.get(len(path))
        if group is None:
            return False
        prefilter, lines = group
        if prefilter is not None and prefilter.match(text) is None:
            return False
        return any(line.matches(path, text) for line in lines)


def _any_of(lines: list[DefaultLine]) -> re.Pattern[str] | None:
    """One pattern that matches where any of ``lines`` matches (None if they do not combine)."""
    try:
        return re.compile("|".join(f"(?:{line.line.pattern})" for line in lines))
    except re.error:  # e.g. a group name used twice across the table's regexes
        return None


@dataclass(frozen=True)
class PlatformRules:
    """Declarative rules of one platform (see :mod:`core.platforms.eos` for the values)."""

    name: str
    #: Spaces per nesting level in the running-config.
    indent: int
    #: Lines masked before comparing (headers, comments, ``end``), matched after ``rstrip``.
    volatile: tuple[re.Pattern[str], ...]
    #: Where lines carry a secret (:data:`core.masking.SECRET_RULES` for EOS).
    secrets: tuple[SecretRule, ...]
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
    #: The release whose default lines these are (``None``: only those of every release).
    version: str | None = None
    #: Headers whose body is free text up to ``EOF`` (``banner login``).
    heredocs: tuple[re.Pattern[str], ...] = ()

    @cached_property
    def defaults(self) -> DefaultIndex:
        """:attr:`default_lines`, indexed for one regex call per line."""
        return DefaultIndex(self.default_lines)


def _load() -> dict[str, PlatformRules]:
    from core.platforms.eos import EOS

    return {"eos": EOS}


def get_rules(platform: str, version: str | None = None, table: Path | None = None) -> PlatformRules:
    """The rules of ``platform`` (a NAPALM driver name such as ``eos``) for a device running ``version``.

    ``table`` is a repository's own defaults table, added to the built-in one.
    """
    rules = _load()
    try:
        base = rules[platform]
    except KeyError:
        raise FabricopsError(f"no config rules for platform {platform!r} (known: {', '.join(sorted(rules))})") from None
    if platform != "eos":
        return base
    stamp = table.stat().st_mtime_ns if table is not None and table.is_file() else 0
    with _BUILDING:  # the threads of an audit ask at once: build each release's rules once
        return _for_release(base, version, str(table) if stamp else "", stamp)


_BUILDING = threading.Lock()


@lru_cache(maxsize=64)
def _for_release(base: PlatformRules, version: str | None, table: str, stamp: int) -> PlatformRules:
    from core.platforms.versions import release

    found = release(version, Path(table) if table else None)
    defaults = [
        DefaultLine(tuple(re.compile(re.escape(h) + "$") for h in p.path), _exact(p.line), p.why) for p in found.printed
    ]
    defaults += [DefaultLine((h.section,) if h.section else (), h.line, h.why) for h in found.hidden]
    return replace(base, default_lines=tuple(defaults), empty_sections=found.empty, version=version)


def _exact(line: str) -> re.Pattern[str]:
    return re.compile(re.escape(line) + "$")
