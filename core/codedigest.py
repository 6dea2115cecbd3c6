"""The digest of the code a cached result depends on: a cache keyed by it drops itself when the code changes.

Both caches of ``.fabricops-cache/`` key their entries by it: the compile's record (the
``compiler`` and ``core`` packages) and drift's in-sync memo (``drift`` and ``core``). Every
source file of the packages counts (code, templates, platform data, catalog models), and so do
the Python version and the installed distributions (their dist-info names carry their
versions), so no list of "the files that matter" can fall behind the code.

Example:
    >>> code_digest(("core",)) == code_digest(("core",)), code_digest(("core",)) == code_digest(("drift", "core"))
    (True, False)
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

__all__ = ["code_digest", "files_under"]

_ROOT = Path(__file__).resolve().parent.parent
_SOURCE_SUFFIXES = (".py", ".j2", ".yaml", ".yml", ".json", ".csv", ".txt")


def files_under(folder: Path) -> Iterator[Path]:
    """Every file below ``folder``, in a fixed order, skipping bytecode caches."""
    for path in sorted(folder.rglob("*")):
        if "__pycache__" not in path.parts and path.is_file():
            yield path


@cache
def code_digest(packages: tuple[str, ...]) -> str:
    """sha256 of the source files of ``packages``, the Python version and the installed distributions."""
    digest = hashlib.sha256(sys.version.encode())
    for package in packages:
        for path in files_under(_ROOT / package):
            if path.suffix in _SOURCE_SUFFIXES:
                digest.update(path.relative_to(_ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    for folder in sorted({p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)}):
        digest.update("\0".join(sorted(os.listdir(folder))).encode())
    return digest.hexdigest()
