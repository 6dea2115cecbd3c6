"""The drift report without a device: the ways out per state, every format, the CI issue plan, merges."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from core.configtree import Change
from drift.audit import Audit, Deployed, DeviceResult, merge_audits
from drift.report import (
    adoption,
    apply_command,
    audit_topology,
    issue_marker,
    issue_plan,
    render_json,
    render_markdown,
    render_text,
    revert_command,
    write_reports,
)
from tests.conftest import git
from tests.mermaid import parsed

INTENDED = "c" * 40
TAGGED = Deployed(
    "a" * 40, tag="deploy/20260101T000000Z", verified="2026-01-01T00:00:00Z", run="deploy 20260101T000000Z"
)
UNTAGGED = Deployed("b" * 40, verified="2026-01-02T00:00:00Z", run="rollback 20260102T000000Z", by="alice@ops1")
RESTORED = Deployed("", backup="backups/leaf1/20260103T000000Z.cfg", run="restore 20260103T000000Z")
EDIT = Change(("interface Ethernet5",), "changed", "description moved-by-hand", "description SERVER")
MERGED = Change(("interface Ethernet30",), "removed", "description RESERVED")


def _audit(*results: DeviceResult, lab: bool = False) -> Audit:
    return Audit("HEAD", INTENDED, lab, "2026-01-04T00:00:00Z", 1.0, results)


def test_the_revert_restores_the_last_deployed_config_never_an_older_one() -> None:
    """Its fleet version when it has one, else its commit, else the backup it was restored to."""
    audit = _audit(lab=True)
    assert revert_command(audit, DeviceResult("leaf1", "drift", (EDIT,), deployed=TAGGED)) == (
        "fabricops rollback --to deploy/20260101T000000Z --devices leaf1 --lab"
    )
    assert revert_command(audit, DeviceResult("leaf1", "drift", (EDIT,), deployed=UNTAGGED)) == (
        f"fabricops rollback --to {'b' * 40} --devices leaf1 --lab"
    )
    assert revert_command(audit, DeviceResult("leaf1", "drift", (EDIT,), deployed=RESTORED)) == (
        "fabricops rollback --to-backup leaf1@20260103T000000Z --lab"
    )


def test_a_pending_device_gets_the_deploy_not_a_revert() -> None:
    pending = DeviceResult("leaf1", "pending", (), (MERGED,), deployed=TAGGED)
    both = DeviceResult("leaf2", "drift+pending", (EDIT,), (MERGED,), deployed=TAGGED)
    data = render_json(_audit(pending, both))
    first, second = data["devices"]
    assert "revert" not in first and first["apply"] == "fabricops deploy --devices leaf1"
    assert second["revert"] == "fabricops rollback --to deploy/20260101T000000Z --devices leaf2"
    assert second["apply"] == "fabricops deploy --devices leaf2"
    assert [c["line"] for c in second["changes"]] == ["description moved-by-hand"], "the drift, not the merged change"
    text = render_text(_audit(pending, both))
    assert "pending: interface Ethernet30: deploy adds 'description RESERVED'" in text
    assert apply_command(Audit("origin/main", INTENDED, False, "t", 1.0, ()), pending) == (
        "fabricops deploy --ref origin/main --devices leaf1"
    )


def test_every_format_names_each_device_and_its_state() -> None:
    audit = _audit(
        DeviceResult("leaf1", "drift", (Change((), "added", "ip name-server vrf MGMT 10.0.0.9"),), deployed=UNTAGGED),
        DeviceResult("leaf2", "unreachable", error="authentication failed"),
        DeviceResult("leaf3", "in-sync", notes=("username admin <secret>: secret not compared (not set)",)),
        DeviceResult("rogue", "unmanaged", error="an LLDP neighbour of leaf1, unknown to git", seen_by=("leaf1 Et33",)),
    )
    data = render_json(audit)
    assert data["summary"] == {
        "in-sync": 1,
        "pending": 0,
        "drift": 1,
        "drift+pending": 0,
        "unreachable": 1,
        "unmanaged": 1,
    }
    assert data["exit_code"] == 1 and audit.exit_code(allow_unreachable=True) == 3
    markdown, text = render_markdown(audit), render_text(audit)
    assert "| leaf2 | unreachable | authentication failed |" in markdown
    assert "Who: last deployed by rollback 20260102T000000Z at 2026-01-02T00:00:00Z by alice@ops1" in markdown
    assert "* seen by LLDP from leaf1 Et33" in markdown
    assert "* leaf3: username admin <secret>: secret not compared (not set)" in markdown
    assert re.search(r"^leaf3\s+in-sync$", text, re.M) and "secret not compared (not set)" in text


def test_the_issue_plan_opens_closes_or_keeps_one_issue_per_device_by_its_marker() -> None:
    """Drift and unmanaged switches get an issue; in sync and pending close it; unreachable keeps it."""
    audit = _audit(
        DeviceResult("leaf1", "drift", (EDIT,), deployed=TAGGED),
        DeviceResult("leaf2", "pending", (), (MERGED,), deployed=TAGGED),
        DeviceResult("leaf3", "unreachable", error="authentication failed"),
        DeviceResult("leaf4", "in-sync"),
        DeviceResult("rogue", "unmanaged", error="in the inventory without a generated config"),
    )
    plan = {entry["device"]: entry for entry in issue_plan(audit)}
    assert {d: e["action"] for d, e in plan.items()} == {
        "leaf1": "open",
        "leaf2": "close",
        "leaf3": "keep",
        "leaf4": "close",
        "rogue": "open",
    }
    assert plan["leaf1"]["body"].startswith(issue_marker("leaf1") + "\n")
    assert "fabricops rollback --to deploy/20260101T000000Z --devices leaf1" in plan["leaf1"]["body"]
    assert plan["rogue"]["title"] == "unmanaged switch: rogue" and plan["leaf1"]["title"] == "drift: leaf1"
    assert plan["leaf2"]["body"] == "", "a closed issue gets no new body"


def test_merging_shards_joins_an_unmanaged_switch_and_names_missing_shards() -> None:
    rogue = DeviceResult("rogue", "unmanaged", error="x", seen_by=("leaf1 Ethernet33",))
    one = Audit("HEAD", INTENDED, True, "t1", 1.0, (DeviceResult("leaf1", "in-sync"), rogue), ("1/3",))
    two = Audit(
        "HEAD",
        INTENDED,
        True,
        "t2",
        1.0,
        (DeviceResult("leaf2", "in-sync"), DeviceResult("rogue", "unmanaged", seen_by=("leaf2 Ethernet33",))),
        ("2/3",),
    )
    merged = merge_audits([one, two])
    assert [d.device for d in merged.devices] == ["leaf1", "leaf2", "rogue"]
    assert merged.devices[2].seen_by == ("leaf1 Ethernet33", "leaf2 Ethernet33")
    assert merged.missing_shards() == ["3/3"] and merged.exit_code() == 3
    assert "**Not audited**: shard(s) 3/3 left no report" in render_markdown(merged)


def test_adoption_names_the_intent_key_and_puts_the_rest_under_its_section_as_valid_yaml() -> None:
    result = DeviceResult(
        "leaf1",
        "drift",
        (
            Change(("interface Ethernet7",), "removed", "shutdown"),
            Change(("interface Ethernet5",), "changed", "switchport access vlan 200", "switchport access vlan 100"),
            Change((), "added", "vlan 999", block=("   name TEMP",)),
            Change((), "added", "ip access-list TEMP", block=("   10 permit ip any any",)),
            Change(("ip access-list A",), "order", "ip access-list A"),
        ),
    )
    adopt = adoption(result)
    acl = "ip access-list TEMP\n   10 permit ip any any\n"
    assert yaml.safe_load(adopt.yaml("leaf1")) == {"extra_config": {"leaf1": acl}}
    assert adopt.fields == (
        "ports.yaml: ports.leaf1.Ethernet7.shutdown",
        "vlans.yaml: vlans.<VLAN 200>.access",
        "vlans.yaml: vlans.<name>",
    )
    everything = adoption(result, structured=False)
    assert yaml.safe_load(everything.yaml("leaf1")) == {
        "extra_config": {
            "leaf1": "interface Ethernet7\n   no shutdown\ninterface Ethernet5\n   switchport access vlan 200\n"
            "vlan 999\n   name TEMP\n" + acl
        }
    }
    assert len(adopt.not_adoptable) == 1 and "order" in adopt.not_adoptable[0]


@pytest.mark.e2e  # every map parsed by Mermaid under node
def test_the_report_and_each_issue_draw_the_devices_not_in_sync_on_the_map(example_repo: Path, tmp_path: Path) -> None:
    """Over the example's cabling at the audited commit: each state its colour, an unmanaged switch
    where LLDP saw it, in-sync neighbours grey (a pending spine's 22 leaves as one box); an issue
    draws the map around its own device."""
    commit = git(example_repo, "rev-parse", "HEAD").strip()
    audit = Audit(
        "HEAD",
        commit,
        False,
        "2026-01-04T00:00:00Z",
        1.0,
        (
            DeviceResult("rack03-leaf-a", "drift", (EDIT,), deployed=TAGGED),
            DeviceResult("rack03-leaf-b", "unreachable", error="connection refused"),
            DeviceResult("rack03-mgmt", "in-sync"),
            DeviceResult("spine01", "pending", (), (MERGED,), deployed=TAGGED),
            DeviceResult("rogue", "unmanaged", error="an LLDP neighbour", seen_by=("rack05-leaf-a Ethernet40",)),
        ),
    )
    written = write_reports(audit, tmp_path / "out", example_repo, audit_topology(audit, example_repo))
    report = (written / "report.md").read_text()
    diagram = parsed(report)
    boxes = {v["id"]: v["classes"] for v in diagram["vertices"]}
    assert boxes["n_rack03_leaf_a"] == ["drift"] and boxes["n_rack03_leaf_b"] == ["unreachable"]
    assert boxes["n_spine01"] == ["pending"] and boxes["n_rogue"] == ["unmanaged"]
    leaves = next(v for v in diagram["vertices"] if v["id"] == "n_group_compute_leaf")
    assert leaves["text"] == "22 compute leaves<br>of rack01-02, rack04-12" and leaves["classes"] == ["neighbour"]
    assert {(e["start"], e["end"]) for e in diagram["edges"]} >= {("n_group_compute_leaf", "n_rogue")}
    assert len(boxes) <= 12
    assert report.index("## Map") < report.index("## rack03-leaf-a: drift")
    plan = {entry["device"]: entry for entry in json.loads((written / "issues.json").read_text())}
    around = parsed(plan["rack03-leaf-a"]["body"])
    assert {v["id"]: v["classes"] for v in around["vertices"]}["n_rack03_leaf_b"] == ["unreachable"]
    assert {v["id"] for v in parsed(plan["rogue"]["body"])["vertices"]} == {"n_rogue", "n_rack05_leaf_a"}
    assert audit_topology(replace(audit, commit="f" * 40), example_repo) is None, "a commit git lacks: no map"


def test_a_line_holding_a_secret_is_never_proposed_as_an_intent_edit() -> None:
    """The report sees a device's secrets masked; pasted into extra_config, EOS would reject the
    line (or worse, set the mask as the secret): the report names the secret and the store instead."""
    result = DeviceResult(
        "leaf1",
        "drift",
        (
            Change((), "added", "snmp-server community <secret> ro"),
            Change(("router bgp 65001",), "added", "neighbor 10.0.0.9 password 7 <masked:a4357527c66193cc>"),
            Change(
                (),
                "added",
                "router ospf 9",
                block=("   interface Ethernet1", "   ip ospf authentication-key 7 <secret>"),
            ),
            Change((), "changed", "username bob privilege 1 secret sha512 <secret>", "username bob privilege 15"),
            Change((), "added", "ip name-server vrf MGMT 10.0.0.9"),
        ),
        deployed=TAGGED,
    )
    adopt = adoption(result)
    assert adopt.extra_config == "ip name-server vrf MGMT 10.0.0.9\n"
    assert [n.split(" (a ")[1].split(" the device")[0] for n in adopt.not_adoptable] == [
        "SNMP community",
        "BGP password, typed password or key",
        "OSPF key",
        "user secret",
    ]
    assert all("secret store" in n and "<secret:NAME>" in n for n in adopt.not_adoptable)
    audit = _audit(result)
    text, markdown = render_text(audit), render_markdown(audit)
    keep = yaml.safe_load(render_json(audit)["devices"][0]["adopt"]["intent_yaml"])
    assert keep == {"extra_config": {"leaf1": "ip name-server vrf MGMT 10.0.0.9\n"}}
    assert "    not adoptable: (top level): snmp-server community <secret> ro (a SNMP community" in text
    snippet = markdown.split("```yaml\n")[1].split("```")[0]
    assert "<secret>" not in snippet and "<masked:" not in snippet
