"""``generated/inventory/assets.csv``: one row per server and switch (O1).

Servers carry the asset tag of ``servers.csv``; a switch's tag is derived from its name
(``SW-`` + the name in capitals), stable for as long as the name is. Position: a server's
position from its name; every row's top rack unit and height (rules in
:mod:`compiler.artifacts.physical`).
"""

from __future__ import annotations

from compiler.artifacts.physical import server_units, switch_units
from compiler.artifacts.tables import csv_text
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


def asset_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """The asset table: switches first (by name), then servers (by name)."""
    units = switch_units(intent, fabric)
    rows: list[tuple[object, ...]] = []
    for name, device in fabric.devices.items():
        top, height = units[name]
        rows.append(
            (
                switch_tag(name),
                name,
                "switch",
                device.model,
                device.rack,
                intent.racks[device.rack].row,
                "",
                top,
                height,
                f"{device.network} {device.role}",
                device.mgmt_address,
                "",
                "",
                eos.interface_ranges(port.name for port in fabric.ports(name)),
            )
        )
    kinds = {s.name: s.kind for s in intent.servers}
    server_rack_units = server_units(intent, fabric)
    for name, server in fabric.servers.items():
        ports = " ".join(f"{n.switch}:{n.switch_port}({n.name})" for n in server.nics)
        kind = kinds[name]
        top, height = server_rack_units[name]
        rows.append(
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
                kind,
                _ip(server.mgmt_address),
                _ip(server.compute_address),
                _ip(server.storage_address),
                ports,
            )
        )
    return {"inventory/assets.csv": csv_text(COLUMNS, rows)}


def _ip(address: str | None) -> str:
    """The address part of ``address/prefix``; empty for none.

    Example:
        >>> _ip("10.30.1.11/24"), _ip(None)
        ('10.30.1.11', '')
    """
    return address.split("/", 1)[0] if address else ""
