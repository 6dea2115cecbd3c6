"""In-sync verdicts remembered between runs, so a fleet in sync is not parsed again run after run.

:func:`drift.compare.compare_config` is a pure function of what it reads: the generated text,
the running text, the platform, the release, the repository's defaults table, the secret
values it compares, and its own code. When a device is found in sync, :class:`InSyncMemo`
remembers a digest of all of these; the next run that meets the same inputs byte for byte
(a switch in sync prints the same running config every time) knows the verdict without
parsing either side. Only in-sync verdicts are remembered: a device that differs is compared
in full every time, so a difference found once is found every time, and any change of input
(a new generated config, an edited line on the switch, another release, a new secret value,
a new fabricops) is a different digest, compared in full.

The digest is an HMAC-SHA256 under a random key kept beside the memo
(``.fabricops-cache/in-sync.key``, mode 0600, outside git), so the memo holds no value and
no fingerprint a reader could test a guessed secret against without that key. The memo
(``.fabricops-cache/in-sync.json``) holds the digests and each verdict's notes, which never
hold a secret. Deleting ``.fabricops-cache/`` is always safe: the next run compares in full.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> gen = "hostname a\\nntp server 10.0.0.1\\n"
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     memo = InSyncMemo(Path(tmp))
    ...     first = memo(gen, "hostname a\\nntp server 10.0.0.1\\n", values={}, key=b"k")
    ...     memo.save()
    ...     again = InSyncMemo(Path(tmp))
    ...     second = again(gen, "hostname a\\nntp server 10.0.0.1\\n", values={}, key=b"k")
    ...     drifted = again(gen, "hostname a\\n", values={}, key=b"k")
    >>> first.changes, second.changes, (memo.hits, again.hits), len(drifted.changes)
    ((), (), (0, 1), 1)
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import secrets
import threading
from collections.abc import Mapping
from pathlib import Path

from core.codedigest import code_digest
from drift.compare import Comparison, compare_config

__all__ = ["MEMO_FILE", "InSyncMemo"]

CACHE_DIR = ".fabricops-cache"
MEMO_FILE = f"{CACHE_DIR}/in-sync.json"
KEY_FILE = f"{CACHE_DIR}/in-sync.key"
#: Digests kept at most (the newest): several fleets' worth, a few megabytes at most.
MAX_ENTRIES = 50_000
SCHEMA = 1

#: The packages whose code may change a verdict: their source is part of every digest.
_PACKAGES = ("drift", "core")


class InSyncMemo:
    """:func:`drift.compare.compare_config` with the in-sync verdicts of earlier runs remembered.

    Call it as ``compare_config`` (same arguments, same result); :meth:`save` writes what this
    run found in sync. ``root`` None: a memo for this process only (nothing read or written).
    Safe to call from Nornir's worker threads.
    """

    def __init__(self, root: Path | None) -> None:
        self.root = root
        self.hits = 0
        self._lock = threading.Lock()
        self._key = self._load_key() if root is not None else secrets.token_bytes(32)
        self._known: dict[str, list[str]] = self._load() if root is not None else {}
        self._found: dict[str, list[str]] = {}
        self._parts: dict[tuple[tuple[tuple[str, str], ...], str | None], bytes] = {}

    def __call__(
        self,
        generated: str,
        running: str,
        *,
        values: Mapping[str, str],
        key: bytes,
        platform: str = "eos",
        version: str | None = None,
        table: Path | None = None,
    ) -> Comparison:
        digest = self._digest(generated, running, values, platform, version, table)
        notes = self._known.get(digest)
        if notes is None:
            notes = self._found.get(digest)
        if notes is not None:
            with self._lock:
                self.hits += 1
            return Comparison((), tuple(notes), ())
        result = compare_config(
            generated, running, values=values, key=key, platform=platform, version=version, table=table
        )
        if not result.changes:
            self._found[digest] = list(result.notes)
        return result

    def _digest(
        self,
        generated: str,
        running: str,
        values: Mapping[str, str],
        platform: str,
        version: str | None,
        table: Path | None,
    ) -> str:
        mac = hmac.new(self._key, self._context(values, table), hashlib.sha256)
        for part in (platform, version or "", generated, running):
            data = part.encode()
            mac.update(len(data).to_bytes(8, "big") + data)
        return mac.hexdigest()

    def _context(self, values: Mapping[str, str], table: Path | None) -> bytes:
        """What every comparison of a run shares (code, values, defaults table), hashed once."""
        mark = (tuple(sorted(values.items())), str(table) if table is not None else None)
        found = self._parts.get(mark)
        if found is None:
            digest = hashlib.sha256(code_digest(_PACKAGES).encode())
            for item, value in mark[0]:
                digest.update(json.dumps([item, value]).encode())
            if table is not None and table.is_file():
                digest.update(b"table\0" + table.read_bytes())
            found = self._parts[mark] = digest.digest()
        return found

    def _load_key(self) -> bytes:
        assert self.root is not None
        path = self.root / KEY_FILE
        with contextlib.suppress(OSError):
            data = path.read_bytes()
            if len(data) == 32:
                return data
        key = secrets.token_bytes(32)
        with contextlib.suppress(OSError):
            path.parent.mkdir(exist_ok=True)
            staged = path.with_name(f"{path.name}.{os.getpid()}")
            fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(key)
            os.replace(staged, path)
        return key

    def _load(self) -> dict[str, list[str]]:
        assert self.root is not None
        try:
            data = json.loads((self.root / MEMO_FILE).read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("schema") != SCHEMA or not isinstance(data.get("in_sync"), dict):
            return {}
        return {str(k): [str(n) for n in v] for k, v in data["in_sync"].items() if isinstance(v, list)}

    def save(self) -> None:
        """Write the memo (the newest :data:`MAX_ENTRIES` digests); a failure to write loses nothing but time."""
        if self.root is None or not self._found:
            return
        merged = {k: v for k, v in self._known.items() if k not in self._found}
        merged.update(self._found)
        kept = dict(list(merged.items())[-MAX_ENTRIES:])
        path = self.root / MEMO_FILE
        with contextlib.suppress(OSError):
            path.parent.mkdir(exist_ok=True)
            staged = path.with_name(f"{path.name}.{os.getpid()}")
            staged.write_text(json.dumps({"schema": SCHEMA, "in_sync": kept}))
            os.replace(staged, path)
