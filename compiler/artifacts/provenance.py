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

from collections.abc import Iterable, Iterator
from functools import partial
from typing import Any

from compiler.artifacts.units import Unit, built
from compiler.facts.provenance import Provenance
from core.generated import provenance_path
from core.provenance import provenance_document

__all__ = ["provenance_files", "provenance_units"]


def provenance_units(devices: Iterable[str], provenance: Provenance) -> Iterator[Unit]:
    """One unit per device of the fabric: its file, from the sources found for it."""
    for name in devices:
        found = (
            provenance.interfaces.get(name, {}),
            provenance.vlans.get(name, {}),
            provenance.settings.get(name, {}),
        )
        yield Unit(f"provenance/{name}", (name, found), partial(_provenance_file, name, *found))


def _provenance_file(name: str, *found: Any) -> dict[str, str]:
    return {provenance_path(name): provenance_document(name, *found)}


def provenance_files(devices: Iterable[str], provenance: Provenance) -> dict[str, str]:
    """One file per device of the fabric (an empty one when nothing of it has a source)."""
    return built(provenance_units(devices, provenance))
