"""Comparison helpers without a device: secrets, notes, shards, the docs table."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from core.platforms.versions import TABLE
from drift.audit import shard_of
from drift.compare import compare_config

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
