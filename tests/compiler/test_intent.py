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


STORAGE_NICS = """    nics:
      - {name: enp65s0f0, network: storage, speed: 25g, numa: 0}
      - {name: enp65s0f1, network: storage, speed: 25g, numa: 0}
      - {name: eno1, network: management, speed: 1g, numa: 0}
"""


def utf16(data: bytes) -> bytes:
    """The file as a Windows editor saves "Unicode" text."""
    return data.decode().encode("utf-16")


def latin1_comment(data: bytes) -> bytes:
    """A comment with an umlaut, on line 3, in latin-1."""
    return data.replace(b"site:\n", "# Größe\nsite:\n".encode("latin-1"), 1)


def emptied(data: bytes) -> bytes:
    del data
    return b""


# (file, old text or None, new text or a transform of the file's bytes, expected fragment of the one error line)
BAD_INPUTS: list[tuple[str, str | None, str | Callable[[bytes], bytes], str]] = [
    ("racks.yaml", None, utf16, "racks.yaml:1: UTF-16 text: intent files are UTF-8 (convert it: iconv -f UTF-16"),
    (
        "fabric.yaml",
        None,
        latin1_comment,
        "fabric.yaml:3: byte 0xf6 at column 5 is not UTF-8: save the file as UTF-8 (latin-1 or Windows-1252?)",
    ),
    (
        "servers.csv",
        None,
        emptied,
        "servers.csv: empty file: its first line is the header 'name,model,asset_tag', then one row per server",
    ),
    (
        "fabric.yaml",
        "  name: gpu-cluster-01\n",
        "\tname: gpu-cluster-01\n",
        "fabric.yaml:4: malformed YAML: a tab character: YAML indents with spaces only",
    ),
    (
        "fabric.yaml",
        "pfc_priority: 3",
        "pfc_priority: 4",
        "fabric.yaml:65: qos_profiles.roce.pfc_priority: no DSCP of dscp_to_tc maps to traffic class 4 "
        "(classes mapped: 3, 6): map the RoCE DSCP(s) 26, 27 to 4, or set pfc_priority to their class",
    ),
    (
        "fabric.yaml",
        "  storage: {id: 200, name: Storage}\n",
        "  storage: {id: 200, name: Storage}\n  inference: {id: 100, name: Inference}\n",
        "fabric.yaml:59: vlans.inference.id: VLAN 100 is vlans.gpu-compute already: give inference its own id",
    ),
    (
        "fabric.yaml",
        "{id: 200, name: Storage}",
        "{id: 200, name: gpu-compute}",
        "fabric.yaml:58: vlans.storage.name: the name 'gpu-compute' is vlans.gpu-compute's already: name storage apart",
    ),
    (
        "fabric.yaml",
        "leaf_asn_base: 65200",
        "leaf_asn_base: 4294967293",
        "fabric.yaml:85: routing_profiles.ebgp-storage.bgp.leaf_asn_base: leaf pair N takes 4294967293 + N, up to "
        "4294967297 (leaf pairs up to 4), past the highest ASN 4294967294: use a base up to 4294967290",
    ),
    (
        "fabric.yaml",
        "leaf_asn_base: 65200",
        "leaf_asn_base: 65198",
        "routing_profiles.ebgp-storage.bgp.leaf_asn_base: leaf pairs take ASNs 65199-65202, which meet spine_asn 65200",
    ),
    (
        "fabric.yaml",
        "hosts: 10.30.0.0/16",
        "hosts: 10.30.0.0/21",
        "fabric.yaml:98: fabrics.compute.pools.hosts: 10.30.0.0/21 holds 8 x /24, the design needs 13 "
        "(a /24 per leaf pair, up to pair 12): use a /20 or wider",
    ),
    (
        "fabric.yaml",
        "ports_per_rack: 12",
        "ports_per_rack: 8",
        "fabrics.compute.leaves.ports_per_rack: a rack has 8 ports on its leaves, and servers take positions up to 9 "
        "(rack01-gpu009): raise ports_per_rack, or move the servers",
    ),
    (
        "fabric.yaml",
        "servers: {ports: [1-36]}",
        "servers: {ports: [1-8]}",
        "management.switch_ports.servers: a rack's management switch has 8 server ports, and servers take positions "
        "up to 9 (rack01-gpu009): list more ports, or move the servers",
    ),
    (
        "fabric.yaml",
        "name_prefix: spine}",
        "name_prefix: spine, downlinks: {ports: [1-20]}}",
        "fabrics.compute.spines.downlinks: a spine (DCS-7060DX5-64S) has 20 downlinks, one per leaf, and the racks "
        "make leaves up to 24: use pods (fabrics.compute.pods), or a spine model with more ports",
    ),
    (
        "fabric.yaml",
        "  vlan_base: 2000\n",
        "  vlan_base: 2000\n  server_vlan_base: 2005\n",
        "management.server_vlan_base: the racks' switch VLANs 2001-2014 and server VLANs 2006-2019 overlap "
        "(the core carries both): set the bases at least 14 apart",
    ),
    (
        "fabric.yaml",
        STORAGE_NICS,
        "    nics: []\n",
        "fabric.yaml:51: server_models.storage-node.nics: needs at least 1 item(s), has 0",
    ),
    (
        "fabric.yaml",
        STORAGE_NICS,
        "    nics:\n      - {name: eno1, network: management, speed: 1g, numa: 0}\n",
        "fabric.yaml:51: server_models.storage-node.nics: no NIC on the storage network, but storage_services serves "
        "from rack14-stor001, rack14-stor002, rack14-stor003 (storage-node): give the model its storage NICs",
    ),
    (
        "racks.yaml",
        "{id: 1, row",
        "{id: 0, row",
        "racks.yaml:3: racks[0].id: Input should be greater than or equal to 1",
    ),
    (
        "servers.csv",
        "rack01-gpu002,gpu-8x-h100,GPU-0102\n",
        "rack01-gpu002,gpu-8x-h100,GPU-0102\n"
        + "".join(f"rack15-gpu00{p},gpu-8x-h100,GPU-150{p}\n" for p in (1, 2, 3)),
        "servers.csv:4: name: 'rack15-gpu001' is in rack 15, which racks.yaml does not declare "
        "(and 2 more rows like it: lines 5-6)",
    ),
    (
        "servers.csv",
        "GPU-0103",
        "GPU-0102",
        "servers.csv:4: asset_tag: 'GPU-0102' is also rack01-gpu002's (line 3): an asset tag names one server "
        "(a move keeps the row's tag and changes its name)",
    ),
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
    project: Path, edit: Edit, filename: str, old: str | None, new: str | Callable[[bytes], bytes], expected: str
) -> None:
    """Each mistake yields exactly one problem line naming the file, line or path, and the fix."""
    if callable(new):
        path = project / "intent" / filename
        path.write_bytes(new(path.read_bytes()))
    else:
        assert old is not None
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


def test_a_byte_order_mark_is_utf8(project: Path) -> None:
    """Excel saves CSV as "UTF-8 with BOM", some editors YAML too: the mark is dropped, the file reads."""
    for name in ("servers.csv", "fabric.yaml"):
        path = project / "intent" / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert len(load_intent(project / "intent").servers) == 112


def test_racks_past_every_pool_fail_as_the_intent_loads(project: Path) -> None:
    """300 GPU racks overrun the pools and the spines' and the core's ports: one line
    per budget, each naming the key to change, before any switch is resolved."""
    racks = "".join(f"  - {{id: {r}, row: A, position: 1, pdu_kw: 70, role: gpu}}\n" for r in range(15, 301))
    last = "role: storage}\n"
    (project / "intent" / "racks.yaml").write_text(
        (project / "intent" / "racks.yaml").read_text().replace(last, last + racks, 1)
    )
    rows = "".join(f"rack{r}-gpu00{p},gpu-8x-h100,GPU-{r:04d}{p:02d}\n" for r in range(15, 301) for p in range(1, 10))
    (project / "intent" / "servers.csv").write_text((project / "intent" / "servers.csv").read_text() + rows)
    fabric = project / "intent" / "fabric.yaml"
    fabric.write_text(fabric.read_text().replace(r"(?P<rack>\d{2})", r"(?P<rack>\d{2,3})"))
    with pytest.raises(IntentError) as caught:
        load_intent(project / "intent")
    paths = [problem.split(": ")[1] for problem in caught.value.problems]
    assert paths == [
        "fabrics.compute.pools.hosts",
        "fabrics.compute.pools.loopbacks",
        "fabrics.compute.pools.p2p",
        "fabrics.compute.pools.mlag_peer",
        "fabrics.compute.pools.mlag_l3",
        "fabrics.compute.spines.model",
        "fabrics.storage.pools.p2p",
        "fabrics.storage.spines.model",
        "management.pool",
        "management.core.downlinks",
    ]
    assert caught.value.problems[0].endswith(
        "fabrics.compute.pools.hosts: 10.30.0.0/16 holds 256 x /24, the design needs 301 "
        "(a /24 per leaf pair, up to pair 300): use a /15 or wider"
    )
