"""``fabricops lab up|status|tamper|fault|down`` on a throwaway repository."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from core.errors import FabricopsError
from fabricops.commands.lab import lab_group
from lab import process
from lab.testing import SAMPLE_LINKS, sample_fabric_specs


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """A git repo whose generated/ holds the sample fabric; its lab is always stopped."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    configs = tmp_path / "generated" / "configs"
    configs.mkdir(parents=True)
    for spec in sample_fabric_specs():
        assert spec.config is not None
        (configs / f"{spec.name}.cfg").write_text(spec.config)
    inventory = tmp_path / "generated" / "inventory"
    inventory.mkdir()
    rows = ["a_device,a_port,b_device,b_port,kind"]
    rows += [f"{x.a_device},{x.a_port},{x.b_device},{x.b_port},fabric" for x in SAMPLE_LINKS]
    (inventory / "cabling.csv").write_text("\n".join(rows) + "\n")
    (inventory / "hosts.yaml").write_text(
        "spine1: {hostname: 10.0.0.1, platform: eos, data: {role: spine, model: spine-64x400g, ethernet_ports: 8}}\n"
    )
    yield tmp_path
    process.down(tmp_path)


def test_up_status_tamper_down_and_resume(repo: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(lab_group, ["up", "--root", str(repo)])
    assert result.exit_code == 0, result.output
    info = json.loads((repo / ".lab" / "lab.json").read_text())
    assert set(info["devices"]) == {"spine1", "leaf1", "leaf2"}
    assert info["username"] == "admin" and len(info["password"]) >= 16
    assert oct((repo / ".lab" / "lab.json").stat().st_mode & 0o777) == "0o600"
    assert process.is_lab_process(info["pid"])

    from napalm import get_network_driver

    ep = info["devices"]["spine1"]
    for transport, port in (("http", ep["port"]), ("https", ep["https_port"])):
        d = get_network_driver("eos")(
            ep["host"], "admin", info["password"], timeout=5, optional_args={"transport": transport, "port": port}
        )
        d.open()
        assert d.get_facts()["model"] == "spine-64x400g"
        d.close()
    assert Path(info["tls_certificate"]).read_bytes().startswith(b"-----BEGIN CERTIFICATE-----")

    status = runner.invoke(lab_group, ["status", "--root", str(repo), "--format", "json"])
    assert status.exit_code == 0, status.output
    data = json.loads(status.output)
    assert data["devices"]["leaf1"]["port"] == info["devices"]["leaf1"]["port"]
    assert "password" not in data and info["password"] not in status.output

    tamper = runner.invoke(lab_group, ["tamper", "leaf1", "--root", str(repo), "--line", "hostname TAMPERED"])
    assert tamper.exit_code == 0, tamper.output
    fault = runner.invoke(lab_group, ["fault", "leaf2", "pending-session", "--root", str(repo)])
    assert fault.exit_code == 0, fault.output
    text = runner.invoke(lab_group, ["status", "--root", str(repo)])
    assert "console_abandoned:pending" in text.output

    assert runner.invoke(lab_group, ["down", "--root", str(repo)]).output == "lab stopped\n"
    assert not (repo / ".lab" / "lab.json").exists()
    assert not process.is_lab_process(info["pid"])

    # A restart resumes from .lab/state: the tampered hostname is still there.
    again = process.up(repo)
    try:
        status2 = process.status(repo)
        assert status2["devices"]["leaf1"]["hostname"] == "TAMPERED"
    finally:
        process.down(repo)
    assert not process.is_lab_process(again["pid"])


def test_fault_options_are_checked_before_reaching_the_lab(repo: Path) -> None:
    """A fault that needs an option fails with one line naming the device and what to give."""
    runner = CliRunner()
    result = runner.invoke(lab_group, ["fault", "leaf1", "reject", "--root", str(repo)])
    assert isinstance(result.exception, FabricopsError)
    assert str(result.exception) == "fault reject on leaf1: give --pattern REGEX"
    result = runner.invoke(lab_group, ["tamper", "leaf1", "--root", str(repo)])
    assert str(result.exception) == "tamper leaf1: give --line LINE (repeatable) or --file FILE"


def test_commands_without_a_running_lab_fail_with_one_line(repo: Path) -> None:
    with pytest.raises(FabricopsError, match="no lab is running"):
        process.status(repo)
    assert process.down(repo) is False


def test_down_never_kills_a_foreign_pid(repo: Path) -> None:
    """A stale lab.json naming a pid that is not a lab process is only removed."""
    (repo / ".lab").mkdir()
    (repo / ".lab" / "lab.json").write_text(json.dumps({"pid": os.getpid()}))
    assert process.down(repo) is False
    assert not (repo / ".lab" / "lab.json").exists()


def test_up_at_a_git_ref_with_a_subset_of_devices(repo: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "add", "generated")
    git("-c", "user.email=t@example.invalid", "-c", "user.name=t", "commit", "-q", "-m", "generated")
    (repo / "generated" / "configs" / "spine1.cfg").unlink()  # the work tree differs from HEAD
    info = process.up(repo, ref="HEAD", devices=["spine1", "leaf1"], fresh=True)
    try:
        assert set(info["devices"]) == {"spine1", "leaf1"}
        assert len(info["ref"]) == 40
        assert process.status(repo)["devices"]["spine1"]["hostname"] == "spine1"
    finally:
        process.down(repo)


def test_up_starts_a_device_as_another_model(repo: Path) -> None:
    """``--model`` stands for the wrong switch in the rack: its own model, and the ports it lacks refused."""
    runner = CliRunner()
    bad = runner.invoke(lab_group, ["up", "--root", str(repo), "--model", "spine1=DCS-0000"])
    assert bad.exit_code == 1 and "unknown switch model 'DCS-0000'" in str(bad.exception)
    result = runner.invoke(lab_group, ["up", "--root", str(repo), "--model", "spine1=DCS-7060DX5-64S"])
    assert result.exit_code == 0, result.output
    devices = process.status(repo)["devices"]
    assert devices["spine1"]["model"] == "DCS-7060DX5-64S-F"
    assert devices["spine1"]["load_errors"][0].endswith("Invalid input (at token 1: 'Ethernet1')")
    assert devices["leaf1"]["model"] == "cEOSLab" and devices["leaf1"]["load_errors"] == []
    process.down(repo)
    with pytest.raises(FabricopsError, match="no device spine9 in generated/"):
        process.up(repo, models={"spine9": "DCS-7060DX5-64S"})


def test_up_on_a_running_lab_adds_the_new_switches_and_touches_none_it_has(repo: Path) -> None:
    """A rack added to generated/ joins the running lab: the switches it has keep their
    configs, endpoints and the lab's password; the new one answers with that password."""
    runner = CliRunner()
    first = process.up(repo, devices=["spine1", "leaf1"])
    try:
        tamper = runner.invoke(lab_group, ["tamper", "spine1", "--root", str(repo), "--line", "hostname CONFIGURED"])
        assert tamper.exit_code == 0, tamper.output
        result = runner.invoke(lab_group, ["up", "--root", str(repo)])
        assert result.exit_code == 0, result.output
        joined = "lab up: 1 new device(s) joined (leaf2); 2 running device(s) untouched"
        assert result.output == f"{joined} (pid {first['pid']})\n"
        info = json.loads((repo / ".lab" / "lab.json").read_text())
        assert info["pid"] == first["pid"] and info["password"] == first["password"]
        assert {n: info["devices"][n] for n in first["devices"]} == first["devices"]
        assert oct((repo / ".lab" / "lab.json").stat().st_mode & 0o777) == "0o600"
        devices = process.status(repo)["devices"]
        assert devices["spine1"]["hostname"] == "CONFIGURED" and devices["leaf2"]["hostname"] == "leaf2"
        again = runner.invoke(lab_group, ["up", "--root", str(repo)])
        assert "no new device; 3 running device(s) untouched" in again.output

        from napalm import get_network_driver

        ep = info["devices"]["leaf2"]
        driver = get_network_driver("eos")(
            ep["host"], "admin", first["password"], timeout=5, optional_args={"transport": "http", "port": ep["port"]}
        )
        driver.open()
        try:
            assert [n["hostname"] for n in driver.get_lldp_neighbors()["Ethernet1"]] == ["CONFIGURED"]
        finally:
            driver.close()

        unit = ["--serial", "JPE24170XYZ", "--base-mac", "001C.7312.3456"]
        replaced = runner.invoke(lab_group, ["replace", "spine1", "--root", str(repo), *unit])
        assert replaced.output == "spine1: replaced by unit JPE24170XYZ (00:1c:73:12:34:56) at factory default\n"
        assert process.status(repo)["devices"]["spine1"]["hostname"] == "spine1"
        bad = runner.invoke(lab_group, ["replace", "spine1", "--root", str(repo), "--serial", "x", "--base-mac", "1"])
        assert bad.exit_code == 2 and "4 to 32 letters and digits" in bad.output
        process.down(repo)
        again = process.up(repo)  # the replaced unit and the joined switch are in .lab/state
        assert set(again["devices"]) == {"spine1", "leaf1", "leaf2"}
        ep = again["devices"]["spine1"]
        driver = get_network_driver("eos")(
            ep["host"], "admin", again["password"], timeout=5, optional_args={"transport": "http", "port": ep["port"]}
        )
        driver.open()
        try:
            assert driver.get_facts()["serial_number"] == "JPE24170XYZ"
        finally:
            driver.close()
    finally:
        process.down(repo)
