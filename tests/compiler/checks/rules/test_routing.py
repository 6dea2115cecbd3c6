"""RTE002 checks every neighbor in one pass of look-ups: each fault a neighbor can have must still
be named, and only the first of its faults."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

from compiler.checks.rules.routing import bgp_sessions
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import load_intent
from tests.compiler.checks.conftest import REPO


def _config_replaced(fabric: ResolvedFabric, name: str, **changes: Any) -> ResolvedFabric:
    device = fabric.devices[name]
    devices = {**fabric.devices, name: device.with_config(device.config._replace(**changes))}
    return dataclasses.replace(fabric, devices=devices)


def _owner(fabric: ResolvedFabric, address: str) -> str:
    """The switch with an interface address ``address``."""
    return next(
        d.name
        for d in fabric.devices.values()
        for i in d.config.interfaces
        if (i.ip_address or "").startswith(f"{address}/")
    )


def test_each_fault_of_a_neighbor(tmp_path: Path) -> None:
    shutil.copytree(REPO / "intent", tmp_path / "intent")
    fabric_yaml = tmp_path / "intent" / "fabric.yaml"
    fabric_yaml.write_text(fabric_yaml.read_text().replace("routing: ospf-underlay ", "routing: ebgp-underlay ", 1))
    intent = load_intent(tmp_path / "intent", budgets=False)
    fabric = resolve(intent)
    assert list(bgp_sessions(intent, fabric)) == []
    bgp = fabric.devices["spine01"].config.router_bgp
    assert bgp is not None
    first, second, third, fourth, *rest = bgp.neighbors
    loopback = next(
        (i.ip_address or "").split("/")[0]
        for i in fabric.devices["rack05-leaf-a"].config.interfaces
        if i.name == "Loopback0"
    )
    silent, wrong = _owner(fabric, third.address), _owner(fabric, fourth.address)
    wrong_bgp = fabric.devices[wrong].config.router_bgp
    assert wrong_bgp is not None and loopback and silent != wrong
    neighbors = (
        first._replace(address="10.99.0.1"),  # nobody's
        second._replace(address=loopback),  # a switch's, not on a subnet spine01 has
        third,  # a switch that runs no BGP (below)
        fourth._replace(remote_as=64999),
        *rest,
    )
    fabric = _config_replaced(fabric, "spine01", router_bgp=bgp._replace(neighbors=neighbors))
    fabric = _config_replaced(fabric, silent, router_bgp=None)
    assert [message for subject, message in bgp_sessions(intent, fabric) if subject == "spine01"] == [
        "neighbor 10.99.0.1 is no switch's interface address",
        f"neighbor {loopback} (rack05-leaf-a) is not on a connected subnet",
        f"neighbor {third.address} ({silent}) does not run BGP",
        f"neighbor {fourth.address} ({wrong}) has remote-as 64999, but {wrong} is AS {wrong_bgp.asn}",
        f"no BGP session over {_port_to(fabric, 'spine01', first.address)} to {_owner(fabric, first.address)} "
        f"({first.address})",
        f"no BGP session over {_port_to(fabric, 'spine01', second.address)} to {_owner(fabric, second.address)} "
        f"({second.address})",
    ]


def _port_to(fabric: ResolvedFabric, device: str, address: str) -> str:
    """The port of ``device`` cabled to the interface holding ``address``."""
    far = _owner(fabric, address)
    far_port = next(
        i.name for i in fabric.devices[far].config.interfaces if (i.ip_address or "").startswith(f"{address}/")
    )
    for link in fabric.links:
        for near, other in ((link.a, link.b), (link.b, link.a)):
            if near.device == device and other.device == far and other.port == far_port:
                return near.port
    raise AssertionError(f"no cable from {device} to {far} {far_port}")
