"""EOS-version-aware normalisation, proved on real captures and on a lab run as a given release.

Each capture runs on a lab switch of its own release; read through the stock NAPALM driver
(``get_facts`` for the version, ``get_config`` for the text), it audits against itself with no
difference, and an out-of-band edit on top of it is found as exactly that change.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from core.configtree import Change
from core.secrets import lab_secret
from drift.audit import run_audit
from drift.compare import compare_config
from lab import DeviceSpec
from lab.testing import napalm_driver, running_lab
from tests.captures import CAPTURES, release_of

if TYPE_CHECKING:
    from lab import Lab

OUT_OF_BAND = ["hostname hand-edited", "ntp server 192.0.2.99"]


def _read(lab: Lab) -> tuple[str, str]:
    with napalm_driver(lab, "sw1") as driver:
        version = str(driver.get_facts()["os_version"])
        return version, str(driver.get_config(retrieve="running")["running"])


@pytest.mark.parametrize("path", CAPTURES)
def test_a_capture_audits_against_itself_and_an_edit_on_top_is_found(path: Path) -> None:
    text = path.read_text()
    spec = DeviceSpec("sw1", text, eos_version=release_of(text), ethernet_ports=0)
    with running_lab([spec]) as lab:
        version, running = _read(lab)
        assert version.startswith(release_of(text))
        assert compare_config(text, running, values={}, key=b"k", version=version).changes == ()
        assert lab.device("sw1").tamper(OUT_OF_BAND) == []
        _, edited = _read(lab)
    hostname = next(line for line in text.splitlines() if line.startswith("hostname "))
    assert compare_config(text, edited, values={}, key=b"k", version=version).changes == (
        Change((), "changed", "hostname hand-edited", expected=hostname),
        Change((), "added", "ntp server 192.0.2.99"),
    )


def test_the_audit_reads_each_devices_release_from_show_version(fleet: tuple[Path, Lab]) -> None:
    """A switch of the fleet upgraded to 4.33.0F prints three more default blocks: the audit,
    told the release by ``get_facts``, finds no drift; compared as a 4.27 switch they would be."""
    root, lab = fleet
    device = lab.device("rack05-leaf-a")
    before = device.version
    device.version = "4.33.0F"
    try:
        audit = run_audit(root, devices=["rack05-leaf-a"], lab=True, workers=1)
        assert [(d.device, d.status) for d in audit.devices] == [("rack05-leaf-a", "in-sync")]
        running = device.running_config()
    finally:
        device.version = before
    generated = (root / "generated" / "configs" / "rack05-leaf-a.cfg").read_text()
    values = {"admin_sha512": lab_secret("admin_sha512", lab.password)}
    as_427 = compare_config(generated, running, values=values, key=b"k", version="4.27.1F")
    assert sorted(c.line for c in as_427.changes) == [
        "no service interface inactive port-id allocation disabled",
        "router multicast",
        "system l1",
    ]
