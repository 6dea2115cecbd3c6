"""``generated/structured/<device>.yaml``: the data each config was rendered from.

The document is the contract: its ``config`` renders, with the templates alone, to the
committed config byte for byte (the compile renders the text from this very data).
"""

from __future__ import annotations

from typing import Any

from compiler.artifacts.yamltext import pruned, to_yaml
from compiler.fabric import Device, ResolvedFabric


def structured_document(device: Device) -> dict[str, Any]:
    """A device as plain data: identity, placement and its structured config (unset keys absent)."""
    data = {
        "name": device.name,
        "role": device.role,
        "network": device.network,
        "model": device.model,
        "rack": device.rack,
        "mgmt_address": device.mgmt_address,
        "redundancy_group": device.redundancy_group,
        "mlag_peer": device.mlag_peer,
        "config": pruned(device.config),
    }
    return {k: v for k, v in data.items() if v is not None}


def structured_documents(fabric: ResolvedFabric) -> dict[str, dict[str, Any]]:
    """Every device's structured document, by device name."""
    return {name: structured_document(device) for name, device in fabric.devices.items()}


def structured_configs(documents: dict[str, dict[str, Any]]) -> dict[str, str]:
    """One YAML file per device."""
    return {f"structured/{name}.yaml": to_yaml(document) for name, document in documents.items()}
