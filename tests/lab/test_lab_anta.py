"""ANTA, Arista's own test framework, as a second and independent client of the lab.

ANTA talks eAPI through httpx (keep-alive, ``HEAD`` probe, dict commands with
``revision``), so it checks the transport and the show shapes NAPALM does not read.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from lab import Lab

anta_device = pytest.importorskip("anta.device")


def run_anta(lab: Lab, name: str, test_class: Any, inputs: dict[str, Any] | None) -> str:
    """Refresh the device as ANTA does, run one test, return its result."""
    host, port = lab.endpoints()[name]

    async def go() -> str:
        dev = anta_device.AsyncEOSDevice(
            host=host,
            port=port,
            username=lab.username,
            password=lab.password,
            name=name,
            proto="http",
            timeout=5,
        )
        await dev.refresh()
        assert dev.is_online and dev.established, name
        test = test_class(dev, inputs=inputs)
        result = await test.test()
        await dev.disconnect()
        messages = "; ".join(result.messages)
        return f"{result.result}{': ' + messages if messages else ''}"

    return asyncio.run(go())


def test_verify_eos_version(fabric: Lab) -> None:
    from anta.tests.software import VerifyEOSVersion

    assert run_anta(fabric, "leaf1", VerifyEOSVersion, {"versions": ["4.31.2F"]}) == "success"
    assert run_anta(fabric, "leaf1", VerifyEOSVersion, {"versions": ["4.99.0F"]}).startswith("failure")


def test_verify_lldp_neighbors(fabric: Lab) -> None:
    from anta.tests.connectivity import VerifyLLDPNeighbors

    good = {"neighbors": [{"port": "Ethernet1", "neighbor_device": "spine1", "neighbor_port": "Ethernet1"}]}
    assert run_anta(fabric, "leaf1", VerifyLLDPNeighbors, good) == "success"
    miscabled = {"neighbors": [{"port": "Ethernet2", "neighbor_device": "spine1", "neighbor_port": "Ethernet2"}]}
    assert run_anta(fabric, "leaf1", VerifyLLDPNeighbors, miscabled).startswith("failure")


def test_verify_interfaces_status(fabric: Lab) -> None:
    from anta.tests.interfaces import VerifyInterfacesStatus

    inputs = {"interfaces": [{"name": "Ethernet1", "status": "up"}, {"name": "Port-Channel10", "status": "up"}]}
    assert run_anta(fabric, "leaf1", VerifyInterfacesStatus, inputs) == "success"
    fabric.tamper("leaf1", ["interface Ethernet1", "shutdown"])
    assert run_anta(fabric, "leaf1", VerifyInterfacesStatus, inputs).startswith("failure")


def test_verify_mlag_status(fabric: Lab) -> None:
    from anta.tests.mlag import VerifyMlagStatus

    assert run_anta(fabric, "leaf1", VerifyMlagStatus, None) == "success"
    assert run_anta(fabric, "spine1", VerifyMlagStatus, None).startswith("skipped")
    fabric.device("leaf2").set_link_down("Ethernet10")
    assert run_anta(fabric, "leaf1", VerifyMlagStatus, None).startswith("failure")


def test_verify_bgp_peer_session(fabric: Lab) -> None:
    from anta.tests.routing.bgp import VerifyBGPPeerSession

    inputs = {
        "bgp_peers": [{"peer_address": "10.0.0.1", "vrf": "default"}, {"peer_address": "10.0.0.3", "vrf": "default"}]
    }
    assert run_anta(fabric, "spine1", VerifyBGPPeerSession, inputs) == "success"
    fabric.fault("leaf1", "unreachable")
    assert run_anta(fabric, "spine1", VerifyBGPPeerSession, inputs).startswith("failure")


def test_counter_tests_read_the_lab_shapes() -> None:
    """ANTA's error, discard, PFC and ECN tests on a hardware model (they skip cEOSLab)."""
    from anta.tests.interfaces import (
        VerifyInterfaceDiscards,
        VerifyInterfaceErrors,
        VerifyInterfacesECNCounters,
        VerifyInterfacesPFCCounters,
    )

    from lab import DeviceSpec
    from lab.testing import running_lab

    config = (
        "hostname hw1\nqos profile ROCE\n   uc-tx-queue 3\n      random-detect ecn minimum-threshold"
        " 256 kbytes maximum-threshold 512 kbytes\ninterface Ethernet1/1\n   service-profile ROCE\n"
    )
    with running_lab([DeviceSpec("hw1", config, model="DCS-7060DX5-64S")]) as lab:
        tests = (
            VerifyInterfaceErrors,
            VerifyInterfaceDiscards,
            VerifyInterfacesPFCCounters,
            VerifyInterfacesECNCounters,
        )
        assert [run_anta(lab, "hw1", t, {}) for t in tests] == ["success"] * 4
        lab.device("hw1").add_counters("Ethernet1/1", fcsErrors=3, outDiscards=1, pfcRx=9, ecnMarked=5)
        results = [run_anta(lab, "hw1", t, {}) for t in tests]
        assert all(r.startswith("failure") for r in results), results
        assert "Queue: 3" in results[3]


def test_ospf_tests() -> None:
    from anta.tests.routing.ospf import VerifyOSPFNeighborCount, VerifyOSPFNeighborState

    from lab.testing import running_lab, sample_ospf_pair

    with running_lab(*sample_ospf_pair()) as lab:
        assert run_anta(lab, "a", VerifyOSPFNeighborState, None) == "success"
        assert run_anta(lab, "a", VerifyOSPFNeighborCount, {"number": 1}) == "success"
        lab.tamper("b", ["interface Ethernet1", "mtu 1500"])
        assert "exchStart" in run_anta(lab, "a", VerifyOSPFNeighborState, None)
        lab.fault("b", "link-down", port="Ethernet1")
        assert run_anta(lab, "a", VerifyOSPFNeighborState, None) == "skipped: No OSPF neighbor detected"


def test_verify_bgp_peers_health(fabric: Lab) -> None:
    """Per-AFI health reads the negotiated multiprotocol capabilities of each peer."""
    from anta.tests.routing.bgp import VerifyBGPPeersHealth

    inputs = {"address_families": [{"afi": "ipv4", "safi": "unicast", "vrf": "default"}]}
    assert run_anta(fabric, "spine1", VerifyBGPPeersHealth, inputs) == "success"
    fabric.tamper("leaf2", ["router bgp 65101", "neighbor 10.0.0.2 shutdown"])
    result = run_anta(fabric, "spine1", VerifyBGPPeersHealth, inputs)
    assert result.startswith("failure") and "10.0.0.3" in result and "10.0.0.1" not in result
