"""Write ``generated/`` atomically, with a manifest, and tell what is stale.

A compile builds every file in memory first and writes nothing until every stage has passed,
so a failed compile leaves ``generated/`` byte-identical. Then only the files that differ are
written, as a small transaction: they are staged beside the tree (``.generated.staging/``, one
folder: each file under its number in the change, no tree of folders to make and remove), a
commit marker listing every change is written atomically, and the staged files are moved into
place with ``os.replace`` (into an empty or missing tree, the staged tree is renamed into place
at once). A write interrupted before the marker is discarded; one interrupted after it is
rolled forward by the next compile. Creating files is what costs on a large tree, so
a one-server change writes a few dozen files rather than every file of the fleet.
"""

from __future__ import annotations

import functools
import hashlib
import json
import mmap
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, KeysView, Mapping
from itertools import filterfalse
from pathlib import Path
from typing import NamedTuple

from core.generated import MANIFEST, manifest_bytes

Pieces = list[bytes | memoryview]
"""A file as its pieces in order (a fleet-wide table joined from sections, most of them views of
the file as the last compile wrote it): written piece by piece, joined only when read."""


def with_manifest(files: dict[str, str], intent_digest: str) -> dict[str, bytes]:
    """``files`` encoded, plus ``MANIFEST.json``: the sha256 of every file and the intent digest.

    Example:
        >>> out = with_manifest({"configs/a.cfg": "x\\n"}, "abc")
        >>> json.loads(out["MANIFEST.json"])["files"]["configs/a.cfg"][:12]
        '73cb3858a687'
    """
    encoded = {path: text.encode() for path, text in sorted(files.items())}
    encoded[MANIFEST] = manifest_bytes(encoded, intent_digest)
    return encoded


class Staleness(NamedTuple):
    """How ``generated/`` on disk differs from what the intent compiles to (a record: a frozen
    dataclass made its methods at import, 0.5 ms of every start)."""

    changed: tuple[str, ...]
    missing: tuple[str, ...]
    extra: tuple[str, ...]

    @property
    def stale(self) -> bool:
        return bool(self.changed or self.missing or self.extra)

    def lines(self) -> list[str]:
        return (
            [f"changed: generated/{p}" for p in self.changed]
            + [f"missing: generated/{p}" for p in self.missing]
            + [f"extra:   generated/{p}" for p in self.extra]
        )


def read_tree(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` by relative POSIX path."""
    if not directory.is_dir():
        return {}
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


class TreeOnDisk(Mapping[str, bytes]):
    """A tree's files by relative path, each read (once) when asked: a compile that knows most
    of them from their digests reads only the few it needs.

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp())
        >>> _ = (root / "a.cfg").write_text("x")
        >>> tree = TreeOnDisk(root, ["a.cfg"])
        >>> "a.cfg" in tree, tree["a.cfg"], len(tree)
        (True, b'x', 1)
    """

    def __init__(self, directory: Path, paths: Iterable[str] | Mapping[str, object]) -> None:
        """``paths``: the tree's files; a mapping's keys are taken as they are (a fleet's
        18,000 paths, not hashed into a table of their own again)."""
        self._directory = directory
        self._paths: Mapping[str, object] = paths if isinstance(paths, Mapping) else dict.fromkeys(paths)
        self._read: dict[str, bytes] = {}

    def __getitem__(self, path: str) -> bytes:
        if path not in self._paths:
            raise KeyError(path)
        if path not in self._read:
            self._read[path] = (self._directory / path).read_bytes()
        return self._read[path]

    def mapped(self, path: str) -> bytes | memoryview:
        """File ``path`` mapped read-only instead of read: the kernel's pages of it, touched
        only as they are used (a fleet's tables are megabytes, cut into sections, then hashed
        and written from those views: a read first copied them all into fresh memory). The
        compile never writes a file in place (it stages and renames), so a mapped file's
        bytes stay those mapped. Read, not mapped, where a mapped file cannot be replaced.

        Example:
            >>> import tempfile
            >>> root = Path(tempfile.mkdtemp())
            >>> _ = (root / "a.csv").write_text("x,y")
            >>> bytes(TreeOnDisk(root, ["a.csv"]).mapped("a.csv"))
            b'x,y'
        """
        if path not in self._paths:
            raise KeyError(path)
        read = self._read.get(path)
        if read is not None or os.name != "posix":
            # Elsewhere (Windows) a mapped file cannot be replaced: the write would fail.
            return read if read is not None else self[path]
        with (self._directory / path).open("rb") as file:
            if not os.fstat(file.fileno()).st_size:
                return b""  # an empty file cannot be mapped
            return memoryview(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ))

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def keys(self) -> KeysView[str]:
        """The paths as a dict's view: set operations over a fleet's tree run at C speed."""
        return self._paths.keys()


class CompiledFiles(Mapping[str, bytes]):
    """A compile's files by path, in path order: those built, in memory, and those kept from
    ``generated/`` as they are (``read`` when asked); ``digests`` is the sha256 of each.

    Example:
        >>> files = CompiledFiles({"b": b"new"}, {"a": "d1", "b": "d0"}, lambda path: b"kept", {"b": "d2"})
        >>> list(files), files["a"], files["b"], files.digests["a"]
        (['a', 'b'], b'kept', b'new', 'd1')
    """

    def __init__(
        self,
        built: Mapping[str, bytes | Pieces],
        kept: Mapping[str, str],
        read: Callable[[str], bytes],
        digests: dict[str, str],
    ) -> None:
        self._built = built
        self._read = read
        self.kept = kept
        """The files taken from ``generated/`` as they are, and their digests."""
        self.digests = {**digests, **kept}

    def __getitem__(self, path: str) -> bytes:
        data = self._built.get(path)
        if data is not None:
            return b"".join(data) if isinstance(data, list) else data
        if path not in self.digests:
            raise KeyError(path)
        return self._read(path)

    def pieces(self, path: str) -> Iterable[bytes | memoryview]:
        """The bytes of ``path`` in pieces, not joined: the pieces of a file built in pieces
        (:data:`Pieces`: megabytes at 16x, that a join would copy once more only to write)."""
        data = self._built.get(path)
        return data if isinstance(data, list) else (self[path],)

    def __contains__(self, path: object) -> bool:
        return path in self.digests

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    @functools.cached_property
    def _paths(self) -> list[str]:
        """Every path, sorted when first asked (a compile that writes asks only for the files'
        digests and count, never for the 18,000 paths in order: 3 ms at 16x). From a list in
        the order the units came (runs timsort merges), not from a set in hash order: a fifth
        of the cost."""
        return sorted([*self._built, *filterfalse(self._built.__contains__, self.kept)])

    def __len__(self) -> int:
        return len(self.digests)

    def keys(self) -> KeysView[str]:
        """The paths as a dict's view (see :meth:`TreeOnDisk.keys`)."""
        return self.digests.keys()

    def built(self) -> KeysView[str]:
        """The paths of the files built by this compile (not :attr:`kept`)."""
        return self._built.keys()


def _differs(
    path: str,
    files: Mapping[str, bytes],
    current: Mapping[str, bytes],
    known: Mapping[str, str],
    fresh: Mapping[str, str],
) -> bool:
    was = known.get(path)
    if was is None:
        return current[path] != files[path]
    now = fresh.get(path)
    return (now if now is not None else hashlib.sha256(files[path]).hexdigest()) != was


def diff_trees(
    current: Mapping[str, bytes],
    files: Mapping[str, bytes],
    digests: Mapping[str, str] | None = None,
    fresh: Mapping[str, str] | None = None,
) -> Staleness:
    """What differs between a tree as it is and as it should be (``digests``: the sha256 of files
    of ``current`` known without reading them, each one ``current`` holds; ``fresh``: those of
    ``files``, known without hashing them).

    Example:
        >>> diff_trees({"a": b"1", "b": b"2"}, {"a": b"1", "b": b"3", "c": b"4"}).lines()
        ['changed: generated/b', 'missing: generated/c']
    """
    known, new = digests or {}, fresh or {}
    have, want = current.keys(), files.keys()
    if isinstance(files, CompiledFiles) and files.kept.items() <= known.items():
        # Each file a compile kept is one ``current`` holds with the digest known (its unit was
        # kept for that, checked again here at C speed): only the files built can differ, a
        # few dozen after a one-row change at 16x, not 18,000 looked up one by one.
        # And so only they can be missing: the files known are files of ``current``.
        both: Iterable[str] = files.built() & have
        missing = files.built() - have
    else:
        both = want & have
        missing = want - have
    # Every file of ``current`` is wanted when as many are there as are wanted and not missing:
    # counted, not 18,000 looked up again.
    extra = have - want if len(have) != len(want) - len(missing) else ()
    # Most files of a recompile have a fresh digest equal to the known one: settled by two
    # lookups, without a call per file.
    unsure = [p for p in both if (d := new.get(p)) is None or d != known.get(p)]
    return Staleness(
        changed=tuple(sorted(p for p in unsure if _differs(p, files, current, known, new))),
        missing=tuple(sorted(missing)),
        extra=tuple(sorted(extra)),
    )


def compare(directory: Path, files: Mapping[str, bytes]) -> Staleness:
    """What differs between ``directory`` and the compiled ``files`` (an interrupted write is finished first)."""
    recover(directory)
    return diff_trees(read_tree(directory), files)


COMMIT = "COMMIT.json"


def staging_dir(directory: Path) -> Path:
    """Where a write to ``directory`` is staged: beside it, on the same file system."""
    return directory.parent / f".{directory.name}.staging"


def write_tree(
    directory: Path,
    files: Mapping[str, bytes],
    current: Mapping[str, bytes] | None = None,
    digests: Mapping[str, str] | None = None,
    fresh: Mapping[str, str] | None = None,
) -> Staleness:
    """Make ``directory`` hold exactly ``files``, writing only what differs; return what changed.

    ``current`` is the tree as already read (saves reading it twice); ``digests`` the sha256 of
    those of its files known unchanged since they were written (not read again); ``fresh`` the
    sha256 of ``files`` (a file whose two digests agree is neither read nor hashed).
    """
    return stage_tree(directory, files, current, digests, fresh).apply()


class StagedWrite(NamedTuple):
    """A write staged beside ``directory`` (:func:`stage_tree`) and not made yet: the files that
    differ are written aside, no commit marker yet, so ``directory`` is untouched until
    :meth:`apply`; :meth:`discard` drops it (as does the next :func:`recover`).

    Example:
        >>> import tempfile
        >>> root = Path(tempfile.mkdtemp()) / "generated"
        >>> staged = stage_tree(root, {"a.cfg": b"x"})
        >>> root.exists(), staged.apply().missing, (root / "a.cfg").read_bytes()
        (False, ('a.cfg',), b'x')
    """

    directory: Path
    change: Staleness
    whole: bool
    """Nothing was there: the staged tree becomes ``directory`` by one rename."""

    def apply(self) -> Staleness:
        """Write the commit marker (the point of no return), move the staged files into place."""
        if not self.change.stale:
            return self.change
        staging = staging_dir(self.directory)
        marker: dict[str, object] = {
            "write": [*self.change.changed, *self.change.missing],
            "remove": list(self.change.extra),
        }
        if self.whole:
            marker["whole"] = True
        else:
            marker["flat"] = True  # staged as files/<its index in "write">
        try:
            (staging / f"{COMMIT}.tmp").write_text(json.dumps(marker))
            os.replace(staging / f"{COMMIT}.tmp", staging / COMMIT)
        except BaseException:
            self.discard()
            raise
        _apply(self.directory, staging)
        return self.change

    def discard(self) -> None:
        """Drop the staged files: ``directory`` stays as it was."""
        if self.change.stale:
            shutil.rmtree(staging_dir(self.directory), ignore_errors=True)


def stage_tree(
    directory: Path,
    files: Mapping[str, bytes],
    current: Mapping[str, bytes] | None = None,
    digests: Mapping[str, str] | None = None,
    fresh: Mapping[str, str] | None = None,
) -> StagedWrite:
    """The first half of :func:`write_tree` (same arguments): what differs, written aside. The
    compile stages its write while the checks still run, and applies it once they pass."""
    directory = directory.resolve()
    recover(directory)
    current_files = read_tree(directory) if current is None else current
    change = diff_trees(current_files, files, digests, fresh)
    staged = StagedWrite(directory, change, whole=not current_files)
    if not change.stale:
        return staged
    staging = staging_dir(directory)
    shutil.rmtree(staging, ignore_errors=True)
    made: set[Path] = set()
    try:
        for index, relpath in enumerate((*change.changed, *change.missing)):
            # A whole tree is renamed into place at once: staged as the tree. A few files are
            # moved one by one: staged side by side, numbered (the folders of a tree cost a
            # mkdir each here and a rmdir each once applied, 4 ms apiece on a busy disk).
            target = staging / "files" / (relpath if staged.whole else str(index))
            _ensure_dir(target.parent, made)
            _write_file(target, files, relpath)
    except BaseException:
        staged.discard()
        raise
    return staged


def _write_file(target: Path, files: Mapping[str, bytes], relpath: str) -> None:
    """Write file ``relpath`` of ``files`` to ``target``: a compile's file built in pieces
    (:meth:`CompiledFiles.pieces`) from its pieces, a thousand a call (``os.writev``: no copy
    of them joined, nor through a buffer)."""
    if not isinstance(files, CompiledFiles) or not hasattr(os, "writev"):
        target.write_bytes(files[relpath])
        return
    pending = [memoryview(piece) for piece in files.pieces(relpath) if len(piece)]
    with target.open("wb", buffering=0) as out:
        while pending:
            batch = pending[:_IOV_MAX]
            written = os.writev(out.fileno(), batch)
            done = 0
            while done < len(batch) and written >= len(batch[done]):  # the pieces written whole
                written -= len(batch[done])
                done += 1
            del pending[:done]
            if written:  # a piece written in part: the rest of it next
                pending[0] = pending[0][written:]


_IOV_MAX = 1024
"""The most pieces one ``writev`` takes on Linux."""


def recover(directory: Path) -> None:
    """Finish an interrupted write (marker present) or discard it (marker absent)."""
    staging = staging_dir(directory.resolve())
    if not staging.exists():
        return
    if (staging / COMMIT).is_file():
        _apply(directory.resolve(), staging)
    else:
        shutil.rmtree(staging, ignore_errors=True)


def _apply(directory: Path, staging: Path) -> None:
    """Move the staged files into place and remove the dropped ones; idempotent."""
    marker = json.loads((staging / COMMIT).read_text())
    if marker.get("whole") and (staging / "files").is_dir() and not _holds_files(directory):
        if directory.is_dir():
            shutil.rmtree(directory)  # empty folders at most
        directory.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging / "files", directory)
        shutil.rmtree(staging, ignore_errors=True)
        return
    made: set[Path] = set()
    flat = marker.get("flat", False)  # else staged as the tree (a marker of an earlier version)
    for index, relpath in enumerate(marker["write"]):
        source = staging / "files" / (str(index) if flat else relpath)
        if source.exists():  # else moved already by an earlier, interrupted apply
            target = directory / relpath
            _ensure_dir(target.parent, made)
            # The file it replaces is removed first: a rename over a file makes ext4 start
            # writing the new file's data out at once (its replace-via-rename safeguard: a
            # fleet's tables are megabytes, 5-10 ms for a one-row change). The marker, still
            # there, rolls an apply interrupted in between forward.
            target.unlink(missing_ok=True)
            os.replace(source, target)
    for relpath in marker["remove"]:
        (directory / relpath).unlink(missing_ok=True)
        _prune_empty(directory, (directory / relpath).parent)
    shutil.rmtree(staging, ignore_errors=True)


def _holds_files(directory: Path) -> bool:
    return directory.is_dir() and any(p.is_file() for p in directory.rglob("*"))


def _ensure_dir(folder: Path, made: set[Path]) -> None:
    """mkdir -p once per folder: on a fleet-sized tree the repeated calls cost seconds."""
    if folder not in made:
        folder.mkdir(parents=True, exist_ok=True)
        made.add(folder)


def _prune_empty(root: Path, folder: Path) -> None:
    while folder != root and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
