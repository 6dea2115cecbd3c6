"""RTE002 checks every neighbor in one pass of look-ups: each fault a neighbor can have must still
be named, and only the first of its faults."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path
from typing import Any

from compiler.artifacts.units import facts_digests
from compiler.checks import checked
from compiler.checks.rules.routing import bgp_sessions
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import Intent, load_intent
from tests.compiler.checks.conftest import REPO, edited, kept_equals_cold, kept_names, with_interfaces


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


SPEAKER = "rack01-stor-leaf-a"
"""A switch of the example that runs BGP (the storage fabric's underlay)."""


def test_rte002s_key_changes_with_every_input(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """RTE002 is kept under what it reads: of each switch (its role, BGP, interfaces' names and
    addresses, read again only under a new digest) and its leaf-spine cables; each edited alone
    changes the key, an edit under the same digest does not (the digest stands for the switch)."""
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    (before,) = kept_names("RTE002", intent, fabric, digests)
    new = {**digests, SPEAKER: "edited"}
    device = fabric.devices[SPEAKER]
    bgp = device.config.router_bgp
    assert bgp is not None
    first, *rest = device.config.interfaces
    addressed = next(i for i in device.config.interfaces if i.ip_address)
    readdressed = tuple(
        i._replace(ip_address="10.99.0.1/31") if i is addressed else i for i in device.config.interfaces
    )
    edits = [
        edited(fabric, SPEAKER, router_bgp=bgp._replace(asn=bgp.asn + 1)),
        edited(fabric, SPEAKER, router_bgp=bgp._replace(neighbors=bgp.neighbors[1:])),
        edited(fabric, SPEAKER, interfaces=readdressed),
        edited(fabric, SPEAKER, interfaces=(first._replace(name="Ethernet99/1"), *rest)),
        dataclasses.replace(fabric, devices={**fabric.devices, SPEAKER: dataclasses.replace(device, role="spine")}),
    ]
    for changed in edits:
        assert kept_names("RTE002", intent, changed, new) != [before]
    # Under the same digest, what was read of the switch is kept (its config is not read again).
    _, kept = checked(intent, fabric, digests, {})
    assert kept_names("RTE002", intent, edits[0], digests, kept) == [before]
    gone = {name: d for name, d in fabric.devices.items() if name != "mgmt-core01"}
    assert kept_names("RTE002", intent, dataclasses.replace(fabric, devices=gone), digests) != [before]
    cables = [i for i, link in enumerate(fabric.links) if link.kind == "fabric"]
    link = fabric.links[cables[0]]
    for end in (
        link._replace(a=link.a._replace(device="spine02")),
        link._replace(a=link.a._replace(port="Ethernet99/1")),
        link._replace(b=link.b._replace(device="spine02")),
        link._replace(b=link.b._replace(port="Ethernet99/1")),
        link._replace(kind="peer-link"),
    ):
        links = (*fabric.links[: cables[0]], end, *fabric.links[cables[0] + 1 :])
        assert kept_names("RTE002", intent, dataclasses.replace(fabric, links=links), digests) != [before]


def test_rte002_kept_after_an_edit_is_a_cold_run(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    bgp = fabric.devices[SPEAKER].config.router_bgp
    assert bgp is not None
    changed = edited(fabric, SPEAKER, router_bgp=bgp._replace(asn=bgp.asn + 1))
    kept_equals_cold(intent, fabric, changed, facts_digests(fabric), [SPEAKER])


OSPF = "rack02-leaf-a"
"""A switch of the example that runs OSPF (the compute fabric's underlay)."""


def test_rte003s_key_changes_with_every_input(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """RTE003 is kept under what it reads: of each switch (none without OSPF; else its OSPF and
    its interfaces' names, addresses and network types) and its leaf-spine cables."""
    intent, fabric = resolved_example
    digests = facts_digests(fabric)
    (before,) = kept_names("RTE003", intent, fabric, digests)
    new = {**digests, OSPF: "edited"}
    config = fabric.devices[OSPF].config
    ospf = config.router_ospf
    assert ospf is not None
    uplink = next(i for i in config.interfaces if i.ospf_point_to_point)
    edits = [
        edited(fabric, OSPF, router_ospf=ospf._replace(active_interfaces=ospf.active_interfaces[1:])),
        edited(fabric, OSPF, router_ospf=None),
        with_interfaces(fabric, OSPF, {uplink.name: {"ospf_point_to_point": False}}),
        with_interfaces(fabric, OSPF, {uplink.name: {"ip_address": "10.99.0.1/31"}}),
        with_interfaces(fabric, OSPF, {uplink.name: {"name": "Ethernet99/1"}}),
    ]
    for changed in edits:
        assert kept_names("RTE003", intent, changed, new) != [before]
    cables = [i for i, link in enumerate(fabric.links) if link.kind == "fabric"]
    link = fabric.links[cables[0]]
    for end in (link._replace(a=link.a._replace(port="Ethernet99/1")), link._replace(kind="peer-link")):
        links = (*fabric.links[: cables[0]], end, *fabric.links[cables[0] + 1 :])
        assert kept_names("RTE003", intent, dataclasses.replace(fabric, links=links), digests) != [before]
    kept_equals_cold(intent, fabric, edits[0], digests, [OSPF])
