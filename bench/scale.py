"""Write the example design scaled by a factor: more GPU racks in pods, joined by super-spines.

The scaled intent goes through the same loader and checks as the example, on catalog models:
``factor`` x the example's 12 GPU racks of 9 servers, one compute leaf pair per rack and one
storage pair per four racks as in the example. Past one spine layer both fabrics are
three-stage (``pods``):

* compute: pods of 16 racks (32 ``DCS-7060DX5-32`` leaves), four ``DCS-7060DX5-64S`` spines
  per pod (32 ports down, 32 up), four planes of ``DCS-7808-CH`` super-spines (two 16U chassis
  to a 42U rack: a plane of more stands in several racks);
* storage: pods of 32 racks (16 ``DCS-7050SX3-48YC8`` leaves), two ``DCS-7050CX3-32S`` spines
  per pod (16 down, 16 up), two planes of ``DCS-7808-CH`` super-spines with 100G linecards;
* the management core: a ``DCS-7808-CH`` with 100G linecards broken out 4x25G, a lane per rack.

Each pod's spines stand in a network rack of their own (a storage pod's beside a compute
pod's), each plane's super-spines in another; those racks, the core's and the storage rack
follow the GPU racks, ten racks to a row, so adding a pod adds racks and changes none.
Addresses and ASNs come from the pools and 4-byte private ASNs set here.

    python bench/scale.py 16 /tmp/intent-16x
"""

from __future__ import annotations

import math
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from core.hardware import model

EXAMPLE = Path(__file__).resolve().parent.parent / "intent"
EXAMPLE_GPU_RACKS = 12
RACKS_PER_ROW = 10
"""Racks per row in the scaled floor plan (the example has six)."""

COMPUTE_POD_RACKS = 16
STORAGE_POD_RACKS = 32
MGMT_SWITCH = "DCS-7010TX-48"
CHASSIS = "DCS-7808-CH"
CHASSIS_SLOTS = range(3, 11)
CORE_CARD = "7800R3-48CQ-LC"
CHASSIS_PER_RACK = (42 - model(MGMT_SWITCH).rack_units) // model(CHASSIS).rack_units
"""Super-spine chassis a 42U rack holds beside its management switch (two 16U DCS-7808-CH)."""
PDU_HEADROOM = 0.8
"""A network rack's PDU is sized so its switches draw 80% of it (below the 90% warning)."""


def write_intent(factor: int, dest: Path) -> None:
    """``dest``: the example itself at 1x, else the design scaled ``factor`` times."""
    if factor == 1:
        shutil.copytree(EXAMPLE, dest)
    else:
        scaled_intent(factor, dest)


def scaled_intent(factor: int, dest: Path, servers_per_rack: int = 9) -> int:
    """Write ``factor`` x the example's 12 GPU racks into ``dest``; return the server count."""
    fabric: dict[str, Any] = yaml.safe_load((EXAMPLE / "fabric.yaml").read_text())
    example_racks: dict[str, Any] = yaml.safe_load((EXAMPLE / "racks.yaml").read_text())
    gpu_racks = EXAMPLE_GPU_RACKS * factor
    plant = _Plant(gpu_racks)
    # Rack numbers grow past two digits from 8x on: the naming rule takes two to four.
    fabric["naming"]["server"] = r"^rack(?P<rack>\d{2,4})-(?P<kind>gpu|stor)(?P<position>\d{3})$"
    compute_pods = math.ceil(gpu_racks / COMPUTE_POD_RACKS)
    pod_racks = [plant.add("network") for _ in range(compute_pods)]
    per_plane = _per_plane(compute_pods, 32, len(model(CHASSIS).interface_names()))
    # A plane of more chassis than a rack holds stands in several racks, side by side.
    compute_planes = [[plant.add("network") for _ in range(math.ceil(per_plane / CHASSIS_PER_RACK))] for _ in range(4)]
    storage_planes = [plant.add("network") for _ in range(2)]
    core_rack = plant.add("network")
    storage_rack = plant.add("storage")
    storage_pods = math.ceil(storage_rack / STORAGE_POD_RACKS)
    # A storage pod's spines stand beside the first compute pod of its racks (or in a rack of their own).
    storage_pod_racks = [
        pod_racks[2 * q] if 2 * q < len(pod_racks) else plant.add("network") for q in range(storage_pods)
    ]
    _compute(fabric["fabrics"]["compute"], per_plane, pod_racks, compute_planes, plant)
    _storage(fabric["fabrics"]["storage"], storage_pods, storage_pod_racks, storage_planes, plant)
    _routing(fabric)
    _management(fabric["management"], core_rack, plant)
    _storage_services(fabric, storage_rack)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "fabric.yaml").write_text(yaml.safe_dump(fabric, sort_keys=False))
    (dest / "racks.yaml").write_text(yaml.safe_dump(_racks(example_racks, gpu_racks, plant), sort_keys=False))
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


class _Plant:
    """The racks after the GPU racks, and the watts each one's switches draw."""

    def __init__(self, gpu_racks: int) -> None:
        self.gpu_racks = gpu_racks
        self.roles: dict[int, str] = {}
        self.watts: dict[int, int] = {}

    def add(self, role: str) -> int:
        rack = self.gpu_racks + len(self.roles) + 1
        self.roles[rack] = role
        self.watts[rack] = _watts(MGMT_SWITCH)
        return rack

    def place(self, rack: int, count: int, switch: str, linecards: dict[int, str] | None = None) -> None:
        self.watts[rack] += count * _watts(switch, linecards)


def _watts(switch: str, linecards: dict[int, str] | None = None) -> int:
    found = model(switch)
    return (found.with_linecards(linecards) if linecards else found).power.typical_w


def _per_plane(pods: int, uplinks: int, ports: int) -> int:
    """The fewest super-spines per plane that share ``uplinks`` evenly and hold every pod's share.

    Examples:
        >>> _per_plane(12, 32, 288), _per_plane(48, 32, 288), _per_plane(25, 16, 384)
        (2, 8, 2)
    """
    return next(k for k in range(1, uplinks + 1) if uplinks % k == 0 and pods * (uplinks // k) <= ports)


def _cards(card: str) -> dict[int, str]:
    return dict.fromkeys(CHASSIS_SLOTS, card)


def _compute(
    spec: dict[str, Any], per_plane: int, pod_racks: list[int], planes: list[list[int]], plant: _Plant
) -> None:
    spine = "DCS-7060DX5-64S"
    spec["spines"] = {
        "count": 4,
        "model": spine,
        "rack": pod_racks[0],
        "name_prefix": "spine",
        "downlinks": {"ports": ["1-32"]},
        "uplinks": {"ports": ["33-64"]},
    }
    spec["pods"] = {
        "racks": COMPUTE_POD_RACKS,
        "spine_racks": pod_racks,
        "super_spines": {
            "model": CHASSIS,
            "per_plane": per_plane,
            "racks": [plane[0] if len(plane) == 1 else plane for plane in planes],
            "name_prefix": "superspine",
        },
    }
    spec["routing"] = "ebgp-scale"
    spec["pools"] = {
        "hosts": "10.32.0.0/12",
        "loopbacks": "10.68.0.0/20",
        "p2p": "10.64.0.0/14",
        "mlag_peer": "10.68.32.0/19",
        "mlag_l3": "10.68.64.0/19",
        "spine_loopbacks": "10.68.128.0/23",
        "spine_p2p": "10.70.0.0/17",
    }
    for rack in pod_racks:
        plant.place(rack, 4, spine)
    for plane in planes:
        # Super-spine n of a plane stands in its (n - 1) * racks // per_plane-th rack (compiler.intent.SuperSpines).
        for number in range(per_plane):
            plant.place(plane[number * len(plane) // per_plane], 1, CHASSIS)


def _storage(spec: dict[str, Any], pods: int, pod_racks: list[int], planes: list[int], plant: _Plant) -> None:
    spine = "DCS-7050CX3-32S"
    cards = _cards(CORE_CARD)
    per_plane = _per_plane(pods, 16, len(model(CHASSIS).with_linecards(cards).interface_names()))
    spec["spines"] = {
        "count": 2,
        "model": spine,
        "rack": pod_racks[0],
        "name_prefix": "stor-spine",
        "downlinks": {"ports": ["1-16"]},
        "uplinks": {"ports": ["17-32"]},
    }
    spec["pods"] = {
        "racks": STORAGE_POD_RACKS,
        "spine_racks": pod_racks,
        "super_spines": {
            "model": CHASSIS,
            "linecards": cards,
            "per_plane": per_plane,
            "racks": planes,
            "name_prefix": "stor-superspine",
        },
    }
    spec["routing"] = "ebgp-storage-scale"
    spec["pools"] = {
        "hosts": "10.48.0.0/12",
        "loopbacks": "10.76.0.0/20",
        "p2p": "10.72.0.0/14",
        "mlag_peer": "10.76.32.0/19",
        "mlag_l3": "10.76.64.0/19",
        "spine_loopbacks": "10.76.128.0/23",
        "spine_p2p": "10.78.0.0/17",
    }
    for rack in pod_racks:
        plant.place(rack, 2, spine)
    for rack in planes:
        plant.place(rack, per_plane, CHASSIS, cards)


def _routing(fabric: dict[str, Any]) -> None:
    """eBGP on 4-byte private ASNs: a 2-byte range holds fewer leaf pairs than 64x has."""
    profiles = fabric["routing_profiles"]
    for name, base in (("ebgp-scale", 4_200_000_000), ("ebgp-storage-scale", 4_210_000_000)):
        profiles[name] = {
            "protocol": "ebgp",
            "bgp": {
                "spine_asn": base,
                "leaf_asn_base": base,
                "pod_asn_base": base + 1_000_000,
                "super_spine_asn": base + 2_000_000,
                "maximum_routes": 12000,
            },
        }


def _management(mgmt: dict[str, Any], core_rack: int, plant: _Plant) -> None:
    """Rack R's management switch takes the R-th 25G lane of the core's 100G linecards."""
    cards = _cards(CORE_CARD)
    last = CHASSIS_SLOTS[-1]
    mgmt["core"] = {
        "name": "mgmt-core01",
        "model": CHASSIS,
        "linecards": cards,
        "rack": core_rack,
        "upstream_port": f"Ethernet{last}/48/1",
        "downlinks": {
            "ports": [f"{slot}/1-{47 if slot == last else 48}" for slot in CHASSIS_SLOTS],
            "breakout": "4x25g",
        },
    }
    plant.place(core_rack, 1, CHASSIS, cards)
    # Rack R takes the R-th /24: a /12 holds 4096 racks, the upstream /30 sits at its very end.
    mgmt["pool"] = "172.16.0.0/12"
    # Rack R's switches take VLAN vlan_base + R and its servers server_vlan_base + R, both on the
    # core: past 500 racks the example's 2000/2500 would meet, so the servers' start after the last.
    racks = plant.gpu_racks + len(plant.roles)
    mgmt["server_vlan_base"] = max(2500, mgmt.get("vlan_base", 2000) + math.ceil((racks + 1) / 100) * 100)
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


def _example_storage_rack() -> int:
    racks = yaml.safe_load((EXAMPLE / "racks.yaml").read_text())["racks"]
    return next(int(r["id"]) for r in racks if r["role"] == "storage")


def _racks(example: dict[str, Any], gpu_racks: int, plant: _Plant) -> dict[str, Any]:
    """GPU racks ten to a row, then the network and storage racks in rows of their own.

    GPU row capacities scale from the example's per-rack cooling and UPS figures; a network
    rack's PDU is sized for its switches, a plant row for its racks.
    """
    gpu = [r for r in example["racks"] if r["role"] == "gpu"]
    storage = next(r for r in example["racks"] if r["role"] == "storage")
    pdu_kw, units = gpu[0]["pdu_kw"], gpu[0].get("units", 42)
    racks = [
        {"id": r, "row": _row(r), "position": (r - 1) % RACKS_PER_ROW + 1, "pdu_kw": pdu_kw, "role": "gpu"}
        | {"units": units}
        for r in range(1, gpu_racks + 1)
    ]
    first_row = (gpu_racks - 1) // RACKS_PER_ROW + 1  # the row after the last GPU row
    for index, (rack_id, role) in enumerate(sorted(plant.roles.items())):
        kw = storage["pdu_kw"] if role == "storage" else math.ceil(plant.watts[rack_id] / 1000 / PDU_HEADROOM)
        row = _row((first_row + index // RACKS_PER_ROW) * RACKS_PER_ROW + 1)
        racks.append({"id": rack_id, "row": row, "position": index % RACKS_PER_ROW + 1, "pdu_kw": kw, "role": role})
    out: dict[str, Any] = {"racks": racks}
    if example.get("rows"):
        gpu_row = example["rows"][gpu[0]["row"]]
        per_rack_gpu = len([r for r in gpu if r["row"] == gpu[0]["row"]])
        rows: dict[str, Any] = {}
        for rack in racks:
            if rack["role"] == "gpu" and rack["row"] not in rows:
                rows[rack["row"]] = {k: math.ceil(v / per_rack_gpu * RACKS_PER_ROW) for k, v in gpu_row.items()}
            elif rack["role"] != "gpu":
                kw = rows.get(rack["row"], {}).get("cooling_kw", 0) + math.ceil(rack["pdu_kw"])
                rows[rack["row"]] = {"cooling_kw": kw, "ups_kw": kw}
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
