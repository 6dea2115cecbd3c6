"""``generated/inventory/``: the Nornir SimpleInventory.

Deploy and drift load ``hosts.yaml``/``groups.yaml``/``defaults.yaml`` with Nornir's own
SimpleInventory; no credentials are ever written here.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from compiler.artifacts.units import Unit
from compiler.artifacts.yamltext import to_yaml
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent


def group_of(network: str, role: str) -> str:
    """The Nornir group of a device.

    Example:
        >>> group_of("compute", "leaf")
        'compute_leaf'
    """
    return f"{network}_{role}"


def nornir_inventory(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """hosts.yaml, groups.yaml and defaults.yaml for Nornir's SimpleInventory."""
    return _inventory_files(_switch_rows(intent, fabric))


Row = tuple[str, str, str, str, int, str, str | None, str, tuple[tuple[int, str], ...], str | None, str | None]
"""A switch as the inventory lists it: name, role, network, model, rack, redundancy group,
MLAG peer, management address, linecards by slot, serial and base MAC (none without a
``devices.yaml`` entry naming them)."""


def _switch_rows(intent: Intent, fabric: ResolvedFabric) -> tuple[Row, ...]:
    rows = []
    switches = fabric.facts.topology.switches
    for name, d in fabric.devices.items():
        cards = tuple(sorted(switches[name].layout.model.linecards.items()))
        unit = intent.devices.get(name)
        serial, mac = (unit.serial, unit.base_mac) if unit is not None else (None, None)
        rows.append(
            (
                name,
                d.role,
                d.network,
                d.model,
                d.rack,
                d.redundancy_group,
                d.mlag_peer,
                d.mgmt_address,
                cards,
                serial,
                mac,
            )
        )
    return tuple(rows)


def _inventory_files(rows: tuple[Row, ...]) -> dict[str, str]:
    hosts: dict[str, Any] = {}
    groups: dict[str, Any] = {}
    for name, role, network, model, rack, redundancy_group, mlag_peer, address, cards, serial, mac in rows:
        group = group_of(network, role)
        groups.setdefault(group, {"data": {"network": network, "role": role}})
        data: dict[str, Any] = {
            "role": role,
            "network": network,
            "model": model,
            "rack": rack,
            "redundancy_group": redundancy_group,
        }
        if cards:
            data["linecards"] = dict(cards)
        if mlag_peer:
            data["mlag_peer"] = mlag_peer
        if serial is not None:
            # The unit in the rack: deploy refuses another one (a replaced switch is an intent change).
            data["serial"] = serial
            data["base_mac"] = mac
        hosts[name] = {"hostname": address, "platform": "eos", "groups": [group], "data": data}
    defaults = {
        "platform": "eos",
        "connection_options": {
            "napalm": {"extras": {"optional_args": {"transport": "https"}, "timeout": 60}},
        },
    }
    return {
        "inventory/hosts.yaml": to_yaml(hosts),
        "inventory/groups.yaml": to_yaml(dict(sorted(groups.items()))),
        "inventory/defaults.yaml": to_yaml(defaults),
    }


def inventory_unit(intent: Intent, fabric: ResolvedFabric) -> Unit:
    """The three files as one unit, built from its switches' rows alone (the key is all they
    are made of): a server added or moved, or any change to a switch the inventory does not
    list, keeps it."""
    rows = _switch_rows(intent, fabric)
    return Unit("fleet/inventory", rows, partial(_inventory_files, rows))
