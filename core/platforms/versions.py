"""What each EOS release prints by itself: the table in ``eos.yaml``, read for one version.

Drift normalisation drops these lines before comparing; the lab prints them for a device run as
that release. The table is data (``core/platforms/eos.yaml``, extended by a repository's own
``platforms/eos.yaml``): a release seen in the field is an entry there, not code.

Examples:
    >>> parse_version("4.33.0F-39050855.4330F (engineering build)"), parse_version("cEOS")
    ((4, 33, 0), None)
    >>> version_from_header("! Command: show running-config\\n! device: s1 (cEOSLab, EOS-4.33.0F-39050855.4330F)\\n")
    '4.33.0F-39050855.4330F'
    >>> [p.line for p in release("4.33.0F").printed if p.path == ("router multicast",)]
    ['ipv4', 'ipv6']
    >>> [p.line for p in release("4.27.1F").printed if p.line.startswith("system")]
    []
    >>> release("4.25.1F").moves[0]
    (('ntp',), 'hostname')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from core.errors import FabricopsError

__all__ = [
    "TABLE",
    "USER_TABLE",
    "Hidden",
    "Printed",
    "Release",
    "parse_version",
    "release",
    "version_from_header",
]

#: The built-in table.
TABLE = Path(__file__).with_name("eos.yaml")
#: A repository's own entries, added to the built-in ones (relative to the repository root).
USER_TABLE = Path("platforms") / "eos.yaml"
INDENT = 3

_VERSION = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")
_HEADER = re.compile(r"^! device: .*\(.*, EOS-(\S+?)(?: \(.*\))?\)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Printed:
    """A line a release prints although nobody configured it, at ``path`` (headers above it)."""

    path: tuple[str, ...]
    line: str
    #: A sibling line matching this stops the device printing it.
    unless: re.Pattern[str]
    why: str


@dataclass(frozen=True)
class Hidden:
    """A line a release accepts and never prints, in a section whose header matches ``section``."""

    section: re.Pattern[str] | None
    line: re.Pattern[str]
    why: str


@dataclass(frozen=True)
class Release:
    """The entries of the table that apply to one version (``None``: only those for every release)."""

    version: str | None
    printed: tuple[Printed, ...]
    hidden: tuple[Hidden, ...]
    #: Headers whose empty block is printed for every physical port.
    empty: tuple[re.Pattern[str], ...]
    #: (sections, after): sections printed, in that order, right after section ``after``.
    moves: tuple[tuple[tuple[str, ...], str], ...]


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """The numbers of an EOS version string (``None`` if it has none)."""
    match = _VERSION.search(text or "")
    if match is None:
        return None
    return tuple(int(part) for part in match.groups(default="0"))


def version_from_header(text: str) -> str | None:
    """The EOS version in a running config's ``! device: NAME (MODEL, EOS-VERSION)`` header."""
    match = _HEADER.search(text[:2000])
    return match.group(1) if match else None


def release(version: str | None, extra: Path | None = None) -> Release:
    """The table's entries for ``version``, with the entries of ``extra`` (a YAML file) added."""
    stamp = extra.stat().st_mtime_ns if extra is not None and extra.is_file() else 0
    return _release(version, str(extra) if stamp else "", stamp)


@lru_cache(maxsize=64)
def _release(version: str | None, extra: str, _stamp: int) -> Release:
    entries = _entries(TABLE) + (_entries(Path(extra)) if extra else ())
    number = parse_version(version)
    chosen = [e for e in entries if _applies(e, number)]
    return Release(
        version=version,
        printed=tuple(p for e in chosen for p in e.printed),
        hidden=tuple(h for e in chosen for h in e.hidden),
        empty=tuple(rx for e in chosen for rx in e.empty),
        moves=tuple(m for e in chosen for m in e.moves),
    )


@dataclass(frozen=True)
class _Entry:
    since: tuple[int, ...] | None
    until: tuple[int, ...] | None
    printed: tuple[Printed, ...]
    hidden: tuple[Hidden, ...]
    empty: tuple[re.Pattern[str], ...]
    moves: tuple[tuple[tuple[str, ...], str], ...]


def _applies(entry: _Entry, number: tuple[int, ...] | None) -> bool:
    if entry.since is None and entry.until is None:
        return True
    if number is None:
        return False
    return (entry.since is None or number >= entry.since) and (entry.until is None or number < entry.until)


#: libyaml where PyYAML has it: the table is read in the first comparison of every run.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@lru_cache(maxsize=8)
def _entries(path: Path) -> tuple[_Entry, ...]:
    try:
        data = yaml.load(path.read_text(), Loader=_LOADER)
    except OSError as exc:
        raise FabricopsError(f"{path}: cannot read the EOS defaults table: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise FabricopsError(f"{path}: not valid YAML: {exc}") from None
    items = data.get("eos") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise FabricopsError(f"{path}: expected a top-level 'eos:' list of entries (see {TABLE})")
    return tuple(_entry(path, f"eos[{i}]", item) for i, item in enumerate(items))


def _entry(path: Path, where: str, item: Any) -> _Entry:
    if not isinstance(item, dict):
        raise FabricopsError(f"{path}: {where}: expected a mapping with since/until/prints/hides/empty/order")
    unknown = sorted(set(item) - {"since", "until", "prints", "hides", "empty", "order", "why"})
    if unknown:
        raise FabricopsError(f"{path}: {where}: unknown key(s) {', '.join(unknown)}")
    bounds = {}
    for key in ("since", "until"):
        value = item.get(key)
        bounds[key] = None if value is None else parse_version(str(value))
        if value is not None and bounds[key] is None:
            raise FabricopsError(f"{path}: {where}.{key}: {value!r} is not a version such as 4.32.2")
    printed = tuple(
        p for i, p in enumerate(item.get("prints") or ()) for p in _printed(path, f"{where}.prints[{i}]", p)
    )
    hidden = tuple(_hidden(path, f"{where}.hides[{i}]", h) for i, h in enumerate(item.get("hides") or ()))
    empty = tuple(_regex(path, f"{where}.empty[{i}]", rx) for i, rx in enumerate(item.get("empty") or ()))
    moves = tuple(_move(path, f"{where}.order[{i}]", m) for i, m in enumerate(item.get("order") or ()))
    return _Entry(bounds["since"], bounds["until"], printed, hidden, empty, moves)


def _printed(path: Path, where: str, item: Any) -> list[Printed]:
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        raise FabricopsError(f"{path}: {where}: expected 'text:' (the line or block as printed)")
    why = str(item.get("why", ""))
    out: list[Printed] = []
    stack: list[tuple[int, str]] = []
    for raw in item["text"].splitlines():
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        line = raw.strip()
        words = line.split()
        default_unless = re.escape(" ".join(words[:-1]) + " ") if len(words) > 1 else re.escape(line) + "$"
        unless = item.get("unless") if not stack and "unless" in item else default_unless
        out.append(Printed(tuple(t for _, t in stack), line, _regex(path, f"{where}.unless", unless), why))
        stack.append((indent, line))
    return out


def _hidden(path: Path, where: str, item: Any) -> Hidden:
    if not isinstance(item, dict) or "line" not in item:
        raise FabricopsError(f"{path}: {where}: expected 'line:' (a regex) and optionally 'in:'")
    section = _regex(path, f"{where}.in", item["in"]) if item.get("in") is not None else None
    return Hidden(section, _regex(path, f"{where}.line", item["line"]), str(item.get("why", "")))


def _move(path: Path, where: str, item: Any) -> tuple[tuple[str, ...], str]:
    if not isinstance(item, dict) or not isinstance(item.get("move"), list) or not isinstance(item.get("after"), str):
        raise FabricopsError(f"{path}: {where}: expected 'move: [section, ...]' and 'after: section'")
    return tuple(str(s) for s in item["move"]), item["after"]


def _regex(path: Path, where: str, text: Any) -> re.Pattern[str]:
    try:
        return re.compile(str(text))
    except re.error as exc:
        raise FabricopsError(f"{path}: {where}: {text!r} is not a valid regex: {exc}") from None
