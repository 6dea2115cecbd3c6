"""The design rules: the example passes, and each rule catches the fault it exists for.

Bad designs are built the way a user would make them (editing a copy of ``intent/``) where
the intent can express the fault; faults the intent cannot express (a resolver or template
regression) are made by replacing a part of the resolved fabric (its records are immutable).
"""

from __future__ import annotations

import dataclasses
import random
import re
import shutil
from collections.abc import Callable
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any

import pytest

from compiler.checks import RULES, Finding, run_checks
from compiler.checks.rules import topology
from compiler.checks.rules._common import PrefixIndex
from compiler.checks.rules.addressing import GROWTH_TARGET_SERVERS
from compiler.fabric import ResolvedFabric, resolve
from compiler.facts import Allocation, Cable, Endpoint, Problem
from compiler.intent import Intent, load_intent

REPO = Path(__file__).resolve().parents[2]
RULES_DIR = REPO / "compiler" / "checks" / "rules"
REQUIREMENT = re.compile(r"^[CNVOG]\d+(/[CNVOG]\d+)*$")

Editor = Callable[[str, str, str], None]


@pytest.fixture
def checks_intent_dir(tmp_path: Path) -> Path:
    """A scratch copy of the example intent/ that a test may edit."""
    target = tmp_path / "intent"
    shutil.copytree(REPO / "intent", target)
    return target


@pytest.fixture
def checks_edit(checks_intent_dir: Path) -> Editor:
    """Replace text once in a file of the scratch intent; fails if the text is absent."""

    def replace(filename: str, old: str, new: str) -> None:
        path = checks_intent_dir / filename
        text = path.read_text()
        assert old in text, f"{old!r} not in {filename}"
        path.write_text(text.replace(old, new, 1))

    return replace


def _resolved(directory: Path) -> tuple[Intent, ResolvedFabric]:
    # Without the budgets of the loader: the rules behind them are what these tests are about.
    intent = load_intent(directory, budgets=False)
    return intent, resolve(intent)


def _replaced(fabric: ResolvedFabric, **changes: Any) -> ResolvedFabric:
    """The fabric with some of its fields replaced."""
    return dataclasses.replace(fabric, **changes)


def _device_replaced(fabric: ResolvedFabric, name: str, **changes: Any) -> ResolvedFabric:
    """The fabric with fields of device ``name`` replaced."""
    devices = dict(fabric.devices)
    devices[name] = dataclasses.replace(devices[name], **changes)
    return _replaced(fabric, devices=devices)


def _config_replaced(fabric: ResolvedFabric, name: str, **changes: Any) -> ResolvedFabric:
    """The fabric with sections of device ``name``'s structured config replaced."""
    device = fabric.devices[name]
    return _replaced(fabric, devices={**fabric.devices, name: device.with_config(device.config._replace(**changes))})


def _interfaces_replaced(fabric: ResolvedFabric, name: str, changes: dict[str, dict[str, Any]]) -> ResolvedFabric:
    """The fabric with fields of some interfaces (by interface name) of device ``name`` replaced."""
    interfaces = tuple(
        i._replace(**changes[i.name]) if i.name in changes else i for i in fabric.devices[name].config.interfaces
    )
    return _config_replaced(fabric, name, interfaces=interfaces)


def _mlag_replaced(fabric: ResolvedFabric, name: str, **changes: Any) -> ResolvedFabric:
    mlag = fabric.devices[name].config.mlag
    assert mlag is not None
    return _config_replaced(fabric, name, mlag=mlag._replace(**changes))


def _check(directory: Path) -> list[Finding]:
    return run_checks(*_resolved(directory))


def _ids(findings: list[Finding], severity: str = "error") -> set[str]:
    return {f.rule for f in findings if f.severity == severity}


def _of(findings: list[Finding], rule_id: str) -> list[Finding]:
    return [f for f in findings if f.rule == rule_id]


# --------------------------------------------------------------------- the example


@pytest.fixture(scope="module")
def example() -> tuple[Intent, ResolvedFabric, list[Finding]]:
    """The example intent, resolved and checked once for the read-only tests."""
    intent, fabric = _resolved(REPO / "intent")
    return intent, fabric, run_checks(intent, fabric)


def test_example_has_no_errors_or_warnings(example: tuple[Intent, ResolvedFabric, list[Finding]]) -> None:
    """The committed example is the seed's design done right: no rule may object to it."""
    findings = example[2]
    assert [f.line() for f in findings if f.severity != "info"] == []


def test_example_reports_oversubscription_per_leaf(
    example: tuple[Intent, ResolvedFabric, list[Finding]],
) -> None:
    """C3 asks for the ratio: 9 servers x 100G down against 4 x 400G up is 900/1600."""
    intent, fabric, findings = example
    lines = {f.subject: f.message for f in _of(findings, "PRT006")}
    assert set(lines) == {name for name, d in fabric.devices.items() if d.role == "leaf"}
    assert lines["rack01-leaf-a"] == "9 x 100G down, 4 x 400G up: 0.56:1"
    assert intent.fabric.fabrics["compute"].spines.count == 4


def test_example_reports_usage_of_every_pool(
    example: tuple[Intent, ResolvedFabric, list[Finding]],
) -> None:
    """Pool usage is shown for every pool, with what is left, so headroom is reviewable."""
    _, fabric, findings = example
    usage = {f.subject: f.message for f in _of(findings, "ADR006")}
    assert len(usage) == len(fabric.pools)
    hosts = usage["fabrics.compute.pools.hosts"]
    assert hosts.startswith("10.30.0.0/16: 12 of 256 used, 243 left")
    assert f"{GROWTH_TARGET_SERVERS} GPU servers need 26" in hosts


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("routing: ospf-underlay ", "routing: ebgp-underlay "),
        ("bonding: per-nic\n", "bonding: active-backup\n"),
        ("bonding: active-backup\n", "bonding: lacp\n"),
    ],
    ids=["ebgp-underlay", "active-backup-compute", "lacp-storage"],
)
def test_other_supported_modes_pass(checks_intent_dir: Path, checks_edit: Editor, old: str, new: str) -> None:
    """Both routing modes, an active-backup bond of the compute NICs and LACP on storage's dual-port
    adapter are supported designs: no errors."""
    checks_edit("fabric.yaml", old, new)
    findings = _check(checks_intent_dir)
    assert [f.line() for f in findings if f.severity == "error"] == []


# ------------------------------------------------------------------------ topology


def test_seed_contradiction_two_uplinks_four_spines(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """The seed says "2 uplinks per leaf" beside "4 spines": one clear error says why."""
    checks_edit(
        "fabric.yaml",
        "      uplink_ports: [Ethernet25/1, Ethernet26/1, Ethernet27/1, Ethernet28/1]\n",
        "      uplink_ports: [Ethernet25/1, Ethernet26/1, Ethernet27/1, Ethernet28/1]\n      uplinks_per_leaf: 2\n",
    )
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"FAB001", "FAB002"}
    assert [f.line() for f in _of(findings, "FAB002")] == [
        "error FAB002 [C3] fabrics.compute: 2 uplinks per leaf cannot reach 4 spines: every "
        "leaf must connect to every spine (set uplinks_per_leaf: 4, or use 2 spines)"
    ]
    missing = _of(findings, "FAB001")
    assert len(missing) == 24
    assert all("spine03, spine04" in f.message for f in missing)


def test_more_uplinks_than_spines_is_a_contradiction(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """uplinks_per_leaf above the spine count cannot be built one-link-per-spine: say so."""
    checks_edit(
        "fabric.yaml",
        "      uplink_ports: [Ethernet25/1, Ethernet26/1, Ethernet27/1, Ethernet28/1]\n",
        "      uplink_ports: [Ethernet25/1, Ethernet26/1, Ethernet27/1, Ethernet28/1]\n      uplinks_per_leaf: 8\n",
    )
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"FAB002"}
    assert {f.subject for f in _of(findings, "FAB002")} == {"fabrics.compute"}


def test_too_few_uplink_ports(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Listing fewer uplink ports than spines is the same contradiction, spelled as ports."""
    checks_edit(
        "fabric.yaml",
        "uplink_ports: [Ethernet25/1, Ethernet26/1, Ethernet27/1, Ethernet28/1]",
        "uplink_ports: [Ethernet25/1, Ethernet26/1]",
    )
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"FAB001", "FAB002"}
    assert "lists 2 ports, which cannot reach 4 spines" in _of(findings, "FAB002")[0].message


def test_hop_count_over_three_switches(checks_intent_dir: Path) -> None:
    """Leaves that share no spine put 5 switches between their servers (C3 allows 3)."""
    intent, fabric = _resolved(checks_intent_dir)
    keep = {
        "rack01-leaf-a": "spine01",
        "rack01-leaf-b": "spine01",
        "rack02-leaf-a": "spine02",
        "rack02-leaf-b": "spine02",
    }
    links = tuple(
        link
        for link in fabric.links
        if not (link.kind == "fabric" and keep.get(link.a.device, link.b.device) != link.b.device)
    )
    fabric = _replaced(fabric, links=links)
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"FAB001", "HOP001"}
    (hop,) = _of(findings, "HOP001")
    assert hop.subject == "compute network"
    assert "5 switches apart" in hop.message


def test_max_switch_hops_on_a_chain() -> None:
    """The BFS counts switches, not cables, and reports a cut-off server as unreachable."""

    def cable(a: str, b: str, kind: str) -> Cable:
        return Cable("compute", kind, Endpoint(a, "p"), Endpoint(b, "p"), "100g", "100g", 9214, 9214)  # type: ignore[arg-type]

    chain = [
        cable("l1", "s1", "fabric"),
        cable("l2", "s1", "fabric"),
        cable("l2", "s2", "fabric"),
        cable("l3", "s2", "fabric"),
    ]
    servers = [cable("l1", "h1", "server"), cable("l3", "h3", "server")]
    assert topology.max_switch_hops(chain, servers) == (5, "h1", "h3", 1)
    island = [*servers, cable("x9", "h9", "server")]
    assert topology.max_switch_hops(chain, island)[0] is None


def _hops_by_search(switch_links: list[Cable], server_links: list[Cable], limit: int) -> tuple[Any, ...]:
    """HOP001's answer the plain way: a search from every group of servers to every other."""
    graph = topology._adjacency(switch_links)
    attached: dict[str, set[str]] = {}
    for link in server_links:
        attached.setdefault(link.b.device, set()).add(link.a.device)
    groups: dict[frozenset[str], list[str]] = {}
    for server, switches in sorted(attached.items()):
        groups.setdefault(frozenset(switches), []).append(server)
    keys = sorted(groups, key=lambda g: groups[g][0])
    worst: tuple[Any, ...] = (0, "", "", 0)
    over = 0
    for i, first in enumerate(keys):
        dist = topology._distances(graph, first)
        for second in keys[i:]:
            if first == second and len(groups[first]) < 2:
                continue
            edges = [dist[b] for b in second if b in dist]
            hops = min(edges) + 1 if edges else None
            over += hops is None or hops > limit
            if worst[0] is not None and (hops is None or hops > worst[0]):
                worst = (hops, groups[first][0], groups[second][-1], 0)
    return worst[0], worst[1], worst[2], over


def test_max_switch_hops_agrees_with_a_search_per_group() -> None:
    """Grouping leaf pairs by their neighbourhood gives every random graph the answer a search per group does."""
    rng = random.Random(18)

    def cable(a: str, b: str, kind: str) -> Cable:
        return Cable("compute", kind, Endpoint(a, "p"), Endpoint(b, "p"), "100g", "100g", 9214, 9214)  # type: ignore[arg-type]

    for _ in range(400):
        switches = [f"w{i}" for i in range(rng.randint(1, 9))]
        pairs = [(rng.choice(switches), rng.choice(switches)) for _ in range(rng.randint(0, 12))]
        fabric = [cable(a, b, "fabric") for a, b in pairs if a != b]
        servers = [cable(rng.choice(switches), f"h{rng.randint(0, 8)}", "server") for _ in range(rng.randint(0, 14))]
        limit = rng.choice([3, 5])
        assert topology.max_switch_hops(fabric, servers, limit) == _hops_by_search(fabric, servers, limit)


def test_link_speed_mismatch(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """A 400G leaf uplink against a 100G spine port cannot come up: every such link is named."""
    checks_edit("fabric.yaml", "model: DCS-7060DX5-64S, rack: 13", "model: DCS-7050CX3-32S, rack: 13")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"LNK001"}
    assert len(_of(findings, "LNK001")) == 96
    assert "runs 400g on rack01-leaf-a but 100g on spine01" in _of(findings, "LNK001")[0].message


def test_host_mtu_above_switch_mtu(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """N5: a 9216-byte host frame into a 9214-byte switch port is dropped; RDMA breaks."""
    checks_edit("fabric.yaml", "  host: 9000\n", "  host: 9216\n")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"LNK002"}
    subjects = {f.subject for f in _of(findings, "LNK002")}
    assert {"rack01-leaf-a", "rack01-stor-leaf-a"} <= subjects


def test_switch_link_mtu_mismatch(checks_intent_dir: Path) -> None:
    """Unequal MTUs on a leaf-spine link (a plan regression) are an error on that link."""
    intent, fabric = _resolved(checks_intent_dir)
    index = next(i for i, link in enumerate(fabric.links) if link.kind == "fabric")
    links = list(fabric.links)
    links[index] = links[index]._replace(b_mtu=1500)
    fabric = _replaced(fabric, links=tuple(links))
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"LNK002"}
    assert "MTU 9214 on rack01-leaf-a but 1500 on spine01" in _of(findings, "LNK002")[0].message


# ---------------------------------------------------------------------- addressing


def test_duplicate_device_name(checks_intent_dir: Path) -> None:
    """A server named like a switch would collide in inventory, DNS and cable labels."""
    intent, fabric = _resolved(checks_intent_dir)
    servers = {**fabric.servers, "spine01": fabric.servers["rack01-gpu001"]._replace(name="spine01")}
    fabric = _replaced(fabric, servers=servers)
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"ADR001"}
    assert _of(findings, "ADR001")[0].subject == "spine01"


def test_resolution_name_clash_is_reported(checks_intent_dir: Path) -> None:
    """Two switches resolved under one name only show up as a resolution problem: report it."""
    intent, fabric = _resolved(checks_intent_dir)
    fabric = _replaced(fabric, problems=(Problem("ADR001", "spine01", "device name 'spine01' is used twice"),))
    assert _ids(run_checks(intent, fabric)) == {"ADR001"}


def test_duplicate_address(checks_intent_dir: Path) -> None:
    """Two owners of one address (here a server and a leaf SVI) is a C5 error naming both."""
    intent, fabric = _resolved(checks_intent_dir)
    extra = Allocation("compute", "hosts", "10.30.1.2/24", "rack01-gpu099", "compute bond")
    fabric = _replaced(fabric, allocations=(*fabric.allocations, extra))
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"ADR002"}
    (dup,) = _of(findings, "ADR002")
    assert dup.subject == "10.30.1.2"
    assert "rack01-leaf-a" in dup.message
    assert "rack01-gpu099" in dup.message


def test_overlapping_pools_across_networks(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """C2: storage loopbacks carved from the compute hosts range break isolation."""
    checks_edit("fabric.yaml", "loopbacks: 10.41.0.0/24", "loopbacks: 10.30.128.0/24")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"ADR003"}
    assert [f.line() for f in _of(findings, "ADR003")] == [
        "error ADR003 [C2] fabrics.compute.pools.hosts: 10.30.0.0/16 overlaps "
        "fabrics.storage.pools.loopbacks 10.30.128.0/24"
    ]


def test_upstream_inside_a_rack_subnet(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """The upstream may share the management pool, never a rack's /24 (and its addresses)."""
    checks_edit(
        "fabric.yaml",
        "{subnet: 172.16.255.0/30, gateway: 172.16.255.1}",
        "{subnet: 172.16.5.0/30, gateway: 172.16.5.1}",
    )
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"ADR002", "ADR003"}
    assert "overlaps the rack management subnet 172.16.5.0/25" in _of(findings, "ADR003")[0].message


def test_pool_exhausted(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """A /21 holds 8 pair subnets; 12 pairs (indexes up to 12) need 13: say both numbers."""
    checks_edit("fabric.yaml", "hosts: 10.30.0.0/16", "hosts: 10.30.0.0/21")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"ADR004"}
    (full,) = _of(findings, "ADR004")
    assert full.subject == "fabrics.compute.pools.hosts"
    assert "needs 13 x /24 per leaf pair, 8 fit" in full.message


def test_pool_without_growth_headroom(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """A /20 fits today's 12 pairs but not the 25 pairs of 200 servers: a warning, not an error."""
    checks_edit("fabric.yaml", "hosts: 10.30.0.0/16", "hosts: 10.30.0.0/20")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == set()
    assert _ids(findings, "warning") == {"ADR005"}
    assert "need 26 of the 16 that fit" in _of(findings, "ADR005")[0].message


# --------------------------------------------------------------------------- ports


def _compute_port(checks_edit: Editor, row: str, port: str) -> None:
    """Give the server of one row of servers.csv a ``compute_port``."""
    checks_edit("servers.csv", "name,model,asset_tag\n", "name,model,asset_tag,compute_port\n")
    checks_edit("servers.csv", f"{row}\n", f"{row},{port}\n")


def test_port_beyond_model(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """A server cabled to Ethernet40/1 of a 32-cage leaf: reported once per leaf (PRT001), not
    again as a speed."""
    _compute_port(checks_edit, "rack03-gpu004,gpu-8x-h100,GPU-0304", "Ethernet40/1")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"PRT001"}
    assert next(f.line() for f in _of(findings, "PRT001")) == (
        "error PRT001 [C3] rack03-leaf-a: server rack03-gpu004 enp65s0f0: Ethernet40/1 does not exist on "
        "DCS-7060DX5-32 (Ethernet1/1-32/1 QSFP-DD (lanes /1-/8), Ethernet33 SFP+)"
    )
    assert len(_of(findings, "PRT001")) == 2


@pytest.mark.parametrize(
    ("old", "new", "subjects", "message"),
    [
        (
            "Ethernet27/1, Ethernet28/1]",
            "Ethernet27/1, Ethernet28/3]",
            24,
            "uplink to spine04: Ethernet28/3 is inactive: cage 28 runs 1x400g (Ethernet28/1); "
            "break the cage out or use Ethernet28/1",
        ),
        (
            "upstream_port: Ethernet31/1",
            "upstream_port: Ethernet2/1",
            1,
            "upstream: Ethernet2/1 is absent: cage 1's 4x25g breakout takes its gearbox partner 2; use another cage",
        ),
    ],
    ids=["hidden lane", "gearbox partner"],
)
def test_port_removed_by_a_breakout(
    checks_intent_dir: Path, checks_edit: Editor, old: str, new: str, subjects: int, message: str
) -> None:
    """A port the model has but its breakouts leave inactive or absent: one BRK001 per switch."""
    checks_edit("fabric.yaml", old, new)
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"BRK001"}
    assert len(_of(findings, "BRK001")) == subjects
    assert _of(findings, "BRK001")[0].message == message


def test_server_position_beyond_ports_per_rack(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """A 13th server in a rack whose leaves reserve 12 ports cannot be cabled."""
    checks_edit(
        "servers.csv",
        "rack01-gpu001,gpu-8x-h100,GPU-0101\n",
        "rack01-gpu001,gpu-8x-h100,GPU-0101\nrack01-gpu013,gpu-8x-h100,GPU-0113\n",
    )
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"PRT002"}
    assert all("rack01-gpu013" in f.message for f in _of(findings, "PRT002"))


def test_a_rack_short_of_units(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Rack 1's nine 4U servers and five 1U switches take 41U: a 40U rack is one finding naming it."""
    checks_edit(
        "racks.yaml",
        "{id: 1, row: A, position: 1, pdu_kw: 70, role: gpu, units: 48}",
        "{id: 1, row: A, position: 1, pdu_kw: 70, role: gpu, units: 40}",
    )
    findings = _check(checks_intent_dir)
    assert [f.line() for f in findings if f.severity != "info"] == [
        "error RCK001 [C9] rack01: 5 switches take 5U and 9 servers 36U: 41U of its 40U: "
        "move devices to another rack or set units in racks.yaml"
    ]


def test_management_switch_out_of_server_ports(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Eight server ports on the management switch cannot take a rack of nine servers."""
    checks_edit("fabric.yaml", "servers: {ports: [1-36]}", "servers: {ports: [1-8]}")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"PRT003"}


def test_spine_without_a_port_per_leaf(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """20 downlinks cannot take 24 leaves: one error per spine, naming its budget and the fix,
    and not again as missing links or unreachable servers."""
    checks_edit("fabric.yaml", "name_prefix: spine}", "name_prefix: spine, downlinks: {ports: [1-20]}}")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"PRT004"}
    assert _of(findings, "PRT004")[0].message == (
        "DCS-7060DX5-64S: 64 x QSFP-DD 400g, 2 x SFP+ 10g has 20 downlinks at 400g but the compute fabric "
        "numbers leaves up to 24: use pods (fabrics.compute.pods), or a model with more ports"
    )
    assert {f.subject for f in _of(findings, "PRT004")} == {f"spine0{s}" for s in range(1, 5)}


def test_internal_vlan_range_too_small_for_the_routed_ports(checks_intent_dir: Path) -> None:
    """A spine whose range holds 5 VLANs for its 24 routed ports: EOS would error-disable 19."""
    intent, fabric = _resolved(checks_intent_dir)
    fabric = _config_replaced(fabric, "spine01", vlan_internal_range="1006 1010")
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"VLN001"}
    assert [f.line() for f in _of(findings, "VLN001")] == [
        "error VLN001 [N3] spine01: 24 routed ports need 24 internal VLANs; vlan internal order ascending "
        "range 1006 1010 holds 5: configure vlan internal order ascending range 1006 1029"
    ]


def test_a_vlan_in_the_internal_range_moves_the_range(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """VLAN 1100 on rack03's pair: its leaves take the range after it, the checks pass; a range
    that still held it would be VLN001."""
    checks_edit(
        "fabric.yaml",
        "  storage: {id: 200, name: Storage}\n",
        "  storage: {id: 200, name: Storage}\n  lab: {id: 1100, name: Lab}\n",
    )
    checks_edit(
        "fabric.yaml",
        "    virtual_router_mac: 00:1c:73:00:00:99",
        "    pair_vlans: {3: [lab]}\n    virtual_router_mac: 00:1c:73:00:00:99",
    )
    intent, fabric = _resolved(checks_intent_dir)
    assert fabric.devices["rack03-leaf-a"].config.vlan_internal_range == "1101 1294"
    assert fabric.devices["rack04-leaf-a"].config.vlan_internal_range == "1006 1199"
    assert _ids(run_checks(intent, fabric)) == set()
    fabric = _config_replaced(fabric, "rack03-leaf-a", vlan_internal_range="1006 1199")
    (finding,) = _of(run_checks(intent, fabric), "VLN001")
    assert finding.message.startswith("VLAN 1100 is in use inside vlan internal order ascending range 1006 1199")


def test_downlink_budget(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Nine servers per leaf against a 10-12 budget: a warning per compute leaf."""
    checks_edit("fabric.yaml", "downlink_budget: {min: 8, max: 12}", "downlink_budget: {min: 10, max: 12}")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == set()
    assert _ids(findings, "warning") == {"PRT005"}
    assert len(_of(findings, "PRT005")) == 24


# ------------------------------------------------------------------------- routing


def test_ecmp_below_spine_count(checks_intent_dir: Path) -> None:
    """maximum-paths 2 with 4 spines leaves half the fabric's bandwidth idle (N3)."""
    intent, fabric = _resolved(checks_intent_dir)
    ospf = fabric.devices["rack03-leaf-b"].config.router_ospf
    assert ospf is not None
    fabric = _config_replaced(fabric, "rack03-leaf-b", router_ospf=ospf._replace(maximum_paths=2))
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"RTE001"}
    assert _of(findings, "RTE001")[0].subject == "rack03-leaf-b"


def test_bgp_remote_as_mismatch(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """A spine expecting the wrong leaf ASN never brings the session up."""
    checks_edit("fabric.yaml", "routing: ospf-underlay ", "routing: ebgp-underlay ")
    intent, fabric = _resolved(checks_intent_dir)
    bgp = fabric.devices["spine02"].config.router_bgp
    assert bgp is not None
    neighbors = (bgp.neighbors[0]._replace(remote_as=64999), *bgp.neighbors[1:])
    fabric = _config_replaced(fabric, "spine02", router_bgp=bgp._replace(neighbors=neighbors))
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"RTE002"}
    assert "remote-as 64999, but rack01-leaf-a is AS 65101" in _of(findings, "RTE002")[0].message


def test_bgp_one_sided_session(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """A leaf neighbor the spine does not configure back is a dead session on a live link."""
    checks_edit("fabric.yaml", "routing: ospf-underlay ", "routing: ebgp-underlay ")
    intent, fabric = _resolved(checks_intent_dir)
    bgp = fabric.devices["spine01"].config.router_bgp
    assert bgp is not None
    fabric = _config_replaced(fabric, "spine01", router_bgp=bgp._replace(neighbors=bgp.neighbors[1:]))
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"RTE002"}
    messages = {f.message for f in _of(findings, "RTE002")}
    assert "spine01 has no neighbor 10.31.4.1 back to rack01-leaf-a" in messages
    assert "no BGP session over Ethernet1/1 to rack01-leaf-a (10.31.4.1)" in messages


@pytest.mark.parametrize(
    ("old", "new", "subject", "expected"),
    [
        (
            "ospf: {process: 100, area: 0.0.0.0, max_lsa: 12000}",
            "ospf: {process: 100, area: 0.0.0.0, max_lsa: 12000}\n    bfd: {enabled: false}",
            "spine01",
            "OSPF neighbors run without BFD (no bfd default): a silent link failure waits for the dead timer",
        ),
        (
            "bgp: {spine_asn: 65200, leaf_asn_base: 65200, maximum_routes: 12000}",
            "bgp: {spine_asn: 65200, leaf_asn_base: 65200, maximum_routes: 12000}\n    bfd: {enabled: false}",
            "stor-spine01",
            "eBGP peer group IPv4-UNDERLAY-PEERS runs without BFD: a silent link failure waits for the hold timer",
        ),
        (
            "ospf: {process: 100, area: 0.0.0.0, max_lsa: 12000}",
            "ospf: {process: 100, area: 0.0.0.0, max_lsa: 12000}\n    bfd: {interval_ms: 300, min_rx_ms: 400}",
            "spine01",
            "BFD 300 ms / 400 ms x 3 takes 1200 ms to declare a link dead: keep it under 1000 ms "
            "(routing_profiles.<name>.bfd)",
        ),
    ],
    ids=["ospf-without-bfd", "ebgp-without-bfd", "bfd-too-slow"],
)
def test_underlay_bfd_faults(
    checks_intent_dir: Path, checks_edit: Editor, old: str, new: str, subject: str, expected: str
) -> None:
    """N3: a dead leaf-spine link must leave ECMP in under a second, on both underlays."""
    checks_edit("fabric.yaml", old, new)
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"RTE004"}
    messages = {f.subject: f.message for f in _of(findings, "RTE004")}
    assert messages[subject] == expected


def test_ospf_uplink_passive_and_broadcast(checks_intent_dir: Path) -> None:
    """A passive or broadcast-type uplink forms no adjacency over a /31: ECMP loses a path."""
    intent, fabric = _resolved(checks_intent_dir)
    ospf = fabric.devices["rack02-leaf-a"].config.router_ospf
    assert ospf is not None
    active = tuple(name for name in ospf.active_interfaces if name != "Ethernet26/1")
    fabric = _config_replaced(fabric, "rack02-leaf-a", router_ospf=ospf._replace(active_interfaces=active))
    fabric = _interfaces_replaced(fabric, "rack02-leaf-a", {"Ethernet26/1": {"ospf_point_to_point": False}})
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"RTE003"}
    assert {f.message for f in _of(findings, "RTE003")} == {
        "Ethernet26/1: OSPF network type is not point-to-point",
        "Ethernet26/1: passive in OSPF (not in the active interfaces)",
    }


# ---------------------------------------------------------------------------- MLAG


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda f: _mlag_replaced(f, "rack04-leaf-a", peer_address="10.31.8.9"),
            "rack04-leaf-a peer-address 10.31.8.9 is not rack04-leaf-b's Vlan4094 address",
        ),
        (
            lambda f: _mlag_replaced(f, "rack04-leaf-b", heartbeat_address="172.16.4.9"),
            "rack04-leaf-b heartbeat 172.16.4.9 is not rack04-leaf-a's management address",
        ),
        (
            lambda f: _mlag_replaced(f, "rack04-leaf-b", domain_id="OTHER"),
            "domain-id differ: COMPUTE_PAIR04 on rack04-leaf-a, OTHER on rack04-leaf-b",
        ),
        (
            lambda f: _config_replaced(f, "rack04-leaf-b", virtual_router_mac="00:1c:73:00:00:01"),
            "virtual-router MAC differ",
        ),
        (
            lambda f: _device_replaced(f, "rack04-leaf-b", mlag_peer="rack05-leaf-a"),
            "rack04-leaf-b names 'rack05-leaf-a' as its peer, not rack04-leaf-a",
        ),
    ],
    ids=["peer-address", "heartbeat", "domain-id", "vr-mac", "peer-name"],
)
def test_mlag_peers_inconsistent(
    checks_intent_dir: Path, mutate: Callable[[ResolvedFabric], ResolvedFabric], expected: str
) -> None:
    """N2: MLAG only forms, and a server only survives a leaf loss, if both peers agree."""
    intent, fabric = _resolved(checks_intent_dir)
    findings = run_checks(intent, mutate(fabric))
    assert _ids(findings) == {"MLG001"}
    assert any(expected in f.message for f in _of(findings, "MLG001"))


# ----------------------------------------------------------------------------- QoS


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "dscp_to_tc: {26: 3, 27: 3, 48: 6}",
            "dscp_to_tc: {26: 3, 27: 2, 48: 6}",
            "RoCE DSCP 27 maps to TC 2, not the no-drop TC 3",
        ),
        (
            "dscp_to_tc: {26: 3, 27: 3, 48: 6}",
            "dscp_to_tc: {26: 3, 27: 3, 48: 3}",
            "CNP DSCP 48 shares the no-drop TC 3",
        ),
        (
            "      queue: 3\n",
            "      queue: 4\n",
            "ROCE-LEAF-100G: ECN marks queue(s) [4], but no-drop TC 3 uses queue 3",
        ),
    ],
    ids=["roce-dscp", "cnp-in-no-drop", "ecn-queue"],
)
def test_roce_qos_profile_faults(
    checks_intent_dir: Path, checks_edit: Editor, old: str, new: str, expected: str
) -> None:
    """C4: RoCE must be no-drop, CNPs must not pause, ECN must mark the RoCE queue."""
    checks_edit("fabric.yaml", old, new)
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"QOS001"}
    assert any(expected in f.message for f in _of(findings, "QOS001"))


def test_port_without_service_profile(checks_intent_dir: Path) -> None:
    """A server port without the service-profile has no PFC: RoCE drops under congestion."""
    intent, fabric = _resolved(checks_intent_dir)
    fabric = _interfaces_replaced(fabric, "rack06-leaf-b", {"Ethernet1/5": {"service_profile": None}})
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"QOS001"}
    assert _of(findings, "QOS001")[0].message == "no service-profile on 1 RoCE port(s): Ethernet1/5"


def test_dscps_left_to_the_platform_default_share_the_lossless_class(checks_intent_dir: Path) -> None:
    """Mapped only 26/27 and 48, EOS's default map puts DSCP 24, 25 and 28-31 in the lossless class 3."""
    from compiler.structured import QosMap

    intent, fabric = _resolved(checks_intent_dir)
    qos = fabric.devices["spine01"].config.qos
    assert qos is not None
    fabric = _config_replaced(fabric, "spine01", qos=qos._replace(dscp_maps=(QosMap("26 27", 3), QosMap("48", 6))))
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"QOS003"}
    assert [f.line() for f in _of(findings, "QOS003")] == [
        "error QOS003 [C4/N4] spine01: DSCP 24-25, 28-31 land in the no-drop class TC 3 "
        "(by EOS's default DSCP map: map every DSCP explicitly, default_tc)",
        "error QOS003 [C4/N4] spine01: DSCP 49-55 land in the CNP class TC 6 "
        "(by EOS's default DSCP map: map every DSCP explicitly, default_tc)",
    ]


def test_default_class_set_to_the_lossless_one(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """default_tc is the class of every unlisted DSCP: pointing it at the no-drop class is the same fault."""
    checks_edit("fabric.yaml", "    pfc_priority: 3\n", "    pfc_priority: 3\n    default_tc: 3\n")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"QOS003"}
    assert "DSCP 0-25, 28-47, 49-63 land in the no-drop class TC 3" in _of(findings, "QOS003")[0].message


def test_ecn_band_that_does_not_grow_with_speed(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """One band for 100G and 400G ports marks the 400G uplinks at a quarter of the queueing delay."""
    checks_edit("fabric.yaml", "400g: {min_kbytes: 1024, max_kbytes: 2048}", "400g: {min_kbytes: 256, max_kbytes: 512}")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == set()
    assert [f.line() for f in findings if f.severity == "warning"] == [
        "warning QOS004 [C4/N4] qos_profiles.roce.ecn.thresholds: the ECN band per Gbit/s differs 4x across "
        "port speeds (100g from 256 KB, 400g from 256 KB): scale min/max_kbytes with speed, so every port marks "
        "at the same queueing delay"
    ]


def test_hosts_marking_roce_not_ecn_capable(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """ToS 104 is DSCP 26 without ECT: no switch may mark it, DCQCN is dead and PFC does all the work."""
    checks_edit(
        "fabric.yaml",
        "      max_mark_probability: 100\n",
        "      max_mark_probability: 100\n      host_codepoint: not-ect\n",
    )
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"QOS005"}
    assert "send RoCE with ToS 104 (not ECN-capable)" in _of(findings, "QOS005")[0].message
    assert "use ect0 (ToS 106)" in _of(findings, "QOS005")[0].message


def test_pfc_watchdog_off_on_the_ports(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Global watchdog timers without the per-port enable protect no port: every lossless switch is named."""
    checks_edit("fabric.yaml", "watchdog: {action: drop,", "watchdog: {enabled: false, action: drop,")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"QOS006"}
    assert len(_of(findings, "QOS006")) == 28
    assert _of(findings, "QOS006")[0].message.startswith("no PFC watchdog on 15 lossless port(s) (Ethernet1/1, ")


def test_storm_control_off_on_server_ports(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Without a broadcast cap a looping host floods its VLAN: every switch with servers is named."""
    checks_edit("fabric.yaml", "cabling:\n", "storm_control: {broadcast: null}\ncabling:\n")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"STC001"}
    subjects = {f.subject for f in _of(findings, "STC001")}
    assert {"rack01-leaf-a", "rack01-stor-leaf-b", "rack01-mgmt"} <= subjects and "spine01" not in subjects
    leaf = next(f for f in _of(findings, "STC001") if f.subject == "rack01-leaf-a")
    assert leaf.message.startswith("9 server-facing port(s) without broadcast storm-control at or below 10% (")


def test_storm_control_on_lacp_port_channels(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """With LACP bonds the cap sits on the server's port-channel: a level too high there is caught."""
    checks_edit("fabric.yaml", "bonding: active-backup\n", "bonding: lacp\n")
    intent, fabric = _resolved(checks_intent_dir)
    fabric = _interfaces_replaced(
        fabric, "rack01-stor-leaf-b", {"Port-Channel3": {"storm_control": (("broadcast", "50"),)}}
    )
    findings = run_checks(intent, fabric)
    assert [f.line() for f in _of(findings, "STC001")] == [
        "error STC001 [C2] rack01-stor-leaf-b: 1 server-facing port(s) without broadcast storm-control at or below "
        "10% (Port-Channel3): set storm_control.broadcast in fabric.yaml",
        "error STC001 [C2] rack01-stor-leaf-b: 1 server-facing port(s) without multicast storm-control at or below "
        "10% (Port-Channel3): set storm_control.multicast in fabric.yaml",
    ]


def test_management_services_open_to_any_source(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Without management prefixes eAPI, SSH and gNMI have no ACL: every switch says so."""
    checks_edit("fabric.yaml", "  management_prefixes: [172.20.0.0/24]\n", "")
    checks_edit("fabric.yaml", "collectors: {gnmi: [172.20.0.40], ", "collectors: {")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"MGT001"}
    assert len(_of(findings, "MGT001")) == 55
    assert _of(findings, "MGT001")[0].message == (
        "eAPI, SSH, gNMI accept any source: list the bastions, runners and collectors in services.management_prefixes"
    )


def test_management_acl_that_admits_the_servers(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Permitting the whole management pool lets every server's BMC network reach the switches."""
    checks_edit("fabric.yaml", "management_prefixes: [172.20.0.0/24]", "management_prefixes: [172.16.0.0/16]")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"MGT001"}
    messages = {f.message for f in _of(findings, "MGT001") if f.subject == "spine01"}
    assert messages == {
        f"{acl} permits 172.16.0.0/16, which holds the servers' management subnet of rack 1 and 13 more: "
        "servers could reach it"
        for acl in ("MGMT-EAPI", "MGMT-GNMI", "MGMT-SSH")
    }


def test_server_management_inside_the_switch_subnet(checks_intent_dir: Path) -> None:
    """A server on the switches' management subnet reaches their management plane without the core."""
    from compiler.facts import HostAddress

    intent, fabric = _resolved(checks_intent_dir)
    management = fabric.facts.management
    servers = dict(management.servers)
    servers["rack03-gpu004"] = HostAddress("172.16.3.25/25", "172.16.3.1")
    facts = fabric.facts._replace(management=management._replace(servers=servers))
    findings = run_checks(intent, _replaced(fabric, facts=facts))
    assert [f.line() for f in _of(findings, "MGT002")] == [
        "error MGT002 [C2] rack03-gpu004: management address 172.16.3.25/25 is inside the switches' "
        "management subnet 172.16.3.0/25 of rack 3"
    ]


def test_servers_on_the_switch_management_vlan(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """The same VLAN for servers and switches is one broadcast domain again, whatever the subnets."""
    checks_edit("fabric.yaml", "  vlan_base: 2000\n", "  vlan_base: 2000\n  server_vlan_base: 2000\n")
    findings = _check(checks_intent_dir)
    assert "MGT002" in _ids(findings)
    assert _of(findings, "MGT002")[0].message == (
        "servers and switches of rack 1 share management VLAN 2001: "
        "set management.server_vlan_base apart from vlan_base"
    )


def test_secret_value_and_snmp_community_in_extra_config(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """extra_config can bring back a clear key and SNMPv2c: both are caught, the reference is not."""
    checks_edit(
        "fabric.yaml",
        "extra_config: {}",
        "extra_config:\n  spine02: |\n    tacacs-server host 172.20.0.32 key 7 0832585B1910010713\n"
        "    snmp-server community public ro\n"
        "  spine03: |\n    tacacs-server host 172.20.0.32 key 7 <secret:aaa_key>\n",
    )
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"MGT003", "MGT004"}
    assert [f.subject for f in findings if f.severity == "error"] == ["spine02", "spine02"]
    assert _of(findings, "MGT003")[0].message == (
        "extra_config holds 2 secret value(s) (snmp-server, tacacs-server): write <secret:NAME> and set "
        "FABRICOPS_SECRET_<NAME> at deploy"
    )


def test_collector_that_skips_certificate_verification(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """skip-verify makes gNMI's TLS decorative: anyone on the path can pose as a switch."""
    checks_edit("fabric.yaml", "collectors: {gnmi:", "gnmi: {skip_verify: true}\n  collectors: {gnmi:")
    findings = _check(checks_intent_dir)
    assert [f.line() for f in findings if f.severity == "error"] == [
        "error TEL001 [O2] services.gnmi: gnmic.yaml skips certificate verification: "
        "set a CA file and skip_verify: false"
    ]


def test_gnmi_acl_that_shuts_out_the_collector(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """A gNMI ACL of its own that forgets the collector: every switch would refuse the subscription."""
    checks_edit(
        "fabric.yaml",
        "  management_prefixes: [172.20.0.0/24]\n",
        "  management_prefixes: [172.20.0.0/24]\n  access: {gnmi: {acl: MGMT-GNMI, prefixes: [172.20.0.0/28]}}\n",
    )
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"TEL001"}
    assert len(_of(findings, "TEL001")) == 55
    assert {f.message for f in _of(findings, "TEL001")} == {"MGMT-GNMI does not admit the gNMI collector 172.20.0.40"}


def test_gnmi_served_where_the_collector_does_not_dial(checks_intent_dir: Path) -> None:
    """gNMI in the default VRF of a leaf whose management address lives in VRF MGMT: no session comes up."""
    intent, fabric = _resolved(checks_intent_dir)
    gnmi = fabric.devices["rack04-leaf-b"].config.management_gnmi
    assert gnmi is not None
    fabric = _config_replaced(fabric, "rack04-leaf-b", management_gnmi=gnmi._replace(vrf=None, port=6031))
    findings = run_checks(intent, fabric)
    assert [f.line() for f in findings if f.severity == "error"] == [
        "error TEL001 [O2] rack04-leaf-b: gNMI serves VRF default, but the address the collector dials is in MGMT",
        "error TEL001 [O2] rack04-leaf-b: gNMI serves port 6031, the collector dials 6030",
    ]


def test_alert_querying_a_label_the_collector_does_not_produce(
    checks_intent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Subscribed without its keys the QoS path has no interface label: the ECN alert could never fire."""
    from compiler.artifacts import monitoring

    keyless = "/qos/interfaces/interface/output/queues/queue/state/ecn-marked-pkts"
    monkeypatch.setitem(monitoring.METRICS, "ecn_marked", keyless)
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"TEL002"}
    metric = "gnmic_qos_interfaces_interface_output_queues_queue_state_ecn_marked_pkts"
    assert {f.message for f in _of(findings, "TEL002") if "leaf-a" in f.subject} == {
        f"EcnMarksHigh: {metric} has no label interface_interface_id",
        f"EcnMarksHigh: {metric} has no label queue_name",
    }


def test_lacp_across_two_adapters_on_the_rdma_fabric(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """enp65s0f0 + enp193s0f0 are two adapters: no RoCE LAG, so the bond would carry no RoCE at all."""
    checks_edit("fabric.yaml", "    bonding: per-nic\n", "    bonding: lacp\n")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"BND001"}
    assert [f.line() for f in _of(findings, "BND001")] == [
        "error BND001 [C7/N7] fabrics.compute.bonding: gpu-8x-h100 bonds enp65s0f0 (adapter enp65s0) + "
        "enp193s0f0 (adapter enp193s0) with LACP: RoCE LAG needs both ports of one adapter, so this bond carries "
        "no RoCE; use bonding: per-nic (no bond: each NIC its own address and RoCE GID), bonding: active-backup "
        "(one active NIC at a time), or a dual-port adapter whose two ports form the bond"
    ]


def test_storage_bonds_follow_the_rdma_rules(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Storage carrying RDMA (NFS over RDMA, Lustre o2ib) bonds by the same rule: one adapter or no LACP."""
    checks_edit("fabric.yaml", "    bonding: active-backup\n", "    bonding: lacp\n    rdma: true\n")
    assert _ids(_check(checks_intent_dir)) == set()  # both storage ports on one adapter: RoCE LAG works
    checks_edit(
        "fabric.yaml",
        "{name: enp66s0f1, network: storage, speed: 25g, numa: 0}",
        "{name: enp66s0f1, network: storage, speed: 25g, numa: 0, adapter: enp67s0}",
    )
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"BND001"}
    assert _of(findings, "BND001")[0].message.startswith(
        "gpu-8x-h100 bonds enp66s0f0 (adapter enp66s0) + enp66s0f1 (adapter enp67s0) with LACP"
    )


def test_one_bond_for_gpus_on_two_numa_nodes(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Active-backup works for RoCE, but its one active NIC is local to one socket's GPUs only."""
    checks_edit("fabric.yaml", "    bonding: per-nic\n", "    bonding: active-backup\n")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == set()
    assert [f.line() for f in findings if f.severity == "warning"] == [
        "warning BND002 [C7] server_models.gpu-8x-h100: one active-backup bond of enp65s0f0 (NUMA 0), "
        "enp193s0f0 (NUMA 1) serves GPUs on NUMA nodes [0, 1]: its active NIC is local to one node, the other "
        "node's GPUs cross the socket; use bonding: per-nic (a NIC per NUMA node, each its own address)"
    ]


def test_gpus_on_a_numa_node_without_a_nic(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Both compute NICs on NUMA 0: GPUs 4-7 on NUMA 1 reach the fabric across the socket."""
    checks_edit(
        "fabric.yaml",
        "{name: enp193s0f0, network: compute, speed: 100g, numa: 1}",
        "{name: enp193s0f0, network: compute, speed: 100g, numa: 0}",
    )
    checks_edit("fabric.yaml", "    gpus: 8\n", "    gpus: 8\n    gpu_numa: [0, 0, 0, 0, 1, 1, 1, 1]\n")
    findings = _check(checks_intent_dir)
    assert [f.line() for f in findings if f.severity != "info"] == [
        "warning BND002 [C7] server_models.gpu-8x-h100: GPUs on NUMA node(s) [1] have no compute NIC there: "
        "their RDMA crosses the socket interconnect"
    ]


def test_every_active_backup_primary_on_leaf_a(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """All primaries on leaf a: leaf b idles while leaf a's uplinks carry the whole pair."""
    checks_edit("fabric.yaml", "    bonding: active-backup\n", "    bonding: active-backup\n    primary: leaf-a\n")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == set()
    warnings = [f for f in findings if f.severity == "warning"]
    assert {f.rule for f in warnings} == {"BND003"}
    assert {f.subject for f in warnings} == {
        "rack01-stor-leaf-a",
        "rack05-stor-leaf-a",
        "rack09-stor-leaf-a",
        "rack14-stor-leaf-a",
    }
    assert warnings[0].message.startswith(
        "primary for 36 of the 36 active-backup bonds of its pair (rack01-stor-leaf-b: 0)"
    )


def test_storage_oversubscribed_beyond_its_limit(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """Two storage spines: 44 x 25G of server ports over 2 x 100G is 5.5:1, above the 3:1 stated."""
    checks_edit(
        "fabric.yaml",
        "spines: {count: 4, model: DCS-7050CX3-32S",
        "spines: {count: 2, model: DCS-7050CX3-32S",
    )
    checks_edit(
        "fabric.yaml",
        "uplink_ports: [Ethernet49/1, Ethernet50/1, Ethernet51/1, Ethernet52/1]",
        "uplink_ports: [Ethernet49/1, Ethernet50/1]",
    )
    findings = _check(checks_intent_dir)
    assert [f.line() for f in findings if f.severity == "error"] == [
        "error OVS001 [C1/N7] fabrics.storage: leaves oversubscribed 5.5:1 (1100G of server ports, 200G up), above "
        "the 3:1 the fabric allows: add uplinks, serve fewer racks per leaf pair, or raise max_oversubscription if "
        "that is the intent"
    ]


def test_watchdog_polling_too_slow(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """EOS wants the watchdog to poll at least twice per timeout: a warning, not an error."""
    checks_edit("fabric.yaml", "polling_interval: 0.1", "polling_interval: 0.15")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == set()
    assert _ids(findings, "warning") == {"QOS002"}


# ---------------------------------------------------------------------- references


def test_unknown_service_profile_and_vlan(checks_intent_dir: Path) -> None:
    """A config naming a profile or VLAN it does not define would be rejected by EOS."""
    intent, fabric = _resolved(checks_intent_dir)
    changes: dict[str, dict[str, Any]] = {
        "Ethernet1/1": {"service_profile": "ROCE-OTHER"},
        "Ethernet1/3": {"switchport_access_vlan": 999},
    }
    fabric = _interfaces_replaced(fabric, "rack07-leaf-a", changes)
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"REF001"}
    assert {f.message for f in _of(findings, "REF001")} == {
        "Ethernet1/1: service-profile ROCE-OTHER is not a qos profile of the device (ROCE-LEAF-100G, ROCE-LEAF-400G)",
        "Ethernet1/3: VLAN 999 is not defined on the device",
    }


def test_extra_config_for_unknown_device(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """A typo in an extra_config key would silently drop the user's lines."""
    checks_edit("fabric.yaml", "extra_config: {}", "extra_config: {spine99: 'banner motd x'}")
    findings = _check(checks_intent_dir)
    assert _ids(findings) == {"REF002"}


def test_undefined_route_map(checks_intent_dir: Path, checks_edit: Editor) -> None:
    """An eBGP leaf whose route-maps vanished would redistribute nothing."""
    checks_edit("fabric.yaml", "routing: ospf-underlay ", "routing: ebgp-underlay ")
    intent, fabric = _resolved(checks_intent_dir)
    fabric = _config_replaced(fabric, "rack08-leaf-a", route_maps=())
    findings = run_checks(intent, fabric)
    assert _ids(findings) == {"REF003"}
    assert {f.subject for f in _of(findings, "REF003")} == {"rack08-leaf-a"}


def test_unknown_resolution_problem_is_not_dropped(checks_intent_dir: Path) -> None:
    """A problem kind no rule claims still surfaces, so resolution never fails silently."""
    intent, fabric = _resolved(checks_intent_dir)
    fabric = _replaced(fabric, problems=(*fabric.problems, Problem("NEW999", "rack01-leaf-a", "something new")))
    findings = run_checks(intent, fabric)
    assert [f.line() for f in findings if f.severity == "error"] == [
        "error RES001 [G1] rack01-leaf-a: [NEW999] something new"
    ]


# ---------------------------------------------------------------------------- meta


def test_every_rule_is_complete_and_documented() -> None:
    """Every rule names a severity, a requirement and a title, and docs/checks.md lists it."""
    run_checks(*_resolved(REPO / "intent"))  # imports and registers every rule
    docs = (REPO / "docs" / "checks.md").read_text()
    documented = set(re.findall(r"^\| ([A-Z]{3}\d{3}) \|", docs, re.MULTILINE))
    assert len(RULES) >= 25
    for rule_id, rule in RULES.items():
        assert re.fullmatch(r"[A-Z]{3}\d{3}", rule_id), rule_id
        assert rule.id == rule_id
        assert rule.severity in {"error", "warning", "info"}
        assert REQUIREMENT.fullmatch(rule.requirement), rule.requirement
        assert rule.title.strip()
    assert documented == set(RULES)


def test_every_rule_is_listed_in_its_module_docstring() -> None:
    """Each topic module's docstring table is the maintainer's index of its rules."""
    run_checks(*_resolved(REPO / "intent"))
    for rule_id, rule in RULES.items():
        module = rule.check.__module__.rsplit(".", 1)[-1]
        source = (RULES_DIR / f"{module}.py").read_text()
        assert re.search(rf"^{rule_id}\s+{rule.severity}\s+{re.escape(rule.requirement)}\s", source, re.MULTILINE), (
            rule_id,
            module,
        )


def test_prefix_index_finds_what_a_plain_scan_finds() -> None:
    """The index the management rules ask (supernets looked up by the lengths it holds, subnets
    by bisection) answers as comparing every subnet with the prefix would, on random blocks."""
    rng = random.Random(18)
    for _ in range(50):
        nets = [
            IPv4Network((rng.randrange(0, 1 << 32), n), strict=False)
            for n in (rng.choice((8, 16, 20, 24, 25, 31, 32)) for _ in range(30))
        ]
        nets += [IPv4Network((int(n.network_address), min(n.prefixlen + 4, 32))) for n in nets[:5]]
        index = PrefixIndex((net, i) for i, net in enumerate(nets))
        for probe in [*nets[:10], IPv4Network("0.0.0.0/0"), IPv4Network((rng.randrange(0, 1 << 32), 32))]:
            assert index.overlapping(probe) == [i for i, net in enumerate(nets) if net.overlaps(probe)]
