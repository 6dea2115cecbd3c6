"""Write ``generated/`` atomically, with a manifest, and tell what is stale.

A compile builds every file in memory first; only then is the new tree written beside the
old one and swapped in with two renames, so a failed compile leaves ``generated/``
byte-identical and a reader never sees half a tree.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "MANIFEST.json"


def with_manifest(files: dict[str, str], intent_digest: str) -> dict[str, bytes]:
    """``files`` encoded, plus ``MANIFEST.json``: the sha256 of every file and the intent digest.

    Example:
        >>> out = with_manifest({"configs/a.cfg": "x\\n"}, "abc")
        >>> json.loads(out["MANIFEST.json"])["files"]["configs/a.cfg"][:12]
        '73cb3858a687'
    """
    encoded = {path: text.encode() for path, text in sorted(files.items())}
    manifest = {
        "intent_digest": intent_digest,
        "files": {path: hashlib.sha256(data).hexdigest() for path, data in encoded.items()},
    }
    encoded[MANIFEST] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    return encoded


@dataclass(frozen=True)
class Staleness:
    """How ``generated/`` on disk differs from what the intent compiles to."""

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


def compare(directory: Path, files: dict[str, bytes]) -> Staleness:
    """What differs between ``directory`` and the compiled ``files``."""
    current = read_tree(directory)
    return Staleness(
        changed=tuple(sorted(p for p in files if p in current and current[p] != files[p])),
        missing=tuple(sorted(p for p in files if p not in current)),
        extra=tuple(sorted(p for p in current if p not in files)),
    )


def write_tree(directory: Path, files: dict[str, bytes]) -> None:
    """Replace ``directory`` with exactly ``files``: build beside it, then swap."""
    directory = directory.resolve()
    parent = directory.parent
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.new-", dir=parent))
    try:
        for relpath, data in files.items():
            target = staging / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        old = parent / f".{directory.name}.old-{os.getpid()}"
        if directory.exists():
            directory.rename(old)
        staging.rename(directory)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)
