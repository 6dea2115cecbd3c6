"""The lab is each catalog model: identity, exactly the model's ports, and a port it lacks refused.

Driven through the stock NAPALM ``eos`` driver over eAPI, as deploy and drift drive a switch.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from napalm.base.exceptions import MergeConfigException, ReplaceConfigException

from core.errors import FabricopsError
from core.generated import open_snapshot
from core.hardware import model
from core.hardware.catalog import DATA
from lab import DeviceSpec, Link, specs_from_snapshot
from lab.testing import napalm_driver, running_lab

PORTS = Path(__file__).resolve().parents[1] / "core" / "fixtures" / "ports"


def _stanzas(config: str) -> list[str]:
    return [line.split()[1] for line in config.splitlines() if line.startswith("interface ")]


def test_show_version_reports_the_catalog_model_with_its_airflow_and_a_stable_serial() -> None:
    specs = [
        DeviceSpec("leaf1", None, model="DCS-7060DX5-32"),
        DeviceSpec("leaf2", None, model="DCS-7060DX5-32-R"),
        DeviceSpec("sw1", None, model="spine-64x400g"),
    ]
    with running_lab(specs) as lab:
        facts = {}
        for name in ("leaf1", "leaf2", "sw1"):
            with napalm_driver(lab, name) as driver:
                facts[name] = driver.get_facts()
        mac = lab.device("leaf1").system_mac
        again = lab.device("leaf1").serial
    assert facts["leaf1"]["model"] == "DCS-7060DX5-32-F", "the default airflow suffix"
    assert facts["leaf2"]["model"] == "DCS-7060DX5-32-R"
    assert facts["sw1"]["model"] == "spine-64x400g", "a model outside the catalog is reported as given"
    assert facts["leaf1"]["serial_number"] != facts["leaf2"]["serial_number"]
    with running_lab([DeviceSpec("leaf1", None, model="DCS-7060DX5-32")]) as lab:
        assert (lab.device("leaf1").serial, lab.device("leaf1").system_mac) == (again, mac), "stable per device"
    assert facts["leaf1"]["interface_list"] == [*model("DCS-7060DX5-32").interface_names(), "Management1"]


@pytest.mark.parametrize("model_id", ["DCS-7060CX-32S", "DCS-7280SR2K-48C6-M"])
def test_a_factory_default_switch_prints_the_stanzas_the_real_one_printed(model_id: str) -> None:
    """The captures' interface stanzas, in their order: every port, configured or not."""
    real = [line.split()[1] for line in (PORTS / f"{model_id}.txt").read_text().splitlines() if line.startswith("int")]
    with running_lab([DeviceSpec("sw1", None, model=model_id)]) as lab:
        printed = _stanzas(lab.device("sw1").running_config())
    physical = [name for name in printed if name.startswith(("Ethernet", "Management"))]
    assert physical == [name for name in real if name.startswith(("Ethernet", "Management"))]


def test_show_interfaces_lists_exactly_the_models_ports_at_their_speeds() -> None:
    links = [Link("leaf1", "Ethernet1/1", "server1", "eth0")]
    specs = [DeviceSpec("leaf1", None, model="DCS-7050SX3-48YC8")]
    with running_lab(specs, links) as lab, napalm_driver(lab, "leaf1") as driver:
        interfaces = driver.get_interfaces()
        status = driver.cli(["show interfaces status"], encoding="json")["show interfaces status"]
    leaf = model("DCS-7050SX3-48YC8")
    assert sorted(interfaces) == sorted([*leaf.interface_names(), "Management1"])
    assert interfaces["Ethernet1"]["speed"] == 25_000 and interfaces["Ethernet49/1"]["speed"] == 100_000
    statuses = status["interfaceStatuses"]
    assert statuses["Ethernet1"]["interfaceType"] == "Not Present"
    assert statuses["Ethernet49/1"]["bandwidth"] == 100_000_000_000


def test_a_cabled_port_holds_the_optic_of_its_cage() -> None:
    links = [Link("leaf1", "Ethernet1/1", "leaf2", "Ethernet1/1"), Link("leaf1", "Ethernet33", "leaf2", "Ethernet33")]
    specs = [DeviceSpec(n, None, model="DCS-7060DX5-32") for n in ("leaf1", "leaf2")]
    with running_lab(specs, links) as lab, napalm_driver(lab, "leaf1") as driver:
        status = driver.cli(["show interfaces status"], encoding="json")["show interfaces status"]
    types = {name: s["interfaceType"] for name, s in status["interfaceStatuses"].items()}
    assert (types["Ethernet1/1"], types["Ethernet33"], types["Ethernet2/1"]) == (
        "400GBASE-SR8",
        "10GBASE-SR",
        "Not Present",
    )


def test_a_port_the_model_lacks_is_refused_as_eos_refuses_it() -> None:
    """A config written for another model fails at its first foreign port; nothing is applied."""
    with running_lab([DeviceSpec("leaf1", None, model="DCS-7060DX5-32")]) as lab:
        before = lab.device("leaf1").running_config()
        with napalm_driver(lab, "leaf1") as driver:
            with pytest.raises(MergeConfigException, match=r"Invalid input \(at token 1: 'Ethernet49'\)"):
                driver.load_merge_candidate(config="interface Ethernet49\n   description uplink\n")
            replace = before.replace("interface Ethernet1/1\n", "interface Ethernet1\n   description x\n")
            with pytest.raises(ReplaceConfigException, match=r"at token 1: 'Ethernet1'"):
                driver.load_replace_candidate(config=replace)
            driver.load_merge_candidate(config="interface Ethernet1/8\n   description lane 8 exists\n")
            driver.commit_config()
        assert lab.device("leaf1").running_config() != before
        assert "interface Ethernet49" not in lab.device("leaf1").running_config()
        assert lab.tamper("leaf1", ["int et49", "description x"]) == ["int et49: Invalid input (at token 1: 'et49')"]
        assert lab.tamper("leaf1", ["no interface Management2"]) == [
            "no interface Management2: Invalid input (at token 2: 'Management2')"
        ]


def test_a_breakout_brings_up_its_lanes_and_a_gearbox_partner_goes_away() -> None:
    specs = [DeviceSpec("spine1", None, model="DCS-7060DX5-64S"), DeviceSpec("core1", None, model="DCS-7280CR3-32P4")]
    with running_lab(specs) as lab:
        lab.tamper("spine1", ["interface Ethernet2/1", "speed 100g-2"])
        lab.tamper("core1", ["interface Ethernet1/1", "speed 25g"])
        with napalm_driver(lab, "spine1") as driver:
            spine = driver.get_interfaces()
        core = _stanzas(lab.device("core1").running_config())
    lanes = [n for n in spine if n.startswith("Ethernet2/")]
    assert lanes == ["Ethernet2/1", "Ethernet2/3", "Ethernet2/5", "Ethernet2/7"]
    assert spine["Ethernet2/3"]["speed"] == 100_000 and spine["Ethernet3/1"]["speed"] == 400_000
    assert core[:5] == ["Ethernet1/1", "Ethernet1/2", "Ethernet1/3", "Ethernet1/4", "Ethernet3/1"], "Ethernet2/1 absent"


def test_a_preloaded_config_loses_only_the_ports_the_model_lacks() -> None:
    config = "hostname mgmt1\ninterface Ethernet52\n   description uplink\ninterface Ethernet53\n   mtu 9214\n"
    with running_lab([DeviceSpec("mgmt1", config, model="DCS-7010TX-48")]) as lab:
        errors = lab.load_errors["mgmt1"]
        running = lab.device("mgmt1").running_config()
    assert errors == ["line 4: Invalid input (at token 1: 'Ethernet53')"]
    assert "   description uplink" in running and "mtu 9214" not in running and "Ethernet53" not in running


def test_a_chassis_has_its_linecard_ports_and_supervisor_management_ports() -> None:
    with running_lab([DeviceSpec("spine1", None, model="DCS-7804-CH")]) as lab:
        with napalm_driver(lab, "spine1") as driver:
            facts = driver.get_facts()
        running = lab.device("spine1").running_config()
    assert facts["model"] == "DCS-7804-CH"
    assert facts["interface_list"][:2] == ["Ethernet3/1/1", "Ethernet3/2/1"]
    assert "Management1/2" in facts["interface_list"] and len(facts["interface_list"]) == 144 + 5
    assert "! device: spine1 (DCS-7804-CH, EOS-" in running


def test_a_chassis_has_the_ports_of_the_linecards_it_holds() -> None:
    """100G linecards in slots 3 and 4 (48 QSFP28 cages each), the default 400G card in the others."""
    cards = ((3, "7800R3-48CQ-LC"), (4, "7800R3-48CQ-LC"))
    spec = DeviceSpec("core1", None, model="DCS-7808-CH", linecards=cards)
    with running_lab([spec]) as lab, napalm_driver(lab, "core1") as driver:
        names = driver.get_facts()["interface_list"]
        refused = lab.tamper("core1", ["interface Ethernet3/49/1"])
    assert names[47:49] == ["Ethernet3/48/1", "Ethernet4/1/1"] and "Ethernet10/36/1" in names
    assert refused == ["interface Ethernet3/49/1: Invalid input (at token 1: 'Ethernet3/49/1')"]


def test_a_model_outside_the_catalog_keeps_generic_ports() -> None:
    with running_lab([DeviceSpec("sw1", None, model="leaf-48x100g-8x400g", ethernet_ports=56)]) as lab:
        assert lab.tamper("sw1", ["interface Ethernet99", "description pre-provisioned"]) == []
        assert _stanzas(lab.device("sw1").running_config())[55] == "Ethernet56"


def _own_model(root: Path) -> None:
    """``intent/hardware/switches/DCS-7010TX-24-LAB.yaml``: a repository's own 24-port management
    switch (RJ45 1-24, SFP28 25-26), written from the catalog's DCS-7010TX-48, and one switch of
    that model in ``generated/``."""
    text = (DATA / "switches" / "DCS-7010TX-48.yaml").read_text()
    for old, new in [
        ("model: DCS-7010TX-48", "model: DCS-7010TX-24-LAB"),
        ("{first: 1, last: 48, kind: rj45-1g}", "{first: 1, last: 24, kind: rj45-1g}"),
        ("{first: 49, last: 52, kind: sfp28-25g}", "{first: 25, last: 26, kind: sfp28-25g}"),
    ]:
        assert old in text
        text = text.replace(old, new)
    (root / "intent" / "hardware" / "switches").mkdir(parents=True)
    (root / "intent" / "hardware" / "switches" / "DCS-7010TX-24-LAB.yaml").write_text(text)
    (root / "generated" / "configs").mkdir(parents=True)
    (root / "generated" / "inventory").mkdir()
    host = "mgmt1: {hostname: 127.0.0.1, platform: eos, data: {model: DCS-7010TX-24-LAB}}\n"
    (root / "generated" / "inventory" / "hosts.yaml").write_text(host)
    config = "hostname mgmt1\ninterface Ethernet26\n   description uplink\ninterface Ethernet27\n   mtu 9214\n"
    (root / "generated" / "configs" / "mgmt1.cfg").write_text(config)


def test_a_model_of_the_repository_is_a_model_of_the_lab(tmp_path: Path) -> None:
    """``intent/hardware/`` beside ``generated/`` is read with the catalog, as the compiler reads it:
    the switch reports that model, has exactly its ports and refuses one it lacks."""
    _own_model(tmp_path)
    snapshot = open_snapshot(tmp_path)
    specs, _ = specs_from_snapshot(snapshot)
    with running_lab(specs) as lab, napalm_driver(lab, "mgmt1") as driver:
        facts = driver.get_facts()
        with pytest.raises(MergeConfigException, match=r"Invalid input \(at token 1: 'Ethernet48'\)"):
            driver.load_merge_candidate(config="interface Ethernet48\n   description x\n")
        errors = lab.load_errors["mgmt1"]
    assert facts["model"] == "DCS-7010TX-24-LAB-F"
    assert facts["interface_list"] == [*(f"Ethernet{n}" for n in range(1, 27)), "Management1"]
    assert errors == ["line 4: Invalid input (at token 1: 'Ethernet27')"]
    (started,), _ = specs_from_snapshot(snapshot, models={"mgmt1": "DCS-7010TX-24-LAB-R"})
    assert started.catalog is not None and started.catalog.model(started.model).id == "DCS-7010TX-24-LAB"
    with pytest.raises(FabricopsError, match=r"unknown switch model 'DCS-7010TX-96'.*DCS-7010TX-24-LAB"):
        specs_from_snapshot(snapshot, models={"mgmt1": "DCS-7010TX-96"})
