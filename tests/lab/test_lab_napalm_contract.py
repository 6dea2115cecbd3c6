"""The lab against the stock NAPALM ``eos`` driver, over real loopback HTTP.

Each test drives one verb or getter the project uses and checks the return
shape against ``napalm.base.models`` with NAPALM's own ``test_model`` helper,
as NAPALM's ``BaseTestGetters`` does for every driver.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pyeapi
import pytest
from napalm.base import models
from napalm.base.exceptions import CommitError, MergeConfigException, SessionLockedException
from napalm.base.test import helpers

from lab import Lab
from lab.printer import strip_device_defaults, strip_header, strip_hidden_defaults
from lab.testing import driver_for, napalm_driver


def conforms(model: Any, data: dict[str, Any]) -> bool:
    return bool(helpers.test_model(model, data))


def test_open_and_get_facts(fabric: Lab) -> None:
    """open() parses show version; facts list every interface in natural order."""
    with napalm_driver(fabric, "leaf1") as d:
        facts = d.get_facts()
    assert conforms(models.FactsDict, facts)
    assert facts["hostname"] == "leaf1"
    assert facts["model"] == "cEOSLab"
    assert facts["os_version"].startswith("4.31.2F")
    assert facts["interface_list"][:3] == ["Ethernet1", "Ethernet2", "Ethernet3"]
    assert "Port-Channel10" in facts["interface_list"]
    assert 0 <= facts["uptime"] < 60


def test_is_alive(fabric: Lab) -> None:
    with napalm_driver(fabric, "leaf1") as d:
        assert d.is_alive() == {"is_alive": True}


def test_get_config_running_and_startup(fabric: Lab) -> None:
    with napalm_driver(fabric, "spine1") as d:
        config = d.get_config()
    assert conforms(models.ConfigDict, config)
    running = config["running"]
    assert running.startswith("! Command: show running-config\n! device: spine1 (cEOSLab, EOS-4.31.2F)\n!\n")
    assert running.endswith("!\nend\n")
    assert "router bgp 65100\n   router-id 10.250.0.1\n" in running
    assert "! Startup-config last modified at" in config["startup"]
    assert config["candidate"] == ""


def test_load_replace_compare_commit(fabric: Lab) -> None:
    """Replace: the diff names the change; commit writes running and startup."""
    dev = fabric.device("spine1")
    new = dev.running_config().replace("description P2P_leaf1_Ethernet1", "description UPLINK_A")
    with napalm_driver(fabric, "spine1") as d:
        d.load_replace_candidate(config=new)
        diff = d.compare_config()
        assert "-   description P2P_leaf1_Ethernet1" in diff
        assert "+   description UPLINK_A" in diff
        assert d.get_config(retrieve="candidate")["candidate"].count("UPLINK_A") == 1
        d.commit_config()
        assert d.compare_config() == ""
    assert "description UPLINK_A" in dev.running_config()
    assert "description UPLINK_A" in dev.startup_config()


def test_replace_with_same_config_has_no_diff(fabric: Lab) -> None:
    with napalm_driver(fabric, "leaf2") as d:
        d.load_replace_candidate(config=fabric.device("leaf2").running_config())
        assert d.compare_config() == ""
        d.discard_config()


def test_load_merge_then_discard_leaves_running(fabric: Lab) -> None:
    dev = fabric.device("leaf1")
    before = dev.running_config()
    with napalm_driver(fabric, "leaf1") as d:
        d.load_merge_candidate(config="interface Ethernet7\n   description NEW\n")
        assert "+   description NEW" in d.compare_config()
        d.discard_config()
        assert d.compare_config() == ""
    assert dev.running_config() == before
    assert dev.sessions_json()["sessions"] == {}


def test_merge_of_invalid_line_raises_and_keeps_running(fabric: Lab) -> None:
    dev = fabric.device("leaf1")
    before = dev.running_config()
    bad = r"Invalid input \(at token 0: 'hostnamee'\)"
    with napalm_driver(fabric, "leaf1") as d, pytest.raises(MergeConfigException, match=bad):
        d.load_merge_candidate(config="hostname x\nhostnamee leaf1\n")
    assert dev.running_config() == before


def test_commit_confirm(fabric: Lab) -> None:
    """revert_in commits with a timer; confirm_commit keeps it and writes startup."""
    dev = fabric.device("leaf1")
    with napalm_driver(fabric, "leaf1") as d:
        d.load_merge_candidate(config="interface Ethernet7\n   description CONFIRMED\n")
        d.commit_config(revert_in=30)
        assert d.has_pending_commit()
        assert "CONFIRMED" in dev.running_config()
        assert "CONFIRMED" not in dev.startup_config()
        with pytest.raises(CommitError):
            d.commit_config(revert_in=30)
        d.confirm_commit()
        assert not d.has_pending_commit()
    assert "CONFIRMED" in dev.startup_config()


def test_commit_timer_expiry_reverts(fabric: Lab) -> None:
    """The timer fires on its own: with no request at all, running goes back."""
    dev = fabric.device("leaf1")
    with napalm_driver(fabric, "leaf1") as d:
        d.load_merge_candidate(config="interface Ethernet7\n   description TEMPORARY\n")
        d.commit_config(revert_in=1)
        assert "TEMPORARY" in dev.running_config()
        d.config_session = None  # keep close() from aborting (which would roll back at once)
    deadline = time.time() + 5
    while "TEMPORARY" in dev.running_config() and time.time() < deadline:
        time.sleep(0.1)
    assert "TEMPORARY" not in dev.running_config()
    assert "TEMPORARY" not in dev.startup_config()
    with napalm_driver(fabric, "leaf1") as d:
        assert not d.has_pending_commit()


def test_close_during_commit_timer_rolls_back(fabric: Lab) -> None:
    """close() -> discard_config() -> abort on a timer session: EOS rolls back at once."""
    dev = fabric.device("leaf1")
    with napalm_driver(fabric, "leaf1") as d:
        d.load_merge_candidate(config="interface Ethernet7\n   description GONE\n")
        d.commit_config(revert_in=60)
    assert "GONE" not in dev.running_config()


def test_rollback_restores_rollback_file(fabric: Lab) -> None:
    dev = fabric.device("spine1")
    with napalm_driver(fabric, "spine1") as d:
        d.load_merge_candidate(config="interface Ethernet5\n   description LATER\n")
        d.commit_config()
        d.rollback()
    assert "LATER" not in dev.running_config()


def test_lock_check_sees_a_foreign_pending_session(fabric: Lab) -> None:
    """A session left pending by someone else fails NAPALM's lock check."""
    fabric.fault("leaf2", "pending-session", session="console_left_open")
    with napalm_driver(fabric, "leaf2") as d:
        d.config_session = "napalm_1"
        with pytest.raises(SessionLockedException):
            d._obtain_lock(wait_time=None)  # one check, without NAPALM's 10 s retry loop
    with napalm_driver(fabric, "leaf1") as d:
        d.config_session = "napalm_1"
        d._obtain_lock(wait_time=None)
        d.config_session = None


def test_get_lldp_neighbors(fabric: Lab) -> None:
    with napalm_driver(fabric, "leaf1") as d:
        lldp = d.get_lldp_neighbors()
        detail = d.get_lldp_neighbors_detail()
        one = d.get_lldp_neighbors_detail(interface="Ethernet10")
    assert lldp == {
        "Ethernet1": [{"hostname": "spine1", "port": "Ethernet1"}],
        "Ethernet5": [{"hostname": "server01", "port": "eth0"}],
        "Ethernet10": [{"hostname": "leaf2", "port": "Ethernet10"}],
    }
    for port, neighbors in lldp.items():
        assert all(conforms(models.LLDPNeighborDict, n) for n in neighbors)
        assert all(conforms(models.LLDPNeighborDetailDict, n) for n in detail[port])
    assert detail["Ethernet1"][0]["remote_port_description"] == "P2P_leaf1_Ethernet1"
    assert list(one) == ["Ethernet10"]


def test_get_interfaces_state_follows_config(fabric: Lab) -> None:
    with napalm_driver(fabric, "leaf1") as d:
        before = d.get_interfaces()
        d.load_merge_candidate(config="interface Ethernet1\n   shutdown\n")
        d.commit_config()
        after = d.get_interfaces()
    assert all(conforms(models.InterfaceDict, v) for v in before.values())
    assert before["Ethernet1"]["is_up"] and before["Ethernet1"]["mtu"] == 9214
    assert before["Ethernet1"]["speed"] == 100000.0
    assert not before["Ethernet2"]["is_up"] and before["Ethernet2"]["is_enabled"]
    assert not after["Ethernet1"]["is_enabled"] and not after["Ethernet1"]["is_up"]
    assert before["Port-Channel10"]["is_up"]


def test_get_interfaces_counters(fabric: Lab) -> None:
    fabric.device("leaf1").add_counters("Ethernet1", inOctets=1000, fcsErrors=3)
    with napalm_driver(fabric, "leaf1") as d:
        counters = d.get_interfaces_counters()
    assert all(conforms(models.InterfaceCounterDict, v) for v in counters.values())
    assert counters["Ethernet1"]["rx_octets"] == 1000
    assert counters["Ethernet1"]["rx_errors"] == 3


def test_get_interfaces_ip(fabric: Lab) -> None:
    with napalm_driver(fabric, "leaf1") as d:
        ips = d.get_interfaces_ip()
    assert ips["Ethernet1"] == {"ipv4": {"10.0.0.1": {"prefix_length": 31}}, "ipv6": {}}
    assert ips["Loopback0"]["ipv4"] == {"10.250.0.11": {"prefix_length": 32}}
    assert "Ethernet5" not in ips


def test_get_bgp_neighbors_established_from_both_ends(fabric: Lab) -> None:
    with napalm_driver(fabric, "spine1") as d:
        bgp = d.get_bgp_neighbors()
    assert set(bgp["global"]) == set(models.BGPStateNeighborsPerVRFDict.__annotations__)
    peers = bgp["global"]["peers"]
    assert bgp["global"]["router_id"] == "10.250.0.1"
    for address in ("10.0.0.1", "10.0.0.3"):
        assert set(peers[address]) == set(models.BGPStateNeighborDict.__annotations__)
        assert peers[address]["is_up"], address
        assert peers[address]["remote_as"] == 65101
    assert peers["10.0.0.1"]["remote_id"] == "10.250.0.11"


def test_bgp_goes_down_when_the_far_end_disagrees(fabric: Lab) -> None:
    assert fabric.tamper("leaf2", ["router bgp 65101", "neighbor 10.0.0.2 remote-as 65999"]) == []
    fabric.device("leaf1").set_link_down("Ethernet1")
    with napalm_driver(fabric, "spine1") as d:
        peers = d.get_bgp_neighbors()["global"]["peers"]
    assert not peers["10.0.0.1"]["is_up"]
    assert not peers["10.0.0.3"]["is_up"]


def test_wrong_password_is_refused(fabric: Lab) -> None:
    host, port = fabric.endpoints()["leaf1"]
    from napalm import get_network_driver

    d = get_network_driver("eos")(host, "admin", "wrong", timeout=5, optional_args={"transport": "http", "port": port})
    with pytest.raises(pyeapi.eapilib.ConnectionError, match="Unauthorized"):
        d.open()


def test_rejected_line_error_shape_and_index(blank: Lab) -> None:
    """pyeapi raises CommandError naming the failing command; earlier results come back."""
    host, port = blank.endpoints()["sw1"]
    node = pyeapi.connect(
        transport="http", host=host, port=port, username="admin", password="admin", timeout=5, return_node=True
    )
    before = blank.device("sw1").running_config()
    with pytest.raises(pyeapi.eapilib.CommandError) as info:
        node.run_commands(["configure session s1", "hostname new", "interface Ethernet1", "bogus line", "end"])
    err = info.value
    assert err.error_code == 1002
    assert "CLI command 5 of 6 'bogus line' failed: invalid command" in str(err)
    assert len(err.output) - 1 == 4  # results of enable + three commands, then the error
    assert err.output[-1] == {"errors": ["Invalid input (at token 0: 'bogus')"]}
    assert blank.device("sw1").running_config() == before


def test_unresolved_placeholder_is_invalid_input(blank: Lab) -> None:
    with napalm_driver(blank, "sw1") as d, pytest.raises(MergeConfigException, match="Invalid input"):
        d.load_merge_candidate(config="username admin privilege 15 role network-admin secret sha512 <secret:admin>\n")


@pytest.mark.parametrize("name", ["reference_leaf.cfg", "reference_spine.cfg"])
def test_reference_configs_round_trip(blank: Lab, name: str, reference_config: Callable[[str], str]) -> None:
    """Each reference config survives NAPALM's flattening and comes back line for line."""
    text = reference_config(name)
    with napalm_driver(blank, "sw1") as d:
        d.load_replace_candidate(config=text)
        d.commit_config()
    running = strip_device_defaults(strip_header(blank.device("sw1").running_config()))
    # A switch does not print lines that restate its defaults (interface "no shutdown").
    assert _paths(running) == _paths(strip_hidden_defaults(strip_device_defaults(text)))


def _paths(text: str) -> list[str]:
    """Each line with its parents, sorted: EOS reorders sections but keeps the hierarchy."""
    stack: list[str] = []
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line == "end" or (line.startswith("!") and not line.startswith("!!")):
            continue
        depth = (len(raw) - len(raw.lstrip())) // 3
        del stack[depth:]
        stack.append(line)
        out.append(" > ".join(stack))
    return sorted(out)


def test_driver_to_unreachable_device_fails_fast(fabric: Lab) -> None:
    fabric.fault("leaf1", "unreachable")
    d = driver_for(fabric, "leaf1")
    with pytest.raises(pyeapi.eapilib.ConnectionError):
        d.open()
    fabric.fault("leaf1", "clear")
    with napalm_driver(fabric, "leaf1") as d2:
        assert d2.get_facts()["hostname"] == "leaf1"


def test_get_config_sanitized_hides_secrets(fabric: Lab) -> None:
    with napalm_driver(fabric, "spine1") as d:
        running = d.get_config(retrieve="running", sanitized=True)["running"]
    assert "secret sha512 <removed>" in running
    assert "$6$" not in running


def test_get_vlans(fabric: Lab) -> None:
    with napalm_driver(fabric, "leaf1") as d:
        vlans = d.get_vlans()
    assert all(conforms(models.VlanDict, v) for v in vlans.values())
    # The peer-link trunk carries every VLAN that no trunk group restricts, as on EOS.
    assert vlans["110"]["name"] == "COMPUTE"
    assert sorted(vlans["110"]["interfaces"]) == ["Ethernet5", "Port-Channel10"]
    assert vlans["4094"] == {"name": "MLAG_PEER", "interfaces": ["Port-Channel10"]}


def test_abbreviations_need_auto_complete(fabric: Lab) -> None:
    """eAPI takes full keywords unless the client asks for autoComplete, as on a switch."""
    with napalm_driver(fabric, "leaf1") as d, pytest.raises(MergeConfigException, match="at token 0: 'int'"):
        d.load_merge_candidate(config="int eth7\n   desc SHORT\n")
    with napalm_driver(fabric, "leaf1", eos_autoComplete=True) as d:
        d.load_merge_candidate(config="int eth7\n   desc SHORT\n")
        assert " interface Ethernet7\n+   description SHORT" in d.compare_config()
        d.discard_config()
