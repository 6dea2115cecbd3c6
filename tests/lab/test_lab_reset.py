"""Lab.reset: one lab shared by many tests, put back into a known state between them."""

from __future__ import annotations

from lab import Lab
from lab.testing import napalm_driver


def test_reset_undoes_configs_sessions_faults_counters_and_cables(fabric: Lab) -> None:
    """Everything a test can do to a device, then one reset: as the lab started."""
    started = {name: dev.running_config() for name, dev in fabric.devices.items()}
    with napalm_driver(fabric, "leaf1") as driver:
        driver.load_merge_candidate(config="interface Ethernet3\n   description TIMED\n")
        driver.commit_config(revert_in=300)  # a commit timer left running
    fabric.tamper("leaf2", ["hostname edited"])
    fabric.device("leaf2").leave_pending_session()
    fabric.set_unreachable("spine1")
    fabric.fault("leaf1", "link-down", port="Ethernet1")
    fabric.device("leaf1").add_counters("Ethernet1", fcsErrors=9)
    fabric.fabric.swap_cables("spine1", "Ethernet1", "Ethernet2")

    fabric.reset()

    assert {name: dev.running_config() for name, dev in fabric.devices.items()} == started
    for dev in fabric.devices.values():
        assert dev.sessions == {} and dev.faults.active() == [] and dev.counters == {}
    assert fabric.fabric.peer_of("spine1", "Ethernet1") == ("leaf1", "Ethernet1")
    with napalm_driver(fabric, "spine1") as driver:  # listening again
        neighbors = driver.get_lldp_neighbors()
    assert [n["hostname"] for n in neighbors["Ethernet1"]] == ["leaf1"]


def test_reset_to_a_saved_state_and_only_what_changed(fabric: Lab) -> None:
    """``save()`` is a state to come back to; devices untouched since are left as they are."""
    fabric.tamper("leaf1", ["interface Ethernet3", "description SAVED"])
    saved = fabric.save()
    fabric.reset(to=saved)
    untouched = fabric.device("leaf2").running
    fabric.tamper("leaf1", ["interface Ethernet3", "description AFTER"])

    fabric.reset(to=saved)

    assert "description SAVED" in fabric.device("leaf1").running_config()
    assert "description AFTER" not in fabric.device("leaf1").running_config()
    assert fabric.device("leaf2").running is untouched, "an untouched device is not reloaded"
    fabric.reset(["leaf1"])
    assert "description SAVED" not in fabric.device("leaf1").running_config()


def test_join_serves_new_switches_and_a_reset_removes_them(fabric: Lab) -> None:
    """A switch joins a running lab with its cables; the lab's devices are left as they were;
    the next reset gives the lab its first devices and cables back (a shared lab stays shared)."""
    from lab import DeviceSpec, Link

    fabric.tamper("leaf1", ["interface Ethernet3", "description KEPT"])
    before = fabric.device("leaf1").running
    ports = fabric.endpoints()
    added = fabric.join(
        [DeviceSpec("leaf1", None), DeviceSpec("leaf3", "hostname leaf3\n")],
        [Link("leaf3", "Ethernet1", "spine1", "Ethernet5")],
    )
    assert added == ["leaf3"]
    assert fabric.device("leaf1").running is before
    assert "description KEPT" in fabric.device("leaf1").running_config()
    assert {n: p for n, p in fabric.endpoints().items() if n in ports} == ports
    with napalm_driver(fabric, "leaf3") as driver:
        assert driver.get_facts()["hostname"] == "leaf3"
        assert [n["hostname"] for n in driver.get_lldp_neighbors()["Ethernet1"]] == ["spine1"]

    fabric.reset()

    assert sorted(fabric.devices) == sorted(ports)
    assert fabric.fabric.peer_of("spine1", "Ethernet5") is None


def test_replace_racks_a_factory_default_unit_with_its_own_serial(fabric: Lab) -> None:
    """An RMA: same endpoints and credentials, factory default, the new unit's serial and MAC;
    a reset puts the lab's own unit back."""
    with napalm_driver(fabric, "leaf1") as driver:
        serial = driver.get_facts()["serial_number"]
    fabric.replace("leaf1", "JPE24170XYZ", "00:1c:73:12:34:56")
    with napalm_driver(fabric, "leaf1") as driver:
        facts = driver.get_facts()
        version = driver.cli(["show version"], encoding="json")["show version"]
        config = driver.get_config(retrieve="running")["running"]
    assert (facts["serial_number"], version["systemMacAddress"]) == ("JPE24170XYZ", "00:1c:73:12:34:56")
    assert "interface Ethernet1\n   description" not in config and "management api http-commands" in config
    fabric.reset()
    assert fabric.device("leaf1").serial == serial
