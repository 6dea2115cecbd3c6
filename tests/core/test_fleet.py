"""Fleet access: Nornir from generated/inventory/ at a ref, pointed at the lab by a transform."""

from __future__ import annotations

from pathlib import Path

import pytest
from nornir_napalm.plugins.tasks import napalm_get

from core.eapi import KeepAliveHttpsEapiConnection
from core.errors import FabricopsError
from core.fleet import LabTarget, open_fleet
from core.generated import open_snapshot
from lab import Lab
from tests.conftest import SessionLab


@pytest.fixture
def gitops_repo(example_repo: Path) -> Path:
    """These tests only read HEAD: the session's example repository, not a clone of it."""
    return example_repo


@pytest.fixture
def lab_running(session_lab: SessionLab, example_repo: Path) -> Lab:
    """The session lab at factory default, listed in the example repository's .lab/lab.json."""
    return session_lab.factory(example_repo)


def test_lab_fleet_reaches_every_switch_through_napalm(gitops_repo: Path, lab_running: Lab) -> None:
    """Every host of the inventory answers the stock NAPALM driver on its lab port."""
    nornir = open_fleet(open_snapshot(gitops_repo, "HEAD"), lab=LabTarget.load(gitops_repo), workers=10)
    assert len(nornir.inventory.hosts) == 55
    result = nornir.run(task=napalm_get, getters=["facts"])
    assert not result.failed_hosts
    assert {r[0].result["facts"]["hostname"] for r in result.values()} == set(nornir.inventory.hosts)


def test_inventory_keeps_management_addresses_and_roles(gitops_repo: Path, lab_running: Lab) -> None:
    """The transform changes where to connect (the lab's HTTPS port, as a switch serves eAPI by
    default), not what the inventory says."""
    nornir = open_fleet(open_snapshot(gitops_repo, "HEAD"), lab=LabTarget.load(gitops_repo), devices=["rack02-leaf-b"])
    host = nornir.inventory.hosts["rack02-leaf-b"]
    assert host.hostname == "127.0.0.1" and host.port == lab_running.endpoints(https=True)["rack02-leaf-b"][1]
    assert host.get_connection_parameters("napalm").extras["optional_args"]["transport"] is KeepAliveHttpsEapiConnection
    assert host.data["role"] == "leaf" and host.data["mlag_peer"] == "rack02-leaf-a"
    assert host.platform == "eos"


def test_production_fleet_uses_management_addresses(gitops_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FABRICOPS_USERNAME", "netops")
    monkeypatch.setenv("FABRICOPS_PASSWORD", "not-in-git")
    nornir = open_fleet(open_snapshot(gitops_repo, "HEAD"), devices=["spine01"])
    host = nornir.inventory.hosts["spine01"]
    assert host.hostname == "172.16.13.7" and host.username == "netops"
    extras = host.get_connection_parameters("napalm").extras
    assert extras["optional_args"]["transport"] is KeepAliveHttpsEapiConnection, "the inventory's https, kept alive"
    assert extras["timeout"] == 60, "the inventory's other options stay"


def test_missing_credentials_say_what_to_set(
    gitops_repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("FABRICOPS_USERNAME", raising=False)
    monkeypatch.delenv("FABRICOPS_PASSWORD", raising=False)
    monkeypatch.setenv("FABRICOPS_CREDENTIALS_FILE", str(tmp_path / "none.yaml"))
    with pytest.raises(FabricopsError, match="export FABRICOPS_USERNAME and FABRICOPS_PASSWORD"):
        open_fleet(open_snapshot(gitops_repo, "HEAD"))


def test_unknown_device_is_named(gitops_repo: Path, lab_running: Lab) -> None:
    with pytest.raises(FabricopsError, match=r"unknown device.*rack99-leaf-a"):
        open_fleet(open_snapshot(gitops_repo, "HEAD"), lab=LabTarget.load(gitops_repo), devices=["rack99-leaf-a"])


def test_no_lab_running_says_how_to_start_one(tmp_path: Path) -> None:
    with pytest.raises(FabricopsError, match="fabricops lab up"):
        LabTarget.load(tmp_path)
