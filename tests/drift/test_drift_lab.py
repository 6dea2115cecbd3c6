"""The drift audit on the lab, through Nornir and the stock NAPALM driver (no mocks).

Every test starts from the example lab running git's configs (tag ``deploy/20260101T000000Z``),
changes a few devices out of band the way an engineer on the console would (``Lab.tamper``),
and checks the verdict: only the real changes are drift.
"""

from __future__ import annotations

import json
import re
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from core.generated import open_snapshot
from core.secrets import lab_secret
from drift.audit import load_report, run_audit, shard_of
from fabricops.cli import main
from tests.drift.conftest import DEPLOY_TAG, write_lab_json

# Drift over a deployed session lab, shards and rollbacks: the lab tier.
pytestmark = pytest.mark.e2e

if TYPE_CHECKING:
    from lab import Lab

Fleet = tuple[Path, "Lab"]


def fabricops(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the CLI entry point in-process (the lab lives in this process): exit code, stdout, stderr."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def line_of(root: Path, device: str, pattern: str) -> str:
    """The first line of a device's generated config matching ``pattern`` (stripped)."""
    text = open_snapshot(root, "HEAD").configs()[device]
    return next(line.strip() for line in text.splitlines() if re.search(pattern, line))


def test_a_fresh_deploy_is_in_sync_everywhere(fleet: Fleet, capsys: pytest.CaptureFixture[str]) -> None:
    """All 55 switches, compared by meaning despite the device's headers and default lines."""
    root, _ = fleet
    clock = time.perf_counter()
    code, out, _ = fabricops(capsys, "drift", "--root", str(root), "--lab", "--report-dir", str(root / "r0"))
    wall = time.perf_counter() - clock
    assert code == 0, out
    assert len(re.findall(r"^\S+\s+in-sync$", out, re.M)) == 55
    assert "drift against what was deployed, intent HEAD" in out
    print(f"drift over 55 lab devices: {wall:.2f} s wall, {55 / wall:.1f} devices/s")


def test_each_kind_of_out_of_band_edit_gets_its_verdict(fleet: Fleet, restore: Callable[[str], None]) -> None:
    """Added, removed and changed lines are drift; reordering, re-entering and defaults are not."""
    root, lab = fleet
    edits = {
        # a line added
        "rack02-leaf-a": ["ntp server vrf MGMT 10.99.0.1"],
        # a line removed
        "rack02-leaf-b": ["interface Ethernet1/1", "no description"],
        # a changed VLAN on a port
        "rack03-leaf-a": ["interface Ethernet1/3", "switchport access vlan 4093"],
        # a reordered but equivalent section: both NTP servers re-entered in the other order
        "rack03-leaf-b": [
            f"no {line_of(root, 'rack03-leaf-b', '^ntp server .*prefer')}",
            line_of(root, "rack03-leaf-b", "^ntp server .*prefer"),
        ],
        # a secret re-hashed: the same clear password, another salt, so another string
        "rack04-leaf-a": ["username admin privilege 15 role network-admin secret 0 lab-password"],
        # the reviewed hash typed in again: the same string
        "rack04-leaf-b": [
            f"username admin privilege 15 role network-admin secret sha512 {lab_secret('admin_sha512', lab.password)}"
        ],
        # default lines present on the device: typed explicitly, hidden or printed as EOS does
        "rack05-leaf-a": ["transceiver qsfp default-mode 4x10G", "interface Ethernet1/1", "no shutdown"],
    }
    for device, lines in edits.items():
        restore(device)
        assert lab.tamper(device, lines) == [], device
    audit = run_audit(root, lab=True, devices=sorted(edits))
    verdict = {d.device: (d.status, sorted({c.kind for c in d.changes})) for d in audit.devices}
    assert verdict == {
        "rack02-leaf-a": ("drift", ["added"]),
        "rack02-leaf-b": ("drift", ["removed"]),
        "rack03-leaf-a": ("drift", ["changed"]),
        "rack03-leaf-b": ("in-sync", []),
        "rack04-leaf-a": ("drift", ["secret"]),
        "rack04-leaf-b": ("in-sync", []),
        "rack05-leaf-a": ("in-sync", []),
    }
    by_device = {d.device: d for d in audit.devices}
    vlan = by_device["rack03-leaf-a"].changes[0]
    assert (vlan.path, vlan.expected, vlan.line) == (
        ("interface Ethernet1/3",),
        "switchport access vlan 100",
        "switchport access vlan 4093",
    )
    assert audit.exit_code() == 3


def test_report_names_the_deploy_and_both_ways_out_without_secrets(
    fleet: Fleet, restore: Callable[[str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    root, lab = fleet
    restore("rack06-leaf-a")
    lab.tamper(
        "rack06-leaf-a",
        [
            "interface Ethernet1/5",
            "description HAND_EDIT",
            "switchport access vlan 4093",
            "interface Ethernet20/1",
            "no shutdown",
            "username admin privilege 15 role network-admin secret 0 lab-password",
        ],
    )
    report_dir = root / "r1"
    code, out, err = fabricops(
        capsys, "drift", "--root", str(root), "--lab", "--devices", "rack06-leaf-a", "--report-dir", str(report_dir)
    )
    assert code == 3 and "Error" not in err, "a finding, not an error"
    markdown = (report_dir / "report.md").read_text()
    data = json.loads((report_dir / "report.json").read_text())
    entry = data["devices"][0]
    assert entry["revert"] == f"fabricops rollback --to {DEPLOY_TAG} --devices rack06-leaf-a --lab"
    assert entry["revert"] in markdown
    assert f"Who: no state of record: compared with fleet version {DEPLOY_TAG} (commit " in markdown
    adopt = entry["adopt"]
    assert adopt["structured_fields"] == [
        "ports.yaml: ports.rack06-leaf-a.Ethernet1/5.description",
        "vlans.yaml: vlans.<VLAN 4093>.access",
        "ports.yaml: ports.rack06-leaf-a.Ethernet20/1.shutdown",
    ]
    assert adopt["command"] == "fabricops adopt rack06-leaf-a --write --lab"
    assert adopt["command"] in markdown and adopt["intent_yaml"] == "", "every line but the secret has an intent key"
    assert any("secret" in reason for reason in adopt["not_adoptable"])
    for text in (markdown, json.dumps(data), out):
        assert "$6$" not in text and lab.password not in text


def test_an_unreachable_device_fails_the_run_unless_it_is_allowed_as_a_finding(
    fleet: Fleet, restore: Callable[[str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    root, lab = fleet
    restore("spine02")
    lab.set_unreachable("spine02")
    args = ["drift", "--root", str(root), "--lab", "--devices", "spine01,spine02", "--report-dir", str(root / "r2")]
    code, out, err = fabricops(capsys, *args)
    assert code == 1 and "1 device(s) unreachable" in err
    assert re.search(r"spine02\s+unreachable\s+connection refused$", out, re.M), out
    assert re.search(r"spine01\s+in-sync", out)
    code, _, _ = fabricops(capsys, *args, "--allow-unreachable")
    assert code == 3, "a finding in the report, not a crash"


def test_shards_split_the_fleet_and_merge_into_the_full_report(
    fleet: Fleet, restore: Callable[[str], None], capsys: pytest.CaptureFixture[str]
) -> None:
    """CI matrix: three disjoint shards covering all devices, merged into one verdict.

    The lab also serves a device git does not know (in ``.lab/lab.json`` only): it is
    ``unmanaged`` in whichever shard its name falls.
    """
    root, lab = fleet
    restore("rack07-mgmt")  # also rewrites lab.json afterwards
    lab.tamper("rack07-mgmt", ["hostname rack07-mgmt-old"])
    write_lab_json(root, lab, extra={"rogue-switch": lab.endpoints()["spine03"]})
    dirs = []
    seen: list[str] = []
    for index in (1, 2, 3):
        out_dir = root / f"shard{index}"
        code, out, _ = fabricops(
            capsys, "drift", "--root", str(root), "--lab", "--shard", f"{index}/3", "--format", "json",
            "--report-dir", str(out_dir),
        )  # fmt: skip
        shard_devices = [d["device"] for d in json.loads(out)["devices"]]
        assert all(shard_of(name, 3) == index - 1 for name in shard_devices)
        assert code == (3 if {"rack07-mgmt", "rogue-switch"} & set(shard_devices) else 0)
        seen += shard_devices
        dirs.append(str(out_dir))
    assert sorted(seen) == sorted([*open_snapshot(root, "HEAD").hosts(), "rogue-switch"])
    code, out, _ = fabricops(capsys, "drift", "--merge", *dirs, "--report-dir", str(root / "merged"))
    assert code == 3
    merged = load_report(root / "merged")
    assert len(merged.devices) == 56 and merged.shards == ("1/3", "2/3", "3/3")
    assert [(d.device, d.status) for d in merged.devices if d.status != "in-sync"] == [
        ("rack07-mgmt", "drift"),
        ("rogue-switch", "unmanaged"),
    ]


def test_the_printed_rollback_command_brings_the_device_back_in_sync(
    fleet: Fleet, restore: Callable[[str], None], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, lab = fleet
    restore("rack08-leaf-a")
    lab.tamper("rack08-leaf-a", ["interface Ethernet1/7", "shutdown", "ntp server vrf MGMT 10.99.0.2"])
    monkeypatch.chdir(root)
    code, out, _ = fabricops(capsys, "drift", "--lab", "--devices", "rack08-leaf-a", "--format", "json")
    assert code == 3
    command = json.loads(out)["devices"][0]["revert"]
    assert shlex.split(command)[:2] == ["fabricops", "rollback"]
    code, _, err = fabricops(capsys, *shlex.split(command)[1:])
    assert code == 0, err
    code, out, _ = fabricops(capsys, "drift", "--lab", "--devices", "rack08-leaf-a")
    assert code == 0, out


def test_the_remediation_lines_restore_git_on_the_device(fleet: Fleet, restore: Callable[[str], None]) -> None:
    """The circle on the lab's own config engine: remediation merged through NAPALM gives no drift."""
    from core.secrets import load_values, resolve
    from lab.testing import napalm_driver

    root, lab = fleet
    restore("rack09-leaf-b")
    port = ["interface Ethernet2/1", "description HAND_EDIT", "switchport access vlan 4093"]
    unused_port = ["interface Ethernet30/1", "no shutdown"]
    lab.tamper("rack09-leaf-b", [*port, *unused_port, "vlan 999", "name TEMP", "ntp server vrf MGMT 10.99.0.3"])
    before = run_audit(root, lab=True, devices=["rack09-leaf-b"]).devices[0]
    assert before.status == "drift" and len(before.changes) == 5
    lines = "\n".join(before.remediation) + "\n"
    values = load_values(["admin_sha512"], lab_password=lab.password)
    with napalm_driver(lab, "rack09-leaf-b") as driver:
        driver.load_merge_candidate(config=resolve(lines, values))
        driver.commit_config()
    after = run_audit(root, lab=True, devices=["rack09-leaf-b"]).devices[0]
    assert (after.status, after.changes) == ("in-sync", ())
