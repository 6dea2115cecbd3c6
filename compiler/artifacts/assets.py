"""``generated/inventory/assets.csv``: one row per server and switch (O1).

Servers carry the asset tag of ``servers.csv``; a switch's tag is derived from its name
(``SW-`` + the name in capitals), stable for as long as the name is. Position: a server's
position from its name; every row's top rack unit and height (rules in
:mod:`compiler.artifacts.physical`). The table comes in sections (:func:`asset_units`): the
header, then one per run of switches or servers in one rack.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from itertools import groupby
from operator import itemgetter
from typing import Any

from compiler.artifacts.physical import server_units, switch_units
from compiler.artifacts.servers import server_digests, server_kinds
from compiler.artifacts.tables import csv_rows, header_unit
from compiler.artifacts.units import Unit, built, facts_digests, section_path
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from compiler.platforms import eos

COLUMNS = (
    "asset_tag",
    "name",
    "kind",
    "model",
    "rack",
    "row",
    "position",
    "rack_unit",
    "height_u",
    "role",
    "mgmt_address",
    "compute_address",
    "storage_address",
    "switch_ports",
)


def switch_tag(name: str) -> str:
    """The derived asset tag of a switch.

    Example:
        >>> switch_tag("rack01-leaf-a")
        'SW-RACK01-LEAF-A'
    """
    return f"SW-{name.upper()}"


ASSETS = "inventory/assets.csv"


def asset_units(intent: Intent, fabric: ResolvedFabric) -> Iterator[Unit]:
    """The asset table in sections: the header, then switches (by name) and servers (by name),
    one section per run of them in the same rack, named by its first. A run is keyed by its
    rack's row (``racks.yaml``) and, per member, the digest of its record and its rack unit
    and height (which follow from the rack's other devices); its rows are built only with it.

    A switch's facts digest (:func:`~compiler.artifacts.units.facts_digests`) holds its name,
    model, rack, role, network, management address and used ports; a server's record digest
    (:func:`~compiler.artifacts.servers.server_digests`) its asset tag, model, rack, position,
    addresses and NICs with their switch ports; its kind (``servers.csv``) is keyed beside it.
    """
    yield header_unit("assets", ASSETS, COLUMNS)
    rows = {rack_id: rack.row for rack_id, rack in intent.racks.items()}
    switches, units = facts_digests(fabric), switch_units(intent, fabric)
    for rack, run in groupby(fabric.devices.items(), key=_rack_of_item):
        names = tuple(map(_FIRST, run))
        key = (rows.get(rack), tuple(zip(map(switches.__getitem__, names), map(units.__getitem__, names), strict=True)))
        yield Unit(f"assets/{names[0]}", key, partial(_switch_rows, intent, fabric, units, names))
    kinds = server_kinds(intent)
    servers, server_rack_units = server_digests(fabric), server_units(intent, fabric)
    for rack, in_rack in groupby(fabric.servers.items(), key=_rack_of_item):
        names = tuple(map(_FIRST, in_rack))
        members = zip(
            map(servers.__getitem__, names),
            map(kinds.__getitem__, names),
            map(server_rack_units.__getitem__, names),
            strict=True,
        )
        members_key = (rows.get(rack), tuple(members))
        build = partial(_server_rows, intent, fabric, server_rack_units, names, kinds)
        yield Unit(f"assets/{names[0]}", members_key, build)


_FIRST = itemgetter(0)

RackUnits = dict[str, tuple[int, int]]
"""Per device, its top rack unit and height (:mod:`compiler.artifacts.physical`)."""


def _rack_of_item(item: tuple[str, Any]) -> int:
    """The rack of a switch's or server's ``(name, record)``."""
    return int(item[1].rack)


def _switch_rows(intent: Intent, fabric: ResolvedFabric, units: RackUnits, names: tuple[str, ...]) -> dict[str, str]:
    used, rows = fabric.facts.cabling.ports, []
    for name in names:
        device = fabric.devices[name]
        top, height = units[name]
        role = f"{device.network} {device.role}"
        row = intent.racks[device.rack].row
        ports = tuple(used.get(name, ()))
        rows.append(
            (
                *(switch_tag(name), name, "switch", device.model, device.rack, row, "", top, height, role),
                *(device.mgmt_address, "", "", ports),
            )
        )
    return _rows(names[0], rows)


def _server_rows(
    intent: Intent, fabric: ResolvedFabric, rack_units: RackUnits, names: tuple[str, ...], kinds: dict[str, str]
) -> dict[str, str]:
    rows = []
    for name in names:
        server = fabric.servers[name]
        top, height = rack_units[name]
        nics = " ".join(f"{n.switch}:{n.switch_port}({n.name})" for n in server.nics)
        rack = intent.racks[server.rack].row
        rows.append(
            (
                *(server.asset_tag, name, "server", server.model, server.rack, rack, server.position, top, height),
                *(kinds[name], _ip(server.mgmt_address), _ip(server.compute_address)),
                *(_ip(server.storage_address), nics),
            )
        )
    return _rows(names[0], rows)


def _rows(name: str, rows: Iterable[Sequence[object]]) -> dict[str, str]:
    """A section of rows; a switch's ports (a tuple of names) as one EOS interface range."""
    return {
        section_path(ASSETS, name): csv_rows(
            (*row[:-1], eos.interface_ranges(row[-1])) if isinstance(row[-1], tuple) else row for row in rows
        )
    }


def asset_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """The asset table: switches first (by name), then servers (by name)."""
    return built(asset_units(intent, fabric))


def _ip(address: str | None) -> str:
    """The address part of ``address/prefix``; empty for none.

    Example:
        >>> _ip("10.30.1.11/24"), _ip(None)
        ('10.30.1.11', '')
    """
    return address.split("/", 1)[0] if address else ""
