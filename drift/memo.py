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

Comparisons the memo does not know run in this process for the first
:data:`INLINE_COMPARISONS` of a run; a run that meets more (a fleet audited with nothing
remembered) hands the rest to one more process (``concurrent.futures``, spawned: it shares no
thread or lock with this one), so parsing uses the machine's second core while this process's
threads talk to the switches. The comparison is the same function with the same inputs there:
the verdicts are the same, in the same order; only where the work runs differs. A second
process that cannot start (a program embedding the audit without the ``if __name__ ==
"__main__"`` guard that spawning needs) or that dies leaves the rest to this process.

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
from concurrent.futures import BrokenExecutor, Executor
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

#: Comparisons a run makes in its own process before it starts a second one for the rest.
INLINE_COMPARISONS = 32

#: The packages whose code may change a verdict: their source is part of every digest.
_PACKAGES = ("drift", "core")


class InSyncMemo:
    """:func:`drift.compare.compare_config` with the in-sync verdicts of earlier runs remembered.

    Call it as ``compare_config`` (same arguments, same result); :meth:`save` writes what this
    run found in sync (and stops the second process, if one was started). ``root`` None: a memo
    for this process only (nothing read or written). ``inline``: comparisons made in this
    process before the rest go to a second one (None: all here; one core: all here).
    Safe to call from Nornir's worker threads.
    """

    def __init__(self, root: Path | None, *, inline: int | None = INLINE_COMPARISONS) -> None:
        self.root = root
        self.hits = 0
        self.compared = 0
        self._inline = inline if inline is not None and _cores() > 1 else None
        self._pool: Executor | None = None
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
        args = (generated, running, values, key, platform, version, table)
        pool = self._offload()
        if pool is None:
            result = _compare(*args)
        else:
            try:
                result = pool.submit(_compare, *args).result()
            except BrokenExecutor:  # the process could not start or died: the rest is compared here
                self.close()
                result = _compare(*args)
        if not result.changes:
            self._found[digest] = list(result.notes)
        return result

    def _offload(self) -> Executor | None:
        """The second process, once this run has made its share of comparisons here (else None)."""
        with self._lock:
            self.compared += 1
            if self._inline is None or self.compared <= self._inline:
                return None
            if self._pool is None:
                import gc
                from concurrent.futures import ProcessPoolExecutor
                from multiprocessing import get_context

                # The second process only parses and compares (trees with no cycles, freed by
                # reference counting): without the cycle collector, as the command itself runs.
                self._pool = ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn"), initializer=gc.disable)
            return self._pool

    def __enter__(self) -> InSyncMemo:
        return self

    def __exit__(self, *exc: object) -> None:
        # A second process left running past the end of the command makes Python's exit print a
        # traceback (its wake-up pipe already closed): stop it however the command ends.
        self.close()

    def close(self) -> None:
        """Stop the second process (if one was started); the memo still compares, in this process."""
        with self._lock:
            pool, self._pool, self._inline = self._pool, None, None
        if pool is not None:
            pool.shutdown()

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
        """Write the memo (the newest :data:`MAX_ENTRIES` digests); a failure to write loses nothing but time.

        The second process, if one was started, is stopped first (:meth:`close`).
        """
        self.close()
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


def _compare(
    generated: str,
    running: str,
    values: Mapping[str, str],
    key: bytes,
    platform: str,
    version: str | None,
    table: Path | None,
) -> Comparison:
    """:func:`compare_config` by position: what the second process is handed."""
    return compare_config(generated, running, values=values, key=key, platform=platform, version=version, table=table)


def _cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
