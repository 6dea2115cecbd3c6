"""Resolution: allocation is a pure function of stable identifiers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import load_intent

Edit = Callable[[str, str, str], None]


@pytest.fixture(scope="module")
def fabric() -> ResolvedFabric:
    return resolve(load_intent(Path("intent")))


def iface(fabric: ResolvedFabric, device: str, name: str):  # type: ignore[no-untyped-def]
    return next(i for i in fabric.devices[device].config.interfaces if i.name == name)


def test_device_counts(fabric: ResolvedFabric) -> None:
    """4 spines + 24 leaves (12 MLAG pairs), storage 2 + 8, a management switch per rack + core."""
    roles = [(d.network, d.role) for d in fabric.devices.values()]
    assert roles.count(("compute", "spine")) == 4
    assert roles.count(("compute", "leaf")) == 24
    assert roles.count(("storage", "spine")) == 4
    assert roles.count(("storage", "leaf")) == 8
    assert roles.count(("management", "mgmt")) == 14
    assert roles.count(("management", "core")) == 1


def test_leaf_spine_link_addresses(fabric: ResolvedFabric) -> None:
    """Leaf L to spine s is /31 number (L-1)*4 + (s-1); spine even, leaf odd."""
    # rack03-leaf-b is leaf index 6; link to spine02 = /31 number 21 = 10.31.4.42/31
    assert iface(fabric, "rack03-leaf-b", "Ethernet26/1").ip_address == "10.31.4.43/31"
    assert iface(fabric, "spine02", "Ethernet6/1").ip_address == "10.31.4.42/31"
    assert iface(fabric, "spine02", "Ethernet6/1").description == "P2P_rack03-leaf-b_Ethernet26/1"


def test_loopbacks_svis_and_server_addresses(fabric: ResolvedFabric) -> None:
    assert iface(fabric, "spine03", "Loopback0").ip_address == "10.31.0.3/32"
    assert iface(fabric, "rack01-leaf-a", "Loopback0").ip_address == "10.31.0.65/32"
    svi = iface(fabric, "rack05-leaf-b", "Vlan100")
    assert (svi.ip_address, svi.virtual_ip) == ("10.30.5.3/24", "10.30.5.1")
    server = fabric.servers["rack05-gpu007"]
    assert server.compute_address == "10.30.5.17/24"
    assert server.compute_gateway == "10.30.5.1"
    assert server.mgmt_address == "172.16.5.136/25"
    nic_ports = {(n.switch, n.switch_port) for n in server.nics}
    # position 7 takes the 7th downlink: cage 2 broken out 4x100G gives /1, /3, /5, /7 after cage 1's four
    assert ("rack05-leaf-a", "Ethernet2/5") in nic_ports and ("rack05-leaf-b", "Ethernet2/5") in nic_ports


def test_storage_pairs_serve_four_racks(fabric: ResolvedFabric) -> None:
    """Storage pair P serves racks 4P-3..4P; port = (rack - first) * 11 + position."""
    server = fabric.servers["rack03-gpu002"]
    storage = [n for n in server.nics if n.network == "storage"]
    assert {(n.switch, n.switch_port) for n in storage} == {
        ("rack01-stor-leaf-a", "Ethernet24"),
        ("rack01-stor-leaf-b", "Ethernet24"),
    }
    assert server.storage_address == "10.40.1.34/24"


def test_every_link_has_two_known_ends(fabric: ResolvedFabric) -> None:
    servers = set(fabric.servers)
    for link in fabric.links:
        assert link.a.device in fabric.devices
        assert link.b.device in fabric.devices or link.b.device in servers


def test_mlag_pairs_point_at_each_other(fabric: ResolvedFabric) -> None:
    a, b = fabric.devices["rack07-leaf-a"], fabric.devices["rack07-leaf-b"]
    assert a.mlag_peer == b.name and b.mlag_peer == a.name
    assert a.config.mlag and b.config.mlag
    assert a.config.mlag.peer_address == iface(fabric, b.name, "Vlan4094").ip_address.split("/")[0]
    assert a.config.mlag.heartbeat_address == b.mgmt_address


def test_adding_a_rack_moves_nothing(project: Path, edit: Edit) -> None:
    """O4: a new rack of servers adds its own pair; every existing allocation stays."""
    before = resolve(load_intent(project / "intent"))
    edit("racks.yaml", "  - {id: 13,", "  - {id: 15, row: B, position: 7, pdu_kw: 70, role: gpu}\n  - {id: 13,")
    rows = "".join(f"rack15-gpu{p:03d},gpu-8x-h100,GPU-15{p:02d}\n" for p in range(1, 10))
    (project / "intent" / "servers.csv").write_text((project / "intent" / "servers.csv").read_text() + rows)
    after = resolve(load_intent(project / "intent"))
    old = {(a.prefix, a.owner) for a in before.allocations}
    new = {(a.prefix, a.owner) for a in after.allocations}
    assert old <= new
    assert {"rack15-leaf-a", "rack15-leaf-b", "rack15-mgmt"} <= set(after.devices) - set(before.devices)


def test_every_fabric_switch_keeps_its_management_interface(fabric: ResolvedFabric) -> None:
    """A replace-config without Management1 would cut the switch off its management network."""
    for device in fabric.devices.values():
        if device.role in {"leaf", "spine"}:
            mgmt = iface(fabric, device.name, "Management1")
            assert mgmt.vrf == "MGMT" and mgmt.ip_address == f"{device.mgmt_address}/25"
