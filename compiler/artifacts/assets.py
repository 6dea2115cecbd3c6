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

from compiler.artifacts.physical import server_units, switch_units
from compiler.artifacts.tables import csv_rows, header_unit
from compiler.artifacts.units import Unit, built, section_path
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
    one section per run of them in the same rack, named by its first; each from its rows'
    fields (a rack unit follows from the rack's other devices: it is a field of the row)."""
    yield header_unit("assets", ASSETS, COLUMNS)
    units = switch_units(intent, fabric)
    used = fabric.facts.cabling.ports
    switches = []
    for name, device in fabric.devices.items():
        top, height = units[name]
        role = f"{device.network} {device.role}"
        ports = tuple(used.get(name, ()))
        row = intent.racks[device.rack].row
        switches.append(
            (
                switch_tag(name),
                name,
                "switch",
                device.model,
                device.rack,
                row,
                "",
                top,
                height,
                role,
                device.mgmt_address,
                "",
                "",
                ports,
            )
        )
    kinds = {s.name: s.kind for s in intent.servers}
    server_rack_units = server_units(intent, fabric)
    servers = []
    for name, server in fabric.servers.items():
        top, height = server_rack_units[name]
        servers.append(
            (
                server.asset_tag,
                name,
                "server",
                server.model,
                server.rack,
                intent.racks[server.rack].row,
                server.position,
                top,
                height,
                kinds[name],
                _ip(server.mgmt_address),
                _ip(server.compute_address),
                _ip(server.storage_address),
                " ".join(f"{n.switch}:{n.switch_port}({n.name})" for n in server.nics),
            )
        )
    for rows in (switches, servers):
        for _, run in groupby(rows, key=itemgetter(4)):
            mine = tuple(run)
            yield Unit(f"assets/{mine[0][1]}", mine, partial(_rows, str(mine[0][1]), mine))


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
