"""``generated/`` trees already checked against their manifest, remembered by content.

:meth:`core.generated.Snapshot.verify` reads and hashes every file of ``generated/`` at the ref
(18,675 files, 63 MB at 16x: about half a second) to refuse a tree the compiler did not write
as it is. The check is a pure function of the tree's files, the intent beside them and the code
that checks, so a passed check is remembered (``.fabricops-cache/verified.json``, outside git)
by a digest of the blob ids of every file of ``generated/``, the intent files at the same ref
and the ``core`` package's code: a ``plan`` or ``deploy`` of a tree already checked reads only
the files it uses. A failed check is never remembered (it is made again, and fails again), nor
is the work tree (its files can change under a reader). Deleting ``.fabricops-cache/`` only
costs the next run its time.

Example:
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     known = _load(Path(tmp))
    ...     _save(Path(tmp), [*known, "a" * 64])
    ...     _load(Path(tmp))
    ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa']
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from core.codedigest import code_digest
from core.generated import GENERATED, WORKTREE, Snapshot
from core.gitobjects import tree_files

__all__ = ["VERIFIED_FILE", "verify_once"]

VERIFIED_FILE = ".fabricops-cache/verified.json"
#: Trees remembered at most (the newest).
MAX_ENTRIES = 64


def verify_once(root: Path, snapshot: Snapshot) -> None:
    """``snapshot.verify()``, unless this very tree passed it before (see the module docstring)."""
    if snapshot.ref == WORKTREE:
        snapshot.verify()
        return
    mark = _mark(root, snapshot)
    known = _load(root)
    if mark in known:
        return
    snapshot.verify()
    _save(root, [*(k for k in known if k != mark), mark][-MAX_ENTRIES:])


def _mark(root: Path, snapshot: Snapshot) -> str:
    digest = hashlib.sha256(code_digest(("core",)).encode())
    for path, blob in sorted(tree_files(root, snapshot.ref, GENERATED).items()):
        digest.update(f"{path}\0{blob}\n".encode())
    for name, data in sorted(snapshot.intent.items()):
        digest.update(f"intent/{name}\0{len(data)}\n".encode() + data)
    return digest.hexdigest()


def _load(root: Path) -> list[str]:
    try:
        data = json.loads((root / VERIFIED_FILE).read_text())
    except (OSError, ValueError):
        return []
    return [str(k) for k in data] if isinstance(data, list) else []


def _save(root: Path, marks: list[str]) -> None:
    """Write the list whole, replaced in one step; a failure to write loses nothing but time."""
    path = root / VERIFIED_FILE
    with contextlib.suppress(OSError):
        path.parent.mkdir(exist_ok=True)
        staged = path.with_name(f"{path.name}.{os.getpid()}")
        staged.write_text(json.dumps(marks))
        os.replace(staged, path)
