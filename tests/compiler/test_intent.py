"""Loading intent/: the example loads; every kind of bad input gives one clear line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.intent import load_intent
from core.errors import IntentError

Edit = Callable[[str, str, str], None]


def test_example_intent_describes_the_seed_cluster() -> None:
    """The example is the field report's cluster: 12 racks x 9 GPU servers, 864 GPUs."""
    intent = load_intent(Path("intent"))
    gpu = [s for s in intent.servers if s.kind == "gpu"]
    assert len(gpu) == 108
    assert {s.rack for s in gpu} == set(range(1, 13))
    assert sum(intent.fabric.server_models[s.model].gpus for s in intent.servers) == 864
    assert intent.fabric.fabrics["compute"].spines.count == 4
    assert intent.fabric.routing_profiles[intent.fabric.fabrics["compute"].routing].protocol == "ospf"


def test_rack_and_position_come_from_the_name() -> None:
    """C6: rack03-gpu007 is rack 3, position 7."""
    intent = load_intent(Path("intent"))
    server = next(s for s in intent.servers if s.name == "rack03-gpu007")
    assert (server.rack, server.position) == (3, 7)


# (file, old text, new text, expected fragment of the one error line)
BAD_INPUTS = [
    ("fabric.yaml", "site:\n", "site: [\n", "fabric.yaml:"),  # malformed YAML
    (
        "fabric.yaml",
        "  domain: cluster.example.net\n",
        "  domain: cluster.example.net\n  colour: blue\n",
        "fabric.yaml:6: site.colour: unknown key",
    ),
    ("fabric.yaml", "  host: 9000\n", "  host: jumbo\n", "fabric.yaml:26: mtu.host: Input should be a valid integer"),
    (
        "fabric.yaml",
        "mtu:\n",
        "switch_models: {}\nmtu:\n",
        "switch_models: switch models come from the catalog now: name them by id (docs/hardware.md)",
    ),
    ("fabric.yaml", "hosts: 10.30.0.0/16", "hosts: 10.30.0.0/33", "fabrics.compute.pools.hosts"),
    (
        "fabric.yaml",
        "hosts: 10.30.0.0/16",
        "hosts: 8.8.0.0/16",
        "fabrics.compute.pools.hosts: 8.8.0.0/16 is not an RFC1918 private range",
    ),
    ("fabric.yaml", "    qos: roce\n", "    qos: rocev3\n", "fabrics.compute.qos: unknown QoS profile 'rocev3'"),
    ("fabric.yaml", "    vlan: gpu-compute\n", "    vlan: gpu\n", "fabrics.compute.vlan: unknown VLAN profile 'gpu'"),
    (
        "fabric.yaml",
        "    routing: ospf-underlay",
        "    routing: isis",
        "fabrics.compute.routing: unknown routing profile 'isis'",
    ),
    (
        "fabric.yaml",
        "    spines: {count: 4, model: DCS-7060DX5-64S",
        "    spines: {count: 4, model: DCS-7060X9-99",
        "fabrics.compute.spines.model: unknown switch model 'DCS-7060X9-99': the catalog has DCS-7010TX-48, ",
    ),
    (
        "fabric.yaml",
        "    spines: {count: 4, model: DCS-7060DX5-64S,",
        "    spines: {count: 4, model: DCS-7060DX5-64S, linecards: {3: 7800R3-48CQ-LC},",
        "fabrics.compute.spines.linecards: DCS-7060DX5-64S is not a chassis: it has no linecard slots",
    ),
    (
        "fabric.yaml",
        "uplink_ports: [Ethernet25/1,",
        "uplink_ports: [Ethernet49/1,",
        "fabric.yaml:114: fabrics.compute.leaves.uplink_ports[0]: Ethernet49/1 does not exist on DCS-7060DX5-32 "
        "(Ethernet1/1-32/1 QSFP-DD (lanes /1-/8), Ethernet33 SFP+)",
    ),
    (
        "fabric.yaml",
        "uplink_ports: [Ethernet25/1,",
        "uplink_ports: [Ethernet2/5,",
        "fabrics.compute.leaves.uplink_ports[0]: Ethernet2/5 is on cage 2, which downlinks use: pick a port outside it",
    ),
    (
        "fabric.yaml",
        "downlinks: {ports: [1-3], breakout: 4x100g}",
        "downlinks: {ports: [1-3], breakout: 4x25g}",
        "fabrics.compute.leaves.downlinks: Ethernet1/1: no breakout '4x25g' on this port "
        "(allowed: 1x400g, 2x200g, 4x100g, 2x100g, 8x50g) (DCS-7060DX5-32)",
    ),
    (
        "fabric.yaml",
        "downlinks: {ports: [1-3], breakout: 4x100g}",
        "downlinks: {ports: [1-3, 40], breakout: 4x100g}",
        "fabrics.compute.leaves.downlinks: DCS-7060DX5-32: no port 40",
    ),
    (
        "fabric.yaml",
        "downlinks: {ports: [1, 3, 5, 7, 9, 11, 13, 15], breakout: 4x25g}",
        "downlinks: {ports: [1, 2], breakout: 4x25g}",
        "management.core.downlinks: Ethernet2/1: no breakout '4x25g' on this port (allowed: 1x100g, 2x50g)",
    ),
    (
        "fabric.yaml",
        "downlinks: {ports: [1-3], breakout: 4x100g}",
        "downlinks: {ports: [1-3, Ethernet4], breakout: 4x100g}",
        "fabric.yaml:113: fabrics.compute.leaves.downlinks.ports: 'Ethernet4' is not a cage number or range",
    ),
    (
        "fabric.yaml",
        "bonding: per-nic\n",
        "bonding: balance-rr\n",
        "fabrics.compute.bonding: Input should be 'active-backup', 'lacp' or 'per-nic'",
    ),
    (
        "fabric.yaml",
        "server: rack14-stor001",
        "server: rack15-stor001",
        "storage_services.nfs[0].server: unknown server 'rack15-stor001'",
    ),
    (
        "fabric.yaml",
        "gateway: 172.16.255.1",
        "gateway: 172.16.254.1",
        "management.upstream.gateway: 172.16.254.1 is outside 172.16.255.0/30",
    ),
    ("fabric.yaml", "  server: '^rack", "  server: '^(rack", "naming.server: not a regular expression"),
    (
        "fabric.yaml",
        "(?P<position>\\d{3})$'\n",
        "(?P<position>\\d{3})$'\n  descriptions: {server_port: 'HOST_{host}'}\n",
        "fabric.yaml:10: naming.descriptions.server_port: unknown placeholder {host}: use {server}, {nic}",
    ),
    (
        "fabric.yaml",
        "thresholds:\n",
        "mlag: {peer_vlan: 4093}\nthresholds:\n",
        "mlag: peer_vlan and l3_vlan are both 4093: they must differ",
    ),
    (
        "fabric.yaml",
        "  vlan_base: 2000\n",
        "  vlan_base: 2000\n  vlan_name: 'MGMT_{rack:x}{row}'\n",
        "management.vlan_name: unknown placeholder {row}: use {rack}",
    ),
    (
        "racks.yaml",
        "pdu_kw: 20, role: storage",
        "pdu_kw: -5, role: storage",
        "racks.yaml:16: racks[13].pdu_kw: Input should be greater than 0",
    ),
    (
        "racks.yaml",
        "role: storage}\n",
        "role: storage}\n  - {id: 13, row: C, position: 3, pdu_kw: 20, role: network}\n",
        "racks.yaml:17: racks[14].id: rack 13 is declared twice",
    ),
    (
        "servers.csv",
        "rack01-gpu002,gpu-8x-h100,GPU-0102\n",
        "rack01-gpu002,gpu-8x-h100,GPU-0102\nrack01-gpu002,gpu-8x-h100,GPU-0199\n",
        "servers.csv:4: name: duplicate server 'rack01-gpu002' (first on line 3)",
    ),
    (
        "servers.csv",
        "rack01-gpu002,gpu-8x-h100,GPU-0102\n",
        "rack01-gpu002,gpu-8x-h100,GPU-0102\nrack99-gpu001,gpu-8x-h100,GPU-9901\n",
        "servers.csv:4: name: 'rack99-gpu001' is in rack 99, which racks.yaml does not declare",
    ),
    (
        "servers.csv",
        "rack01-gpu002,gpu-8x-h100,GPU-0102\n",
        "rack01-gpu002,gpu-8x-h100,GPU-0102\ngpu-node-17,gpu-8x-h100,GPU-0117\n",
        "servers.csv:4: name: 'gpu-node-17' does not follow the naming rule",
    ),
    (
        "servers.csv",
        "rack01-gpu002,gpu-8x-h100,GPU-0102\n",
        "rack01-gpu002,dgx-b300,GPU-0102\n",
        "servers.csv:3: model: unknown server model 'dgx-b300'",
    ),
    (
        "servers.csv",
        "rack01-gpu002,gpu-8x-h100,GPU-0102\n",
        "rack01-gpu002,gpu-8x-h100\n",
        "servers.csv:3: expected 3 columns",
    ),
    (
        "servers.csv",
        "name,model,asset_tag\n",
        "name,model,tag\n",
        "servers.csv:1: header must be 'name,model,asset_tag'",
    ),
    (
        "servers.csv",
        "rack14-stor001,storage-node,STO-1401\n",
        "rack14-stor001,storage-node,STO-1401\nrack14-gpu001,gpu-8x-h100,GPU-1401\n",
        "takes position 1 in rack 14, already held by 'rack14-stor001'",
    ),
]


@pytest.mark.parametrize(("filename", "old", "new", "expected"), BAD_INPUTS, ids=[c[3][:40] for c in BAD_INPUTS])
def test_bad_input_is_one_clear_line(
    project: Path, edit: Edit, filename: str, old: str, new: str, expected: str
) -> None:
    """Each mistake yields exactly one problem line naming the file, line or path, and the fix."""
    edit(filename, old, new)
    with pytest.raises(IntentError) as caught:
        load_intent(project / "intent")
    problems = caught.value.problems
    assert len(problems) == 1, problems
    assert expected in problems[0]
    assert problems[0].startswith(str(project / "intent" / filename)) or problems[0].startswith("intent/")


def test_every_problem_is_reported_at_once(project: Path, edit: Edit) -> None:
    """Errors are collected, not stopped at the first: two mistakes, two lines."""
    edit("fabric.yaml", "  host: 9000\n", "  host: jumbo\n")
    edit("racks.yaml", "pdu_kw: 20, role: storage", "pdu_kw: -5, role: storage")
    with pytest.raises(IntentError) as caught:
        load_intent(project / "intent")
    assert len(caught.value.problems) == 2


def test_missing_file_is_named(project: Path) -> None:
    (project / "intent" / "racks.yaml").unlink()
    with pytest.raises(IntentError) as caught:
        load_intent(project / "intent")
    assert "racks.yaml: missing" in caught.value.problems[0]


def test_yes_and_no_stay_strings(project: Path, edit: Edit) -> None:
    """YAML 1.2 scalars: a VLAN named NO is the string 'NO', not a boolean."""
    edit("fabric.yaml", "name: Storage}", "name: NO}")
    intent = load_intent(project / "intent")
    assert intent.fabric.vlans["storage"].name == "NO"


def _own_model(project: Path, name: str, source: str = "DCS-7010TX-48") -> Path:
    """A model file of the repository's own in intent/hardware/switches/, copied from a catalog one."""
    from core.hardware.catalog import DATA

    folder = project / "intent" / "hardware" / "switches"
    folder.mkdir(parents=True, exist_ok=True)
    text = (DATA / "switches" / f"{source}.yaml").read_text().replace(f"model: {source}", f"model: {name}")
    (folder / f"{name}.yaml").write_text(text)
    return folder / f"{name}.yaml"


def test_a_repository_adds_its_own_model_in_intent_hardware(project: Path, edit: Edit) -> None:
    """intent/hardware/switches/<MODEL>.yaml is read with the catalog, and is part of the intent digest."""
    from compiler.fabric import resolve

    before = load_intent(project / "intent").digest
    _own_model(project, "DCS-7010TX-48-LAB")
    edit("fabric.yaml", "switch_model: DCS-7010TX-48", "switch_model: DCS-7010TX-48-LAB")
    intent = load_intent(project / "intent")
    assert intent.digest != before
    assert resolve(intent).devices["rack01-mgmt"].model == "DCS-7010TX-48-LAB"


def test_a_repository_model_cannot_replace_a_catalog_one(project: Path) -> None:
    path = _own_model(project, "DCS-7010TX-48", source="DCS-7050SX3-48YC8")
    with pytest.raises(IntentError) as caught:
        load_intent(project / "intent")
    (problem,) = caught.value.problems
    assert problem == f"{path}: DCS-7010TX-48 is in the catalog already: remove this file or rename the model"
