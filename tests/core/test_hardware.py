"""The switch model catalog: names as real EOS gives them, breakouts, matching, planning inputs."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from netutils.interface import sort_interface_list

from core.errors import FabricopsError
from core.hardware import (
    VlanRange,
    capacity,
    catalog,
    internal_vlan_problems,
    internal_vlan_range,
    load_catalog,
    match_model,
    model,
    models,
    optic_for,
    port_budget,
    same_model,
    sort_interfaces,
)
from core.hardware.catalog import DATA

#: The ``interface`` lines of the real hardware captures (shared/eos-captures), one file per model.
CAPTURED = Path(__file__).resolve().parent / "fixtures" / "ports"


def _stanzas(model_id: str) -> list[str]:
    lines = (CAPTURED / f"{model_id}.txt").read_text().splitlines()
    return [line.split()[1] for line in lines if line.startswith("interface ")]


@pytest.mark.parametrize("model_id", ["DCS-7060CX-32S", "DCS-7280SR2K-48C6-M"])
def test_every_port_of_a_captured_switch_is_a_catalog_name_and_none_is_missing(model_id: str) -> None:
    """A physical switch prints a stanza for every port: the catalog must give exactly those names."""
    stanzas = _stanzas(model_id)
    found = model(model_id)
    assert [name for name in stanzas if name.startswith("Ethernet")] == found.interface_names(), "same names and order"
    for name in stanzas:
        assert found.has_interface(name), name
    assert [name for name in stanzas if name.startswith("Management")] == list(found.management)


def test_the_catalog_holds_the_classes_the_fabrics_need() -> None:
    """A 400G fixed spine, a chassis, a GPU leaf, a 25G storage leaf, a 1G management switch, a core."""
    ids = models()
    assert {"DCS-7060DX5-64S", "DCS-7804-CH", "DCS-7060DX5-32", "DCS-7050SX3-48YC8"} <= set(ids)
    assert {"DCS-7010TX-48", "DCS-7280CR3-32P4", "DCS-7060CX-32S", "DCS-7280SR2K-48C6-M"} <= set(ids)
    speeds = {m: {p.default_mode.speed for p in model(m).ports} for m in ids}
    assert "400g" in speeds["DCS-7060DX5-64S"] and "400g" in speeds["DCS-7804-CH"]
    assert speeds["DCS-7050SX3-48YC8"] == {"25g", "100g"}
    assert "1g" in speeds["DCS-7010TX-48"]


@pytest.mark.parametrize("model_id", models())
def test_every_model_is_complete_cited_and_honest_about_its_figures(model_id: str) -> None:
    """Names unique and sorted, sources given, and an unconfirmed power figure is marked uncertain."""
    found = model(model_id)
    names = found.interface_names()
    assert names and len(names) == len(set(names))
    assert names == sort_interfaces(reversed(names))
    assert set(names) <= set(found.all_interface_names())
    assert found.sources, "every model cites where its facts come from"
    assert found.queue in ("uc-tx-queue", "tx-queue")
    assert found.rack_units >= 1 and 0 < found.power.typical_w <= found.power.max_w
    if not found.base_power.certain:
        assert any("power" in note for note in found.uncertain), "say which figure is an estimate"
    for name in names:
        assert found.interface(name).active_by_default


def test_the_sort_is_netutils_order_on_every_model_of_the_catalog() -> None:
    """``sort_interfaces`` is a sort key standing in for netutils' ``sort_interface_list`` (its
    tree cost a tenth of a resolve at scale): both give one order for every name of every model,
    shuffled, with the logical interfaces a switch also prints."""
    rng = random.Random(18)
    for model_id in models():
        names = [*model(model_id).all_interface_names(), "Port-Channel10", "Port-Channel9", "Vlan4094", "Loopback0"]
        rng.shuffle(names)
        assert sort_interfaces(names) == sort_interface_list(names), model_id


def test_eos_order_is_numeric_per_slot_port_and_lane() -> None:
    names = ["Ethernet10/1", "Ethernet2/1", "Ethernet1/2", "Ethernet1/1", "Ethernet3/10/1", "Ethernet3/2/1"]
    assert sort_interfaces(names) == [
        "Ethernet1/1",
        "Ethernet1/2",
        "Ethernet2/1",
        "Ethernet3/2/1",
        "Ethernet3/10/1",
        "Ethernet10/1",
    ]


def test_a_400g_cage_breaks_out_on_the_lanes_eos_uses() -> None:
    spine = model("DCS-7060DX5-64S")

    def names(mode: str) -> list[tuple[str, str]]:
        return [(i.name, i.keyword) for i in spine.breakout("Ethernet5/1", mode).interfaces]

    assert names("1x400g") == [("Ethernet5/1", "400g-8")]
    assert names("2x200g") == [("Ethernet5/1", "200g-4"), ("Ethernet5/5", "200g-4")]
    assert [n for n, _ in names("4x100g")] == ["Ethernet5/1", "Ethernet5/3", "Ethernet5/5", "Ethernet5/7"]
    assert {k for _, k in names("4x100g")} == {"100g-2"}
    assert [n for n, _ in names("8x50g")] == [f"Ethernet5/{lane}" for lane in range(1, 9)]
    assert spine.active_interfaces({"5": "4x100g"})[4:8] == ["Ethernet5/1", "Ethernet5/3", "Ethernet5/5", "Ethernet5/7"]
    with pytest.raises(FabricopsError, match=r"Ethernet5/1: no breakout '3x100g'.*allowed: 1x400g, 2x200g"):
        spine.breakout(5, "3x100g")
    with pytest.raises(FabricopsError, match="no breakout '4x25g'"):
        spine.breakout("Ethernet65", "4x25g")


def test_a_gearbox_pair_loses_its_second_cage_to_a_full_breakout_of_the_first() -> None:
    core = model("DCS-7280CR3-32P4")
    broken = core.breakout(3, "4x10g")
    assert [i.name for i in broken.interfaces] == ["Ethernet3/1", "Ethernet3/2", "Ethernet3/3", "Ethernet3/4"]
    assert broken.absent == ("Ethernet4/1", "Ethernet4/2", "Ethernet4/3", "Ethernet4/4")
    active = core.active_interfaces({"3": "4x10g"})
    assert "Ethernet4/1" not in active and "Ethernet3/4" in active and len(active) == 36 + 3 - 1
    assert core.breakout(3, "2x50g").absent == ()
    with pytest.raises(FabricopsError, match="Ethernet4/1: no breakout '4x10g'"):
        core.breakout(4, "4x10g")


def test_show_version_models_match_their_base_model() -> None:
    assert match_model("DCS-7060DX5-64S-F") is model("DCS-7060DX5-64S")
    assert match_model("DCS-7280SR2K-48C6-M-R") is model("DCS-7280SR2K-48C6-M")
    assert match_model("DCS-7060DX5-64S-X") is None, "only the airflows the model has"
    assert match_model("DCS-7060DX5-6") is None and match_model("cEOSLab") is None
    assert same_model("DCS-7010TX-48-R", "DCS-7010TX-48")
    assert not same_model("DCS-7050SX3-48YC8-F", "DCS-7010TX-48")
    assert same_model("leaf-48x100g-8x400g", "leaf-48x100g-8x400g"), "ids outside the catalog compare as written"
    with pytest.raises(FabricopsError, match=r"unknown switch model 'DCS-1'.*DCS-7010TX-48"):
        model("DCS-1")


def test_names_a_model_lacks_are_refused_with_what_it_has() -> None:
    leaf = model("DCS-7060DX5-32")
    assert leaf.has_interface("Ethernet32/8") and leaf.has_interface("Port-Channel1000")
    assert not leaf.has_interface("Ethernet33/1") and not leaf.has_interface("Ethernet34")
    assert not leaf.has_interface("Management2")
    assert leaf.missing("Ethernet49") == (
        "Ethernet49 does not exist on DCS-7060DX5-32 (Ethernet1/1-32/1 QSFP-DD (lanes /1-/8), Ethernet33 SFP+)"
    )
    info = leaf.interface("Ethernet7/3")
    assert (info.port.number, info.lane, info.form_factor, info.speed) == (7, 3, "QSFP-DD", "100g")
    assert leaf.speed_of("Ethernet7/1") == "400g" and leaf.form_factor_of("Ethernet33") == "SFP+"
    with pytest.raises(FabricopsError, match="Ethernet49/1 does not exist on DCS-7060DX5-32"):
        leaf.interface("Ethernet49/1")


def test_a_chassis_names_ports_by_linecard_slot_from_3() -> None:
    spine = model("DCS-7804-CH")
    names = spine.interface_names()
    assert names[0] == "Ethernet3/1/1" and names[35] == "Ethernet3/36/1" and names[-1] == "Ethernet6/36/1"
    assert len(names) == 4 * 36
    assert [i.name for i in spine.breakout("Ethernet4/2/1", "2x200g").interfaces] == ["Ethernet4/2/1", "Ethernet4/2/5"]
    mixed = spine.with_linecards({4: "7800R3-48CQ-LC", 6: None})
    assert "Ethernet4/48/1" in mixed.interface_names() and not mixed.has_interface("Ethernet6/1/1")
    assert mixed.port("Ethernet4/48/1").form_factor == "QSFP28"
    cards = spine.power.typical_w - spine.base_power.typical_w
    assert cards == 4 * 533
    assert mixed.power.typical_w == spine.base_power.typical_w + 2 * 533 + 398
    with pytest.raises(FabricopsError, match=r"no linecard slot 7 \(slots: 3, 4, 5, 6\)"):
        spine.with_linecards({7: "7800R3A-36D-LC"})
    with pytest.raises(FabricopsError, match="is not a chassis"):
        model("DCS-7060DX5-32").with_linecards({3: "7800R3A-36D-LC"})


def test_port_budget_and_capacity_per_speed() -> None:
    leaf = model("DCS-7060DX5-32")
    budget = [(c.form_factor, c.speed, c.count) for c in port_budget(leaf)]
    assert budget == [("QSFP-DD", "400g", 32), ("SFP+", "10g", 1)]
    assert capacity(leaf, "400g") == 32 and capacity(leaf, "200g") == 64 and capacity(leaf, "100g") == 128
    assert capacity(model("DCS-7050SX3-48YC8"), "25g") == 48 + 8 * 4
    assert capacity(model("DCS-7010TX-48"), "400g") == 0


def test_internal_vlans_one_per_routed_port_and_the_range_that_fixes_a_shortage() -> None:
    """At 16x a spine has 384 routed ports; 1006-1199 holds 194."""
    default = VlanRange(1006, 1199)
    assert default.size == 194
    assert internal_vlan_problems(194, default, [100, 200]) == []
    (short,) = internal_vlan_problems(384, default, [100, 200])
    assert short.startswith("384 routed ports need 384 internal VLANs")
    assert short.endswith("configure vlan internal order ascending range 1006 1389")
    fix = internal_vlan_range(384, [100, 1200, 4093])
    assert (fix.first, fix.last) == (1201, 1584), "the range skips VLANs in use"
    (clash,) = internal_vlan_problems(10, default, [1100, 1101])
    assert clash.startswith("VLANs 1100, 1101 are in use inside vlan internal order ascending range 1006 1199")
    with pytest.raises(FabricopsError, match="no run of 4000 free VLANs"):
        internal_vlan_range(4000, [2000])
    assert catalog().internal_vlans.first == 1006 and not catalog().internal_vlans.certain


def _optic(speed: str, length_m: float, media: str | None = None) -> str | None:
    found = optic_for(speed, length_m, media=media)
    return found.name if found else None


def test_optics_per_speed_and_length() -> None:
    """Multimode while it reaches (100 m OM4 at 25G and up), then the shortest single-mode reach."""
    assert _optic("400g", 100) == "400GBASE-SR8"
    assert _optic("400g", 101) == "400GBASE-DR4"
    assert _optic("400g", 2000) == "400GBASE-FR4"
    assert _optic("100g", 90) == "100GBASE-SR4"
    assert _optic("100g", 9000) == "100GBASE-LR4"
    assert _optic("25g", 50) == "25GBASE-SR"
    assert _optic("10g", 350) == "10GBASE-SR"
    assert _optic("10g", 350, media="singlemode") == "10GBASE-LR"
    assert _optic("100g", 20000) is None


def _copy_catalog(tmp_path: Path) -> Path:
    root = tmp_path / "hardware"
    shutil.copytree(DATA, root, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return root


def test_a_mistake_in_a_model_file_names_the_file_and_the_yaml_path(tmp_path: Path) -> None:
    root = _copy_catalog(tmp_path)
    path = root / "switches" / "DCS-7060DX5-32.yaml"
    path.write_text(path.read_text().replace("kind: qsfp-dd-400g", "kind: qsfp-400g"))
    with pytest.raises(FabricopsError, match=r"DCS-7060DX5-32.yaml: ports\[0\].kind: unknown port kind 'qsfp-400g'"):
        load_catalog(root)
    path.write_text(path.read_text().replace("kind: qsfp-400g", "kind: qsfp-dd-400g").replace("rack_units: 1", ""))
    with pytest.raises(FabricopsError, match=r"DCS-7060DX5-32.yaml: rack_units: missing"):
        load_catalog(root)


def test_a_new_model_is_one_file(tmp_path: Path) -> None:
    """How the README says to add a model: copy a file, rename it, edit the ports."""
    root = _copy_catalog(tmp_path)
    text = (root / "switches" / "DCS-7050CX3-32S.yaml").read_text()
    (root / "switches" / "DCS-7050CX3-32C.yaml").write_text(text.replace("DCS-7050CX3-32S", "DCS-7050CX3-32C"))
    added = load_catalog(root).model("DCS-7050CX3-32C-R")
    assert added.interface_names()[0] == "Ethernet1/1" and added.show_version_model() == "DCS-7050CX3-32C-F"


def test_the_hardware_doc_lists_every_model_and_linecard() -> None:
    """docs/hardware.md is the catalog's table: a model added to the data must appear there."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "hardware.md").read_text()
    for name in [*models(), *catalog().linecards]:
        assert f"`{name}`" in doc, f"{name} missing from docs/hardware.md"
