"""Faults and out-of-band changes, seen through real clients."""

from __future__ import annotations

import time

import pyeapi
import pytest
from napalm.base.exceptions import MergeConfigException

from lab import Lab, LabError
from lab.testing import driver_for, napalm_driver


def node(lab: Lab, name: str) -> pyeapi.client.Node:
    host, port = lab.endpoints()[name]
    return pyeapi.connect(
        transport="http",
        host=host,
        port=port,
        username=lab.username,
        password=lab.password,
        timeout=5,
        return_node=True,
    )


def test_slow_device_delays_each_request(fabric: Lab) -> None:
    fabric.fault("leaf1", "slow", seconds=0.5)
    start = time.monotonic()
    node(fabric, "leaf1").run_commands(["show version"])
    slow = time.monotonic() - start
    assert slow >= 0.5
    fabric.fault("leaf1", "clear")
    start = time.monotonic()
    node(fabric, "leaf1").run_commands(["show version"])
    assert time.monotonic() - start < slow


def test_reject_fault_refuses_matching_lines(fabric: Lab) -> None:
    fabric.fault("leaf1", "reject", pattern=r"^ntp ")
    with napalm_driver(fabric, "leaf1") as d:
        with pytest.raises(MergeConfigException, match="not supported on this hardware platform"):
            d.load_merge_candidate(config="ntp server 10.1.1.1\n")
        d.load_merge_candidate(config="interface Ethernet3\n   description ok\n")
        d.discard_config()


def test_drop_after_commit_applies_then_closes(fabric: Lab) -> None:
    """The commit lands but the client sees a dropped connection, once."""
    fabric.fault("leaf1", "drop-after-commit")
    d = driver_for(fabric, "leaf1")
    d.open()
    d.load_merge_candidate(config="interface Ethernet3\n   description DROPPED\n")
    with pytest.raises(pyeapi.eapilib.ConnectionError):
        d.commit_config()
    d.config_session = None
    d.close()
    assert "description DROPPED" in fabric.device("leaf1").running_config()
    with napalm_driver(fabric, "leaf1") as d2:
        d2.load_merge_candidate(config="interface Ethernet3\n   description AGAIN\n")
        d2.commit_config()


def test_tamper_is_not_transactional(fabric: Lab) -> None:
    """A console paste stops at the bad line; the lines before it stay (gotcha 18)."""
    errors = fabric.tamper("leaf1", ["interface Ethernet3", "description A", "bogus", "mtu 1400"])
    assert errors == ["bogus: Invalid input (at token 0: 'bogus')"]
    running = fabric.device("leaf1").running_config()
    assert "interface Ethernet3\n   description A\n" in running
    assert "mtu 1400" not in running
    assert "description A" not in fabric.device("leaf1").startup_config()


def test_reboot_loses_unsaved_changes(fabric: Lab) -> None:
    fabric.tamper("leaf1", ["hostname renamed"])
    assert fabric.device("leaf1").running_config().count("hostname renamed") == 1
    fabric.fault("leaf1", "reboot")
    assert "hostname leaf1" in fabric.device("leaf1").running_config()


def test_link_down_and_flap(fabric: Lab) -> None:
    fabric.fault("spine1", "link-down", port="Ethernet1")
    with napalm_driver(fabric, "leaf1") as d:
        assert not d.get_interfaces()["Ethernet1"]["is_up"]
        assert "Ethernet1" not in d.get_lldp_neighbors()
    fabric.fault("spine1", "link-down", port="Ethernet1", on=False)
    before = node(fabric, "leaf1").run_commands(["show interfaces"])[0]
    fabric.fault("leaf1", "flap", port="Ethernet1")
    after = node(fabric, "leaf1").run_commands(["show interfaces"])[0]
    changes = "linkStatusChanges"
    assert (
        after["interfaces"]["Ethernet1"]["interfaceCounters"][changes]
        == before["interfaces"]["Ethernet1"]["interfaceCounters"][changes] + 2
    )


def test_miscabling_shows_in_lldp(fabric: Lab) -> None:
    """Two cables swapped on leaf1: its LLDP neighbours move with them."""
    fabric.fault("leaf1", "miscable", port="Ethernet1", other_port="Ethernet5")
    with napalm_driver(fabric, "leaf1") as d:
        lldp = d.get_lldp_neighbors()
    assert lldp["Ethernet1"] == [{"hostname": "server01", "port": "eth0"}]
    assert lldp["Ethernet5"] == [{"hostname": "spine1", "port": "Ethernet1"}]
    with napalm_driver(fabric, "spine1") as d:
        assert not d.get_bgp_neighbors()["global"]["peers"]["10.0.0.1"]["is_up"]


def test_counters_for_health_checks(fabric: Lab) -> None:
    fabric.tamper(
        "leaf1",
        [
            "interface Ethernet1",
            "uc-tx-queue 3",
            "random-detect ecn minimum-threshold 256 kbytes maximum-threshold 512 kbytes",
        ],
    )
    dev = fabric.device("leaf1")
    dev.add_counters("Ethernet1", fcsErrors=5, pfcRx=100, pfcTx=7, ecnMarked=42, inDiscards=2)
    errs, pfc, ecn, discards = node(fabric, "leaf1").run_commands(
        [
            "show interfaces counters errors",
            "show priority-flow-control counters",
            "show qos interfaces ecn counters queue",
            "show interfaces counters discards",
        ]
    )
    assert errs["interfaceErrorCounters"]["Ethernet1"]["fcsErrors"] == 5
    assert pfc["interfaceCounters"]["Ethernet1"] == {"rxFrames": 100, "txFrames": 7}
    queues = ecn["intfQueueCounters"]["Ethernet1"]["queueCounters"]
    assert queues["3"] == 42 and queues["0"] == "-"
    assert ecn["intfQueueCounters"]["Ethernet2"]["queueCounters"]["3"] == "-"
    assert discards["interfaces"]["Ethernet1"]["inDiscards"] == 2 and discards["inDiscardsTotal"] == 2


def test_ospf_adjacency_from_both_ends() -> None:
    from lab.testing import running_lab, sample_ospf_pair

    with running_lab(*sample_ospf_pair()) as lab:
        out = node(lab, "a").run_commands(["show ip ospf neighbor"])[0]
        entries = out["vrfs"]["default"]["instList"]["100"]["ospfNeighborEntries"]
        assert [(e["routerId"], e["adjacencyState"]) for e in entries] == [("2.2.2.2", "full")]
        lab.tamper("b", ["router ospf 100", "passive-interface Ethernet1"])
        out = node(lab, "a").run_commands(["show ip ospf neighbor"])[0]
        assert out["vrfs"]["default"]["instList"]["100"]["ospfNeighborEntries"] == []


def test_unknown_fault_and_device_are_errors(fabric: Lab) -> None:
    with pytest.raises(LabError, match="unknown fault"):
        fabric.fault("leaf1", "meteor")
    with pytest.raises(LabError, match="no device"):
        fabric.fault("nope", "reboot")


def test_lockout_and_commit_timer_recovery() -> None:
    """A replace without the management API locks a strict lab out; the commit timer saves it."""
    from lab import DeviceSpec
    from lab.testing import running_lab

    with running_lab([DeviceSpec("sw1", None, ethernet_ports=2)], lockout=True) as lab:
        with napalm_driver(lab, "sw1") as d:
            d.load_replace_candidate(config="hostname sw1\n")
            d.commit_config(revert_in=1)
            d.config_session = None  # the client cannot confirm: it is locked out
        with pytest.raises(pyeapi.eapilib.ConnectionError):
            node(lab, "sw1").run_commands(["show version"])
        deadline = time.time() + 5
        while not lab.device("sw1").api_enabled() and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(0.2)
        assert node(lab, "sw1").run_commands(["show hostname"])[0]["hostname"] == "sw1"
        assert "management api http-commands" in lab.device("sw1").running_config()


def test_a_change_that_locks_the_client_out_closes_the_port_before_its_reply() -> None:
    """A client that connects again the moment it reads the reply to the commit that turned the
    API off is refused: never accepted and then left without an answer until its timeout (the
    listener closed a moment after the reply; asyncio drops, without closing, a connection
    accepted for a server closed before the connection was set up). And a reopen asked before
    that close, still queued, does not reopen after it. Thirty times, as the race was rare."""
    import socket

    from lab import DeviceSpec
    from lab.testing import running_lab

    with running_lab([DeviceSpec("sw1", None, ethernet_ports=2)], lockout=True) as lab:
        address = lab.endpoints()["sw1"]
        factory = lab.save()
        for _ in range(30):
            with napalm_driver(lab, "sw1") as d:
                d.load_replace_candidate(config="hostname sw1\n")
                d.commit_config()
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection(address, timeout=5).close()
            lab.reset(to=factory)
            deadline = time.monotonic() + 5
            while True:  # the reset reopens the port from the lab's loop, a moment later
                try:
                    socket.create_connection(address, timeout=5).close()
                    break
                except ConnectionRefusedError:
                    assert time.monotonic() < deadline, "the reset did not reopen the port"
                    time.sleep(0.01)


def test_lockout_when_the_config_drops_the_lab_user() -> None:
    """A strict lab refuses a user that the running-config no longer defines."""
    from lab import DeviceSpec
    from lab.testing import running_lab

    with running_lab([DeviceSpec("sw1", None, ethernet_ports=2)], lockout=True) as lab:
        lab.tamper("sw1", ["no username admin"])
        with pytest.raises(pyeapi.eapilib.ConnectionError, match="Unauthorized"):
            node(lab, "sw1").run_commands(["show version"])
