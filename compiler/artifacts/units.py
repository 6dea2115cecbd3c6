"""Units of ``generated/``: a few files and the inputs they are built from.

A unit (one switch's config and structured YAML, one server's directory, one switch's alert
rules, one switch's provenance) is a pure function of its ``inputs`` and the compiler's code,
so a compile whose inputs fingerprint as last time takes the unit's files from ``generated/``
instead of building them (:mod:`compiler.cache`). ``inputs`` must hold everything ``build``
reads, as data that pickles alike in every process (dataclasses, NamedTuples, tuples, dicts,
scalars; a pydantic model or anything holding a set as its :func:`digest_of`).

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
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from compiler.fabric import Device, ResolvedFabric


@dataclass(frozen=True, slots=True)
class Unit:
    """Files built by ``build`` from ``inputs`` alone, named ``name`` in the compile record."""

    name: str
    inputs: object
    build: Callable[[], dict[str, str]]


def digest_of(inputs: object) -> str:
    """sha256 of ``inputs``' ``repr``: inputs many units share, taken once (a pydantic model's
    ``repr`` is slow to take per unit).

    Example:
        >>> digest_of((1, "a"))[:12]
        '2a123b262270'
    """
    return hashlib.sha256(repr(inputs).encode()).hexdigest()


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


def switch_units(fabric: ResolvedFabric) -> Iterator[Unit]:
    """One unit per switch: the device record (its structured config included) is all its two
    files are rendered from."""
    for name, device in fabric.devices.items():
        yield Unit(f"switch/{name}", device, partial(switch_files, device))
