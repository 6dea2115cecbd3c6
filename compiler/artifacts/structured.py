"""``generated/structured/<device>.yaml``: the data each config was rendered from."""

from __future__ import annotations

from compiler.artifacts.yamltext import pruned, to_yaml
from compiler.structured import Fabric


def structured_configs(fabric: Fabric) -> dict[str, str]:
    """One YAML file per device: identity, placement and structured config."""
    files: dict[str, str] = {}
    for name, device in fabric.devices.items():
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
        files[f"structured/{name}.yaml"] = to_yaml({k: v for k, v in data.items() if v is not None})
    return files
