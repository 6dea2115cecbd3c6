"""Every finding of every rule, on fabrics broken in many ways at once, against a golden file.

The rules are written for speed (look-ups built once, passes at C speed); a faster rule must
name the same faults with the same words. Each scenario breaks the example deterministically
(interfaces of every third switch, BGP neighbors, rack places) so that most rules find
something, and the findings, as ``run_checks`` gives them, must equal the golden file's: a rule
that misses a fault, names one more, or words it otherwise fails here.

Write the golden file again, only for a change meant to alter findings:
``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/compiler/checks/test_findings_golden.py``.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compiler.artifacts.units import facts_digests
from compiler.checks import checked, run_checks
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import Intent, load_intent
from compiler.structured import DeviceConfig, Interface

REPO = Path(__file__).resolve().parents[3]
GOLDEN = Path(__file__).parent / "golden" / "findings.txt"


def _intent(root: Path, edits: dict[str, Callable[[str], str]]) -> Intent:
    """The example intent with some files edited, loaded from ``root``."""
    shutil.copytree(REPO / "intent", root / "intent")
    for name, edit in edits.items():
        path = root / "intent" / name
        path.write_text(edit(path.read_text()))
    return load_intent(root / "intent", budgets=False)


def _ebgp(text: str) -> str:
    return text.replace("routing: ospf-underlay ", "routing: ebgp-underlay ", 1)


def _far_racks(text: str) -> str:
    """Racks of the network row far from the GPU rows (cables beyond some optics' reach)."""
    for rack, position in (
        ("C, position: 1", 150),
        ("C, position: 2", 5000),
        ("B, position: 6", 20000),
        ("A, position: 2", 900),
    ):
        text = text.replace(f"row: {rack},", f"row: {rack[0]}, position: {position},")
    return text


def _tight_power(text: str) -> str:
    """PDUs and rows rated at or just above what their racks draw (PWR001-PWR004)."""
    text = text.replace("id: 1, row: A, position: 1, pdu_kw: 70", "id: 1, row: A, position: 1, pdu_kw: 30")
    text = text.replace("id: 2, row: A, position: 2, pdu_kw: 70", "id: 2, row: A, position: 2, pdu_kw: 64")
    text = text.replace("A: {cooling_kw: 420, ups_kw: 450}", "A: {cooling_kw: 300, ups_kw: 450}")
    return text.replace("B: {cooling_kw: 420, ups_kw: 450}", "B: {cooling_kw: 420, ups_kw: 390}")


def _broken_gnmi(position: int, config: DeviceConfig) -> DeviceConfig:
    """gNMI taken away, on another port or VRF, or behind an ACL that admits nothing (TEL001)."""
    gnmi = config.management_gnmi
    if gnmi is None or position % 4 == 1:
        return config
    if position % 4 == 0:
        return config._replace(management_gnmi=gnmi._replace(port=6031, vrf="default", ssl_profile="none"))
    if position % 4 == 2:
        return config._replace(management_gnmi=None)
    return config._replace(access_lists=tuple(acl._replace(entries=()) for acl in config.access_lists))


def _configs(fabric: ResolvedFabric, change: Callable[[int, DeviceConfig], DeviceConfig]) -> ResolvedFabric:
    """``fabric`` with every switch's config replaced by ``change(position, config)`` (position: by name)."""
    devices = {
        name: device.with_config(change(position, device.config))
        for position, (name, device) in enumerate(sorted(fabric.devices.items()))
    }
    return dataclasses.replace(fabric, devices=devices)


def _shifted(address: str | None, by: int) -> str | None:
    """An interface address moved by ``by`` within its /24 (a neighbor no longer on its subnet)."""
    if not address or "/" not in address:
        return address
    host, length = address.split("/")
    octets = host.split(".")
    octets[3] = str((int(octets[3]) + by) % 256)
    return ".".join(octets) + "/" + length


def _broken_interface(position: int, index: int, iface: Interface) -> Interface:
    """One of several faults, by the interface's position among its switch's (every third switch)."""
    if position % 3:
        return iface
    kind = (index + position) % 9
    faults: list[dict[str, Any]] = [
        {"storm_control": ()},
        {"mtu": (iface.mtu or 1500) - 100},
        {"qos_trust_dscp": False, "service_profile": None},
        {"ip_address": _shifted(iface.ip_address, 64)},
        {"description": None, "no_lldp_transmit": True, "ospf_point_to_point": False},
        {"switchport_access_vlan": 4001, "switchport_trunk_allowed_vlan": "4001-4002", "bpduguard": False},
        {"vrf": "NOWHERE", "portfast": False, "speed": "25g"},
        {"shutdown": True},
        {},
    ]
    return iface._replace(**faults[kind])


def _broken_interfaces(position: int, config: DeviceConfig) -> DeviceConfig:
    interfaces = tuple(_broken_interface(position, i, iface) for i, iface in enumerate(config.interfaces))
    return config._replace(interfaces=interfaces)


def _broken_bgp(position: int, config: DeviceConfig) -> DeviceConfig:
    """Neighbors taken away, doubled with another AS, moved off their subnet, remote-as wrong;
    peer groups without BFD or another AS; every fifth switch without BGP."""
    bgp = config.router_bgp
    if bgp is None or position % 2:
        return config
    if position % 10 == 4:
        return config._replace(router_bgp=None)
    neighbors = list(bgp.neighbors)
    if neighbors:
        first = neighbors[0]
        neighbors[0] = first._replace(remote_as=(first.remote_as or 0) + 1)
        neighbors.append(first._replace(remote_as=64999))
    if len(neighbors) > 2:
        neighbors[1] = neighbors[1]._replace(address=(_shifted(neighbors[1].address + "/32", 3) or "").split("/")[0])
        del neighbors[2]
    if len(neighbors) > 3:
        neighbors[3] = neighbors[3]._replace(address="10.250.0.1")
    groups = tuple(g._replace(bfd=False, remote_as=(g.remote_as or 0) + position) for g in bgp.peer_groups)
    return config._replace(router_bgp=bgp._replace(neighbors=tuple(neighbors), peer_groups=groups))


def _broken_ospf(position: int, config: DeviceConfig) -> DeviceConfig:
    """Network statements and active interfaces taken away; every fifth switch without OSPF."""
    ospf = config.router_ospf
    if ospf is None or position % 2:
        return config
    if position % 10 == 4:
        return config._replace(router_ospf=None)
    return config._replace(
        router_ospf=ospf._replace(networks=ospf.networks[1:], active_interfaces=ospf.active_interfaces[::2])
    )


def _both(position: int, config: DeviceConfig) -> DeviceConfig:
    return _broken_gnmi(position, _broken_bgp(position, _broken_ospf(position, _broken_interfaces(position, config))))


def _cut(fabric: ResolvedFabric) -> ResolvedFabric:
    """Cables taken away (two switch-to-switch ones in three, some servers'), ends of others at
    another MTU, pools smaller than they hold, some allocations moved outside their pool."""
    links = tuple(
        link
        for position, link in enumerate(fabric.links)
        if not (link.kind == "fabric" and position % 3 != 0) and not (link.kind == "server" and position % 11 == 0)
    )
    pools = tuple(
        pool._replace(capacity=pool.used - 1) if position % 3 == 0 else pool
        for position, pool in enumerate(fabric.pools)
    )
    allocations = tuple(
        allocation._replace(prefix=f"192.168.{position % 256}.1/{allocation.prefix.partition('/')[2] or '32'}")
        if position % 40 == 0
        else allocation
        for position, allocation in enumerate(fabric.allocations)
    )
    links = tuple(link._replace(b_mtu=link.a_mtu + 500) if i % 13 == 0 else link for i, link in enumerate(links))
    return dataclasses.replace(fabric, links=links, pools=pools, allocations=allocations)


def _with(change: Callable[[int, DeviceConfig], DeviceConfig]) -> Callable[[ResolvedFabric], ResolvedFabric]:
    return lambda fabric: _configs(fabric, change)


SCENARIOS: dict[str, tuple[dict[str, Callable[[str], str]], Callable[[ResolvedFabric], ResolvedFabric] | None]] = {
    "example": ({}, None),
    "ebgp": ({"fabric.yaml": _ebgp}, None),
    "far-racks": ({"racks.yaml": _far_racks}, None),
    "ospf-broken": ({}, _with(_both)),
    "ebgp-broken": ({"fabric.yaml": _ebgp}, _with(_both)),
    "ebgp-bgp-broken": ({"fabric.yaml": _ebgp, "racks.yaml": _far_racks}, _with(_broken_bgp)),
    "cut": ({"fabric.yaml": _ebgp}, _cut),
    "power": ({"racks.yaml": _tight_power}, None),
}


def findings(root: Path) -> list[str]:
    """Every scenario's findings, one line each, under a line naming the scenario."""
    lines: list[str] = []
    for name, (edits, change) in SCENARIOS.items():
        intent = _intent(root / name, edits)
        fabric = resolve(intent)
        if change is not None:
            fabric = change(fabric)
        lines.append(f"## {name}")
        lines.extend(finding.line() for finding in run_checks(intent, fabric))
    return lines


def test_findings_as_golden(tmp_path: Path) -> None:
    found = "\n".join(findings(tmp_path)) + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(found)
    assert found == GOLDEN.read_text()


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_each_scenario_finds_something(scenario: str) -> None:
    """A scenario that stopped breaking anything would guard nothing (the example itself aside)."""
    golden = GOLDEN.read_text().split("## ")
    body = next(part for part in golden if part.startswith(f"{scenario}\n"))
    assert scenario == "example" or body.count("\n") > 1


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_the_compiles_runner_finds_the_same(tmp_path: Path, scenario: str) -> None:
    """``checked`` (a compile's runner: switch rules judged one switch at a time, keyed rules
    under their key) finds what ``run_checks`` finds, cold and keeping what it found."""
    edits, change = SCENARIOS[scenario]
    intent = _intent(tmp_path, edits)
    fabric = resolve(intent)
    digests = facts_digests(fabric)
    if change is not None:
        fabric = change(fabric)
    expected = run_checks(intent, fabric)
    found, kept = checked(intent, fabric, digests, {})
    assert found == expected
    assert checked(intent, fabric, digests, kept) == (expected, kept)
