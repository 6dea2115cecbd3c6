"""The artifacts around the switch configs: golden files, agreement with the configs, bad intent."""

from __future__ import annotations

import csv
import functools
import importlib
import io
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from compiler.artifacts.site import site_artifacts
from compiler.checks import RULES, run_checks
from compiler.fabric import resolve
from compiler.intent import load_intent
from core.errors import IntentError

Edit = Callable[[str, str, str], None]
GOLDEN = Path(__file__).parent / "golden"

# (variant, generated path): a server of each kind, one table of each artifact, one rules file per role
GOLDEN_CASES = [
    ("", "servers/rack01-gpu001/NetworkManager/system-connections/compute-enp65s0f0.nmconnection"),
    ("", "servers/rack01-gpu001/NetworkManager/system-connections/compute-enp193s0f0.nmconnection"),
    ("", "servers/rack01-gpu002/NetworkManager/system-connections/bond1.nmconnection"),
    ("", "servers/rack01-gpu002/NetworkManager/system-connections/bond1-enp66s0f1.nmconnection"),
    ("", "servers/rack01-gpu001/NetworkManager/system-connections/management-eno1.nmconnection"),
    ("", "servers/rack01-gpu001/fstab"),
    ("", "servers/rack01-gpu001/setup-host.sh"),
    ("", "servers/rack01-gpu001/verify.sh"),
    ("", "servers/rack14-stor002/setup-host.sh"),
    ("ifcfg", "servers/rack01-gpu001/network-scripts/ifcfg-bond1"),
    ("ifcfg", "servers/rack01-gpu001/network-scripts/route-bond1"),
    ("ifcfg", "servers/rack01-gpu001/network-scripts/ifcfg-enp66s0f0"),
    ("ifcfg", "servers/rack01-gpu001/network-scripts/ifcfg-enp65s0f0"),
    ("ifcfg", "servers/rack01-gpu001/network-scripts/route-enp193s0f0"),
    ("ifcfg", "servers/rack01-gpu001/network-scripts/rule-enp193s0f0"),
    ("ifcfg", "servers/rack01-gpu001/network-scripts/ifcfg-eno1"),
    ("", "inventory/cabling.csv"),
    ("", "inventory/cabling.md"),
    ("", "inventory/ip-plan.csv"),
    ("", "inventory/ip-plan.md"),
    ("", "inventory/power.csv"),
    ("", "inventory/assets.csv"),
    ("", "monitoring/rules/rack01-leaf-a.rules.yaml"),
    ("", "monitoring/rules/spine01.rules.yaml"),
    ("", "monitoring/expected-counters.yaml"),
    ("", "monitoring/gnmic.yaml"),
    ("", "validation/link-tests.csv"),
    ("", "validation/nccl/hosts-010.txt"),
    ("", "validation/nccl/run.sh"),
    ("", "validation/runbook.md"),
    ("", "docs/fabric.md"),
    ("", "docs/compute-fabric.svg"),
]
VARIANTS = {"": [], "ifcfg": [("fabric.yaml", "  format: networkmanager", "  format: ifcfg")]}


def _files(project: Path, edits: list[tuple[str, str, str]] = ()) -> dict[str, str]:  # type: ignore[assignment]
    for filename, old, new in edits:
        path = project / "intent" / filename
        path.write_text(path.read_text().replace(old, new, 1))
    intent = load_intent(project / "intent")
    return site_artifacts(intent, resolve(intent))


@pytest.fixture(scope="module", autouse=True)
def power_rules() -> Iterator[None]:
    """Register PWR001-PWR004 and CAB001 for this module only, until the rules package imports them.

    Leaving them registered would make other modules' registry tests see undocumented rules.
    """
    if "PWR001" in RULES:
        yield
        return
    importlib.import_module("compiler.checks.rules.power")
    yield
    for rule_id in ("PWR001", "PWR002", "PWR003", "PWR004", "CAB001"):
        RULES.pop(rule_id, None)
    sys.modules.pop("compiler.checks.rules.power", None)


@pytest.fixture(scope="module")
def example() -> dict[str, str]:
    intent = load_intent(Path("intent"))
    return site_artifacts(intent, resolve(intent))


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], dict[str, str]]:
    """``variants(name)``: the artifacts of one variant of the example, computed once per module
    (artifacts are a pure function of the intent)."""
    from tests.conftest import EXAMPLE_INTENT

    @functools.cache
    def files(variant: str) -> dict[str, str]:
        project = tmp_path_factory.mktemp(f"variant-{variant or 'default'}")
        shutil.copytree(EXAMPLE_INTENT, project / "intent")
        return _files(project, VARIANTS[variant])

    return files


@pytest.mark.parametrize(("variant", "path"), GOLDEN_CASES, ids=[f"{v or 'default'}:{p}" for v, p in GOLDEN_CASES])
def test_golden(variants: Callable[[str], dict[str, str]], variant: str, path: str) -> None:
    """Each artifact equals its golden file byte for byte (UPDATE_GOLDEN=1 rewrites them)."""
    text = variants(variant)[path]
    golden = GOLDEN / (variant or "default") / path
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
    assert text == golden.read_text()


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _descriptions(config: str) -> dict[str, str]:
    """interface -> description of a rendered EOS config."""
    out: dict[str, str] = {}
    for block in config.split("\ninterface ")[1:]:
        name, _, body = block.partition("\n")
        match = re.search(r"^   description (.+)$", body, re.MULTILINE)
        out[name] = match.group(1) if match else ""
    return out


def test_every_cable_end_exists_with_a_matching_description(example: dict[str, str]) -> None:
    """Switch ends are configured interfaces whose description names the far end; server ends are NICs in its files."""
    from compiler.pipeline import compile_intent

    configs = {p: d.decode() for p, d in compile_intent(Path("intent")).files.items() if p.startswith("configs/")}
    descriptions = {p[len("configs/") : -len(".cfg")]: _descriptions(t) for p, t in configs.items()}
    rows = _rows(example["inventory/cabling.csv"])
    assert rows and list(rows[0])[:4] == ["a_device", "a_port", "b_device", "b_port"]
    for row in rows:
        for near, port_column, far in (("a_device", "a_port", "b_device"), ("b_device", "b_port", "a_device")):
            device, port = row[near], row[port_column]
            if device in descriptions:
                if port.startswith("Management"):
                    continue  # the out-of-band port: its address is in the inventory, not an interface block
                assert port in descriptions[device], f"{device} has no {port}"
                far_name = row[far]
                assert far_name in descriptions[device][port] or descriptions[device][port].startswith("MLAG_PEER"), row
            else:
                server_files = "".join(t for p, t in example.items() if p.startswith(f"servers/{device}/"))
                assert f"interface-name={port}" in server_files, f"{device} {port} missing from its files"
        assert (
            "NONE" not in (row["a_optic"], row["b_optic"])
            and row["a_label"].startswith(f"{row['a_device']} ")
            and row["b_label"].startswith(f"{row['b_device']} ")
        )


def test_every_server_address_of_the_ip_plan_is_in_its_files(example: dict[str, str]) -> None:
    rows = [
        r
        for r in _rows(example["inventory/ip-plan.csv"])
        if r["purpose"] in {"storage bond", "server management"} or r["purpose"].startswith("compute NIC ")
    ]
    assert len(rows) == 2 * 108 + 112 + 112
    for row in rows:
        files = "".join(t for p, t in example.items() if p.startswith(f"servers/{row['owner']}/"))
        assert f"address1={row['prefix']}" in files, row


def test_every_alert_names_an_existing_device_and_port(example: dict[str, str]) -> None:
    """promtool's structure; every device label is a switch; every port in a rule is a configured interface."""
    intent = load_intent(Path("intent"))
    fabric = resolve(intent)
    rule_files = {p: t for p, t in example.items() if p.startswith("monitoring/rules/")}
    assert len(rule_files) == len(fabric.devices)
    for path, text in rule_files.items():
        doc = yaml.safe_load(text)
        assert set(doc) == {"groups"}
        for group in doc["groups"]:
            assert set(group) == {"name", "rules"}
            for rule in group["rules"]:
                assert set(rule) == {"alert", "expr", "for", "labels", "annotations"}, rule
                device = fabric.devices[rule["labels"]["device"]]
                names = {i.name for i in device.config.interfaces}
                port_labels = r"(?:interface_name|interface_interface_id|component_name)"
                ports = re.findall(port_labels + r'=~?"([^"]+)"', rule["expr"])
                assert ports, rule["expr"]
                for port in "|".join(ports).split("|"):
                    assert port in names, f"{path}: {port} is not an interface of {device.name}"
                if "{{" not in rule["labels"]["port"]:
                    assert rule["labels"]["port"] in names


def test_rollout_stages_grow(example: dict[str, str]) -> None:
    sizes = [len(example[f"validation/nccl/hosts-{s}.txt"].splitlines()) for s in ("002", "010", "050", "all")]
    assert sizes == [2, 10, 50, 108]
    assert "all_reduce_perf -b 128M -e 8G -f 2 -g 8" in example["validation/nccl/run.sh"]


def _findings(project: Path, rule: str) -> list[str]:
    intent = load_intent(project / "intent")
    return [f.line() for f in run_checks(intent, resolve(intent)) if f.rule == rule]


def test_rack_over_its_pdu_is_an_error(project: Path, edit: Edit) -> None:
    edit("racks.yaml", "{id: 3, row: A, position: 3, pdu_kw: 70", "{id: 3, row: A, position: 3, pdu_kw: 55")
    lines = _findings(project, "PWR001")
    assert lines == [
        "error PWR001 [C9] rack03: draws 59.491 kW (108%) of its 55 kW PDU with 12 devices "
        "(largest rack03-gpu001 6500 W): move servers to another rack or raise pdu_kw in racks.yaml; "
        "typical draw of DCS-7060DX5-32 is an estimate (docs/hardware.md)"
    ]


def test_rack_near_its_pdu_is_a_warning(project: Path, edit: Edit) -> None:
    edit("racks.yaml", "{id: 3, row: A, position: 3, pdu_kw: 70", "{id: 3, row: A, position: 3, pdu_kw: 64")
    assert [line.split(":")[0] for line in _findings(project, "PWR002")] == ["warning PWR002 [C9] rack03"]
    assert not _findings(project, "PWR001")


def test_row_over_cooling_is_an_error(project: Path, edit: Edit) -> None:
    edit("racks.yaml", "  A: {cooling_kw: 420", "  A: {cooling_kw: 300")
    lines = _findings(project, "PWR003")
    assert (
        len(lines) == 1
        and "row A: racks 1, 2, 3, 4, 5, 6 draw 357.986 kW (119%) of the row's 300 kW cooling" in lines[0]
    )


def test_the_example_is_within_every_budget(project: Path) -> None:
    assert not any(_findings(project, r) for r in ("PWR001", "PWR002", "PWR003", "PWR004", "CAB001"))


def test_cable_beyond_every_optic_is_an_error(project: Path, edit: Edit) -> None:
    """Row C 12 km from row A: the spine uplinks exceed every 400G optic; the message says what to move."""
    edit("fabric.yaml", "  row_pitch_m: 3.0", "  row_pitch_m: 6000")
    lines = _findings(project, "CAB001")
    assert lines
    assert (
        "error CAB001 [C8] rack01-leaf-a Ethernet25/1: cable to spine01 Ethernet1/1 is 12006 m, "
        "beyond every 400g optic (longest reach 10000 m)" in "\n".join(lines)
    )
    assert (
        "error CAB001 [C8] rack01-mgmt Ethernet49: cable to mgmt-core01 Ethernet1/1 is 12006 m, "
        "beyond every 25g breakout optic (longest reach 500 m)" in "\n".join(lines)
    )


def test_long_runs_get_single_mode_optics(project: Path, edit: Edit) -> None:
    """C8: > 100 m is single-mode, the same optic type at both ends; a 4x25G lane of the core at
    that length takes a PSM4 fan-out to a 25G-LR at the rack switch."""
    edit("fabric.yaml", "  row_pitch_m: 3.0", "  row_pitch_m: 60")
    rows = _rows(_files(project)["inventory/cabling.csv"])
    uplink = next(r for r in rows if r["a_device"] == "rack01-leaf-a" and r["a_port"] == "Ethernet25/1")
    assert (uplink["length_m"], uplink["a_optic"], uplink["b_optic"], uplink["media"]) == (
        "126",
        "400GBASE-DR4",
        "400GBASE-DR4",
        "singlemode",
    )
    rack = next(r for r in rows if r["a_device"] == "rack01-mgmt" and r["a_port"] == "Ethernet49")
    assert (rack["a_optic"], rack["b_optic"]) == ("25GBASE-LR", "100G-PSM4")
    assert all(r["media"] in ("multimode", "copper") for r in rows if float(r["length_m"]) <= 100)


def test_rack_row_without_capacity_is_an_intent_error(project: Path, edit: Edit) -> None:
    edit("racks.yaml", "{id: 14, row: C,", "{id: 14, row: D,")
    with pytest.raises(IntentError) as caught:
        load_intent(project / "intent")
    (problem,) = caught.value.problems
    assert problem.endswith("racks.yaml:16: racks[13].row: row 'D' has no entry under rows: (declared: A, B, C)")


def test_lustre_and_gpfs_follow_the_intent(project: Path, edit: Edit) -> None:
    """Lustre mounts where the intent names the kind; a GPFS block adds a join script to GPU servers only."""
    edit(
        "fabric.yaml",
        "  lustre:\n",
        "  gpfs:\n    - {name: home, cluster: gpfs1.example, device: home, mount: /gpfs/home,"
        " contact_nodes: [rack14-stor004]}\n  lustre:\n",
    )
    files = _files(project)
    assert "lustre" in files["servers/rack02-gpu005/fstab"] and "lustre" not in files.get(
        "servers/rack14-stor001/fstab", ""
    )
    assert "mmaddnode -N rack02-gpu005" in files["servers/rack02-gpu005/gpfs-join.sh"]
    assert "servers/rack14-stor001/gpfs-join.sh" not in files


def test_why_these_defaults_agrees_with_the_hardening_page(example: dict[str, str]) -> None:
    """docs/fabric.md's "Why these defaults" and docs/hardening.md name the same settings and rules."""
    from compiler.artifacts.why import default_rows

    intent = load_intent(Path("intent"))
    rows = default_rows(intent, resolve(intent))
    page = (Path(__file__).resolve().parents[3] / "docs" / "hardening.md").read_text()
    headings = set(re.findall(r"^### (.+)$", page, re.MULTILINE))
    assert {setting for setting, _, _, _ in rows} <= headings
    for _, _, _, rules in rows:
        for rule_id in rules.split(", "):
            assert rule_id in page, f"docs/hardening.md does not name {rule_id}"
    assert "## Why these defaults" in example["docs/fabric.md"]
    assert all(f"| {setting} | {value} |" in example["docs/fabric.md"] for setting, value, _, _ in rows)
