"""Unmanaged switches: an LLDP neighbour nothing in git knows, and an inventory entry without a config.

The lab runs git's configs (preloaded, no deploy) plus one switch git does not know, cabled to
a free port of rack01-leaf-a that someone enabled on the console. The lab does not list that
switch in ``.lab/lab.json``: drift can only find it the way it finds one on a real floor, over
LLDP from a managed switch, through Nornir and the stock NAPALM driver.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.generated import open_snapshot
from drift.audit import run_audit
from lab import DeviceSpec, Lab, specs_from_snapshot
from lab.topology import Link
from tests.conftest import git, make_repo, seal, write_lab_json

ROGUE, SEEN_FROM, PORT = "rogue-tor", "rack01-leaf-a", "Ethernet10/1"
LISTED = "rack15-mgmt"  # in the inventory, no generated config


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory, compiled_example: Path) -> Iterator[tuple[Path, Lab]]:
    root = make_repo(tmp_path_factory.mktemp("unmanaged") / "repo", compiled_example, ".lab/\nreports/\n")
    hosts_path = root / "generated" / "inventory" / "hosts.yaml"
    hosts: dict[str, Any] = yaml.safe_load(hosts_path.read_text())
    hosts[LISTED] = {**hosts["rack14-mgmt"], "hostname": "172.16.15.2"}
    hosts_path.write_text(yaml.safe_dump(hosts, sort_keys=False))
    seal(root)
    git(root, "commit", "-qam", "rack15's switch is racked, not designed yet")
    password = "lab-password"
    specs, links = specs_from_snapshot(open_snapshot(root, "HEAD"), lab_password=password)
    lab = Lab([*specs, DeviceSpec(ROGUE, None, ethernet_ports=8)], [*links, Link(SEEN_FROM, PORT, ROGUE, "Ethernet1")])
    lab.password = password
    lab.start()
    write_lab_json(root, lab)
    info = json.loads((root / ".lab" / "lab.json").read_text())
    del info["devices"][ROGUE]  # known to nobody: only LLDP can tell
    (root / ".lab" / "lab.json").write_text(json.dumps(info))
    try:
        yield root, lab
    finally:
        lab.stop()


def test_an_lldp_neighbour_unknown_to_git_and_an_inventory_entry_without_config_are_unmanaged(
    floor: tuple[Path, Lab],
) -> None:
    root, lab = floor
    assert lab.tamper(SEEN_FROM, [f"interface {PORT}", "no shutdown"]) == []
    audit = run_audit(root, lab=True)
    verdict = {d.device: d for d in audit.devices if d.status != "in-sync"}
    assert sorted(verdict) == sorted([ROGUE, SEEN_FROM, LISTED])
    assert verdict[SEEN_FROM].status == "drift", "the port enabled on the console"
    rogue = verdict[ROGUE]
    assert (rogue.status, rogue.seen_by) == ("unmanaged", (f"{SEEN_FROM} {PORT}",))
    assert rogue.error == f"an LLDP neighbour of {SEEN_FROM}, unknown to git"
    assert (verdict[LISTED].status, verdict[LISTED].error) == (
        "unmanaged",
        "in the inventory without a generated config",
    )
    assert audit.count("in-sync") == 54, "servers seen over LLDP are in the cabling plan: not unmanaged"
    assert audit.exit_code() == 3
