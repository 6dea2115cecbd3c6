"""What the last compile produced, kept outside git so the next compile redoes only what changed.

``.fabricops-cache/compile.marshal`` beside ``intent/`` (ignored by git, safe to delete; Python's
:mod:`marshal` of plain dicts, lists and strings: several times cheaper to write than JSON) holds:

* the **code digest**: every file of the ``compiler`` and ``core`` packages (code, templates,
  platform data, catalog models) and the installed distributions, so any change to what a
  compile runs invalidates everything it cached;
* per unit of ``generated/`` (one switch's config and structured YAML, one server's directory,
  one switch's alert rules and its section of the expected counters, one switch's provenance,
  one section of a big table such as the cable list: :mod:`compiler.artifacts.units`), the
  **fingerprint** of the inputs it is built from (sha256 of the code digest and their pickle:
  keys in order, types distinct, every field of every record), the sha256 of each of its
  files and sections, and for the few units that keep any, their notes for their next build
  (:attr:`Rendered.notes`: the cable list's bill per switch). A unit whose fingerprint is
  unchanged, and whose files in ``generated/`` are still the ones written, is taken as it is
  instead of being built again;
* per fleet-wide file joined from sections (:func:`compiler.artifacts.units.section_path`), its
  **layout**: the sha256 of the file and the name and length of each section in order. A kept
  unit's section is cut out of that file as it is in ``generated/`` (unchanged since written,
  as below: its sha256 is the layout's). The layouts and the units' records are saved
  together by one compile, which hashed each section to the digest its unit records, so a cut
  of that very file needs no hashing again: only the sections of the units built again cost
  anything;
* the sha256 of every other file it left in ``generated/`` (the fleet-wide files, the manifest);
  with the units', the digest of every file, as the manifest has them;
* the **source key** of the whole compile (every file under ``intent/`` and the code digest),
  the size and modification time of every file it left in ``generated/``, and its summary: a
  compile with the same key over an untouched ``generated/`` has nothing to do, and says so
  without loading the intent.

Nothing here is trusted beyond what it can verify cheaply: a missing, unreadable or foreign
cache is an empty one; a file of ``generated/`` counts as the one written, with the digest
recorded, only when its size and modification time are those recorded after the last compile,
so a file edited by hand is read, built again and written back. A section its file's layout
does not name, or a layout that does not cut the file (lengths that do not add up), has its
unit built again.

Example:
    >>> fingerprint({"name": "leaf1", "config": {"mtu": 9214}}, "code") == fingerprint(
    ...     {"name": "leaf1", "config": {"mtu": 9214.0}}, "code")
    False
"""

from __future__ import annotations

import hashlib
import io
import marshal
import os
import pickle
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import Any, NamedTuple

from core.codedigest import code_digest as _code_digest
from core.codedigest import files_under

CACHE_DIR = ".fabricops-cache"
CACHE_FILE = "compile.marshal"
FORMAT = 5
_PACKAGES = ("compiler", "core")


@cache
def code_digest() -> str:
    """sha256 of everything a compile runs besides the intent (:func:`core.codedigest.code_digest`
    of the ``compiler`` and ``core`` packages) and of the record's format."""
    return hashlib.sha256(f"{FORMAT} {_code_digest(_PACKAGES)}".encode()).hexdigest()


def fingerprint(inputs: object, code: str | None = None) -> str:
    """The fingerprint of a unit's inputs under the running code.

    Their pickle, not their ``repr``: as complete (every field, the type of every record and
    scalar), a few times shorter and cheaper to take. Inputs must pickle the same in every
    process: records, tuples, dicts and scalars, no sets (their order follows the hash seed) and
    no pydantic models (pass :func:`~compiler.artifacts.units.digest_of`). A switch's inputs are
    already a digest of its facts (:func:`~compiler.artifacts.units.facts_digests`).
    """
    return fingerprinter(code)(inputs)


def fingerprinter(code: str | None = None) -> Callable[[object], str]:
    """:func:`fingerprint` under ``code``, for the thousands of units of one compile: the
    code's part hashed once, each unit's from a copy of it, one pickler for them all.

    Without a memo, so a unit's pickle is its values' alone, never which of them happen to be
    one object (that would follow what the process did before: caches, interned strings), and
    the memo's table is never cleared (6 us for each of the ~6,000 units at 16x once one large
    key grew it). Records are pickled as their type's name and their values
    (:class:`_Records`).

    Example:
        >>> key, part = fingerprinter("code"), "".join(["a", "b"])
        >>> key((1, "a")) == fingerprint((1, "a"), "code") != key((1.0, "a"))
        True
        >>> key((part, part)) == key((part, "ab"))
        True
    """
    seed = hashlib.sha256(f"{code or code_digest()}\0".encode())
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=5)
    pickler.fast = True  # no memo: inputs are plain data, without cycles
    pickler.dispatch_table = _Records()
    # The one object in the memo, written as a reference to it: never memoized by a dump
    # (fast), only looked up, so each record costs that reference, not a global's name and
    # its import (a switch's provenance holds a source record per port: that was most of it).
    pickler.memo = {id(_record): (0, _record)}

    def key(inputs: object) -> str:
        out.seek(0)
        out.truncate()
        pickler.dump(inputs)
        digest = seed.copy()
        with out.getbuffer() as data:
            digest.update(data)
        return digest.hexdigest()

    return key


def _record(name: str, *values: object) -> tuple[object, ...]:
    """What a record's pickle in a key stands for (never called: a key is never unpickled)."""
    return (name, *values)


_Reduce = Callable[[Any], tuple[Callable[..., object], tuple[object, ...]]]


class _Records(dict[type, _Reduce]):
    """The reduction of each record type (a ``NamedTuple``) met in a key: its module and name,
    then its values. Only the types no pickle opcode has are looked up here (plain tuples,
    dicts, strings and numbers are not), unlike a ``reducer_override``, called for every tuple.

    Example:
        >>> from compiler.sources import Source
        >>> fingerprint(Source("racks.yaml", ("racks", 0)), "code") == fingerprint(("racks.yaml", ("racks", 0)), "code")
        False
    """

    def __missing__(self, kind: type) -> _Reduce:
        if not (issubclass(kind, tuple) and hasattr(kind, "_fields")):
            raise KeyError(kind)  # pickled by its own reduction
        name = (f"{kind.__module__}.{kind.__qualname__}",)
        reduce = self[kind] = partial(_reduced, name)
        return reduce


def _reduced(name: tuple[str], record: tuple[object, ...]) -> tuple[Callable[..., object], tuple[object, ...]]:
    return _record, name + record


def source_key(intent_dir: Path) -> str:
    """sha256 of every file under ``intent_dir`` (names and bytes) and the code digest."""
    digest = hashlib.sha256(code_digest().encode())
    for path in files_under(intent_dir):
        digest.update(path.relative_to(intent_dir).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


Stamp = tuple[int, int]
"""A file's size and modification time (ns)."""


def stamps(directory: Path) -> dict[str, Stamp]:
    """Size and modification time (ns) of every file under ``directory``, by relative path
    (in no particular order: one ``stat`` per file is the whole cost on a fleet-sized tree)."""
    out: dict[str, Stamp] = {}
    pending = [(str(directory), "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            entries = os.scandir(folder)
        except FileNotFoundError:
            continue
        with entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    pending.append((entry.path, prefix + entry.name + "/"))
                else:
                    st = entry.stat(follow_symlinks=False)
                    out[prefix + entry.name] = (st.st_size, st.st_mtime_ns)
    return out


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Rendered(NamedTuple):
    """One unit's fingerprint, the sha256 of each of its files, the lines of its configs and
    its notes (plain data, see :attr:`compiler.artifacts.units.Unit.recall`).

    A record (a tuple): the record of a fleet holds thousands, each read back from its plain
    tuple at C speed (:meth:`CompileCache.load`).
    """

    key: str
    files: dict[str, str]
    config_lines: int = 0
    notes: Any = None
    """What the unit's next build may take from this one instead of working it out again
    (dicts, tuples, strings and numbers: it is saved with :mod:`marshal`); None for most."""


_RENDERED = partial(tuple.__new__, Rendered)
"""A :class:`Rendered` from its saved tuple, made in C."""

Chunk = bytes | memoryview
"""A section's bytes: built now, or a view of the file the last compile wrote."""


@dataclass
class Layout:
    """A file joined from sections: its sha256, and each section's name and length in bytes, in order."""

    digest: str
    parts: list[tuple[str, int]]

    def cut(self, data: bytes) -> dict[str, Chunk]:
        """The sections of ``data`` (the file this layout describes), by name, as views of it
        (not copies: a fleet's tables are megabytes, joined again at once); none when its
        length disagrees.

        Example:
            >>> {name: bytes(part) for name, part in Layout("d", [("a", 2), ("b", 1)]).cut(b"xyz").items()}
            {'a': b'xy', 'b': b'z'}
        """
        if sum(length for _, length in self.parts) != len(data):
            return {}
        out: dict[str, Chunk] = {}
        view, at = memoryview(data), 0
        for name, length in self.parts:
            out[name] = view[at : at + length]
            at += length
        return out


@dataclass
class CompileCache:
    """The record of the last compile of one repository root (see the module docstring)."""

    root: Path
    code: str = ""
    source: str = ""
    tree: dict[str, Stamp] = field(default_factory=dict)
    summary: list[str] = field(default_factory=list)
    units: dict[str, Rendered] = field(default_factory=dict)
    sections: dict[str, Layout] = field(default_factory=dict)
    fleet: dict[str, str] = field(default_factory=dict)
    """The sha256 of each file of ``generated/`` its unit does not record (fleet-wide files, the
    manifest): read after the units', so these hold."""

    @property
    def path(self) -> Path:
        return self.root / CACHE_DIR / CACHE_FILE

    @classmethod
    def load(cls, root: Path) -> CompileCache:
        """The cache of ``root``; an empty one when it is missing, unreadable or from other code."""
        empty = cls(root, code=code_digest())
        try:
            data = marshal.loads(empty.path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return empty
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("code") != empty.code:
            return empty
        try:
            # Plain tuples and dicts as saved by this very code (its digest is the record's):
            # made records at C speed, thousands of them, without a Python call each.
            units = dict(zip(data["units"], map(_RENDERED, data["units"].values()), strict=True))
            sections = {path: Layout(digest, parts) for path, (digest, parts) in data["sections"].items()}
            return cls(root, empty.code, data["source"], data["tree"], data["summary"], units, sections, data["fleet"])
        except (KeyError, TypeError, AttributeError, ValueError):
            return empty

    def save(self) -> None:
        """Write the record atomically (a reader never sees half of it)."""
        data = {
            "format": FORMAT,
            "code": self.code,
            "source": self.source,
            "tree": self.tree,
            "summary": self.summary,
            "units": {name: tuple(unit) for name, unit in self.units.items()},
            "sections": {path: (s.digest, s.parts) for path, s in self.sections.items()},
            "fleet": self.fleet,
        }
        self.path.parent.mkdir(exist_ok=True)
        (self.path.parent / ".gitignore").write_text("*\n")
        tmp = self.path.with_suffix(".tmp")
        tmp.write_bytes(marshal.dumps(data))
        os.replace(tmp, self.path)

    def unchanged(self, source: str, now: Mapping[str, Stamp]) -> list[str] | None:
        """The last compile's summary when it ran on the same intent and code and left
        ``generated/`` as it is ``now`` (:func:`stamps`: same files, sizes and times); else None."""
        if not self.source or source != self.source:
            return None
        return self.summary if now == self.tree else None

    def known_digests(self, now: Mapping[str, Stamp]) -> dict[str, str]:
        """The sha256 of each file of ``generated/`` whose size and time (``now``: :func:`stamps`)
        are those the last compile left, as it recorded them: files that need not be read to be
        compared."""
        tree = self.tree
        known: dict[str, str] = {}
        for files in (*(unit.files for unit in self.units.values()), self.fleet):
            for path, digest in files.items():
                stamp = now.get(path)
                if stamp is not None and tree.get(path) == stamp:
                    known[path] = digest
        return known


@dataclass(frozen=True)
class Reuse:
    """What a compile may take from the last one: units' digests and, read when asked, their
    files and sections."""

    cache: CompileCache
    known: Mapping[str, str]
    """The sha256 of each file of ``generated/`` unchanged since the last compile wrote it."""
    current: Mapping[str, bytes]
    """``generated/`` as it is, each file read when asked."""
    _cut: dict[str, dict[str, Chunk]] = field(default_factory=dict, compare=False, repr=False)

    def kept(self, unit: str, key: str) -> Rendered | None:
        """``unit``'s record, when its fingerprint is ``key`` and each of its files and sections
        is still the one written; else None."""
        record = self.cache.units.get(unit)
        if record is None or record.key != key:
            return None
        known = self.known
        if record.files.items() <= known.items():
            return record  # every file as written, compared at C speed (a unit with a section is not)
        for path, digest in record.files.items():
            if "#" in path:
                # Not hashed again: the layout and this record were saved by the same compile,
                # which hashed this section to this digest, and the file is that compile's.
                if self.section(path) is None:
                    return None
            elif known.get(path) != digest:
                return None
        return record

    def read(self, path: str) -> bytes:
        return self.current[path]

    def section(self, path: str) -> Chunk | None:
        """The bytes of section ``path`` (``file#name``) in ``file`` as the last compile wrote it."""
        file, _, name = path.partition("#")
        cut = self._cut.get(file)
        if cut is None:
            layout = self.cache.sections.get(file)
            fresh = layout is not None and self.known.get(file) == layout.digest
            cut = self._cut[file] = layout.cut(self.current[file]) if layout is not None and fresh else {}
        return cut.get(name)


def unrecorded(units: Mapping[str, Rendered], digests: Mapping[str, str]) -> dict[str, str]:
    """The ``digests`` (of every file of a compile) its ``units`` do not record as they are:
    what :attr:`CompileCache.fleet` keeps beside them.

    Example:
        >>> unrecorded({"switch/a": Rendered("k", {"a.cfg": "1", "t.yaml#a": "2"})}, {"a.cfg": "1", "t.yaml": "3"})
        {'t.yaml': '3'}
    """
    recorded = {path: digest for unit in units.values() for path, digest in unit.files.items()}
    return {path: digest for path, digest in digests.items() if recorded.get(path) != digest}


def restamped(
    before: Mapping[str, Stamp], written: Iterable[str], removed: Iterable[str], directory: Path
) -> dict[str, Stamp]:
    """:func:`stamps` of ``directory`` after a write, from those before it: only the files
    written are looked at again (a fleet-sized tree is not walked twice).

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> _ = (root / "a").write_text("xy")
        >>> restamped({"b": (1, 1)}, ["a"], ["b"], root) == {"a": stamps(root)["a"]}
        True
    """
    out = dict(before)
    for path in removed:
        out.pop(path, None)
    for path in written:
        st = (directory / path).stat()
        out[path] = (st.st_size, st.st_mtime_ns)
    return out
