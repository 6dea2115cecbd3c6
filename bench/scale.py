"""Write the example design scaled by a factor: more GPU racks, bigger pools and chassis spines.

The scaled intent goes through the same loader and checks as the example.

    python bench/scale.py 16 /tmp/intent-16x
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

EXAMPLE = Path(__file__).resolve().parent.parent / "intent"


def scaled_intent(factor: int, dest: Path, servers_per_rack: int = 9) -> int:
    """Write ``factor`` x the example's 12 GPU racks into ``dest``; return the server count."""
    fabric: dict[str, Any] = yaml.safe_load((EXAMPLE / "fabric.yaml").read_text())
    gpu_racks = 12 * factor
    network_rack, storage_rack = gpu_racks + 1, gpu_racks + 2
    ports = max(64, 2 * gpu_racks + 8)
    fabric["naming"]["server"] = r"^rack(?P<rack>\d{2,4})-(?P<kind>gpu|stor)(?P<position>\d{3})$"
    models = fabric["switch_models"]
    models["spine-chassis"] = {
        "ports": [{"first": 1, "last": ports, "speed": "400g"}],
        "queue_keyword": "tx-queue",
        "power_w": 12000,
        "rack_units": 16,
    }
    models["storage-spine-chassis"] = {
        "ports": [{"first": 1, "last": ports, "speed": "100g"}],
        "queue_keyword": "uc-tx-queue",
        "power_w": 6000,
        "rack_units": 8,
    }
    models["core-chassis"] = {
        "ports": [{"first": 1, "last": gpu_racks + 8, "speed": "10g"}],
        "queue_keyword": "uc-tx-queue",
        "power_w": 4000,
        "rack_units": 8,
    }
    compute, storage = fabric["fabrics"]["compute"], fabric["fabrics"]["storage"]
    compute["spines"].update(model="spine-chassis", rack=network_rack)
    storage["spines"].update(model="storage-spine-chassis", rack=network_rack)
    compute["pools"] = {
        "hosts": "10.32.0.0/12",
        "loopbacks": "10.68.0.0/20",
        "p2p": "10.64.0.0/14",
        "mlag_peer": "10.68.32.0/19",
        "mlag_l3": "10.68.64.0/19",
    }
    storage["pools"] = {
        "hosts": "10.48.0.0/12",
        "loopbacks": "10.76.0.0/20",
        "p2p": "10.72.0.0/14",
        "mlag_peer": "10.76.32.0/19",
        "mlag_l3": "10.76.64.0/19",
    }
    mgmt = fabric["management"]
    mgmt["pool"] = "172.16.0.0/12"
    mgmt["core"].update(model="core-chassis", rack=network_rack, upstream_port=gpu_racks + 8)
    mgmt["upstream"] = {"subnet": "172.31.255.0/30", "gateway": "172.31.255.1"}
    mgmt["vlan_base"] = 100
    fabric["storage_services"]["nfs"][0]["server"] = f"rack{storage_rack:02d}-stor001"
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "fabric.yaml").write_text(yaml.safe_dump(fabric, sort_keys=False))
    racks = [
        {"id": r, "row": _row(r), "position": (r - 1) % 10 + 1, "pdu_kw": 70, "role": "gpu"}
        for r in range(1, gpu_racks + 1)
    ]
    racks += [
        {"id": network_rack, "row": _row(network_rack), "position": 1, "pdu_kw": 40, "role": "network"},
        {"id": storage_rack, "row": _row(storage_rack), "position": 2, "pdu_kw": 20, "role": "storage"},
    ]
    (dest / "racks.yaml").write_text(yaml.safe_dump({"racks": racks}, sort_keys=False))
    rows = ["name,model,asset_tag"]
    rows += [
        f"rack{r:02d}-gpu{p:03d},gpu-8x-h100,GPU-{r:04d}{p:02d}"
        for r in range(1, gpu_racks + 1)
        for p in range(1, servers_per_rack + 1)
    ]
    rows += [f"rack{storage_rack:02d}-stor{p:03d},storage-node,STO-{storage_rack:04d}{p:02d}" for p in range(1, 5)]
    (dest / "servers.csv").write_text("\n".join(rows) + "\n")
    return len(rows) - 1


def _row(rack: int) -> str:
    """Row letters by tens of racks: A, B, ..., Z, AA, AB, ..."""
    index = (rack - 1) // 10
    return chr(65 + index) if index < 26 else chr(64 + index // 26) + chr(65 + index % 26)


if __name__ == "__main__":
    print(scaled_intent(int(sys.argv[1]), Path(sys.argv[2])), "servers")
