"""``generated/provenance/<device>.json``: the facts' provenance, one file per device.

The facts know, per interface field, VLAN and device-wide section, the element of ``intent/``
behind it (:mod:`compiler.facts.provenance`); ``fabricops diff`` compares ``generated/`` at two
refs without compiling either, so the compile writes that knowledge beside each config in the
format of :mod:`core.provenance`.

Example:
    >>> from compiler.facts.provenance import Provenance
    >>> from compiler.sources import Source
    >>> found = Provenance({"leaf1": {"Ethernet1": {"": Source("servers.csv", ("gpu1",))}}}, {}, {})
    >>> provenance_files(["leaf1"], found)["provenance/leaf1.json"].splitlines()[2]
    '  "Ethernet1": {"": ["servers.csv", "gpu1"]}'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from functools import partial
from itertools import groupby, repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from compiler.artifacts.units import Unit
from compiler.facts.provenance import Provenance
from core.generated import provenance_path
from core.provenance import provenance_document

if TYPE_CHECKING:
    from compiler.fabric import Device

__all__ = ["provenance_files", "provenance_units"]


def provenance_units(devices: Mapping[str, Device], provenance: Provenance) -> Iterator[Unit]:
    """One unit per run of devices in one rack (by name, as the fabric lists them, so most
    runs are a rack's switches), named by its first: each device's file, from the sources
    found for it. A unit per rack, not per device: a compile keys every one of them, and a
    device's file costs less to build again than a unit of its own costs to keep (a server
    added touches its rack's switches, whose files are built together in any case)."""
    for _, run in groupby(devices.items(), key=_rack_of_item):
        found = tuple(map(_found, repeat(provenance), map(_FIRST, run)))
        yield Unit(f"provenance/{found[0][0]}", found, partial(_provenance_files, found))


def _found(provenance: Provenance, name: str) -> tuple[str, tuple[Any, Any, Any]]:
    """A device's name, and the sources found for its interfaces, VLANs and settings."""
    return name, (
        provenance.interfaces.get(name, {}),
        provenance.vlans.get(name, {}),
        provenance.settings.get(name, {}),
    )


_FIRST = itemgetter(0)


def _rack_of_item(item: tuple[str, Device]) -> int:
    return item[1].rack


def _provenance_files(found: Iterable[tuple[str, tuple[Any, Any, Any]]]) -> dict[str, str]:
    return {provenance_path(name): provenance_document(name, *sources) for name, sources in found}


def provenance_files(devices: Iterable[str], provenance: Provenance) -> dict[str, str]:
    """One file per device of the fabric (an empty one when nothing of it has a source)."""
    return _provenance_files(map(_found, repeat(provenance), devices))
