"""Units of ``generated/``: a few files and the inputs they are built from.

A unit (one switch's config and structured YAML, one server's directory, one switch's alert
rules, one switch's provenance) is a pure function of its ``inputs`` and the compiler's code,
so a compile whose inputs fingerprint as last time takes the unit's files from ``generated/``
instead of building them (:mod:`compiler.cache`). ``inputs`` must hold everything ``build``
reads, as data that pickles alike in every process (dataclasses, NamedTuples, tuples, dicts,
scalars; a pydantic model or anything holding a set as its :func:`digest_of`).

A switch's unit is keyed by its facts (:func:`facts_digest`), not by its structured config:
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

import dataclasses
import hashlib
import pickle
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from pydantic import BaseModel

from compiler.memo import per_object, same_as_last

if TYPE_CHECKING:
    from compiler.fabric import Device, ResolvedFabric
    from compiler.facts import DeviceFacts


@dataclass(frozen=True, slots=True)
class Unit:
    """Files built by ``build`` from ``inputs`` alone, named ``name`` in the compile record."""

    name: str
    inputs: object
    build: Callable[[], dict[str, str]]


def digest_of(inputs: object) -> str:
    """sha256 of ``inputs`` as plain data (:func:`plain`): inputs many units share, taken once,
    alike in every process (a pydantic model or a set does not pickle alike).

    Example:
        >>> digest_of((1, "a"))[:12], digest_of(frozenset("ab")) == digest_of(frozenset("ba"))
        ('d2008cff6fb7', True)
    """
    return hashlib.sha256(pickle.dumps(plain(inputs), protocol=5)).hexdigest()


def plain(value: object) -> object:
    """``value`` as tuples, dicts and scalars that pickle alike under every hash seed: each
    record (NamedTuple, dataclass, pydantic model) as its type's name and its fields' values,
    each set sorted. Walks in Python: for the few objects many units share, not per unit.

    Example:
        >>> from typing import NamedTuple
        >>> class Port(NamedTuple):
        ...     name: str
        ...     modes: frozenset[str]
        >>> plain(Port("Ethernet1", frozenset({"b", "a"})))
        ('Port', ('Ethernet1', ('set', ('a', 'b'))))
    """
    fields = _record_fields(value)
    if fields is not None:
        return (type(value).__qualname__, tuple(plain(v) for v in fields))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(plain(v) for v in value))
    if isinstance(value, Mapping):
        return ("dict", tuple((plain(k), plain(v)) for k, v in value.items()))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted((plain(v) for v in value), key=repr)))
    return value  # a scalar, an address: pickles by value


def _record_fields(value: object) -> tuple[object, ...] | None:
    """The values of a record's fields in order (a pydantic model's extra keys last); None
    for anything but a record."""
    if isinstance(value, BaseModel):
        return (*(getattr(value, name) for name in type(value).model_fields), value.model_extra or {})
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return tuple(getattr(value, f.name) for f in dataclasses.fields(value))
    return None


shared_digest = per_object(digest_of)
""":func:`digest_of` of an object many switches share (the design, a role's layout, a
fabric's QoS), taken once per object."""

_SHARED_FACTS = ("design", "front_panel", "qos", "port_settings", "settings")
"""The fields of :class:`~compiler.facts.DeviceFacts` keyed by their digest: objects shared by
many switches (their pickle would repeat per switch), or pydantic models."""


def facts_key(facts: DeviceFacts) -> tuple[object, ...]:
    """Every field of ``facts`` (all a structured config reads), the shared objects and models
    among them as their digest: as complete as the facts, and cheap to pickle.

    Example:
        >>> from pathlib import Path
        >>> from compiler.facts import build_facts
        >>> from compiler.intent import load_intent
        >>> facts = build_facts(load_intent(Path("intent")))
        >>> key = facts_key(facts.device("rack01-leaf-a"))
        >>> key[0].name, key[0].layout == shared_digest(facts.device("rack01-leaf-b").switch.layout)
        ('rack01-leaf-a', True)
        >>> key[1] == shared_digest(facts.intent.fabric)
        True
    """
    switch = facts.switch._replace(layout=shared_digest(facts.switch.layout))  # type: ignore[arg-type]
    shared = dict.fromkeys(_SHARED_FACTS, True)
    rest = (shared_digest(v) if shared.get(k) else v for k, v in zip(facts._fields[1:], facts[1:], strict=True))
    return (switch, *rest)


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
def facts_digests(fabric: ResolvedFabric) -> dict[str, str]:
    """Per switch, the sha256 of its record's identity and its facts (:func:`facts_key`): all
    its structured config and its files are made of, once per fabric for every unit keyed by it."""
    out = {}
    for name, device in fabric.devices.items():
        identity = (name, device.role, device.network, device.model, device.rack, device.mgmt_address)
        record = (*identity, device.redundancy_group, device.mlag_peer, facts_key(device.facts))
        out[name] = hashlib.sha256(pickle.dumps(record, protocol=5)).hexdigest()
    return out


def switch_units(fabric: ResolvedFabric) -> Iterator[Unit]:
    """One unit per switch, keyed by its facts (:func:`facts_digests`): its two files are
    rendered from its structured config, built only when the unit is."""
    digests = facts_digests(fabric)
    for name, device in fabric.devices.items():
        yield Unit(f"switch/{name}", digests[name], partial(switch_files, device))
