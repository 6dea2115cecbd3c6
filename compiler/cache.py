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
* the sha256 of every file it left in ``generated/`` (as the manifest has them), the units'
  files among them the very same strings (:mod:`marshal` writes each once, then refers to it);
* the **source key** of the whole compile (every file under ``intent/``) and its summary: a
  compile with the same key, under the same code, over an untouched ``generated/`` has nothing
  to do, and says so without loading the intent;
* the size and modification time of every file it left in ``generated/``: as the walk of the
  tree before the compile found them (:func:`walk`, saved as it marshalled them, never unpacked
  by the compile) and those of the files the compile wrote or removed since. They are read by the
  walk alone, in its forked child, which tells the compile only the files whose size or time is
  no longer the recorded one (and any recorded file that is gone).

The record is a short head (format, code digest, a token of its own, the length of each part)
and four parts, each a :mod:`marshal` of its own: the stamps as walked, the stamps written
since, the files' paths (one string), the rest. The walk unpacks only the stamps and the paths,
the compile only the rest; the token tells that both read the same record (another compile may
replace it in between).

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
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from core.codedigest import code_digest as _code_digest
from core.codedigest import files_under

CACHE_DIR = ".fabricops-cache"
CACHE_FILE = "compile.marshal"
FORMAT = 7
_PACKAGES = ("compiler", "core")


def code_digest() -> str:
    """sha256 of everything a compile runs besides the intent (:func:`core.codedigest.code_digest`
    of the ``compiler`` and ``core`` packages) and of the record's format: worked out once per
    process, or taken from a child that did (:func:`adopt_code_digest`)."""
    code = _CODE.get("")
    if code is None:
        code = _CODE[""] = hashlib.sha256(f"{FORMAT} {_code_digest(_PACKAGES)}".encode()).hexdigest()
    return code


def adopt_code_digest(code: str) -> str:
    """:func:`code_digest` as a child forked from this process worked it out (the same files,
    read while this one imported the compiler: 15 ms at 16x); the digest worked out here, if any,
    stays."""
    return _CODE.setdefault("", code)


_CODE: dict[str, str] = {}


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

    # Bound once: thousands of keys a compile (a copy of a pickle of a few hundred bytes costs
    # less than a view of it and its release).
    seek, truncate, dump, value, copy = out.seek, out.truncate, pickler.dump, out.getvalue, seed.copy

    def key(inputs: object) -> str:
        seek(0)
        truncate()
        dump(inputs)
        digest = copy()
        digest.update(value())
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
    """sha256 of every file under ``intent_dir`` (names and bytes): the record's, valid only
    under its own code digest (:meth:`CompileCache.under`)."""
    digest = hashlib.sha256()
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


class Walk(NamedTuple):
    """``generated/`` as the walk found it (:func:`walk`): what the compile needs of it, and no
    more (a fleet's 18,000 stamps cost the parent 10 ms to unpickle and as much to compare)."""

    names: str
    """Every file's relative path, joined by NUL (one string: sent at memcpy speed)."""
    stamps: bytes
    """:func:`marshal` of :func:`stamps`: the next record's, saved as it is."""
    unsure: frozenset[str] | None
    """The files whose size and time are not the recorded ones (new, gone or changed since the
    last compile); None without a readable record of them."""
    token: str = ""
    """The token of the record whose stamps these are (:attr:`CompileCache.token`)."""

    def paths(self) -> list[str]:
        """Every file of the tree, by relative path.

        Example:
            >>> Walk("a\\0b/c", b"", None).paths(), Walk("", b"", None).paths()
            (['a', 'b/c'], [])
        """
        return self.names.split("\0") if self.names else []

    @property
    def untouched(self) -> bool:
        """Whether the tree is exactly as the last compile left it (same files, sizes and times)."""
        return self.unsure is not None and not self.unsure


def walk(directory: Path, record: Path | None) -> Walk:
    """:func:`stamps` of ``directory``, told against those ``record`` (a :class:`CompileCache`
    file, or None) holds; run in a child process beside the record's load and the imports.

    The files no longer as recorded are those whose stamps differ (new, gone or changed) and
    any the record has a digest of that is gone or has none that is there (none, for a record a
    compile wrote: its files are its stamps' files): so every file the compile takes as known
    is there, and with none unsure the tree's files are exactly the record's (the parent need
    not look each of the fleet's files up again: :meth:`CompileCache.known_digests`,
    :meth:`CompileCache.tree`).

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> _ = (root / "a").write_text("x")
        >>> seen = walk(root, None)
        >>> seen.paths(), seen.unsure, marshal.loads(seen.stamps) == stamps(root)
        (['a'], None, True)
    """
    now = stamps(directory)
    token, recorded, files = _recorded(record) if record is not None else ("", None, [])
    unsure = None
    if recorded is not None:
        differ = {path for path, _ in now.items() ^ recorded.items()}
        gone = [path for path in files if path not in now]
        differ.update(gone)
        if gone or len(files) != len(now):  # else the same paths: no file there is unrecorded
            differ.update(now.keys() - set(files))
        unsure = frozenset(differ)
    return Walk("\0".join(now), marshal.dumps(now), unsure, token)


def recorded_stamps(record: Path) -> tuple[str, dict[str, Stamp] | None]:
    """The token of a record and the stamps of ``generated/`` it holds (:attr:`CompileCache.walked`,
    then :attr:`CompileCache.written`); no stamps when it is missing, unreadable or of another format."""
    token, tree, _ = _recorded(record)
    return token, tree


def _recorded(record: Path) -> tuple[str, dict[str, Stamp] | None, list[str]]:
    """The token, stamps and files' paths of a record; no stamps when it is missing,
    unreadable or of another format."""
    try:
        head, walked, written, paths, _ = _parts(record.read_bytes())
        if head[0] != FORMAT or not isinstance(head[2], str):
            return "", None, []
        tree = marshal.loads(walked)
        for path, stamp in marshal.loads(written).items():
            if stamp is None:
                tree.pop(path, None)
            else:
                tree[path] = stamp
        joined = marshal.loads(paths)
    except (OSError, ValueError, EOFError, TypeError, AttributeError, IndexError):
        return "", None, []
    if not isinstance(tree, dict) or not isinstance(joined, str):
        return "", None, []
    return head[2], tree, joined.split("\0") if joined else []


def _joined(head: tuple[Any, ...], *parts: bytes) -> list[bytes]:
    """A record's bytes, in pieces (written one after the other, never joined in memory): the
    length of its head, its head (:mod:`marshal`, ending with each part's length), then each
    part as it is.

    Example:
        >>> [bytes(part) for part in _parts(b"".join(_joined((7, "code", "token"), b"ab", b"", b"c", b"d")))[1:]]
        [b'ab', b'', b'c', b'd']
    """
    encoded = marshal.dumps((*head, *map(len, parts)))
    return [len(encoded).to_bytes(4, "little"), encoded, *parts]


_PARTS = 4
"""The stamps as walked, the stamps written since, the files' paths, the rest."""


def _parts(data: bytes) -> tuple[tuple[Any, ...], memoryview, memoryview, memoryview, memoryview]:
    """The head of a record (:func:`_joined`), then each part as a view of ``data`` (not a copy:
    the walk reads only the stamps and paths, the compile only the rest). Raises ValueError on
    bytes that do not add up.

    Example:
        >>> _parts(b"junk")
        Traceback (most recent call last):
        ValueError: not a record
    """
    size = int.from_bytes(data[:4], "little")
    head = marshal.loads(data[4 : 4 + size]) if len(data) > 4 + size else None
    if not isinstance(head, tuple) or len(head) != 3 + _PARTS or not all(isinstance(n, int) for n in head[3:]):
        raise ValueError("not a record")
    at, view, parts = 4 + size, memoryview(data), []
    for length in head[3:]:
        parts.append(view[at : at + length])
        at += length
    if at != len(data):
        raise ValueError("not a record")
    walked, written, paths, rest = parts
    return head[:3], walked, written, paths, rest


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


class Layout(NamedTuple):
    """A file joined from sections: its sha256, and each section's name and length in bytes, in order."""

    digest: str
    parts: list[tuple[str, int]]

    def cut(self, data: Chunk) -> dict[str, Chunk]:
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


def record_path(root: Path) -> Path:
    """Where the record of ``root`` is kept."""
    return root / CACHE_DIR / CACHE_FILE


class CompileCache:
    """The record of the last compile of one repository root (see the module docstring).

    A plain class (not a dataclass, whose methods are made at import: 1 ms of every start).
    """

    def __init__(
        self,
        root: Path,
        code: str = "",
        source: str = "",
        summary: list[str] | None = None,
        units: dict[str, Rendered] | None = None,
        sections: dict[str, Layout] | None = None,
        files: dict[str, str] | None = None,
        walked: bytes | None = None,
        written: dict[str, Stamp | None] | None = None,
        token: str = "",
    ) -> None:
        self.root, self.code, self.source = root, code, source
        self.summary: list[str] = summary if summary is not None else []
        self.units: dict[str, Rendered] = units if units is not None else {}
        self.sections: dict[str, Layout] = sections if sections is not None else {}
        self.files: dict[str, str] = files if files is not None else {}
        """The sha256 of each file the compile left in ``generated/``."""
        self.walked: bytes = walked if walked is not None else marshal.dumps({})
        """The stamps of ``generated/`` as the walk before the compile took them
        (:attr:`Walk.stamps`), read by the next walk only."""
        self.written: dict[str, Stamp | None] = written if written is not None else {}
        """The stamps of the files the compile wrote since, None for those it removed."""
        self.token = token
        """Which record this is (made afresh by each save): the walk's stamps are this record's
        only when it read the same token (:attr:`Walk.token`)."""

    @property
    def path(self) -> Path:
        return record_path(self.root)

    @classmethod
    def load(cls, root: Path) -> CompileCache:
        """The cache of ``root``; an empty one when it is missing, unreadable or from other code.
        Its stamps are left to the walk (:func:`recorded_stamps`): not read here."""
        return cls.read(root).under(code_digest())

    @classmethod
    def read(cls, root: Path) -> CompileCache:
        """The cache of ``root`` under the code it names, to be taken only :meth:`under` the
        running code's digest (read while that digest is still being worked out); an empty one
        when it is missing or unreadable."""
        try:
            head, _, _, _, rest = _parts(record_path(root).read_bytes())
            if head[0] != FORMAT or not isinstance(head[1], str) or not isinstance(head[2], str):
                return cls(root)
            source, summary, files, saved, layouts = marshal.loads(rest)
            # Plain tuples and dicts (a record of other code that does not unpack so is none):
            # made records at C speed, thousands of them, without a Python call each.
            units = dict(zip(saved, map(_RENDERED, saved.values()), strict=True))
            sections = {path: Layout(digest, parts) for path, (digest, parts) in layouts.items()}
        except (OSError, ValueError, EOFError, TypeError, AttributeError, IndexError):
            return cls(root)
        return cls(root, head[1], source, summary, units, sections, files, token=head[2])

    def under(self, code: str) -> CompileCache:
        """This cache when its code digest is ``code``; else an empty one for ``code``.

        Example:
            >>> cache = CompileCache(Path("."), "a", source="x")
            >>> cache.under("a").source, cache.under("b").source
            ('x', '')
        """
        return self if self.code == code else CompileCache(self.root, code)

    def save(self) -> None:
        """Write the record atomically (a reader never sees half of it)."""
        # The files' digests first: the units' files hold the same strings, written as references.
        rest = (
            self.source,
            self.summary,
            self.files,
            {name: tuple(unit) for name, unit in self.units.items()},
            {path: (s.digest, s.parts) for path, s in self.sections.items()},
        )
        self.token = os.urandom(8).hex()
        # The files' paths apart, for the walk (one string: it tells the files gone or not recorded).
        paths = marshal.dumps("\0".join(self.files))
        pieces = _joined(
            (FORMAT, self.code, self.token), self.walked, marshal.dumps(self.written), paths, marshal.dumps(rest)
        )
        self.path.parent.mkdir(exist_ok=True)
        ignore = self.path.parent / ".gitignore"
        if not ignore.exists():  # not rewritten each time: ext4 flushed it to disk at once, up to 5 ms
            ignore.write_text("*\n")
        tmp = self.path.with_suffix(".tmp")
        with tmp.open("wb") as out:
            out.writelines(pieces)
        # The last record is removed before the new one takes its name: a rename over a file
        # makes ext4 write the new file's data out at once (its replace-via-rename safeguard: 5 ms
        # for a fleet's record). A reader finds either record whole, or none: a miss.
        self.path.unlink(missing_ok=True)
        os.replace(tmp, self.path)

    def unchanged(self, source: str, seen: Walk) -> list[str] | None:
        """The last compile's summary when it ran on the same intent and code and left
        ``generated/`` as the walk ``seen`` finds it (same files, sizes and times); else None."""
        if not self.source or source != self.source or seen.token != self.token:
            return None
        return self.summary if seen.untouched else None

    def tree(self, seen: Walk) -> Iterable[str] | Mapping[str, str]:
        """The paths of the files of ``generated/`` as the walk ``seen`` found them: this
        record's files themselves when the walk read this very record and found nothing
        unsure (then they are exactly the tree's), else the walk's paths.

        Example:
            >>> cache = CompileCache(Path("."), files={"a": "1"}, token="t")
            >>> cache.tree(Walk("a", b"", frozenset(), "t")) is cache.files
            True
            >>> cache.tree(Walk("a\\0b", b"", frozenset({"b"}), "t"))
            ['a', 'b']
        """
        return self.files if seen.untouched and seen.token == self.token else seen.paths()

    def known_digests(self, seen: Walk) -> Mapping[str, str]:
        """The sha256 of each file of ``generated/`` whose size and time are those the last
        compile left (all but :attr:`Walk.unsure`, when the walk read this very record: the
        files gone among them), as it recorded them: files that need not be read to be compared.
        With none unsure, the record's own (read only: a copy of a fleet's cost 3 to 10 ms).

        Example:
            >>> cache = CompileCache(Path("."), files={"a": "1", "b": "2", "c": "3"}, token="t")
            >>> cache.known_digests(Walk("", b"", frozenset({"b", "c"}), "t"))
            {'a': '1'}
            >>> cache.known_digests(Walk("", b"", frozenset(), "t")) is cache.files
            True
            >>> cache.known_digests(Walk("", b"", frozenset(), "another record"))
            {}
        """
        unsure = seen.unsure
        if unsure is None or seen.token != self.token:
            return {}
        if not unsure:
            return self.files
        known = dict(self.files)  # at C speed, then the few that differ taken out
        for path in unsure:
            known.pop(path, None)
        return known


class Reuse:
    """What a compile may take from the last one: units' digests and, read when asked, their
    files and sections (a plain class, as :class:`CompileCache`)."""

    def __init__(self, cache: CompileCache, known: Mapping[str, str], current: Mapping[str, bytes]) -> None:
        self.cache = cache
        self.known = known
        """The sha256 of each file of ``generated/`` unchanged since the last compile wrote it."""
        self.current = current
        """``generated/`` as it is, each file read when asked."""
        self._cut: dict[str, dict[str, Chunk]] = {}

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
        return self.sections(file).get(name)

    def sections(self, file: str) -> dict[str, Chunk]:
        """The sections of ``file`` as the last compile wrote it, by name (none when its layout
        is not recorded or the file is no longer the one written), cut once."""
        cut = self._cut.get(file)
        if cut is None:
            layout = self.cache.sections.get(file)
            fresh = layout is not None and self.known.get(file) == layout.digest
            cut = self._cut[file] = layout.cut(self._whole(file)) if layout is not None and fresh else {}
        return cut

    def _whole(self, file: str) -> bytes | memoryview:
        """``file`` as it is, mapped when ``current`` is the tree on disk (not read: only its
        sections' views are used)."""
        from compiler.output import TreeOnDisk

        current = self.current
        return current.mapped(file) if isinstance(current, TreeOnDisk) else current[file]


def restamped(written: Iterable[str], removed: Iterable[str], directory: Path) -> dict[str, Stamp | None]:
    """The stamps of the files a write left in ``directory`` (``written``), None for those it
    removed: what changed since the walk (:attr:`CompileCache.written`).

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> _ = (root / "a").write_text("xy")
        >>> restamped(["a"], ["b"], root) == {"a": stamps(root)["a"], "b": None}
        True
    """
    out: dict[str, Stamp | None] = dict.fromkeys(removed)
    for path in written:
        st = (directory / path).stat()
        out[path] = (st.st_size, st.st_mtime_ns)
    return out
