"""Lifecycle changes as intent edits, compiled in memory: a decommissioned server, a moved one.

Each scenario edits a copy of the example intent once per module and compiles it once; the
tests read what every artifact says of it (configs, IP plan, host files, validation runs,
expected counters). The chain of each change (check, review, deploy, drift) is in
``tests/e2e/test_lifecycle.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compiler.pipeline import CompileResult, compile_intent
from core.errors import IntentError
from tests.conftest import EXAMPLE_INTENT

HEADER = "name,model,asset_tag\n"


def _intent(base: Path, old: str, new: str) -> Path:
    """A copy of the example intent with one servers.csv edit."""
    shutil.copytree(EXAMPLE_INTENT, base / "intent")
    path = base / "intent" / "servers.csv"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return base / "intent"


def _config(result: CompileResult, device: str) -> str:
    return result.files[f"configs/{device}.cfg"].decode()


def _stanza(config: str, interface: str) -> list[str]:
    lines = config.split(f"\ninterface {interface}\n", 1)[1].split("\n!", 1)[0]
    return [line.strip() for line in lines.splitlines()]


@pytest.fixture(scope="module")
def decommissioned(tmp_path_factory: pytest.TempPathFactory) -> CompileResult:
    """rack03-gpu005 decommissioned."""
    edit = HEADER.replace("\n", ",compute_port,status\n")
    root = _intent(tmp_path_factory.mktemp("decommission"), HEADER, edit)
    path = root / "servers.csv"
    path.write_text(path.read_text().replace("GPU-0305\n", "GPU-0305,,decommissioned\n"))
    return compile_intent(root)


def test_a_decommissioned_server_compiles_with_its_ports_held_shut_and_described(
    decommissioned: CompileResult, example_compile: CompileResult
) -> None:
    assert decommissioned.errors == []
    for leaf, nic in (("rack03-leaf-a", "enp65s0f0"), ("rack03-leaf-b", "enp193s0f0")):
        stanza = _stanza(_config(decommissioned, leaf), "Ethernet2/1")
        assert stanza == [f"description DECOMMISSIONED_rack03-gpu005_{nic}", "shutdown", "speed 100g-2"]
    assert _stanza(_config(decommissioned, "rack03-mgmt"), "Ethernet5")[:2] == [
        "description DECOMMISSIONED_rack03-gpu005_eno1",
        "shutdown",
    ]
    changed = {p for p, data in decommissioned.files.items() if example_compile.files.get(p) != data}
    changed |= set(example_compile.files) - set(decommissioned.files)
    configs = {p.split("/")[1][:-4] for p in changed if p.startswith("configs/")}
    assert configs == {"rack03-leaf-a", "rack03-leaf-b", "rack03-mgmt", "rack01-stor-leaf-a", "rack01-stor-leaf-b"}


def test_a_decommissioned_servers_addresses_stay_reserved_and_it_leaves_every_run(
    decommissioned: CompileResult,
) -> None:
    """Its addresses stay its own in the IP plan (so none is handed out again); it has no host
    files and no place in the link tests, NCCL runs or a health check that would expect it up."""
    plan = decommissioned.files["inventory/ip-plan.csv"].decode().splitlines()
    mine = [row for row in plan if ",rack03-gpu005," in row]
    assert len(mine) == 4 and all(row.endswith(" (reserved: decommissioned)") for row in mine)
    assert "10.30.3.15" in " ".join(mine)
    assert not [p for p in decommissioned.files if p.startswith("servers/rack03-gpu005/")]
    for path in ("validation/nccl/hosts-all.txt", "validation/link-tests.csv"):
        assert b"rack03-gpu005" not in decommissioned.files[path]
    counters = decommissioned.files["monitoring/expected-counters.yaml"].decode()
    assert "oper_status: DOWN\n        shutdown: DECOMMISSIONED_rack03-gpu005_enp65s0f0\n" in counters


def test_a_new_row_at_a_decommissioned_position_is_refused_until_the_row_is_removed(tmp_path: Path) -> None:
    root = _intent(tmp_path, HEADER, HEADER.replace("\n", ",compute_port,status\n"))
    path = root / "servers.csv"
    rows = path.read_text().replace("GPU-0305\n", "GPU-0305,,decommissioned\n")
    path.write_text(rows + "rack03-stor005,storage-node,STO-0305,,\n")  # another server, the same position
    with pytest.raises(IntentError) as refused:
        compile_intent(root)
    (problem,) = refused.value.problems
    held = "already held by 'rack03-gpu005': decommissioned, it keeps its ports and addresses until its row is removed"
    assert "servers.csv:114: name: 'rack03-stor005' takes position 5 in rack 3" in problem and held in problem


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> CompileResult:
    """rack03-gpu005 moved to rack07, position 10: its row renamed, its asset tag kept."""
    root = _intent(tmp_path_factory.mktemp("move"), HEADER, HEADER.replace("\n", ",moved_from\n"))
    path = root / "servers.csv"
    path.write_text(
        path.read_text().replace(
            "rack03-gpu005,gpu-8x-h100,GPU-0305\n", "rack07-gpu010,gpu-8x-h100,GPU-0305,rack03-gpu005\n"
        )
    )
    return compile_intent(root)


def test_a_moved_server_is_recabled_and_readdressed_at_its_new_position(moved: CompileResult) -> None:
    assert moved.errors == []
    server = moved.fabric.servers["rack07-gpu010"]
    assert (server.asset_tag, server.rack, server.position) == ("GPU-0305", 7, 10)
    assert server.compute_address == "10.30.7.20/24"  # pair 7's subnet, .10 + position 10
    assert {(n.switch, n.switch_port) for n in server.nics} >= {
        ("rack07-leaf-a", "Ethernet3/3"),
        ("rack07-mgmt", "Ethernet10"),
    }
    assert "description SERVER_rack07-gpu010_enp65s0f0" in _stanza(_config(moved, "rack07-leaf-a"), "Ethernet3/3")
    cabling = moved.files["inventory/cabling.csv"].decode()
    assert "rack07-leaf-a,Ethernet3/3,rack07-gpu010,enp65s0f0," in cabling and "rack03-gpu005" not in cabling
    plan = moved.files["inventory/ip-plan.csv"].decode()
    assert ",10.30.7.20,address,rack07-gpu010," in plan and "rack03-gpu005" not in plan
    assert "servers/rack07-gpu010/setup-host.sh" in moved.files
    assert not [p for p in moved.files if p.startswith("servers/rack03-gpu005/")]


def test_a_moved_servers_old_ports_are_freed_shut_and_say_where_it_went(moved: CompileResult) -> None:
    for leaf, nic in (("rack03-leaf-a", "enp65s0f0"), ("rack03-leaf-b", "enp193s0f0")):
        assert _stanza(_config(moved, leaf), "Ethernet2/1") == [
            f"description MOVED_rack03-gpu005_{nic}_TO_rack07-gpu010",
            "shutdown",
            "speed 100g-2",
        ]
    assert _stanza(_config(moved, "rack03-mgmt"), "Ethernet5") == [
        "description MOVED_rack03-gpu005_eno1_TO_rack07-gpu010",
        "shutdown",
    ]
    source = moved.fabric.facts.provenance.field("rack03-leaf-a", "Ethernet2/1", "description")
    assert str(source) == "servers.csv: rack07-gpu010.moved_from"


def test_a_server_placed_at_the_old_position_takes_its_ports(tmp_path: Path) -> None:
    """The old ports are free: a new server there is cabled on them, no longer described as vacated."""
    root = _intent(tmp_path, HEADER, HEADER.replace("\n", ",moved_from\n"))
    path = root / "servers.csv"
    rows = path.read_text().replace(
        "rack03-gpu005,gpu-8x-h100,GPU-0305\n", "rack07-gpu010,gpu-8x-h100,GPU-0305,rack03-gpu005\n"
    )
    path.write_text(rows + "rack03-gpu005,gpu-8x-h100,GPU-0399,\n")
    result = compile_intent(root)
    assert result.errors == []
    assert _stanza(_config(result, "rack03-leaf-a"), "Ethernet2/1")[0] == "description SERVER_rack03-gpu005_enp65s0f0"


def test_a_moved_from_that_is_no_position_is_one_line(tmp_path: Path) -> None:
    root = _intent(tmp_path, HEADER, HEADER.replace("\n", ",moved_from\n"))
    path = root / "servers.csv"
    path.write_text(path.read_text().replace("GPU-0305\n", "GPU-0305,rack99-gpu005\n"))
    with pytest.raises(IntentError) as refused:
        compile_intent(root)
    (problem,) = refused.value.problems
    assert "servers.csv:24: moved_from: 'rack99-gpu005' is not a position the server left: give a name" in problem


def test_a_port_held_for_a_decommissioned_server_cannot_be_taken_meanwhile(tmp_path: Path) -> None:
    """Another server's ``compute_port`` on the held port is refused and says why."""
    root = _intent(tmp_path, HEADER, HEADER.replace("\n", ",compute_port,status\n"))
    path = root / "servers.csv"
    rows = path.read_text().replace("GPU-0305\n", "GPU-0305,,decommissioned\n")
    path.write_text(rows.replace("GPU-0306\n", "GPU-0306,Ethernet2/1,\n"))
    messages = {f.subject: f.message for f in compile_intent(root).errors if f.rule == "PRT007"}
    assert messages["rack03-leaf-a"] == (
        "rack03-gpu006: Ethernet2/1 is already used "
        "(held for decommissioned server rack03-gpu005 enp65s0f0 until its row is removed)"
    )
