"""``generated/inventory/``: the Nornir SimpleInventory.

Deploy and drift load ``hosts.yaml``/``groups.yaml``/``defaults.yaml`` with Nornir's own
SimpleInventory; no credentials are ever written here.
"""

from __future__ import annotations

from typing import Any

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
    hosts: dict[str, Any] = {}
    groups: dict[str, Any] = {}
    for name, device in fabric.devices.items():
        group = group_of(device.network, device.role)
        groups.setdefault(group, {"data": {"network": device.network, "role": device.role}})
        data: dict[str, Any] = {
            "role": device.role,
            "network": device.network,
            "model": device.model,
            "rack": device.rack,
            "redundancy_group": device.redundancy_group,
        }
        cards = fabric.facts.topology.switches[name].layout.model.linecards
        if cards:
            data["linecards"] = dict(sorted(cards.items()))
        if device.mlag_peer:
            data["mlag_peer"] = device.mlag_peer
        hosts[name] = {"hostname": device.mgmt_address, "platform": "eos", "groups": [group], "data": data}
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
