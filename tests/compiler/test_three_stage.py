"""Past one spine layer: pods of leaf pairs and their spines, joined by super-spines in planes.

The example's compute fabric is rebuilt as three pods of four racks (four 64-port spines per
pod, eight ports down and eight up, two super-spines per plane): the facts follow the rules of
``compiler.facts.topology`` and ``compiler.facts.addressing``, the checks pass, and adding a pod
changes the configs of only the switches in the new pod's racks and the super-spines.
The bench's 16x intent (pods of 16 racks, chassis super-spines) passes every rule; the 64x one
is in the e2e tier.
"""

from __future__ import annotations

import shutil
from pathlib import Path, PurePosixPath

import pytest

from bench.scale import scaled_intent
from compiler.checks import run_checks
from compiler.fabric import ResolvedFabric, resolve
from compiler.facts import build_facts
from compiler.intent import Intent, load_intent
from compiler.pipeline import CompileResult, compile_intent
from core.errors import IntentError
from tests.conftest import EXAMPLE_INTENT

POD_RACKS = {1: 15, 2: 16, 3: 17}
"""Each pod's spines stand in a network rack of their own."""
PLANE_RACKS = (18, 19, 20, 21)


def three_stage(root: Path) -> Path:
    """The example with a three-stage compute fabric (eBGP), in ``root/intent``."""
    intent = root / "intent"
    shutil.copytree(EXAMPLE_INTENT, intent)
    fabric = (intent / "fabric.yaml").read_text()
    fabric = fabric.replace(
        "    spines: {count: 4, model: DCS-7060DX5-64S, rack: 13, name_prefix: spine}\n",
        "    spines:\n"
        "      {count: 4, model: DCS-7060DX5-64S, rack: 15, name_prefix: spine,\n"
        "       downlinks: {ports: [1-8]}, uplinks: {ports: [9-16]}}\n"
        "    pods:\n"
        "      racks: 4\n"
        f"      spine_racks: [{', '.join(str(r) for r in POD_RACKS.values())}]\n"
        "      super_spines: {model: DCS-7060DX5-64S, per_plane: 2,"
        f" racks: [{', '.join(str(r) for r in PLANE_RACKS)}]}}\n",
    )
    fabric = fabric.replace(
        "      mlag_l3: 10.31.9.0/24\n",
        "      mlag_l3: 10.31.9.0/24\n      spine_loopbacks: 10.31.10.0/24\n      spine_p2p: 10.31.12.0/22\n",
        1,
    )
    fabric = fabric.replace("routing: ospf-underlay ", "routing: ebgp-underlay ")
    fabric = fabric.replace(
        "bgp: {spine_asn: 65100, leaf_asn_base: 65100, maximum_routes: 12000}",
        "bgp: {spine_asn: 65100, leaf_asn_base: 65100, pod_asn_base: 65000, super_spine_asn: 64999,"
        " maximum_routes: 12000}",
    )
    assert "pods:" in fabric and "spine_p2p" in fabric and "pod_asn_base" in fabric
    (intent / "fabric.yaml").write_text(fabric)
    racks = (intent / "racks.yaml").read_text()
    extra = "".join(
        f"  - {{id: {rack}, row: C, position: {rack - 12}, pdu_kw: 20, role: network}}\n"
        for rack in (*POD_RACKS.values(), *PLANE_RACKS)
    )
    racks = racks.replace("\n# Per row", f"\n{extra}\n# Per row".replace("\n\n\n", "\n\n"), 1)
    racks = racks.replace("  C: {cooling_kw: 40, ups_kw: 40}", "  C: {cooling_kw: 80, ups_kw: 80}")
    (intent / "racks.yaml").write_text(racks)
    return intent


def _without_racks(intent: Path, racks: range) -> None:
    servers = intent / "servers.csv"
    rows = [r for r in servers.read_text().splitlines() if not any(r.startswith(f"rack{n:02d}-") for n in racks)]
    servers.write_text("\n".join(rows) + "\n")


def test_pods_spines_and_planes_follow_the_rules(tmp_path: Path) -> None:
    """Pod q = (rack - 1) // 4 + 1; its spines in its rack; plane p's super-spines in theirs."""
    topology = build_facts(load_intent(three_stage(tmp_path))).topology
    compute = topology.fabrics["compute"]
    assert [(p.id, p.rack, p.spines[0]) for p in compute.pods] == [
        (1, 15, "pod01-spine01"),
        (2, 16, "pod02-spine01"),
        (3, 17, "pod03-spine01"),
    ]
    assert compute.planes[1] == ("plane2-superspine01", "plane2-superspine02")
    leaf = topology.switches["rack06-leaf-b"]
    assert (leaf.pod, leaf.number, compute.pods[1].local_index(leaf.number)) == (2, 12, 4)
    spine = topology.switches["pod02-spine03"]
    assert (spine.role, spine.rack, spine.plane, spine.redundancy_group, spine.slot) == (
        "spine",
        16,
        3,
        "compute-pod02-spines",
        7,
    )
    assert topology.switches["plane4-superspine02"].rack == 21


def test_a_plane_may_stand_in_several_racks(tmp_path: Path) -> None:
    """Chassis too tall for one rack together: plane 2's two super-spines fill racks 19 and 20."""
    intent = three_stage(tmp_path)
    fabric = intent / "fabric.yaml"
    fabric.write_text(fabric.read_text().replace("racks: [18, 19, 20, 21]}", "racks: [18, [19, 20], 21]}"))
    switches = build_facts(load_intent(intent)).topology.switches
    placed = {name: switches[name].rack for name in switches if "superspine" in name}
    assert placed == {
        "plane1-superspine01": 18,
        "plane1-superspine02": 18,
        "plane2-superspine01": 19,
        "plane2-superspine02": 20,
        "plane3-superspine01": 21,
        "plane3-superspine02": 21,
        "plane4-superspine01": 21,
        "plane4-superspine02": 21,
    }
    fabric.write_text(fabric.read_text().replace("[19, 20]", "[19, 99]"))
    with pytest.raises(IntentError) as caught:
        load_intent(intent)
    assert caught.value.problems[0].endswith(
        "fabrics.compute.pods.super_spines.racks[1][1]: rack 99 is not in racks.yaml"
    )


def test_links_addresses_and_asns_are_numbered_by_pod(tmp_path: Path) -> None:
    """A leaf takes its pod's spines on its local number; a pod spine shares its eight uplinks
    out over the two super-spines of its plane; ASNs and loopbacks by pod and plane."""
    facts = build_facts(load_intent(three_stage(tmp_path)))
    links = facts.addressing.fabric_links
    # rack06-leaf-b: L = 12, the 4th leaf of pod 2: port Ethernet4/1 of each pod 2 spine
    up = links["rack06-leaf-b", "Ethernet27/1"]
    assert (up.upper, up.upper_port, up.lower_address) == ("pod02-spine03", "Ethernet4/1", "10.31.4.93/31")
    # pod 2 spine 3: uplinks u = 0..7, four to each super-spine of plane 3; /31 ((2-1)*4 + 3-1)*8 + u
    first, fifth = links["pod02-spine03", "Ethernet9/1"], links["pod02-spine03", "Ethernet13/1"]
    assert (first.upper, first.upper_port, first.subnet) == ("plane3-superspine01", "Ethernet5/1", "10.31.12.96/31")
    assert (fifth.upper, fifth.upper_port) == ("plane3-superspine02", "Ethernet5/1")
    assert facts.addressing.loopbacks["pod02-spine03"] == "10.31.10.7"
    assert facts.addressing.loopbacks["plane3-superspine02"] == "10.31.0.6"
    routing = facts.routing.switches
    assert (routing["rack06-leaf-b"].asn, routing["rack06-leaf-b"].remote_asn) == (65106, 65002)
    assert (routing["pod02-spine03"].asn, routing["pod02-spine03"].maximum_paths) == (65002, 8)
    spine_peers = {(p.peer, p.remote_as) for p in routing["pod02-spine03"].peers}
    assert ("rack06-leaf-b", 65106) in spine_peers and ("plane3-superspine02", 64999) in spine_peers
    assert {p.remote_as for p in routing["plane1-superspine01"].peers} == {65001, 65002, 65003}


def test_a_three_stage_fabric_passes_every_rule(tmp_path: Path) -> None:
    intent = load_intent(three_stage(tmp_path))
    fabric = resolve(intent)
    findings = run_checks(intent, fabric)
    assert [f.line() for f in findings if f.severity != "info"] == []
    config = fabric.devices["plane2-superspine01"].config
    assert config.router_bgp is not None and len(config.router_bgp.neighbors) == 12  # 3 pods x 4 links


def _storage_in_pods(intent: Path) -> None:
    """The storage fabric three-stage too, a storage pod per compute pod (four racks, one leaf
    pair): four DCS-7050CX3-32S spines per pod beside the compute pod's, one storage
    super-spine per plane beside the compute ones; rack 13 holds the storage nodes' pod."""
    fabric = (intent / "fabric.yaml").read_text()
    for old, new in [
        (
            "    spines: {count: 4, model: DCS-7050CX3-32S, rack: 13, name_prefix: stor-spine}\n",
            "    spines:\n"
            "      {count: 4, model: DCS-7050CX3-32S, rack: 15, name_prefix: stor-spine,\n"
            "       downlinks: {ports: [1-2]}, uplinks: {ports: [3-4]}}\n"
            "    pods:\n"
            "      racks: 4\n"
            f"      spine_racks: [{', '.join(str(r) for r in POD_RACKS.values())}, 13]\n"
            "      super_spines: {model: DCS-7050CX3-32S, per_plane: 1, name_prefix: stor-superspine,"
            f" racks: [{', '.join(str(r) for r in PLANE_RACKS)}]}}\n",
        ),
        (
            "      mlag_l3: 10.41.9.0/24\n",
            "      mlag_l3: 10.41.9.0/24\n      spine_loopbacks: 10.41.10.0/24\n      spine_p2p: 10.41.12.0/22\n",
        ),
        (
            "bgp: {spine_asn: 65200, leaf_asn_base: 65200, maximum_routes: 12000}",
            "bgp: {spine_asn: 65200, leaf_asn_base: 65200, pod_asn_base: 65300, super_spine_asn: 65399,"
            " maximum_routes: 12000}",
        ),
    ]:
        assert fabric.count(old) == 1, old
        fabric = fabric.replace(old, new)
    (intent / "fabric.yaml").write_text(fabric)


def test_adding_a_pod_touches_only_its_switches_and_the_super_spines(tmp_path: Path) -> None:
    """Racks 9-12 get their servers: pod 3 appears, in both fabrics. The configs that change are
    exactly those of the switches standing in the pod's racks and its spine rack (leaves, pod
    spines, storage leaves, rack switches) and the super-spines of both fabrics; every address
    and ASN of the switches and servers there before stays where it was."""
    intent = three_stage(tmp_path)
    _storage_in_pods(intent)
    full = (intent / "servers.csv").read_text()
    _without_racks(intent, range(9, 13))
    before = compile_intent(intent)
    (intent / "servers.csv").write_text(full)
    after = compile_intent(intent)
    assert [f.line() for f in after.findings if f.severity != "info"] == []

    def configs(result: CompileResult) -> dict[str, bytes]:
        return {path: data for path, data in result.files.items() if path.startswith("configs/")}

    old, new = configs(before), configs(after)
    assert set(old) <= set(new)
    changed = {PurePosixPath(path).stem for path, text in new.items() if old.get(path) != text}
    switches = after.fabric.facts.topology.switches
    pod = {name for name, switch in switches.items() if switch.rack in (9, 10, 11, 12, POD_RACKS[3])}
    supers = {name for name, switch in switches.items() if switch.role == "super-spine"}
    assert len(pod) == 8 + 2 + 4 + 4 + 5 and len(supers) == 4 * 2 + 4
    assert changed == pod | supers
    was, now = before.fabric.facts, after.fabric.facts
    assert set(was.addressing.allocations) <= set(now.addressing.allocations)
    assert {n: s.asn for n, s in was.routing.switches.items()}.items() <= {
        n: s.asn for n, s in now.routing.switches.items()
    }.items()
    assert was.addressing.servers.items() <= now.addressing.servers.items()


@pytest.mark.parametrize(
    ("old", "new", "rule", "message"),
    [
        (
            "spine_racks: [15, 16, 17]",
            "spine_racks: [15, 16]",
            "FAB003",
            "pod 3 (racks 9-12) has no spine rack: add one to fabrics.compute.pods.spine_racks",
        ),
        (
            "per_plane: 2,",
            "per_plane: 3,",
            "PRT004",
            "8 uplinks per pod spine do not share out evenly over the 3 super-spines of a plane: list a multiple of 3",
        ),
        (
            "per_plane: 2,",
            "per_plane: 2, downlinks: {ports: [1-8]},",
            "PRT004",
            "DCS-7060DX5-64S: 64 x QSFP-DD 400g, 2 x SFP+ 10g has 8 downlinks but pods up to 3 take 4 each (12): "
            "add super-spines per plane (per_plane), or a model with more ports",
        ),
    ],
    ids=["pod without a spine rack", "uplinks that do not share out", "super-spine short of ports"],
)
def test_a_pod_design_mistake_is_one_finding(tmp_path: Path, old: str, new: str, rule: str, message: str) -> None:
    """Each fault of a three-stage design is named by its rule, once per switch it is about."""
    intent_dir = three_stage(tmp_path)
    fabric_yaml = intent_dir / "fabric.yaml"
    assert old in fabric_yaml.read_text()
    fabric_yaml.write_text(fabric_yaml.read_text().replace(old, new, 1))
    intent = load_intent(intent_dir, budgets=False)  # the rule behind the loader's port budget
    findings = [f for f in run_checks(intent, resolve(intent)) if f.severity != "info"]
    assert {f.rule for f in findings} == {rule}
    assert findings[0].message == message


FIGURES = {"ADR006", "PRT006"}
"""The info rules: figures for a reviewer (pool usage, a leaf's oversubscription), one per pool
and per leaf of every design, never a problem (``docs/checks.md``)."""


def test_the_16x_intent_passes_every_rule(fabric_16x: tuple[Intent, ResolvedFabric]) -> None:
    """1,732 servers in 12 pods of 16 racks, four planes of DCS-7808-CH super-spines: no error or
    warning, and nothing but the figures."""
    intent, fabric = fabric_16x
    findings = run_checks(intent, fabric)
    assert [f.line() for f in findings if f.severity != "info" or f.rule not in FIGURES] == []
    roles = sorted({(d.network, d.role, d.model) for d in fabric.devices.values()})
    assert ("compute", "super-spine", "DCS-7808-CH") in roles and ("compute", "spine", "DCS-7060DX5-64S") in roles
    assert len(fabric.facts.topology.fabrics["compute"].pods) == 12


@pytest.mark.e2e
def test_the_64x_intent_passes_every_rule(tmp_path: Path) -> None:
    """6,916 servers in 48 compute pods and 25 storage pods: no error or warning."""
    scaled_intent(64, tmp_path / "intent")
    intent = load_intent(tmp_path / "intent")
    findings = run_checks(intent, resolve(intent))
    assert [f.line() for f in findings if f.severity != "info" or f.rule not in FIGURES] == []


def test_a_super_spine_short_of_ports_fails_as_the_intent_loads(tmp_path: Path) -> None:
    """The loader's port budget names it before anything is resolved: one line, the key to change."""
    intent_dir = three_stage(tmp_path)
    fabric_yaml = intent_dir / "fabric.yaml"
    fabric_yaml.write_text(fabric_yaml.read_text().replace("per_plane: 2,", "per_plane: 2, downlinks: {ports: [1-8]},"))
    with pytest.raises(IntentError) as caught:
        load_intent(intent_dir)
    (problem,) = caught.value.problems
    assert problem.endswith(
        "fabrics.compute.pods.super_spines.downlinks: a super-spine has 8 downlinks, 4 per pod, and the racks make "
        "pods up to 3: more super-spines per plane (per_plane), or a model with more ports"
    )
