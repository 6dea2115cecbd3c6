"""Intent files as the last compile validated them, so an unchanged one is neither parsed nor validated.

``.fabricops-cache/validated/`` beside ``intent/`` (outside git, safe to delete) holds one entry per
file: ``fabric.yaml``, ``racks.yaml``, ``vlans.yaml``, ``ports.yaml``, ``devices.yaml``, the
platform's ``eos.yaml`` (:func:`compiler.platforms.eos.data`) as their validated models,
``servers.csv`` as its rows' validated values (:class:`compiler.intent.KeptRows`), and the
hardware catalog with the role layouts ``fabric.yaml`` makes of it (entry ``hardware``,
:class:`compiler.facts.hardware.KeptHardware`). An entry is taken only under its key, the sha256
of the code digest (:func:`compiler.cache.code_digest`: the models' code, pydantic's version),
the file's name and its bytes; so the models of an unchanged file are never built, which is most
of what loading the intent cost a process (about 80 ms at every start when every model was built
at import, :class:`compiler.intent.IntentModel`).

Only a file that validated is kept, so a bad file is always validated and reported as before;
what spans files (servers against racks and models, references, budgets) is checked on every load.
``servers.csv`` is kept per row (the row's line under the table's header): an unchanged row is
not even parsed as CSV, and after a row is added or edited only that row is parsed and
validated (the 1,700 rows of a large site took 6 ms; the model itself is built only for the
new row).

The entries are pickles: the validated models as they are, the cheapest to read back (a third
of a millisecond for ``fabric.yaml``, less than parsing its YAML). Unpickling runs whatever the
file says, so it is safe only for a file the user's own compiles wrote: it is, like the rest of
``.fabricops-cache/`` (Jinja2's compiled templates there are Python code run as they are),
beside the user's own intent, ignored by git, and read only under a key that this code and
these bytes give. A missing, unreadable or corrupt entry is a miss, never an error; an entry is
written aside, then renamed into place, so a reader never sees half of one.

Example:
    >>> import tempfile
    >>> kept = ValidatedFiles(Path(tempfile.mkdtemp()) / "validated", code="code")
    >>> kept.get("racks.yaml", b"racks: []", list) is None
    True
    >>> kept.put("racks.yaml", b"racks: []", ["validated"])
    >>> kept.get("racks.yaml", b"racks: []", list), kept.get("racks.yaml", b"racks: [1]", list)
    (['validated'], None)
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
import time
from pathlib import Path
from typing import TypeVar

from compiler.cache import CACHE_DIR, code_digest

FOLDER = "validated"
"""The entries' folder in ``.fabricops-cache/``."""
_KEY_LENGTH = 64
"""An entry is its key (hex sha256) and a newline, then the pickle: a stale entry is never unpickled."""
_STALE_TEMPORARY = 60.0
"""Seconds after which a temporary file is a killed writer's (a live one renames it within milliseconds)."""

T = TypeVar("T")


class ValidatedFiles:
    """The validated intent files kept in ``folder`` (None: none kept, none written), under ``code``."""

    def __init__(self, folder: Path | None, code: str) -> None:
        self.folder = folder
        self.code = code

    @classmethod
    def beside(cls, intent_dir: Path) -> ValidatedFiles:
        """The files kept for the intent in ``intent_dir``, in ``.fabricops-cache/`` beside it."""
        return cls(intent_dir.parent / CACHE_DIR / FOLDER, code_digest())

    def key(self, name: str, data: bytes) -> str:
        """The key of file ``name`` holding ``data``: the code, the name and the bytes.

        Example:
            >>> kept = ValidatedFiles(None, "code")
            >>> len({kept.key("a.yaml", b"x"), kept.key("b.yaml", b"x"), kept.key("a.yaml", b"y")})
            3
        """
        digest = hashlib.sha256(f"{self.code}\0{name}\0".encode())
        digest.update(data)
        return digest.hexdigest()

    def get(self, name: str, data: bytes, kind: type[T]) -> T | None:
        """The value kept for file ``name`` holding ``data``, if it is a ``kind``; else None."""
        if self.folder is None:
            return None
        try:
            entry = (self.folder / name).read_bytes()
        except OSError:
            return None
        if entry[: _KEY_LENGTH + 1] != f"{self.key(name, data)}\n".encode():
            return None
        try:
            value = pickle.loads(memoryview(entry)[_KEY_LENGTH + 1 :])
        except Exception:  # a corrupt entry can fail to unpickle in any way: it is a miss
            return None
        return value if isinstance(value, kind) else None

    def put(self, name: str, data: bytes, value: object) -> None:
        """Keep ``value`` for file ``name`` holding ``data``, atomically; a folder that cannot be
        written only costs the next load its validation."""
        if self.folder is None:
            return
        entry = self.key(name, data).encode() + b"\n" + pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        with contextlib.suppress(OSError):
            _ignored_by_git(self.folder.parent)
            self.folder.mkdir(exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f"{name}.", suffix=".tmp", dir=self.folder)
            try:
                with os.fdopen(fd, "wb") as out:
                    out.write(entry)
                os.replace(tmp, self.folder / name)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
            _clear_stale(self.folder)


def _ignored_by_git(cache_dir: Path) -> None:
    """``.fabricops-cache/``, with a ``.gitignore`` of everything (for a project whose own
    ``.gitignore`` does not name it)."""
    cache_dir.mkdir(exist_ok=True)
    ignore = cache_dir / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")


def _clear_stale(folder: Path) -> None:
    """Remove the temporary files that writers killed before their rename left behind."""
    now = time.time()
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    if now - entry.stat().st_mtime > _STALE_TEMPORARY:
                        os.unlink(entry.path)


_LAST = [ValidatedFiles(None, "")]
"""The files of the intent being compiled (:func:`kept_beside`), none before any."""


def kept_beside(intent_dir: Path) -> ValidatedFiles:
    """:meth:`ValidatedFiles.beside` ``intent_dir``, remembered as the files of the intent being
    compiled: the platform's data (:func:`last`) is kept with them."""
    _LAST[0] = ValidatedFiles.beside(intent_dir)
    return _LAST[0]


def last() -> ValidatedFiles:
    """The validated files of the intent being compiled in this process (none kept before any).

    The platform's data (``eos.yaml``) is code, read once per process, and wherever the intent
    lives: it is kept beside the intent being compiled, under the same code digest.
    """
    return _LAST[0]
