"""The whole compile: determinism, locality, routing and bonding modes, atomic output."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.artifacts.units import facts_digests
from compiler.cache import CompileCache, Reuse, code_digest
from compiler.checks import run_checks
from compiler.configcache import ConfigCache
from compiler.output import read_tree
from compiler.pipeline import CompileResult, compile_intent, staleness, write_generated
from core.errors import CompileError, IntentError

Edit = Callable[[str, str, str], None]


def test_compile_is_deterministic(project: Path, example_compile: CompileResult) -> None:
    """Same intent, byte-identical output (no timestamps, stable orders, nothing from its path)."""
    first = example_compile.files
    second = compile_intent(project / "intent").files
    assert first == second


def test_committed_generated_is_current() -> None:
    """The example's generated/ in git is what the intent compiles to."""
    result = compile_intent(Path("intent"))
    assert not staleness(result, Path("generated")).stale


def test_adding_a_server_row_touches_only_its_leaves(project: Path, example_compile: CompileResult) -> None:
    """O4 locality: one new row changes its leaves' and rack switch's files, its own server files
    and its rows in the inventory tables (with its rack's and row's totals), nothing else."""
    before = example_compile.files
    servers = project / "intent" / "servers.csv"
    servers.write_text(
        servers.read_text().replace(
            "rack03-gpu009,gpu-8x-h100,GPU-0309\n",
            "rack03-gpu009,gpu-8x-h100,GPU-0309\nrack03-gpu010,gpu-8x-h100,GPU-0310\n",
        )
    )
    after = compile_intent(project / "intent").files
    changed = {p for p in after if before.get(p) != after[p]}
    touched = {"rack03-leaf-a", "rack03-leaf-b", "rack01-stor-leaf-a", "rack01-stor-leaf-b", "rack03-mgmt"}
    expected = {f"configs/{d}.cfg" for d in touched} | {f"structured/{d}.yaml" for d in touched}
    own = {p for p in after if p.startswith("servers/rack03-gpu010/")}
    assert own and not any(p.startswith("servers/rack03-gpu010/") for p in before)
    expected |= {f"monitoring/rules/{d}.rules.yaml" for d in touched} | {f"provenance/{d}.json" for d in touched}
    tables = {
        "inventory/cabling.csv",
        "inventory/cabling.md",
        "inventory/ip-plan.csv",
        "inventory/assets.csv",
        "inventory/power.csv",
        "inventory/power.md",
        "monitoring/expected-counters.yaml",
        "validation/link-tests.csv",
        "validation/nccl/hosts-all.txt",
    }
    counts = {
        "docs/fabric.md",
        "docs/compute-fabric.svg",
        "docs/storage-fabric.svg",
        "docs/management-network.svg",
    }  # server totals only
    assert changed == expected | own | tables | counts | {"MANIFEST.json"}

    def new_rows(path: str) -> set[str]:
        return set(after[path].decode().splitlines()) - set(before[path].decode().splitlines())

    def lost_rows(path: str) -> set[str]:
        return set(before[path].decode().splitlines()) - set(after[path].decode().splitlines())

    cabling = new_rows("inventory/cabling.csv")
    assert len(cabling) == 5 and all("rack03-gpu010" in row for row in cabling)
    assert not lost_rows("inventory/cabling.csv") and not lost_rows("inventory/ip-plan.csv")
    # its own asset row, and the port lists of the switches it plugs into
    assert {row.split(",")[1] for row in new_rows("inventory/assets.csv")} == {"rack03-gpu010"} | touched
    assert {row.split(",")[2] for row in new_rows("validation/link-tests.csv")} == {"rack03-gpu010"}
    assert new_rows("validation/nccl/hosts-all.txt") == {"rack03-gpu010 slots=1"}
    # the totals of its rack and its row
    assert {tuple(row.split(",")[:2]) for row in new_rows("inventory/power.csv")} == {("rack", "rack03"), ("row", "A")}


def test_ebgp_underlay(project: Path, edit: Edit) -> None:
    """Routing choice ebgp: leaves get router bgp with their pair's ASN, no OSPF."""
    edit("fabric.yaml", "    routing: ospf-underlay", "    routing: ebgp-underlay")
    files = compile_intent(project / "intent").files
    leaf = files["configs/rack02-leaf-a.cfg"].decode()
    spine = files["configs/spine01.cfg"].decode()
    assert "router bgp 65102\n" in leaf and "router ospf" not in leaf
    assert "   neighbor IPv4-UNDERLAY-PEERS remote-as 65100\n" in leaf
    assert "   maximum-paths 4 ecmp 4\n" in leaf
    assert "   neighbor 10.31.4.25 remote-as 65102\n" in spine  # rack02-leaf-b (leaf 4) on spine01


def test_ospf_underlay(example_compile: CompileResult) -> None:
    files = example_compile.files
    leaf = files["configs/rack02-leaf-a.cfg"].decode()
    assert "router ospf 100\n" in leaf and "router bgp" not in leaf
    assert "   no passive-interface Ethernet25/1\n" in leaf
    assert "   maximum-paths 4\n" in leaf


def test_lacp_bonding_renders_mlag_port_channels(project: Path, edit: Edit) -> None:
    """bonding: lacp -> one MLAG port-channel per server, same number on both leaves (storage: the two
    ports of one adapter, which RoCE LAG and LACP both take)."""
    edit("fabric.yaml", "bonding: active-backup\n", "bonding: lacp\n")
    result = compile_intent(project / "intent")
    assert not result.errors, [f.line() for f in result.errors]
    for leaf in ("rack01-stor-leaf-a", "rack01-stor-leaf-b"):
        text = result.files[f"configs/{leaf}.cfg"].decode()
        assert "interface Port-Channel3\n   description SERVER_rack01-gpu003_bond1\n" in text
        assert "   mlag 3\n" in text
        assert "interface Ethernet3\n" in text and "   channel-group 3 mode active\n" in text


def test_active_backup_renders_access_ports(example_compile: CompileResult) -> None:
    text = example_compile.files["configs/rack04-leaf-a.cfg"].decode()
    assert "interface Port-Channel3\n" not in text
    assert (
        "interface Ethernet1/5\n   description SERVER_rack04-gpu003_enp65s0f0\n"
        "   mtu 9214\n   speed 100g-2\n   switchport access vlan 100\n" in text
    )


def test_no_secret_is_written(example_compile: CompileResult) -> None:
    """Secrets appear only as <secret:NAME> references."""
    for path, data in example_compile.files.items():
        text = data.decode()
        if "secret" in text and path.startswith("configs/"):
            assert "secret sha512 <secret:admin_sha512>" in text


def test_manifest_lists_every_file(example_compile: CompileResult) -> None:
    files = example_compile.files
    manifest = json.loads(files["MANIFEST.json"])
    assert set(manifest["files"]) == set(files) - {"MANIFEST.json"}
    assert len(manifest["intent_digest"]) == 64


def test_write_replaces_the_whole_tree(project: Path, example_compile: CompileResult) -> None:
    generated = project / "generated"
    (generated / "configs").mkdir(parents=True)
    (generated / "configs" / "old-switch.cfg").write_text("hostname old\n")
    result = example_compile
    write_generated(result, generated)
    assert read_tree(generated) == result.files
    assert not list(project.glob(".generated*"))


def test_failed_compile_leaves_generated_untouched(project: Path, edit: Edit, example_compile: CompileResult) -> None:
    """Bad input loses nothing: generated/ stays byte-identical."""
    generated = project / "generated"
    write_generated(example_compile, generated)
    before = read_tree(generated)
    edit("fabric.yaml", "  host: 9000\n", "  host: 9999\n")
    with pytest.raises(IntentError):
        write_generated(compile_intent(project / "intent"), generated)
    assert read_tree(generated) == before


def test_check_errors_block_the_write(project: Path, edit: Edit, example_compile: CompileResult) -> None:
    generated = project / "generated"
    write_generated(example_compile, generated)
    before = read_tree(generated)
    edit("fabric.yaml", "uplink_ports: [Ethernet25/1, Ethernet26/1, Ethernet27/1,", "uplink_ports: [Ethernet25/1,")
    result = compile_intent(project / "intent")
    assert result.errors
    with pytest.raises(CompileError):
        write_generated(result, generated)
    assert read_tree(generated) == before


@pytest.mark.parametrize("fork", [True, False])
def test_checks_beside_the_render_find_the_same(project: Path, edit: Edit, fork: bool) -> None:
    edit("fabric.yaml", "uplink_ports: [Ethernet25/1, Ethernet26/1, Ethernet27/1,", "uplink_ports: [Ethernet25/1,")
    result = compile_intent(project / "intent", fork=fork)
    assert result.errors and result.findings == run_checks(result.intent, result.fabric)
    assert list(result.timings) == ["load", "resolve", "checks", "render"]  # every second counted once


def test_the_checks_take_the_configs_of_unchanged_switches(project: Path, edit: Edit) -> None:
    """Kept by one compile (checks in process), read by the next one's checks' process for the
    switches whose facts are unchanged; same findings and files as a compile without them."""
    intent, kept = project / "intent", project / ".fabricops-cache"
    first = compile_intent(intent, fork=False, configs=ConfigCache(kept))
    assert first.kept_configs == 0
    edit("servers.csv", "rack03-gpu009,gpu-8x-h100,GPU-0309\n", "")
    second = compile_intent(intent, fork=True, configs=ConfigCache(kept))
    before, after = facts_digests(first.fabric), facts_digests(second.fabric)
    unchanged = [name for name in after if before.get(name) == after[name]]
    assert 0 < second.kept_configs == len(unchanged) < len(after)
    plain = compile_intent(intent)
    assert second.findings == plain.findings and second.files.digests == plain.files.digests
    # What compile --full hands over (an empty record): the configs are not read.
    full = compile_intent(intent, Reuse(CompileCache(project, code_digest()), {}, {}), fork=True)
    assert full.kept_configs == 0 and full.findings == plain.findings


def test_pair_vlan_lands_on_that_pair_only(project: Path, edit: Edit) -> None:
    """A VLAN added to one leaf pair: defined on both its leaves, carried on the peer-link."""
    edit(
        "fabric.yaml",
        "  storage: {id: 200, name: Storage}\n",
        "  storage: {id: 200, name: Storage}\n  tenant-a: {id: 210, name: Tenant-A}\n",
    )
    edit(
        "fabric.yaml",
        "    virtual_router_mac: 00:1c:73:00:00:99\n",
        "    virtual_router_mac: 00:1c:73:00:00:99\n    pair_vlans: {3: [tenant-a]}\n",
    )
    files = compile_intent(project / "intent").files
    for name in ("rack03-leaf-a", "rack03-leaf-b"):
        assert "vlan 210\n   name Tenant-A\n   trunk group MLAG\n" in files[f"configs/{name}.cfg"].decode()
    assert "vlan 210\n" not in files["configs/rack04-leaf-a.cfg"].decode()


@pytest.mark.parametrize("port", ["12", "Ethernet3/7"])
def test_compute_port_override_moves_the_cable_not_the_address(project: Path, port: str) -> None:
    """The 12th downlink, or the port by name: the cable moves, the address stays."""
    servers = project / "intent" / "servers.csv"
    text = servers.read_text().replace("name,model,asset_tag\n", "name,model,asset_tag,compute_port\n")
    servers.write_text(
        text.replace("rack03-gpu004,gpu-8x-h100,GPU-0304\n", f"rack03-gpu004,gpu-8x-h100,GPU-0304,{port}\n")
    )
    result = compile_intent(project / "intent")
    leaf = result.files["configs/rack03-leaf-a.cfg"].decode()
    assert "interface Ethernet3/7\n   description SERVER_rack03-gpu004_enp65s0f0\n" in leaf
    assert "interface Ethernet1/7\n   shutdown\n   speed 100g-2\n" in leaf
    assert result.fabric.servers["rack03-gpu004"].compute_address == "10.30.3.14/24"
    assert not result.errors


def test_compute_port_collision_is_an_error(project: Path) -> None:
    servers = project / "intent" / "servers.csv"
    text = servers.read_text().replace("name,model,asset_tag\n", "name,model,asset_tag,compute_port\n")
    servers.write_text(text.replace("rack03-gpu004,gpu-8x-h100,GPU-0304\n", "rack03-gpu004,gpu-8x-h100,GPU-0304,2\n"))
    result = compile_intent(project / "intent")
    assert any("Ethernet1/3 is already used" in f.message for f in result.errors)


def test_only_changed_files_are_written(project: Path, example_compile: CompileResult) -> None:
    """A one-row change rewrites a few dozen files, not the fleet's: the others keep their inodes."""
    generated = project / "generated"
    write_generated(example_compile, generated)
    inode = (generated / "configs" / "spine01.cfg").stat().st_ino
    servers = project / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack03-gpu010,gpu-8x-h100,GPU-0310\n")
    written = write_generated(compile_intent(project / "intent"), generated)
    assert (generated / "configs" / "spine01.cfg").stat().st_ino == inode
    assert "configs/rack03-leaf-a.cfg" in written.changed and len(written.changed) + len(written.missing) < 60


def test_an_interrupted_write_is_finished_or_discarded(project: Path, example_compile: CompileResult) -> None:
    """After the commit marker, the next compile rolls the write forward; before it, it is dropped."""
    from compiler.output import COMMIT, recover, staging_dir

    generated = project / "generated"
    result = example_compile
    write_generated(result, generated)
    staging = staging_dir(generated.resolve())
    (staging / "files" / "configs").mkdir(parents=True)
    (staging / "files" / "configs" / "spine01.cfg").write_text("hostname half-way\n")
    recover(generated)  # no marker: the write never committed
    assert not staging.exists()
    assert read_tree(generated) == result.files
    (staging / "files" / "configs").mkdir(parents=True)
    (staging / "files" / "configs" / "spine01.cfg").write_text("hostname rolled-forward\n")
    (staging / COMMIT).write_text('{"write": ["configs/spine01.cfg"], "remove": ["configs/spine02.cfg"]}')
    recover(generated)
    assert (generated / "configs" / "spine01.cfg").read_text() == "hostname rolled-forward\n"
    assert not (generated / "configs" / "spine02.cfg").exists() and not staging.exists()


def test_design_defaults_are_overridable_in_intent(project: Path, edit: Edit) -> None:
    """Descriptions, MLAG VLANs and port-channel, the management VRF, ECN weight and BGP names are
    intent defaults: set in fabric.yaml, they reach every config and the checks still pass."""
    edit(
        "fabric.yaml",
        "(?P<position>\\d{3})$'\n",
        "(?P<position>\\d{3})$'\n  descriptions: {server_port: 'HOST_{server}'}\n",
    )
    edit(
        "fabric.yaml",
        "thresholds:\n",
        "mlag: {peer_vlan: 4000, peer_link_channel: 999, domain_id: '{network}-{pair}'}\nthresholds:\n",
    )
    edit("fabric.yaml", "  vlan_base: 2000\n", "  vlan_base: 2000\n  vrf: OOB\n")
    edit("fabric.yaml", "      max_mark_probability: 100\n", "      max_mark_probability: 100\n      weight: 2\n")
    edit(
        "fabric.yaml",
        "leaf_asn_base: 65200, maximum_routes: 12000}",
        "leaf_asn_base: 65200, underlay_peer_group: UNDERLAY}",
    )
    result = compile_intent(project / "intent")
    assert not result.errors, [f.line() for f in result.errors]
    leaf = result.files["configs/rack01-leaf-a.cfg"].decode()
    assert "interface Ethernet1/1\n   description HOST_rack01-gpu001\n" in leaf
    assert "vlan 4000\n   name MLAG_PEER\n" in leaf and "interface Port-Channel999\n" in leaf
    assert "   domain-id compute-1\n   local-interface Vlan4000\n" in leaf
    assert "no spanning-tree vlan-id 4000,4093\n" in leaf
    assert "interface Management1\n   description OOB_MANAGEMENT\n   vrf OOB\n" in leaf
    assert "max-mark-probability 100 weight 2\n" in leaf
    storage = result.files["configs/rack01-stor-leaf-a.cfg"].decode()
    assert "   neighbor UNDERLAY peer group\n" in storage and "IPv4-UNDERLAY-PEERS" not in storage


def test_a_first_write_renames_the_staged_tree_into_place(project: Path, example_compile: CompileResult) -> None:
    """Into an empty generated/ the staged tree is moved at once; interrupted after its marker,
    the next compile finishes it, and a file that appeared meanwhile is kept, the others moved one by one."""
    from compiler.output import COMMIT, recover, staging_dir

    generated = project / "generated"
    (generated / "configs").mkdir(parents=True)
    written = write_generated(example_compile, generated)
    assert len(written.missing) == len(example_compile.files) and read_tree(generated) == example_compile.files
    shutil.rmtree(generated)
    staging = staging_dir(generated.resolve())
    (staging / "files" / "configs").mkdir(parents=True)
    (staging / "files" / "configs" / "spine01.cfg").write_text("hostname staged\n")
    (staging / COMMIT).write_text('{"write": ["configs/spine01.cfg"], "remove": [], "whole": true}')
    (generated / "configs").mkdir(parents=True)
    (generated / "configs" / "hand.cfg").write_text("hostname hand\n")
    recover(generated)
    assert read_tree(generated) == {"configs/hand.cfg": b"hostname hand\n", "configs/spine01.cfg": b"hostname staged\n"}
    assert not staging.exists()


@pytest.mark.parametrize("configs", [True, False])
def test_a_deferred_reuse_is_asked_for_once(project: Path, configs: bool) -> None:
    """``compile`` may hand over what the last compile left as a callable (the walk of
    generated/ runs beside the load): asked for once, it compiles as the record itself does."""
    intent, record = project / "intent", Reuse(CompileCache(project, code_digest()), {}, {})
    asked: list[Reuse] = []

    def deferred() -> Reuse:
        asked.append(record)
        return record

    kept = ConfigCache(project / ".fabricops-cache", write=False) if configs else None
    later = compile_intent(intent, deferred, fork=False, configs=kept)
    assert asked == [record]
    assert later.files.digests == compile_intent(intent, record, fork=False, configs=kept).files.digests
