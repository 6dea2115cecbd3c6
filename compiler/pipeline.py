"""The compile pipeline: load -> resolve -> render, the checks beside it -> (write), timed per stage.

Example:
    >>> from pathlib import Path
    >>> result = compile_intent(Path("intent"))
    >>> len(result.fabric.devices) > 0 and "MANIFEST.json" in result.files
    True
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from pathlib import Path
from typing import overload

from compiler.artifacts.provenance import provenance_units
from compiler.artifacts.site import fleet_artifacts, site_units
from compiler.artifacts.units import Unit, facts_digests, switch_units
from compiler.beside import Beside
from compiler.cache import Chunk, Layout, Rendered, Reuse, code_digest, fingerprinter, sha256
from compiler.checks import Finding, checked, run_checks
from compiler.configcache import ConfigCache
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import Intent, load_intent
from compiler.output import CompiledFiles, Pieces, StagedWrite, Staleness, compare, write_tree
from core.errors import CompileError
from core.generated import MANIFEST, manifest_of


@dataclass
class CompileResult:
    """Everything one compile produced, and how long each stage took (seconds)."""

    intent: Intent
    fabric: ResolvedFabric
    findings: list[Finding]
    files: CompiledFiles
    timings: dict[str, float] = field(default_factory=dict)
    renders: dict[str, Rendered] = field(default_factory=dict)
    """Per unit of generated/: the fingerprint of its inputs and the sha256 of its files."""
    reused: int = 0
    """Switches whose files were taken from the last compile rather than rendered."""
    kept_servers: int = 0
    """Servers whose files were taken from the last compile."""
    layouts: dict[str, Layout] = field(default_factory=dict)
    """Per fleet-wide file joined from sections, its layout."""
    kept_configs: int = 0
    """Structured configs the checks took from the last compile (:mod:`compiler.configcache`)."""
    staged: StagedWrite | None = None
    """The write to ``generated/``, staged while the checks ran (see :func:`compile_intent`)."""

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def config_lines(self) -> int:
        return sum(unit.config_lines for unit in self.renders.values())


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    start = time.perf_counter()
    yield
    timings[stage] = timings.get(stage, 0.0) + time.perf_counter() - start


class Assembly:
    """The files of one compile: each unit built, or kept from the last compile when the
    fingerprint of its inputs is unchanged (``reuse``), and the fleet-wide files built or
    joined from the units' sections (:func:`compiler.artifacts.units.section_path`).

    Example:
        >>> parts = Assembly()
        >>> parts.add([Unit("switch/a", 1, lambda: {"configs/a.cfg": "x\\n", "list.yaml#a": "a: 1\\n"})])
        >>> _ = parts.update({"docs/fabric.md": "# a\\n"})
        >>> files = parts.files("digest")
        >>> list(files), files["list.yaml"], parts.kept
        (['MANIFEST.json', 'configs/a.cfg', 'docs/fabric.md', 'list.yaml'], b'a: 1\\n', {})
    """

    def __init__(self, reuse: Reuse | None = None) -> None:
        self._reuse = reuse
        self._key = fingerprinter(code_digest())
        self._built: dict[str, bytes | Pieces] = {}
        self._digests: dict[str, str] = {}
        self._sections: dict[str, dict[str, Chunk]] = {}
        self._joined: set[str] = set()
        """The files with a section built now: joined and hashed again."""
        self._kept: dict[str, str] = {}
        """The digest of each file of the units kept (their sections apart)."""
        self._kept_units: list[str] = []
        """The names of the units kept."""
        self._cuts: dict[str, dict[str, Chunk]] = {}
        """Per fleet-wide file, its sections as the last compile wrote them (:meth:`Reuse.sections`)."""
        self.units: dict[str, Rendered] = {}
        self.layouts: dict[str, Layout] = {}
        """Per file joined from sections, its layout (for the next compile to cut it again)."""

    def add(self, units: Iterable[Unit]) -> None:
        # Reuse.kept inline: a unit whose key and files are as recorded (most are) costs no
        # call of its own, and a kept unit's sections are cut once (Reuse.kept would cut them
        # to check them, then again to take them). Kept units are counted by kind once, at the
        # end (:attr:`kept`), not one by one.
        key_of, rendered, kept, keep_files = self._key, self.units, self._kept_units.append, self._kept.update
        records = self._reuse.cache.units if self._reuse is not None else {}
        known = self._reuse.known.items() if self._reuse is not None else {}.items()
        get = records.get
        for unit in units:
            name = unit.name
            key = key_of(unit.inputs)
            record = get(name)
            if record is not None and record.key == key:
                files = record.files
                if files.items() <= known:  # every file as written (a section never is)
                    keep_files(files)
                elif not self._kept_sections(files):
                    self._build(unit, key, record)
                    continue
                rendered[name] = record
                kept(name)
                continue
            self._build(unit, key, record)

    def _build(self, unit: Unit, key: str, last: Rendered | None) -> None:
        """Build ``unit`` (its last record, if any, under ``last``), add its files."""
        notes = None
        if unit.recall is None:
            built = unit.build()
        else:
            built, notes = unit.recall(last.notes if last is not None and last.notes else {})
        lines = sum(text.count("\n") for path, text in built.items() if path.startswith("configs/"))
        self.units[unit.name] = Rendered(key, self.update(built), lines, notes)

    @property
    def kept(self) -> dict[str, int]:
        """Units kept, by kind (the name before its ``/``).

        Example:
            >>> parts = Assembly()
            >>> parts._kept_units += ["switch/a", "switch/b", "server/c"]
            >>> parts.kept
            {'switch': 2, 'server': 1}
        """
        return dict(Counter(name.partition("/")[0] for name in self._kept_units))

    def _kept_sections(self, files: Mapping[str, str]) -> bool:
        """Whether a unit's recorded ``files`` are each as the last compile wrote it (a section:
        cut from its file as written, a file: with its digest), and if so keep them.
        A section is not hashed again: its layout and the record were saved by one compile,
        which hashed it to its digest, and the file is that compile's (:meth:`Reuse.kept`)."""
        reuse = self._reuse
        if reuse is None:
            return False
        known, cuts = reuse.known, self._cuts
        plain: list[tuple[str, str]] = []
        sections: list[tuple[str, str, Chunk]] = []
        for path, digest in files.items():
            file, mark, name = path.partition("#")
            if mark:
                # Reuse.section inline, its file's sections kept here by the file's name.
                cut = cuts.get(file)
                if cut is None:
                    cut = cuts[file] = reuse.sections(file)
                data = cut.get(name)
                if data is None:
                    return False
                sections.append((file, name, data))
            elif known.get(path) != digest:
                return False
            else:
                plain.append((path, digest))
        self._kept.update(plain)
        for file, name, data in sections:
            self._sections.setdefault(file, {})[name] = data
        return True

    def update(self, files: Mapping[str, str]) -> dict[str, str]:
        """Add files (and sections) built now; their sha256."""
        digests: dict[str, str] = {}
        for path, text in files.items():
            data = text.encode()
            digests[path] = sha256(data)
            if "#" in path:
                self._section(path, data, built=True)
            else:
                self._built[path] = data
                self._digests[path] = digests[path]
        return digests

    def _section(self, path: str, data: Chunk, built: bool = False) -> None:
        file, _, name = path.partition("#")
        self._sections.setdefault(file, {})[name] = data
        if built:
            self._joined.add(file)

    def files(self, intent_digest: str) -> CompiledFiles:
        """Every file, ``MANIFEST.json`` included (kept files are read only when asked).

        A file joined from sections that were all kept, in the order the last compile joined
        them, is that compile's file (each section was cut from it, and its layout names them
        all): kept as it is, neither joined nor hashed again.
        """
        recorded = self._reuse.cache.sections if self._reuse is not None else {}
        for file, sections in self._sections.items():
            layout = recorded.get(file) if file not in self._joined else None
            if layout is not None and _names(layout) == list(sections):
                self._kept[file] = layout.digest
                self.layouts[file] = layout
                continue
            # Hashed and written in its pieces, not joined: a join of a fleet's tables (13 MB at
            # 16x, mostly views of the files as written) cost more than hashing them.
            pieces = list(sections.values())
            self._built[file] = pieces
            self._digests[file] = _sha256_of(pieces)
            parts = list(zip(sections, map(len, pieces), strict=True))  # at C speed: thousands of sections
            self.layouts[file] = Layout(self._digests[file], parts)
        kept = self._kept
        for path in self._built.keys() & kept.keys():
            del kept[path]  # a file kept and built again (none is, by design): the built one
        manifest = manifest_of({**kept, **self._digests}, intent_digest)
        self._built[MANIFEST] = manifest
        self._digests[MANIFEST] = sha256(manifest)
        read = self._reuse.read if self._reuse is not None else _nothing_kept
        return CompiledFiles(self._built, kept, read, self._digests)


def _sha256_of(pieces: Iterable[Chunk]) -> str:
    """sha256 of the pieces joined, without joining them.

    Example:
        >>> _sha256_of([b"ab", memoryview(b"c")]) == sha256(b"abc")
        True
    """
    digest = hashlib.sha256()
    for piece in pieces:
        digest.update(piece)
    return digest.hexdigest()


def _names(layout: Layout) -> list[str]:
    return list(map(_NAME, layout.parts))


_NAME = itemgetter(0)


def _nothing_kept(path: str) -> bytes:
    raise KeyError(path)


def compile_intent(
    intent_dir: Path,
    reuse: Reuse | Callable[[], Reuse] | None = None,
    fork: bool | None = None,
    configs: ConfigCache | None = None,
    stage: Callable[[CompiledFiles], StagedWrite] | None = None,
) -> CompileResult:
    """Compile ``intent_dir`` in memory; nothing is written (``reuse``: the last compile's units,
    see :class:`Assembly`; ``fork``: whether the checks run in a forked process beside the
    render, see :class:`compiler.beside.Beside`; ``configs``: the structured configs the checks
    may take from the last compile, see :mod:`compiler.configcache`; ``stage``: the first half
    of the write, :func:`compiler.output.stage_tree`, run once the files are built while the
    checks may still run: :func:`write_generated` applies it, or drops it on a check error).

    ``reuse`` may be asked for only when the render starts (a callable): the walk of
    ``generated/`` it needs runs beside the load and the resolve.

    Without ``configs``, a compile that reuses its record (``reuse``) keeps the configs beside it,
    in ``.fabricops-cache/``, and reads them only when the record was read: ``compile --full``
    starts from an empty record, so it builds every config and writes the file again.
    """
    timings: dict[str, float] = {}
    with _timed(timings, "load"):
        intent = load_intent(intent_dir)
    with _timed(timings, "resolve"):
        fabric = resolve(intent)
        # Before the fork: the checks' process inherits them for its configs, the render keys
        # its switch units by them (the same object: facts_digests keeps its last answer).
        digests = facts_digests(fabric)
    if configs is None and reuse is not None:
        reuse = _taken(reuse)
        configs = ConfigCache.of_record(reuse.cache)
    # The checks run beside the render (compiler.beside): "checks" is then the fork and the wait
    # for them once the render is done; where they cannot fork, the checks themselves.
    with _timed(timings, "checks"):
        checking = Beside(partial(_checks, intent, fabric, digests, configs), fork)
    with checking:
        with _timed(timings, "render"):
            parts = Assembly(_taken(reuse))
            parts.add(switch_units(fabric))
            parts.add(site_units(intent, fabric))
            parts.add(provenance_units(fabric.devices, fabric.facts.provenance))
            parts.update(fleet_artifacts(intent, fabric))
            files = parts.files(intent.digest)
        staged = None
        if stage is not None:
            with _timed(timings, "write"):
                staged = stage(files)
        try:
            with _timed(timings, "checks"):
                findings, kept_configs = checking.result()
        except BaseException:
            if staged is not None:
                staged.discard()
            raise
    return CompileResult(
        intent,
        fabric,
        findings,
        files,
        timings,
        parts.units,
        parts.kept.get("switch", 0),
        parts.kept.get("server", 0),
        parts.layouts,
        kept_configs,
        staged,
    )


@overload
def _taken(reuse: Reuse | Callable[[], Reuse]) -> Reuse: ...
@overload
def _taken(reuse: None) -> None: ...
def _taken(reuse: Reuse | Callable[[], Reuse] | None) -> Reuse | None:
    """``reuse``, asked for now when it was deferred."""
    return reuse() if callable(reuse) else reuse


def _checks(
    intent: Intent, fabric: ResolvedFabric, digests: Mapping[str, str], configs: ConfigCache | None
) -> tuple[list[Finding], int]:
    """The findings, and how many configs they read from ``configs``: the checks run over the
    fabric with the configs kept there, the findings whose inputs are unchanged taken from there
    too (a switch rule's about a switch under its facts digest, a keyed rule's under its inputs:
    :func:`compiler.checks.checked`), then every config they read and those findings are kept for
    the next compile.

    The checks' process writes the file, before it answers. It alone holds every config and the
    file as read (the render builds the configs of the switches it renders, nothing else), and
    the update costs 6 to 13 ms at 16x after a one-row change (the configs built are pickled, the
    fleet's pickle is written back as read: :mod:`compiler.configcache`), so the parent waits
    that long at most, and only when the checks end after the render. The alternatives cost
    more: the parent writing would read the file on its own path too; the child writing after
    its answer would still be writing when the compile reports done (and is killed when the
    parent fails: :class:`~compiler.beside.Beside`). A child killed midway leaves the last whole
    file (written aside, then renamed).
    """
    if configs is None:
        return run_checks(intent, fabric), 0
    lent = configs.lend(fabric, digests)
    findings, judged = checked(intent, lent, digests, configs.judged)
    configs.save(lent, digests, judged)
    return findings, configs.kept


def refuse_errors(result: CompileResult) -> None:
    """Raise :class:`CompileError` with one line per error finding, when a check found any."""
    if result.errors:
        raise CompileError(
            f"{len(result.errors)} check error(s): generated/ left unchanged",
            [f.line() for f in result.errors],
        )


def write_generated(
    result: CompileResult,
    generated_dir: Path,
    current: Mapping[str, bytes] | None = None,
    digests: Mapping[str, str] | None = None,
) -> Staleness:
    """Write a compile to ``generated_dir``, refusing when a check found an error
    (``current``, ``digests``: see :func:`compiler.output.write_tree`); a write the compile
    staged (``result.staged``, to ``generated_dir``) is applied, or dropped on an error."""
    staged = result.staged
    if staged is not None and (result.errors or staged.directory != generated_dir.resolve()):
        staged.discard()
        staged = None
    refuse_errors(result)
    with _timed(result.timings, "write"):
        if staged is not None:
            return staged.apply()
        return write_tree(generated_dir, result.files, current, digests, result.files.digests)


def staleness(result: CompileResult, generated_dir: Path) -> Staleness:
    """How ``generated_dir`` differs from this compile."""
    return compare(generated_dir, result.files)
