"""Comparison and report helpers without a device: secrets, notes, adoption, shards, the docs table."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from core.configtree import Change
from core.platforms.versions import TABLE
from drift.audit import Audit, DeployTag, DeviceResult, shard_of
from drift.compare import compare_config
from drift.report import adoption, render_json, render_markdown, render_text, revert_command

DOCS = Path(__file__).resolve().parents[2] / "docs" / "drift.md"
GENERATED = "hostname a\nusername admin privilege 15 role network-admin secret sha512 <secret:admin_sha512>\n"
RUNNING = "hostname a\nusername admin privilege 15 role network-admin secret sha512 $6$device$hashXYZ\n"


def test_unknown_secret_is_a_note_not_drift() -> None:
    result = compare_config(GENERATED, RUNNING, values={}, key=b"k")
    assert result.changes == ()
    assert result.notes == (
        "username admin privilege 15 role network-admin secret sha512 <secret>: secret not compared (not set)",
    )


def test_known_secret_with_another_value_is_a_secret_change_that_prints_no_value() -> None:
    result = compare_config(GENERATED, RUNNING, values={"admin_sha512": "$6$git$reviewed"}, key=b"k")
    assert [c.kind for c in result.changes] == ["secret"]
    shown = [str(c) for c in result.changes] + list(result.remediation)
    assert not any("$6$" in line for line in shown)
    assert result.remediation == ("username admin privilege 15 role network-admin secret sha512 <secret:admin_sha512>",)


def _audit(*results: DeviceResult, tag: bool = True, lab: bool = False) -> Audit:
    deploy = DeployTag("deploy/20260101T000000Z", "c" * 40, "2026-01-01T00:00:00+00:00") if tag else None
    return Audit("deploy/20260101T000000Z" if tag else "HEAD", "c" * 40, deploy, lab, "t", 1.0, results)


def test_revert_uses_the_tag_or_a_deploy_of_the_commit() -> None:
    assert revert_command(_audit(lab=True), "leaf1") == (
        "fabricops rollback --to deploy/20260101T000000Z --devices leaf1 --lab"
    )
    assert revert_command(_audit(tag=False), "leaf1") == f"fabricops deploy --ref {'c' * 40} --devices leaf1"


def test_adoption_puts_each_change_under_its_section_as_valid_yaml() -> None:
    result = DeviceResult(
        "leaf1",
        "drifted",
        (
            Change(("interface Ethernet7",), "removed", "shutdown"),
            Change(("interface Ethernet5",), "changed", "switchport access vlan 200", "switchport access vlan 100"),
            Change((), "added", "vlan 999", block=("   name TEMP",)),
            Change(("ip access-list A",), "order", "ip access-list A"),
        ),
    )
    adopt = adoption(result)
    assert yaml.safe_load(adopt.yaml("leaf1")) == {
        "extra_config": {
            "leaf1": "interface Ethernet7\n   no shutdown\ninterface Ethernet5\n   switchport access vlan 200\n"
            "vlan 999\n   name TEMP\n"
        }
    }
    assert adopt.fields == ("port_overrides.leaf1.Ethernet7.shutdown", "port_overrides.leaf1.Ethernet5.vlan")
    assert len(adopt.not_adoptable) == 1 and "order" in adopt.not_adoptable[0]


def test_every_format_names_each_device_and_the_verdicts() -> None:
    audit = _audit(
        DeviceResult("leaf1", "drifted", (Change((), "added", "ntp server 10.0.0.9"),)),
        DeviceResult("leaf2", "unreachable", error="ConnectionRefusedError"),
        DeviceResult("leaf3", "in-sync", notes=("username admin <secret>: secret not compared (not set)",)),
    )
    data = render_json(audit)
    assert data["summary"] == {"in-sync": 1, "drifted": 1, "unreachable": 1, "unmanaged": 0}
    assert data["exit_code"] == 1 and audit.exit_code(allow_unreachable=True) == 3
    markdown, text = render_markdown(audit), render_text(audit)
    assert "| leaf2 | unreachable | ConnectionRefusedError |" in markdown
    assert "* leaf3: username admin <secret>: secret not compared (not set)" in markdown
    assert re.search(r"^leaf3\s+in-sync$", text, re.M) and "secret not compared (not set)" in text


def test_shards_are_a_partition_stable_under_additions() -> None:
    names = [f"rack{r:02d}-leaf-{s}" for r in range(1, 40) for s in "ab"]
    before = {n: shard_of(n, 4) for n in names}
    after = {n: shard_of(n, 4) for n in [*names, "spine99"]}
    assert all(after[n] == before[n] for n in names)
    assert set(before.values()) == {0, 1, 2, 3}


def test_docs_list_every_line_of_the_defaults_table() -> None:
    """docs/drift.md and core/platforms/eos.yaml must not drift apart."""
    rows = [line for line in DOCS.read_text().splitlines() if line.startswith("| ")]
    for entry in yaml.safe_load(TABLE.read_text())["eos"]:
        for item in entry.get("prints", ()):
            first = item["text"].splitlines()[0]
            assert any(f"`{first}`" in row and row.endswith(f"| {item['why']} |") for row in rows), item
        for item in entry.get("hides", ()):
            example = re.sub(r"[$()]", "", item["line"]).split("|")[0]
            assert any(f"`{example}" in row and row.endswith(f"| {item['why']} |") for row in rows), item


def test_drift_imports_neither_deploy_nor_compiler() -> None:
    """drift stands beside deploy on core/, and reads generated/, never the compiler's model."""
    sources = [*(Path(__file__).resolve().parents[2] / "drift").glob("*.py")]
    assert sources
    for path in sources:
        imports = re.findall(r"^\s*(?:from|import) (\w+)", path.read_text(), re.M)
        assert not {"deploy", "compiler"} & set(imports), path
