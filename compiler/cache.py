"""What the last compile produced, kept outside git so the next compile redoes only what changed.

``.fabricops-cache/compile.json`` beside ``intent/`` (ignored by git, safe to delete) holds:

* the **code digest**: every file of the ``compiler`` and ``core`` packages (code, templates,
  platform data, catalog models) and the installed distributions, so any change to what a
  compile runs invalidates everything it cached;
* per device, the **fingerprint** of its structured document (sha256 of the code digest and
  the document's ``repr``: keys in order, types distinct) and the sha256 of the files rendered
  from it. The document is all a device's config and structured YAML are rendered from, so a
  device whose fingerprint is unchanged, and whose files in ``generated/`` are still the ones
  written, is taken from ``generated/`` instead of being rendered again;
* the **source key** of the whole compile (every file under ``intent/`` and the code digest),
  the size and modification time of every file it left in ``generated/``, and its summary: a
  compile with the same key over an untouched ``generated/`` has nothing to do, and says so
  without loading the intent.

Nothing here is trusted beyond what it can verify: a missing, unreadable or foreign cache is
an empty one, and every reuse is checked against the bytes (per device) or the file stamps
(whole compile) as they are now.

Example:
    >>> fingerprint({"name": "leaf1", "config": {"mtu": 9214}}, "code") == fingerprint(
    ...     {"name": "leaf1", "config": {"mtu": 9214.0}}, "code")
    False
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

CACHE_DIR = ".fabricops-cache"
CACHE_FILE = "compile.json"
FORMAT = 1
_PACKAGES = ("compiler", "core")
_SOURCE_SUFFIXES = (".py", ".j2", ".yaml", ".yml", ".json", ".csv", ".txt")


def _files_under(folder: Path) -> Iterator[Path]:
    """Every file below ``folder``, in a fixed order, skipping bytecode caches."""
    for path in sorted(folder.rglob("*")):
        if "__pycache__" not in path.parts and path.is_file():
            yield path


@cache
def code_digest() -> str:
    """sha256 of everything a compile runs besides the intent: our packages' files, the Python
    version and the installed distributions (their dist-info names carry their versions)."""
    digest = hashlib.sha256(f"{FORMAT} {sys.version}".encode())
    root = Path(__file__).resolve().parent.parent
    for package in _PACKAGES:
        for path in _files_under(root / package):
            if path.suffix in _SOURCE_SUFFIXES:
                digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    for folder in sorted({p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)}):
        digest.update("\0".join(sorted(os.listdir(folder))).encode())
    return digest.hexdigest()


def fingerprint(document: Mapping[str, Any], code: str | None = None) -> str:
    """The fingerprint of one device's structured document under the running code."""
    return hashlib.sha256(f"{code or code_digest()}\0{document!r}".encode()).hexdigest()


def source_key(intent_dir: Path) -> str:
    """sha256 of every file under ``intent_dir`` (names and bytes) and the code digest."""
    digest = hashlib.sha256(code_digest().encode())
    for path in _files_under(intent_dir):
        digest.update(path.relative_to(intent_dir).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def stamps(directory: Path) -> dict[str, list[int]]:
    """Size and modification time (ns) of every file under ``directory``, by relative path."""
    out: dict[str, list[int]] = {}
    pending = [(directory, "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except FileNotFoundError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append((Path(entry.path), f"{prefix}{entry.name}/"))
            else:
                st = entry.stat(follow_symlinks=False)
                out[f"{prefix}{entry.name}"] = [st.st_size, st.st_mtime_ns]
    return dict(sorted(out.items()))


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class DeviceRender:
    """One device's fingerprint and the sha256 of each file rendered from it."""

    key: str
    files: dict[str, str]


@dataclass
class CompileCache:
    """The record of the last compile of one repository root (see the module docstring)."""

    root: Path
    code: str = ""
    source: str = ""
    tree: dict[str, list[int]] = field(default_factory=dict)
    summary: list[str] = field(default_factory=list)
    devices: dict[str, DeviceRender] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return self.root / CACHE_DIR / CACHE_FILE

    @classmethod
    def load(cls, root: Path) -> CompileCache:
        """The cache of ``root``; an empty one when it is missing, unreadable or from other code."""
        empty = cls(root, code=code_digest())
        try:
            data = json.loads(empty.path.read_text())
        except (OSError, ValueError):
            return empty
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("code") != empty.code:
            return empty
        try:
            devices = {name: DeviceRender(d["key"], dict(d["files"])) for name, d in data["devices"].items()}
            return cls(root, empty.code, data["source"], data["tree"], list(data["summary"]), devices)
        except (KeyError, TypeError, AttributeError):
            return empty

    def save(self) -> None:
        """Write the record atomically (a reader never sees half of it)."""
        data = {
            "format": FORMAT,
            "code": self.code,
            "source": self.source,
            "tree": self.tree,
            "summary": self.summary,
            "devices": {name: {"key": d.key, "files": d.files} for name, d in sorted(self.devices.items())},
        }
        self.path.parent.mkdir(exist_ok=True)
        (self.path.parent / ".gitignore").write_text("*\n")
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, separators=(",", ":")))
        os.replace(tmp, self.path)

    def unchanged(self, source: str, generated_dir: Path) -> list[str] | None:
        """The last compile's summary when it ran on the same intent and code and left
        ``generated_dir`` as it is now (same files, sizes and times); else None."""
        if not self.source or source != self.source:
            return None
        return self.summary if stamps(generated_dir) == self.tree else None

    def known_digests(self, now: Mapping[str, list[int]], generated_dir: Path) -> dict[str, str]:
        """The sha256 of each file of ``generated_dir`` whose size and time (``now``: :func:`stamps`)
        are those the last compile left, from its ``MANIFEST.json`` (itself unchanged): files
        that need not be read to be compared."""
        manifest = "MANIFEST.json"
        if not self.tree or now.get(manifest) != self.tree.get(manifest):
            return {}
        try:
            listed = json.loads((generated_dir / manifest).read_text())["files"]
        except (OSError, ValueError, KeyError, TypeError):
            return {}
        return {path: listed[path] for path, stamp in now.items() if path in listed and self.tree.get(path) == stamp}

    def reusable(self, name: str, key: str, current: Mapping[str, bytes]) -> dict[str, str] | None:
        """``name``'s files as ``current`` holds them, when it was rendered from a document with
        fingerprint ``key`` and those files are still the bytes then written; else None."""
        record = self.devices.get(name)
        if record is None or record.key != key:
            return None
        out: dict[str, str] = {}
        for path, digest in record.files.items():
            data = current.get(path)
            if data is None or sha256(data) != digest:
                return None
            out[path] = data.decode()
        return out
