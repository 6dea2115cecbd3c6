"""The structured configs the checks read, kept from the last compile for switches whose facts
are unchanged.

The checks read every switch's structured config (the interfaces of all of them, other parts
for some rules); the render builds only the configs of the switches it renders again. After a
one-row change at 16x, building the 768 configs was a third of the checks' process. A switch's
config is a pure function of its identity and facts (the premise its units of ``generated/``
are keyed by: :func:`compiler.artifacts.units.facts_digests`), so the config built by the last
compile for the same digest, under the same code (:func:`compiler.cache.code_digest`), is the
one this compile would build.

``.fabricops-cache/configs.marshal`` (outside git, safe to delete) is one file for the fleet:
:mod:`marshal` of the code digest and, per switch, its facts digest and its config pickled on
its own. Measured at 16x (768 configs, 5 changed by a server row), against building them
(0.15 s of CPU):

* one pickle of every config loads fastest (0.045 s: objects shared between switches are
  pickled once) but must be pickled whole again when any switch changes (0.11 to 0.13 s,
  as much as building);
* a file per switch costs 5 ms to update but 0.10 to 0.13 s to load (768 opens and reads);
* one file of per-switch pickles (this) loads in 0.08 s (a read and :func:`marshal.loads`,
  then one unpickle per switch) and is updated in about 10 ms: the switches kept keep their
  pickle as bytes, only the changed ones are pickled, and the whole is written again. Each
  compile leaves only the switches of its fabric, so it cannot grow past the fleet.

Nothing here is trusted beyond what it can check: a missing, unreadable or truncated file, one
from other code or format, is an empty cache; an entry counts only under its switch's current
facts digest, unpickles only to the config records of :mod:`compiler.structured.model` (any
other global refuses it) and must give a :class:`~compiler.structured.DeviceConfig`. The file
is written atomically (a temporary file, then :func:`os.replace`): a writer killed midway
leaves the last whole one. And a cached config only ever reaches the checks: the devices that
carry one are copies (:meth:`compiler.fabric.Device.with_config`), the render builds its own
from the facts, so ``generated/`` cannot depend on this file.

Example:
    >>> import tempfile
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> from compiler.fabric import resolve
    >>> from compiler.artifacts.units import facts_digests
    >>> fabric = resolve(load_intent(Path("intent")))
    >>> cache = ConfigCache(Path(tempfile.mkdtemp()))
    >>> view = cache.lend(fabric, facts_digests(fabric))
    >>> cache.kept, view.devices["spine01"].config.hostname  # nothing kept yet: built
    (0, 'spine01')
    >>> cache.save(view, facts_digests(fabric))  # the one config built
    >>> fabric, again = resolve(load_intent(Path("intent"))), ConfigCache(cache.directory)  # the next compile
    >>> view = again.lend(fabric, facts_digests(fabric))
    >>> again.kept, view.devices["spine01"].config_built, fabric.devices["spine01"].config_built
    (1, True, False)
"""

from __future__ import annotations

import contextlib
import io
import marshal
import os
import pickle
import tempfile
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from compiler.cache import code_digest
from compiler.fabric import ResolvedFabric
from compiler.structured import DeviceConfig
from compiler.structured import model as _model

CONFIGS_FILE = "configs.marshal"
FORMAT = 1
_STALE_TEMPORARY = 60.0
"""Seconds after which a temporary file left by a writer that was killed is removed."""


class ConfigCache:
    """The configs kept in ``directory`` (``.fabricops-cache/``) for one compile: lent to the
    checks (:meth:`lend`), then saved with those built meanwhile (:meth:`save`).

    ``read``: False starts from nothing (``compile --full``), the file is written all the same.
    """

    def __init__(self, directory: Path, read: bool = True) -> None:
        self.directory = directory
        self.read = read
        self.kept = 0
        """Configs the last :meth:`lend` took from the file."""
        self._pickles: dict[str, bytes] = {}
        self._stored = 0

    @property
    def path(self) -> Path:
        return self.directory / CONFIGS_FILE

    def lend(self, fabric: ResolvedFabric, digests: Mapping[str, str]) -> ResolvedFabric:
        """``fabric`` with each switch whose config is kept under its current facts digest
        (``digests``: :func:`~compiler.artifacts.units.facts_digests`) replaced by a copy
        carrying that config; the others are ``fabric``'s own (a config the checks build for
        them is the render's too)."""
        stored = self._load() if self.read else {}
        self._stored = len(stored)
        self._pickles = {}
        devices = dict(fabric.devices)
        for name, device in fabric.devices.items():
            entry = stored.get(name)
            if entry is None or entry[0] != digests[name]:
                continue
            config = _unpickled(entry[1])
            if config is not None:
                self._pickles[name] = entry[1]
                devices[name] = device.with_config(config)
        self.kept = len(self._pickles)
        return replace(fabric, devices=devices) if self._pickles else fabric

    def save(self, fabric: ResolvedFabric, digests: Mapping[str, str]) -> None:
        """Keep the config of every switch of ``fabric`` (as :meth:`lend` gave it) that has one:
        kept ones as they were, built ones pickled now; switches without one, gone or changed
        are left out. Written only when that differs from the file; an ``OSError`` only costs
        the next compile the configs it would have kept."""
        entries: dict[str, tuple[str, bytes]] = {}
        built = 0
        for name, device in fabric.devices.items():
            data = self._pickles.get(name)
            if data is None and device.config_built:
                data = pickle.dumps(device.config, protocol=pickle.HIGHEST_PROTOCOL)
                built += 1
            if data is not None:
                entries[name] = (digests[name], data)
        if not built and len(entries) == self._stored:
            return
        with contextlib.suppress(OSError):
            self._write(marshal.dumps({"format": FORMAT, "code": code_digest(), "configs": entries}))

    def _load(self) -> dict[str, tuple[str, bytes]]:
        """The file's entries by switch: (facts digest, pickle); none when it is missing,
        unreadable or not this code's."""
        try:
            data = marshal.loads(self.path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return {}
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("code") != code_digest():
            return {}
        entries = data.get("configs")
        if not isinstance(entries, dict):
            return {}
        return {
            name: entry
            for name, entry in entries.items()
            if isinstance(entry, tuple)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and isinstance(entry[1], bytes)
        }

    def _write(self, data: bytes) -> None:
        """``data`` as the file, atomically; temporary files of killed writers cleared."""
        self.directory.mkdir(exist_ok=True)
        ignore = self.directory / ".gitignore"
        if not ignore.exists():
            ignore.write_text("*\n")
        fd, tmp = tempfile.mkstemp(prefix=f"{CONFIGS_FILE}.", suffix=".tmp", dir=self.directory)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        _clear_stale(self.directory)


def _clear_stale(directory: Path) -> None:
    """Remove the temporary files a writer killed before its ``os.replace`` left behind (a
    live writer's file is younger than :data:`_STALE_TEMPORARY`)."""
    now = time.time()
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.startswith(f"{CONFIGS_FILE}.") and entry.name.endswith(".tmp"):
                try:
                    if now - entry.stat().st_mtime > _STALE_TEMPORARY:
                        os.unlink(entry.path)
                except OSError:
                    pass


class _ConfigUnpickler(pickle.Unpickler):
    """An unpickler that makes only the records of :mod:`compiler.structured.model`."""

    def find_class(self, module: str, name: str) -> type:
        found = getattr(_model, name, None) if module == _model.__name__ else None
        if not (isinstance(found, type) and issubclass(found, tuple)):
            raise pickle.UnpicklingError(f"{module}.{name} is not a structured config record")
        return found


def _unpickled(data: bytes) -> DeviceConfig | None:
    """The config pickled in ``data``, or None when it is anything else.

    Example:
        >>> _unpickled(pickle.dumps(_model.VrfHost("10.0.0.1"))), _unpickled(pickle.dumps(os.getcwd))
        (None, None)
    """
    try:
        config = _ConfigUnpickler(io.BytesIO(data)).load()
    except Exception:  # a corrupt pickle may fail in many ways; any of them means "not kept"
        return None
    return config if isinstance(config, DeviceConfig) else None
