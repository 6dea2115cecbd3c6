"""Units of ``generated/``: a few files and the inputs they are built from.

A unit (one switch's config and structured YAML, one server's directory, one switch's alert
rules, the provenance of a rack's switches) is a pure function of its ``inputs`` and the
compiler's code, so a compile whose inputs fingerprint as last time takes the unit's files from
``generated/`` instead of building them (:mod:`compiler.cache`). ``inputs`` must hold everything ``build``
reads, as data that pickles alike in every process (dataclasses, NamedTuples, tuples, dicts,
scalars; a pydantic model or anything holding a set as its :func:`digest_of`).

A switch's unit is keyed by its facts (:func:`facts_digests`), not by its structured config:
the config is a pure function of them, so the key costs no config, and a switch kept from the
last compile never has its config built.

A unit may also build **sections** of a fleet-wide file (:func:`section_path`): its own block
of a file that lists every switch. The file is its sections joined in the order the units
come, so a unit kept from the last compile keeps its section too, and the file costs a join.

Example:
    >>> unit = Unit("switch/leaf1", ("leaf1", 9214), lambda: {"configs/leaf1.cfg": "mtu 9214\\n"})
    >>> built([unit])
    {'configs/leaf1.cfg': 'mtu 9214\\n'}
"""

from __future__ import annotations

import hashlib
import io
import pickle
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache, partial
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel

from compiler.facts.hardware import Layout, kept_digest
from compiler.memo import same_as_last
from core.hardware import Model, catalog

if TYPE_CHECKING:
    from compiler.fabric import Device, ResolvedFabric
    from compiler.facts import DeviceFacts
    from compiler.intent import FabricFile


class Unit(NamedTuple):
    """Files built by ``build`` from ``inputs`` alone, named ``name`` in the compile record.

    A record, not a frozen dataclass: a compile makes thousands (one per switch, server and
    section), and a frozen dataclass sets each field through a call of its own."""

    name: str
    inputs: object
    build: Callable[[], dict[str, str]]
    recall: Recall | None = None
    """``build`` for a unit whose parts outlive it: given the notes its last build left (empty
    when there are none), its files and its notes for the next. A fleet-wide summary keeps
    there what each of its parts came to, by the part's own key, and works out again only the
    parts whose keys changed (the cable list's bill of materials, from each switch's cables).
    The notes are plain data (:attr:`compiler.cache.Rendered.notes`)."""


Notes = dict[str, Any]
"""A unit's notes for its next build: plain data by the key of what it was worked out from."""

Recall = Callable[[Notes], tuple[dict[str, str], Notes]]


def digest_of(inputs: object) -> str:
    """sha256 of ``inputs``' pickle, alike in every process (:class:`_StablePickler`): inputs
    many units share, taken once.

    Example:
        >>> digest_of((1, "a"))[:12], digest_of(frozenset("ab")) == digest_of(frozenset("ba"))
        ('09ecb9e5adac', True)
    """
    kept = kept_digest(inputs)
    if kept is not None:
        return kept  # a role's layout or interfaces, digested by the load that kept them (KeptHardware)
    if type(inputs) is Layout:
        return _layout_digest(inputs)
    out = io.BytesIO()
    _StablePickler(out, protocol=5).dump(inputs)
    return hashlib.sha256(out.getbuffer()).hexdigest()


def _layout_digest(layout: Layout) -> str:
    """A role's layout: its catalog model through :class:`_StablePickler` (its ports hold
    sets), the rest (interfaces, port sets, lanes: tuples, dicts and strings) by the plain
    pickler at C speed, without a Python call per object (half of a layout's objects: a
    chassis has thousands).

    Example:
        >>> from core.hardware import model
        >>> from compiler.facts.hardware import layout_of
        >>> layout = layout_of(model("DCS-7060DX5-32"), {})
        >>> digest_of(layout) == digest_of(layout._replace(breakouts=(("1", "2x200G"),)))
        False
    """
    rest = pickle.dumps(layout[1:], protocol=5)
    return hashlib.sha256(model_digest(layout.model).encode() + b"\0" + rest).hexdigest()


def model_digest(model: Model) -> str:
    """A catalog model: one fabricops ships (or a chassis of it with linecards installed) as its
    id and linecards, which the code digest of every fingerprint makes complete (it holds the
    catalog's files); a repository's own as all its fields (thousands of objects: ports, modes).

    Example:
        >>> from core.hardware import model
        >>> chassis = model("DCS-7804-CH")
        >>> model_digest(chassis.with_linecards({4: None})) == model_digest(chassis)
        False
    """
    shipped = catalog().models.get(model.id)
    if shipped is not None and (
        model is shipped or (shipped.chassis is not None and model == shipped.with_linecards(model.linecards))
    ):
        return digest_of(("shipped", model.id, tuple(sorted(model.linecards.items()))))
    out = io.BytesIO()
    _StablePickler(out, protocol=5).dump(model)
    return hashlib.sha256(out.getbuffer()).hexdigest()


class _StablePickler(pickle.Pickler):
    """A pickler whose output does not depend on the hash seed: a set as its members sorted, a
    pydantic model (whose pickle holds a set) as its type's name and its fields' values.

    A Python call per object pickled: for the few objects many units share, not per unit.
    Members of a set are scalars or tuples of them (sorted by ``repr``).
    """

    def persistent_id(self, obj: object) -> object:
        kind = type(obj)
        if kind in _ATOMS:
            return None
        if kind is frozenset or kind is set:
            return ("set", sorted(obj, key=repr))  # type: ignore[call-overload]
        if isinstance(obj, BaseModel):
            fields = tuple(getattr(obj, name) for name in kind.model_fields)  # type: ignore[attr-defined]
            return (kind.__qualname__, fields, obj.model_extra or {})
        return None


_ATOMS = frozenset({str, int, float, bool, type(None), tuple, dict, list, bytes})


def digest_once(kept: dict[int, tuple[object, str]]) -> Callable[[object], str]:
    """:func:`digest_of`, taken once per object (by identity) while ``kept`` lives: for the
    objects many switches share (the design, a role's layout, a fabric's QoS).

    Example:
        >>> digest, layout = digest_once({}), ("Ethernet1", "Ethernet2")
        >>> digest(layout) == digest(layout) == digest_of(layout)
        True
    """

    def digest(value: object) -> str:
        found = kept.get(id(value))
        if found is None or found[0] is not value:
            found = kept[id(value)] = (value, digest_of(value))
        return found[1]

    return digest


_DIGESTED_FACTS = frozenset({"front_panel", "qos", "port_settings", "settings", "design"})
"""The fields of :class:`~compiler.facts.DeviceFacts` keyed by their digest (as is the switch's
layout): objects shared by many switches (their pickle would repeat per switch), or pydantic
models."""


def facts_key(facts: DeviceFacts, digest: Callable[[object], str] = digest_of) -> tuple[object, ...]:
    """Every field of ``facts`` (all a structured config reads), the shared objects and models
    among them as their ``digest``, records as plain tuples: as complete as the facts, and
    cheap to pickle.

    Example:
        >>> from pathlib import Path
        >>> from compiler.facts import build_facts
        >>> from compiler.intent import load_intent
        >>> facts = build_facts(load_intent(Path("intent")))
        >>> key, leaf = facts_key(facts.device("rack01-leaf-a")), facts.device("rack01-leaf-b").switch
        >>> key[0][0], digest_of(leaf.layout) in key[0]
        ('rack01-leaf-a', True)
        >>> key[1] == digest_of(facts.intent.fabric.model_copy(update={"extra_config": {}}))
        True
    """
    # A call per field that needs one; the others (a scalar, a record of scalars, a mapping)
    # inline: a call per field per switch was a third of the digests at 16x.
    return tuple(
        [
            (_plain(value) if type(value) is not tuple and isinstance(value, tuple) else value)
            if keyed is None
            else keyed(value, digest)
            for keyed, value in zip(_keyers(facts._fields), facts, strict=True)
        ]
    )


Keyer = Callable[[Any, Callable[[object], str]], object]


@cache
def _keyers(fields: tuple[str, ...]) -> tuple[Keyer | None, ...]:
    """How each field of a switch's facts goes into its key (None: as it is, a record as a
    plain tuple)."""
    return tuple(_keyer(name) for name in fields)


def _keyer(name: str) -> Keyer | None:
    if name == "design":
        return lambda value, digest: digest(_shared_design(value))
    if name in _DIGESTED_FACTS:
        # Most switches have no ports.yaml entries: an empty dict needs no digest.
        return lambda value, digest: value if type(value) is dict and not value else digest(value)
    if name in _ROWS:
        return lambda value, digest: _rows(value)
    if name == "switch":
        return lambda value, digest: _with(value, "layout", digest(value.layout))
    if name == "routing":
        return lambda value, digest: value if value is None else _with(value, "peers", _rows(value.peers))
    return None


def _with(record: Any, field: str, value: object) -> tuple[object, ...]:
    """``record``'s values as a plain tuple, ``field``'s replaced by ``value`` (a record's own
    ``_replace`` and pickle each cost a Python call or more).

    Example:
        >>> from compiler.facts.addressing import HostAddress
        >>> _with(HostAddress("10.0.0.2/31", "10.0.0.1"), "gateway", "-")
        ('10.0.0.2/31', '-')
    """
    values = list(record)
    values[_position(record._fields, field)] = value
    return tuple(values)


@cache
def _position(fields: tuple[str, ...], field: str) -> int:
    return fields.index(field)


_ROWS = frozenset({"ports", "fabric_links", "racks", "vlans"})
"""The fields of :class:`~compiler.facts.DeviceFacts` that are tuples of records: keyed as
tuples of their fields' values (:func:`_rows`)."""

_plain = itemgetter(slice(None))
"""A record's values as a plain tuple, in C: half the cost of ``tuple(record)``, which iterates."""


def _rows(records: tuple[tuple[object, ...], ...]) -> tuple[tuple[object, ...], ...]:
    """Records as plain tuples of their values: their types are fixed by the code (which every
    fingerprint holds), and a plain tuple pickles at C speed where a record calls back into
    Python, the bulk of a switch's key at 16x.

    Example:
        >>> from compiler.facts.addressing import HostAddress
        >>> _rows((HostAddress("10.0.0.2/31", "10.0.0.1"),))
        (('10.0.0.2/31', '10.0.0.1'),)
    """
    return tuple(map(_plain, records))


@same_as_last
def _shared_design(design: FabricFile) -> FabricFile:
    """The design without its ``extra_config`` blocks: each switch's own block is a field of its
    facts, so editing one block re-renders that switch alone."""
    return design.model_copy(update={"extra_config": {}})


def section_path(file: str, name: str) -> str:
    """The path a unit builds its section ``name`` of the fleet-wide ``file`` under.

    Example:
        >>> section_path("monitoring/expected-counters.yaml", "leaf1")
        'monitoring/expected-counters.yaml#leaf1'
    """
    return f"{file}#{name}"


def joined(files: Mapping[str, str]) -> dict[str, str]:
    """``files`` with the sections of each fleet-wide file joined into it, in their order.

    Example:
        >>> joined({"a.yaml#x": "x: 1\\n", "b.cfg": "b\\n", "a.yaml#y": "y: 2\\n"})
        {'b.cfg': 'b\\n', 'a.yaml': 'x: 1\\ny: 2\\n'}
    """
    out: dict[str, str] = {}
    sections: dict[str, list[str]] = {}
    for path, text in files.items():
        file, mark, _ = path.partition("#")
        if mark:
            sections.setdefault(file, []).append(text)
        else:
            out[path] = text
    return {**out, **{file: "".join(parts) for file, parts in sections.items()}}


def built(units: Iterable[Unit]) -> dict[str, str]:
    """Every unit's files, each built, sections joined."""
    files: dict[str, str] = {}
    for unit in units:
        files.update(unit.build())
    return joined(files)


def switch_files(device: Device) -> dict[str, str]:
    """``configs/<name>.cfg`` and ``structured/<name>.yaml``: both from the structured document."""
    from compiler.artifacts.structured import structured_configs, structured_document
    from compiler.render import render_config

    document = structured_document(device)
    config = render_config(document["config"])
    return {f"configs/{device.name}.cfg": config, **structured_configs({device.name: document})}


@same_as_last
def shared_digest(fabric: ResolvedFabric) -> Callable[[object], str]:
    """:func:`digest_once` for the objects the switches of ``fabric`` share (the design, a
    role's layout, a fabric's QoS): one for every unit family keyed by them, each object's
    digest taken once per fabric."""
    del fabric  # the key of the memo: a new fabric, a new digest of its objects
    return digest_once({})


@same_as_last
def facts_digests(fabric: ResolvedFabric) -> dict[str, str]:
    """Per switch, the sha256 of its record's identity and its facts (:func:`facts_key`): all
    its structured config and its files are made of, once per fabric for every unit keyed by it."""
    out, digest = {}, shared_digest(fabric)
    pickled = _ByValue()
    for name, device in fabric.devices.items():
        identity = (name, device.role, device.network, device.model, device.rack, device.mgmt_address)
        record = (*identity, device.redundancy_group, device.mlag_peer, facts_key(device.facts, digest))
        out[name] = hashlib.sha256(pickled(record)).hexdigest()
    return out


class _ByValue:
    """:func:`_by_value` for many records in turn, by one pickler: without a memo (``fast``)
    each pickle starts afresh, so the bytes are those of a new pickler, without the cost of
    one per switch.

    Example:
        >>> pickled = _ByValue()
        >>> [pickled(record) == _by_value(record) for record in ((1, "a"), ("b", None), (1, "a"))]
        [True, True, True]
    """

    def __init__(self) -> None:
        self._out = io.BytesIO()
        self._pickler = pickle.Pickler(self._out, protocol=5)
        self._pickler.fast = True

    def __call__(self, record: object) -> bytes:
        self._out.seek(0)
        self._out.truncate()
        self._pickler.dump(record)
        return self._out.getvalue()


def _by_value(record: object) -> memoryview:
    """``record``'s pickle without the memo (``fast``): the bytes depend on its values alone,
    not on which of them are one object (that depends on what the process did before, so
    two processes could pickle one fact apart); and a fifth faster (no memo to keep). A switch's
    key is a tree of tuples: no cycle, which the memo would be needed for.

    Example:
        >>> one, other = "".join(["leaf", "1"]), "".join(["leaf", "1"])
        >>> _by_value((one, one)) == _by_value((one, other)), pickle.dumps((one, one)) == pickle.dumps((one, other))
        (True, False)
    """
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=5)
    pickler.fast = True
    pickler.dump(record)
    return out.getbuffer()


def switch_units(fabric: ResolvedFabric) -> Iterator[Unit]:
    """One unit per switch, keyed by its facts (:func:`facts_digests`): its two files are
    rendered from its structured config, built only when the unit is."""
    digests = facts_digests(fabric)
    for name, device in fabric.devices.items():
        yield Unit(f"switch/{name}", digests[name], partial(switch_files, device))
