"""Write the example design scaled by a factor: more GPU racks, bigger pools and chassis spines.

The scaled intent goes through the same loader and checks as the example: ``factor`` x the
example's 12 GPU racks of 9 servers, one compute leaf pair per rack and one storage pair per
four racks as in the example, the spines and the management core as chassis in a network
rack, and the storage nodes in a storage rack right after it.

    python bench/scale.py 16 /tmp/intent-16x
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import yaml

EXAMPLE = Path(__file__).resolve().parent.parent / "intent"
EXAMPLE_GPU_RACKS = 12
RACKS_PER_ROW = 10
"""Racks per row in the scaled floor plan (the example has six)."""


def scaled_intent(factor: int, dest: Path, servers_per_rack: int = 9) -> int:
    """Write ``factor`` x the example's 12 GPU racks into ``dest``; return the server count."""
    fabric: dict[str, Any] = yaml.safe_load((EXAMPLE / "fabric.yaml").read_text())
    example_racks: dict[str, Any] = yaml.safe_load((EXAMPLE / "racks.yaml").read_text())
    gpu_racks = EXAMPLE_GPU_RACKS * factor
    network_rack, storage_rack = gpu_racks + 1, gpu_racks + 2
    # Rack numbers grow past two digits from 8x on: the naming rule takes two to four.
    fabric["naming"]["server"] = r"^rack(?P<rack>\d{2,4})-(?P<kind>gpu|stor)(?P<position>\d{3})$"
    _chassis_models(fabric, gpu_racks)
    _pools(fabric)
    compute, storage = fabric["fabrics"]["compute"], fabric["fabrics"]["storage"]
    compute["spines"].update(model="spine-chassis", rack=network_rack)
    storage["spines"].update(model="storage-spine-chassis", rack=network_rack)
    mgmt = fabric["management"]
    mgmt["core"].update(model="core-chassis", rack=network_rack, upstream_port=gpu_racks + 8)
    _storage_services(fabric, storage_rack)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "fabric.yaml").write_text(yaml.safe_dump(fabric, sort_keys=False))
    network_kw = math.ceil(_network_rack_watts(fabric) / 1000 / 0.8)  # below the 90% warning
    racks = _racks(example_racks, gpu_racks, network_kw)
    (dest / "racks.yaml").write_text(yaml.safe_dump(racks, sort_keys=False))
    storage_nodes = sum(1 for line in (EXAMPLE / "servers.csv").read_text().splitlines() if ",storage-node," in line)
    rows = ["name,model,asset_tag"]
    rows += [
        f"rack{r:02d}-gpu{p:03d},gpu-8x-h100,GPU-{r:04d}{p:02d}"
        for r in range(1, gpu_racks + 1)
        for p in range(1, servers_per_rack + 1)
    ]
    rows += [
        f"rack{storage_rack:02d}-stor{p:03d},storage-node,STO-{storage_rack:04d}{p:02d}"
        for p in range(1, storage_nodes + 1)
    ]
    (dest / "servers.csv").write_text("\n".join(rows) + "\n")
    return len(rows) - 1


def _chassis_models(fabric: dict[str, Any], gpu_racks: int) -> None:
    """Spines and core become chassis with a port per leaf (or rack switch), plus spare."""
    ports = max(64, 2 * gpu_racks + 8)
    fabric["switch_models"].update(
        {
            "spine-chassis": {
                "ports": [{"first": 1, "last": ports, "speed": "400g"}],
                "queue_keyword": "tx-queue",
                "power_w": 12000,
                "rack_units": 16,
            },
            "storage-spine-chassis": {
                "ports": [{"first": 1, "last": ports, "speed": "100g"}],
                "queue_keyword": "uc-tx-queue",
                "power_w": 6000,
                "rack_units": 8,
            },
            "core-chassis": {
                "ports": [{"first": 1, "last": gpu_racks + 8, "speed": "10g"}],
                "queue_keyword": "uc-tx-queue",
                "power_w": 4000,
                "rack_units": 8,
            },
        }
    )


def _pools(fabric: dict[str, Any]) -> None:
    """Pools big enough for 64x (768 compute pairs: a /24 of hosts per pair, a /31 per uplink)."""
    fabric["fabrics"]["compute"]["pools"] = {
        "hosts": "10.32.0.0/12",
        "loopbacks": "10.68.0.0/20",
        "p2p": "10.64.0.0/14",
        "mlag_peer": "10.68.32.0/19",
        "mlag_l3": "10.68.64.0/19",
    }
    fabric["fabrics"]["storage"]["pools"] = {
        "hosts": "10.48.0.0/12",
        "loopbacks": "10.76.0.0/20",
        "p2p": "10.72.0.0/14",
        "mlag_peer": "10.76.32.0/19",
        "mlag_l3": "10.76.64.0/19",
    }
    mgmt = fabric["management"]
    # Rack R takes the R-th /24: a /12 holds 4096 racks, the upstream /30 sits at its very end.
    mgmt["pool"] = "172.16.0.0/12"
    mgmt["upstream"] = {"subnet": "172.31.255.0/30", "gateway": "172.31.255.1"}


def _storage_services(fabric: dict[str, Any], storage_rack: int) -> None:
    """Point NFS, Lustre and GPFS at the same storage nodes, moved to the scaled storage rack."""
    old = f"rack{_example_storage_rack():02d}-"
    new = f"rack{storage_rack:02d}-"
    services = fabric.get("storage_services", {})
    for export in services.get("nfs", []):
        export["server"] = export["server"].replace(old, new)
    for kind, key in (("lustre", "mgs"), ("gpfs", "contact_nodes")):
        for entry in services.get(kind, []):
            entry[key] = [name.replace(old, new) for name in entry[key]]


def _network_rack_watts(fabric: dict[str, Any]) -> int:
    """What the chassis spines, the core chassis and the rack's management switch draw."""
    models = fabric["switch_models"]
    spines = sum(
        spec["spines"]["count"] * models[spec["spines"]["model"]]["power_w"] for spec in fabric["fabrics"].values()
    )
    mgmt = fabric["management"]
    return int(spines + models[mgmt["core"]["model"]]["power_w"] + models[mgmt["switch_model"]]["power_w"])


def _example_storage_rack() -> int:
    racks = yaml.safe_load((EXAMPLE / "racks.yaml").read_text())["racks"]
    return next(int(r["id"]) for r in racks if r["role"] == "storage")


def _racks(example: dict[str, Any], gpu_racks: int, network_kw: int) -> dict[str, Any]:
    """GPU racks ten to a row, then the network and storage racks in a row of their own.

    GPU row capacities scale from the example's per-rack cooling and UPS figures; the network
    rack's PDU is sized for its chassis (``network_kw``) and its row for the two racks.
    """
    gpu = [r for r in example["racks"] if r["role"] == "gpu"]
    pdu_kw = gpu[0]["pdu_kw"]
    racks = [
        {"id": r, "row": _row(r), "position": (r - 1) % RACKS_PER_ROW + 1, "pdu_kw": pdu_kw, "role": "gpu"}
        for r in range(1, gpu_racks + 1)
    ]
    plant_row = _row(gpu_racks + RACKS_PER_ROW)  # the row after the last GPU row
    if _row(gpu_racks) == plant_row:
        plant_row = _row(gpu_racks + 2 * RACKS_PER_ROW)
    plant = [r for r in example["racks"] if r["role"] != "gpu"]
    racks += [
        {
            "id": gpu_racks + 1 + i,
            "row": plant_row,
            "position": 1 + i,
            "pdu_kw": network_kw if r["role"] == "network" else r["pdu_kw"],
            "role": r["role"],
        }
        for i, r in enumerate(plant)
    ]
    plant_kw = sum(r["pdu_kw"] for r in racks[gpu_racks:])
    out: dict[str, Any] = {"racks": racks}
    if example.get("rows"):
        gpu_row = example["rows"][gpu[0]["row"]]
        per_rack_gpu = len([r for r in gpu if r["row"] == gpu[0]["row"]])
        rows: dict[str, Any] = {}
        for rack in racks:
            if rack["row"] in rows:
                continue
            if rack["row"] == plant_row:
                rows[plant_row] = {"cooling_kw": plant_kw, "ups_kw": plant_kw}
            else:
                rows[rack["row"]] = {k: math.ceil(v / per_rack_gpu * RACKS_PER_ROW) for k, v in gpu_row.items()}
        out["rows"] = rows
    return out


def _row(rack: int) -> str:
    """Row letters by tens of racks: A, B, ..., Z, AA, AB, ...

    Example:
        >>> _row(1), _row(10), _row(11), _row(261)
        ('A', 'A', 'B', 'AA')
    """
    index = (rack - 1) // RACKS_PER_ROW
    return chr(65 + index) if index < 26 else chr(64 + index // 26) + chr(65 + index % 26)


if __name__ == "__main__":
    print(scaled_intent(int(sys.argv[1]), Path(sys.argv[2])), "servers")
