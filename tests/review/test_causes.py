"""fabricops diff by intent change: config lines grouped by the edit that caused them, golden
text and markdown for a one-port change, a mixed change and a 20-rack change, the merge-base."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from compiler.pipeline import compile_intent, write_generated
from core.generated import merge_base, open_snapshot
from core.topology import Topology
from review.causes import Cause, Touch
from review.diff import BlastRadius, DeviceChange, Review, review
from review.report import as_markdown, as_text
from tests.conftest import clone_repo, git, run_fabricops

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

SHUT = """ports:
  rack03-leaf-a:
    Ethernet1/3:
      shutdown: NIC enp65s0f0 failed, RMA 4411
"""
VLAN = """vlans:
  inference:
    id: 300
    network: compute
    pool: 10.32.0.0/16
    access:
      - {rack: 5}
"""


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs: UPDATE_GOLDEN=1 rewrites it; read the diff first"


def commit_change(root: Path, branch: str, edits: dict[str, str], servers: tuple[str, str] | None = None) -> None:
    git(root, "checkout", "-q", "-b", branch, "main")
    for name, text in edits.items():
        (root / "intent" / name).write_text(text)
    if servers is not None:
        path = root / "intent" / "servers.csv"
        path.write_text(path.read_text().replace(*servers))
    write_generated(compile_intent(root / "intent"), root / "generated")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", branch)


@pytest.fixture(scope="module")
def changes(tmp_path_factory: pytest.TempPathFactory, example_repo: Path) -> Path:
    """Branch ``port``: one port shut; branch ``mixed``: VLAN 300 on rack 5, a port shut and a
    server moved (its row renamed, asset tag kept)."""
    root = clone_repo(example_repo, tmp_path_factory.mktemp("causes") / "repo")
    commit_change(root, "port", {"ports.yaml": SHUT})
    move = ("rack03-gpu007,gpu-8x-h100,GPU-0307", "rack04-gpu010,gpu-8x-h100,GPU-0307")
    commit_change(root, "mixed", {"ports.yaml": SHUT, "vlans.yaml": VLAN}, move)
    return root


def render(root: Path, branch: str) -> tuple[Review, str, str]:
    base, note = merge_base(root, "main", branch)
    old, new = open_snapshot(root, base), open_snapshot(root, branch)
    result = review(old, new, note)
    text = as_text(result, [])
    markdown = as_markdown(result, [], Topology.read(new).merged(Topology.read(old)))
    shas = re.compile(r"\b[0-9a-f]{12}\b")
    return result, shas.sub("<sha>", text), shas.sub("<sha>", markdown)


def test_one_port_shut_is_one_intent_change(changes: Path) -> None:
    result, text, markdown = render(changes, "port")
    [cause] = result.causes
    assert cause.title == "port rack03-leaf-a Ethernet1/3 shut: NIC enp65s0f0 failed, RMA 4411"
    assert cause.element == "ports.yaml: ports.rack03-leaf-a.Ethernet1/3"
    assert cause.ports == ["rack03-leaf-a Ethernet1/3"] and cause.servers == ["rack03-gpu002"]
    assert cause.risks == ["port shut"] and result.blast.risks == ["port shut"]
    assert text.startswith(
        f"{cause.title}; no spine touched\ncompared with <sha>, main, the merge-base of main and port"
    )
    check_golden("one-port.txt", text)
    check_golden("one-port.md", markdown)


def test_mixed_change_groups_lines_by_vlan_port_and_move(changes: Path) -> None:
    result, text, markdown = render(changes, "mixed")
    titles = [cause.title for cause in result.causes]
    assert titles == [
        "VLAN 300 inference added on rack05-leaf-a/b 9 ports Ethernet1/1 .. 3/1",
        "port rack03-leaf-a Ethernet1/3 shut: NIC enp65s0f0 failed, RMA 4411",
        "rack03-gpu007 moved to rack04-gpu010: rack01-stor-leaf-a/b Ethernet29; rack03-leaf-a/b Ethernet2/5; "
        "rack03-mgmt Ethernet7 -> rack01-stor-leaf-a/b Ethernet43; rack04-leaf-a/b Ethernet3/3; rack04-mgmt Ethernet10",
    ]
    vlan = result.causes[0]
    # the SVI, the VLAN and the OSPF network follow the VLAN that made them
    assert {t.path for t in vlan.touches if t.device == "rack05-leaf-a"} >= {
        "vlans/300",
        "interfaces/Vlan300",
        "router_ospf",
    }
    assert vlan.risks == []  # a new subnet advertised is no routing risk
    move = result.causes[2]
    assert move.status == "moved" and move.risks == []
    every = sorted((t.device, t.path) for cause in result.causes for t in cause.touches)
    assert len(every) == len(set(every)) == sum(len(d.sections) for d in result.devices)
    check_golden("mixed.txt", text)
    check_golden("mixed.md", markdown)


def test_diff_starts_at_the_merge_base(changes: Path) -> None:
    """main moves on after the branch left it: its change is not the pull request's."""
    root = changes
    git(root, "checkout", "-q", "main")
    config = root / "generated" / "configs" / "spine01.cfg"
    config.write_text(config.read_text().replace("hostname spine01", "hostname spine01\n! main moved on"))
    git(root, "commit", "-qam", "main moves on")
    git(root, "checkout", "-q", "port")
    out = run_fabricops(root, "diff", "--base", "main", "--head", "port")
    assert out.code == 3, out.err
    assert "the merge-base of main and port" in out.out.splitlines()[1]
    assert "spine01" not in out.out and "rack03-leaf-a" in out.out


def server_added(rack: int, position: int) -> Cause:
    server, leaf, port = f"rack{rack:02d}-gpu{position:03d}", f"rack{rack:02d}-leaf-a", f"Ethernet{position}"
    touch = Touch(leaf, f"interfaces/{port}", "changed", ("description: added x",))
    title = f"server {server} added on {leaf}/b {port}"
    return Cause(f"servers.csv: {server}", "server", "added", title, [leaf], [f"{leaf} {port}"], [server], [], [touch])


def many_racks() -> Review:
    """20 racks of servers added (synthetic: rendering only), and a spine port shut."""
    causes = [server_added(rack, position) for rack in range(5, 25) for position in range(1, 10)]
    devices = [DeviceChange(f"rack{r:02d}-leaf-a", "changed", "leaf", "compute", f"pair{r:02d}") for r in range(5, 25)]
    shut = Touch("spine01", "interfaces/Ethernet1/1", "changed", ("shutdown: added True",))
    risks = ["spine", "port shut", "uplink"]
    title = "port spine01 Ethernet1/1 shut: optic"
    element = "ports.yaml: ports.spine01.Ethernet1/1"
    causes.insert(0, Cause(element, "port", "shut", title, ["spine01"], ["spine01 Ethernet1/1"], [], risks, [shut]))
    devices.append(DeviceChange("spine01", "changed", "spine", "compute", "compute-spines"))
    blast = BlastRadius(len(devices), [], [], ["spine01"], 181, [c.servers[0] for c in causes[1:]], risks)
    note = "the merge-base of main and HEAD"
    return Review("a" * 40, "b" * 40, "181 ports changed", devices, blast, [], causes, note)


def test_twenty_racks_are_summarised_and_folded() -> None:
    markdown = as_markdown(many_racks(), [])
    assert "**181 intent changes: 1 port shut, 180 servers added; spines touched: spine01**" in markdown
    listed = markdown.split("<details>", 1)[0]
    assert "rack24-gpu009" not in listed and "port spine01 Ethernet1/1 shut: optic" in listed
    assert "<details><summary>All 181 intent changes</summary>" in markdown
    assert "<details><summary>21 devices change</summary>" in markdown
    assert len(markdown) < 65_536  # what a GitHub comment holds
    check_golden("many-racks.md", markdown)
