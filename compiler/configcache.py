"""The structured configs the checks read, kept from the last compile for switches whose facts
are unchanged.

The checks read every switch's structured config (the interfaces of all of them, other parts
for some rules); the render builds only the configs of the switches it renders again. After a
one-row change at 16x, building the 768 configs was a third of the checks' process. A switch's
config is a pure function of its identity and facts (the premise its units of ``generated/``
are keyed by: :func:`compiler.artifacts.units.facts_digests`), so the config built by the last
compile for the same digest, under the same code (:func:`compiler.cache.code_digest`), is the
one this compile would build.

``.fabricops-cache/configs.marshal`` (outside git, safe to delete) is one file: :mod:`marshal`
of the code digest, a pickle of the **fleet**'s configs as of some compile (per switch its facts
digest and config) with each switch's digest beside it, and the **changed** ones since, each
pickled on its own; a changed entry stands before the fleet's. A config is lent unread and read
from the file when first asked for: after a server row at 16x the checks ask for none of an
unchanged switch's (a rule that reads a switch's config keeps its findings under the switch's
facts digest: :func:`compiler.checks.checked`), so the fleet's pickle is not unpickled at all
(it was 0.045 s of the checks' 0.2 s) and is written back as read; a few configs asked of it
are built from their facts instead (:data:`BUILT_INSTEAD`). Beside them, the findings
the checks may keep (**judged**, plain strings: :func:`compiler.checks.checked`): the switch
rules' per switch, by facts digest, the parts of the keyed rules, by their inputs' fingerprint,
and a rule kept whole by what it reads, with what it read of each switch by facts digest; those
of the last compile only.
Measured at 16x (768 configs, 5 changed by a server row), against
building them (0.15 to 0.2 s of CPU):

* one pickle of every config loads fastest (0.04 s: what switches share, their QoS, ACLs and
  users, is pickled once) but must be pickled whole again on any change (0.11 to 0.13 s);
* a file per switch costs 5 ms to update but 0.10 to 0.13 s to load (768 opens and reads);
* a file of per-switch pickles is updated in 10 ms but loads in 0.07 to 0.12 s (each switch
  unpickles its own copy of what they share);
* the fleet's pickle and the changed ones (this) loads in 0.04 to 0.06 s (0.055 to 0.085 s in
  the forked checks, beside the render) and is updated in 6 to 13 ms: the
  fleet's pickle is written back as the bytes read, only the switches built are pickled. The
  fleet is pickled again from the configs in hand (once every few dozen one-row changes at
  16x, and on the first compile) when the changed entries and the fleet's stale ones (switches
  changed or gone) pass a quarter of the fabric, so the file stays within about a quarter of
  the fleet's size beyond it. In a one-row compile the checks' process then spends 0.39 s of
  CPU instead of 0.62 (medians of 16 compiles on a busy machine).

Nothing here is trusted beyond what it can check: a missing, unreadable or truncated file, one
from other code or format, is an empty cache; an entry counts only under its switch's current
facts digest, unpickles only to the config records of :mod:`compiler.structured.model` (any
other global refuses it; a record is made by ``tuple.__new__`` of its class and values, see
:func:`_record`) and must give a :class:`~compiler.structured.DeviceConfig` under that digest
(when one does not, as it is read, the switch's config is built from its facts, and the entry,
or the whole fleet's pickle, is not written back). The file
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
    >>> again.kept, view.devices["spine01"].config.hostname, fabric.devices["spine01"].config_built
    (1, 'spine01', False)
"""

from __future__ import annotations

import contextlib
import io
import marshal
import os
import pickle
import tempfile
import time
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from functools import partial
from pathlib import Path
from typing import TypeVar

from compiler.cache import CACHE_DIR, CompileCache, code_digest
from compiler.checks.base import Judgement
from compiler.fabric import Device, ResolvedFabric, _Built
from compiler.structured import DeviceConfig
from compiler.structured import model as _model

T = TypeVar("T")

CONFIGS_FILE = "configs.marshal"
FORMAT = 4
BUILT_INSTEAD = 32
"""Configs asked for from the fleet's pickle that are built from the facts instead (0.2 to 0.3 ms
each at 16x) before the pickle is read (0.045 s): a compile after a server row alternated with
``--full`` finds its few changed switches in the fleet, and reads none of the others."""
_STALE_TEMPORARY = 60.0
"""Seconds after which a temporary file left by a writer that was killed is removed."""


class ConfigCache:
    """The configs kept in ``directory`` (``.fabricops-cache/``) for one compile: lent to the
    checks (:meth:`lend`), then saved with those built meanwhile (:meth:`save`).

    ``read``: False starts from nothing (``compile --full``), the file is written all the same.
    ``write``: False leaves the file as it is (``compile --check``, which writes nothing).
    """

    def __init__(self, directory: Path, read: bool = True, write: bool = True) -> None:
        self.directory = directory
        self.read = read
        self.write = write
        self.kept = 0
        """Configs the last :meth:`lend` lent from the file (each read from it when first asked)."""
        self._fleet = b""
        self._fleet_digests: dict[str, str] = {}
        self._fleet_read: dict[str, tuple[str, DeviceConfig]] | None = None
        self._built_instead = 0
        self._changed: dict[str, tuple[str, bytes]] = {}
        self._from_fleet: set[str] = set()
        self._from_changed: dict[str, bytes] = {}
        self._lent: dict[str, _Lent] = {}
        self.judged: dict[str, Judgement] = {}
        """The findings the file holds (:func:`compiler.checks.checked`): the switch rules' by
        facts digest, the keyed rules' by their inputs, as the last :meth:`lend` read them."""

    @classmethod
    def of_record(cls, record: CompileCache, write: bool = True) -> ConfigCache:
        """The configs kept beside a compile's ``record``, read only when the record was (an
        empty record is ``compile --full``'s, or none worth trusting)."""
        return cls(record.root / CACHE_DIR, read=bool(record.source), write=write)

    @property
    def path(self) -> Path:
        return self.directory / CONFIGS_FILE

    def lend(self, fabric: ResolvedFabric, digests: Mapping[str, str]) -> ResolvedFabric:
        """``fabric`` with each switch whose config is kept under its current facts digest
        (``digests``: :func:`~compiler.artifacts.units.facts_digests`) replaced by a copy
        carrying that config, read from the file when first asked (one that does not read back
        as a config is built from the switch's facts then); the others are ``fabric``'s own (a
        config the checks build for them is the render's too)."""
        self.judged, self._fleet_read, self._lent, self._built_instead = {}, None, {}, 0
        self._fleet, self._fleet_digests, self._changed = b"", {}, {}
        if self.read:
            self._load()
        self._from_fleet, self._from_changed = set(), {}
        devices = dict(fabric.devices)
        for name, device in fabric.devices.items():
            digest = digests[name]
            entry = self._changed.get(name)
            if entry is not None and entry[0] == digest:
                self._from_changed[name] = entry[1]
            elif self._fleet_digests.get(name) == digest:
                self._from_fleet.add(name)
            else:
                continue
            lent = self._lent[name] = _Lent(partial(self._config_of, name, digest))
            devices[name] = _lent_copy(device, lent)
        self.kept = len(self._lent)
        return replace(fabric, devices=devices) if self.kept else fabric

    def _config_of(self, name: str, digest: str) -> DeviceConfig | None:
        """The config lent for switch ``name`` under ``digest``, read from the file now (the
        fleet's pickle once more than :data:`BUILT_INSTEAD` of its configs are asked for; None
        before, the config is then built from the facts); None, and no longer counted as kept,
        when its entry does not read back as one."""
        data = self._from_changed.get(name)
        if data is not None:
            config = _unpickled(data)
            if config is None:
                del self._from_changed[name]
            return config
        if self._fleet_read is None and self._built_instead < BUILT_INSTEAD:
            self._built_instead += 1
            return None  # built from its facts: the config the fleet holds for them, for less
        if self._fleet_read is None:
            self._fleet_read = _unpickled_fleet(self._fleet)
            if not self._fleet_read:  # not the fleet it claims to be: none of it is kept
                self._fleet, self._fleet_digests, self._from_fleet = b"", {}, set()
        held = self._fleet_read.get(name)
        if held is None or held[0] != digest:
            self._from_fleet.discard(name)
            return None
        return held[1]

    def save(
        self, fabric: ResolvedFabric, digests: Mapping[str, str], judged: Mapping[str, Judgement] | None = None
    ) -> None:
        """Keep the config of every switch of ``fabric`` (as :meth:`lend` gave it) that has one:
        switches without one, gone or changed are left out (see the module docstring for when
        the fleet is pickled again; a config lent and never read is kept as the file holds it);
        and ``judged`` (the switch rules' findings by facts digest, those of this compile's
        switches: :func:`compiler.checks.checked`), or, when not given, the findings read.
        Written only when that differs from the file; an ``OSError`` only costs the next
        compile what it would have kept."""
        if not self.write:
            return
        findings = self.judged if judged is None else dict(judged)
        new_findings = findings != self.judged
        held = [name for name in fabric.devices if self._kept_as_read(name) or fabric.devices[name].config_built]
        changed = [name for name in held if name not in self._from_fleet]
        stale = len(self._fleet_digests) - len(self._from_fleet)
        if len(changed) + stale > len(held) // 4:
            share = _Sharing()
            configs = {name: (digests[name], share(fabric.devices[name].config)) for name in held}
            self._write(_pickled(configs), {name: entry[0] for name, entry in configs.items()}, {}, findings)
            return
        built = {name: _pickled(fabric.devices[name].config) for name in changed if name not in self._from_changed}
        if built or len(changed) != len(self._changed) or new_findings:
            self._write(
                self._fleet,
                self._fleet_digests,
                {name: (digests[name], built.get(name) or self._from_changed[name]) for name in changed},
                findings,
            )

    def _kept_as_read(self, name: str) -> bool:
        """Whether switch ``name``'s config is the one the file holds (lent, and read back as a
        config or not read at all)."""
        return name in self._lent and (name in self._from_fleet or name in self._from_changed)

    def _load(self) -> None:
        """The file's fleet (its pickle and the facts digest of each switch in it), changed
        entries and findings, as read; none when it is missing, unreadable or not this code's.
        No config is unpickled here."""
        try:
            data = marshal.loads(self.path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("code") != code_digest():
            return
        fleet, digests, changed = data.get("fleet"), data.get("digests"), data.get("changed")
        if not isinstance(fleet, bytes) or not isinstance(digests, dict) or not isinstance(changed, dict):
            return
        self._fleet = fleet
        self._fleet_digests = {
            name: digest for name, digest in digests.items() if isinstance(name, str) and isinstance(digest, str)
        }
        self._changed = {
            name: entry
            for name, entry in changed.items()
            if isinstance(entry, tuple)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and isinstance(entry[1], bytes)
        }
        self.judged = _judgements(data.get("judged"))

    def _write(
        self,
        fleet: bytes,
        digests: dict[str, str],
        changed: dict[str, tuple[str, bytes]],
        judged: dict[str, Judgement],
    ) -> None:
        """The file, atomically; temporary files of killed writers cleared (an ``OSError``
        ignored: the next compile builds what it would have kept)."""
        data = marshal.dumps(
            {
                "format": FORMAT,
                "code": code_digest(),
                "fleet": fleet,
                "digests": digests,
                "changed": changed,
                "judged": judged,
            }
        )
        try:
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
        except OSError:
            pass


class _Lent(_Built):
    """Where a lent switch (:meth:`ConfigCache.lend`) keeps its config: read from the file when
    first asked (``read``), or, when that gives none, built from the facts and set by
    :attr:`compiler.fabric.Device.config` as for any switch."""

    __slots__ = ("_read", "_value")

    def __init__(self, read: Callable[[], DeviceConfig | None]) -> None:
        self._read: Callable[[], DeviceConfig | None] | None = read
        self._value: DeviceConfig | None = None

    @property  # the slot of _Built, read from the file on first use
    def config(self) -> DeviceConfig | None:
        if self._read is not None:
            read, self._read = self._read, None
            self._value = read()
        return self._value

    @config.setter
    def config(self, value: DeviceConfig | None) -> None:
        self._read, self._value = None, value


def _lent_copy(device: Device, lent: _Lent) -> Device:
    """A copy of ``device`` whose config is ``lent``'s (the original's is its own, unread): its
    fields set one by one (``dataclasses.replace`` calls ``__init__``, 4 times as long)."""
    copy = object.__new__(Device)
    for name in _DEVICE_FIELDS:
        object.__setattr__(copy, name, getattr(device, name))
    object.__setattr__(copy, "_built", lent)
    return copy


_DEVICE_FIELDS = tuple(f.name for f in fields(Device) if f.name != "_built")


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


def _judgements(value: object) -> dict[str, Judgement]:
    """The switch rules' findings as the file holds them (by facts digest, (rule id, message)
    pairs), those of the right shape; none when ``value`` is no mapping.

    Example:
        >>> _judgements({"d1": (("VLN001", "m"),), "d2": ((1, "m"),), "d3": ()})
        {'d1': (('VLN001', 'm'),), 'd3': ()}
    """
    if not isinstance(value, dict):
        return {}
    # Most judgements are empty or one pair (a switch without findings, a part's summary): those
    # checked without a generator (this was 0.015 s of every one-row compile's checks at 16x).
    return {
        digest: judgement
        for digest, judgement in value.items()
        if type(digest) is str
        and type(judgement) is tuple
        and (not judgement or (len(judgement) == 1 and _pair(judgement[0])) or all(map(_pair, judgement)))
    }


def _pair(value: object) -> bool:
    """Whether ``value`` is a (str, str) tuple (marshal makes only exact types)."""
    return type(value) is tuple and len(value) == 2 and type(value[0]) is str and type(value[1]) is str


def _record(cls: type[tuple[object, ...]], values: tuple[object, ...]) -> tuple[object, ...]:
    """A config record from its class and values: how a record is pickled here. A record pickled
    as usual is made by its class's ``__new__``, a Python function (of 30 arguments for an
    interface); :class:`_ConfigUnpickler` makes this one with ``tuple.__new__``, the same in C:
    the fleet's 55,000 records at 16x load 13 to 27% faster in the checks' process (0.055
    against 0.063 s, 0.063 against 0.086 s on a busier machine; medians of 6).

    Example:
        >>> _record(_model.VrfHost, ("10.0.0.1", None, False))
        VrfHost(address='10.0.0.1', vrf=None, prefer=False)
    """
    return tuple.__new__(cls, values)


class _ConfigPickler(pickle.Pickler):
    """A pickler that writes each record of :mod:`compiler.structured.model` as :func:`_record`
    of its class and values."""

    def reducer_override(self, obj: object) -> tuple[Callable[..., object], tuple[object, ...]]:
        kind = type(obj)
        if isinstance(obj, tuple) and kind is not tuple and kind.__module__ == _model.__name__:
            return _record, (kind, tuple(obj))
        return NotImplemented  # type: ignore[no-any-return]  # pickle goes on as usual


class _ConfigUnpickler(pickle.Unpickler):
    """An unpickler that makes only the records of :mod:`compiler.structured.model` (by
    :func:`_record`, in C, or by their class)."""

    def find_class(self, module: str, name: str) -> object:
        if module == __name__ and name == _record.__name__:
            return tuple.__new__  # _record, in C: the classes it is given are checked here too
        found = getattr(_model, name, None) if module == _model.__name__ else None
        if not (isinstance(found, type) and issubclass(found, tuple)):
            raise pickle.UnpicklingError(f"{module}.{name} is not a structured config record")
        return found


class _Sharing:
    """Records and tuples exactly equal to one met before replaced by that one, so the fleet's
    pickle holds each once (pickle writes an object met again as a reference to the first).

    The switches' configs repeat equal parts: at 16x half the 44,600 interfaces (a model's unused
    ports), 6,800 ``VrfHost`` of 15 values, the queues, ACLs and users of every switch. Shared,
    the fleet's pickle is a fifth smaller (3.1 against 3.8 MB) and loads a quarter faster (0.04
    against 0.055 s, medians on a busy machine: the lend of every one-row compile), for 0.12 s
    more when the fleet is pickled again (0.19 s of sharing, a pickle 0.06 s shorter), which a
    one-row compile does once every few dozen.

    *Exactly* equal: ``==`` holds ``True == 1`` and ``0.0 == -0.0``, so a part is taken for an
    equal one only when their types and ``repr`` are the same too (``repr`` writes every nested
    record's class and every value's spelling); a part only ``==`` is kept as it is.

    Example:
        >>> share = _Sharing()
        >>> a, b = _model.VrfHost("10.0.0.1"), _model.VrfHost("10.0.0.1")
        >>> share((a,)) is share((b,)), share(b) is a, share(_model.VrfHost("10.0.0.1", prefer=0)).prefer
        (True, True, 0)
    """

    def __init__(self) -> None:
        self._seen: dict[object, object] = {}
        self._parts: dict[type, tuple[int, ...] | None] = {}

    def __call__(self, value: T) -> T:
        try:
            found = self._seen.setdefault(value, value)
        except TypeError:  # a list or dict inside (a config built by hand): kept as it is
            return value
        if found is not value:
            return found if type(found) is type(value) and repr(found) == repr(value) else value
        if not isinstance(value, tuple) or not value:
            return value
        parts = list(value)
        indices = self._indices(type(value))
        if indices is None:  # a plain tuple: of records or tuples, or of strings (nothing inside to share)
            indices = range(len(parts)) if isinstance(parts[0], tuple) else ()
        changed = False
        for index in indices:
            part = parts[index]
            if isinstance(part, tuple) and part:
                shared = self(part)
                if shared is not part:
                    parts[index], changed = shared, True
        if not changed:
            return value
        rebuilt = tuple(parts) if type(value) is tuple else tuple.__new__(type(value), parts)
        self._seen[value] = rebuilt  # the equal ones met later: this one, its parts shared
        return rebuilt  # type: ignore[return-value]

    def _indices(self, kind: type) -> Sequence[int] | None:
        """The fields of a record class that may hold records or tuples (None: a plain tuple, all)."""
        if kind not in self._parts:
            hints = typing.get_type_hints(kind) if kind is not tuple else None
            self._parts[kind] = (
                None
                if hints is None
                else tuple(i for i, hint in enumerate(hints.values()) if "tuple" in str(hint) or "model." in str(hint))
            )
        return self._parts[kind]


def _pickled(value: object) -> bytes:
    """``value`` pickled, its records as :func:`_record` of their class and values.

    Example:
        >>> config = (_model.VrfHost("10.0.0.1"), _model.User("admin", 15, "network-admin", "ref"))
        >>> _restricted_load(_pickled(config)) == config
        True
    """
    out = io.BytesIO()
    _ConfigPickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


def _unpickled(data: bytes) -> DeviceConfig | None:
    """The config pickled in ``data``, or None when it is anything else.

    Example:
        >>> _unpickled(pickle.dumps(_model.VrfHost("10.0.0.1"))), _unpickled(pickle.dumps(os.getcwd))
        (None, None)
    """
    config = _restricted_load(data)
    return config if isinstance(config, DeviceConfig) else None


def _unpickled_fleet(data: bytes) -> dict[str, tuple[str, DeviceConfig]]:
    """The fleet's entries pickled in ``data`` (each a facts digest and a config), or none when
    it is anything else."""
    fleet = _restricted_load(data)
    if not isinstance(fleet, dict):
        return {}
    for name, entry in fleet.items():
        if not (
            isinstance(name, str)
            and isinstance(entry, tuple)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and isinstance(entry[1], DeviceConfig)
        ):
            return {}
    return fleet


def _restricted_load(data: bytes) -> object:
    """What ``data`` unpickles to, made of structured config records only; None when it is
    corrupt or names anything else."""
    try:
        return _ConfigUnpickler(io.BytesIO(data)).load()
    except Exception:  # a corrupt pickle may fail in many ways; any of them means "not kept"
        return None
