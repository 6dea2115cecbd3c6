"""Adopting drift into the schema: each line a switch runs that the schema can say becomes an edit
of ports.yaml, vlans.yaml or devices.yaml that compiles back to that very line; the rest is left
for extra_config; comments and order of the intent files stay."""

from __future__ import annotations

from pathlib import Path

from compiler.adoption import DEFAULT_REASON, apply_edits, context_for, patch, plan_adoption
from compiler.pipeline import compile_intent
from core.configtree import Change
from core.generated import open_snapshot
from core.intentkeys import intent_field

LEAF = "rack03-leaf-a"
VLANS = """# VLANs of the example
vlans:
  inference:          # the inference pool
    id: 300
    network: compute
    pool: 10.32.0.0/16
    access:
      - {server: rack03-gpu001}
"""
PORT = ("interface Ethernet1/3",)
SHUT_PORT = ("interface Ethernet1/5",)
VLAN_PORT = ("interface Ethernet1/7",)
KNOBS = ("interface Ethernet2/1",)
TRUNK = ("interface Ethernet2/3",)
#: What a console session changed on the leaf, as drift reports it (``line`` the device's).
CHANGES = (
    Change(PORT, "changed", "description moved-by-hand", "description SERVER_rack03-gpu002_enp65s0f0"),
    Change(SHUT_PORT, "added", "shutdown"),
    Change(
        SHUT_PORT,
        "changed",
        "description SERVER_rack03-gpu003_enp65s0f0 SHUTDOWN: optic RMA 77",
        "description SERVER_rack03-gpu003_enp65s0f0",
    ),
    Change(VLAN_PORT, "changed", "switchport access vlan 300", "switchport access vlan 100"),
    Change(KNOBS, "added", "storm-control unknown-unicast level 2"),
    Change(KNOBS, "added", "no lldp transmit"),
    Change(KNOBS, "added", "error-correction encoding reed-solomon"),
    Change((), "added", "ip route vrf MGMT 10.99.0.0/16 172.16.3.1"),
    Change((), "added", "ntp server vrf MGMT 10.99.0.1 iburst"),
    Change((), "added", "logging vrf MGMT host 10.99.0.2"),
    Change(TRUNK, "added", "switchport trunk allowed vlan 5"),
)


def block(config: str, header: str) -> list[str]:
    """The lines of one top-level section of a config (its header's block), stripped."""
    lines = config.splitlines()
    start = lines.index(header)
    out = []
    for line in lines[start + 1 :]:
        if not line.startswith(" "):
            break
        out.append(line.strip())
    return out


def test_every_line_the_schema_says_compiles_back(project: Path, compiled_example: Path) -> None:
    (project / "intent" / "vlans.yaml").write_text(VLANS)
    context = context_for(project, open_snapshot(compiled_example), LEAF)
    plan = plan_adoption(LEAF, CHANGES, context)
    assert [c.line for c in plan.raw] == ["switchport trunk allowed vlan 5"], "a trunk is not in the schema"
    assert [str(e) for e in plan.edits] == [
        "ports.yaml: ports.rack03-leaf-a.Ethernet1/3.description = 'moved-by-hand'",
        "ports.yaml: ports.rack03-leaf-a.Ethernet1/5.shutdown = 'optic RMA 77'",
        "vlans.yaml: vlans.inference.access: add {'server': 'rack03-gpu004', 'nic': 'enp65s0f0'}",
        "ports.yaml: ports.rack03-leaf-a.Ethernet2/1.storm_control.unknown_unicast = 2",
        "ports.yaml: ports.rack03-leaf-a.Ethernet2/1.lldp = {'transmit': False, 'receive': True}",
        "ports.yaml: ports.rack03-leaf-a.Ethernet2/1.fec = 'reed-solomon'",
        "devices.yaml: devices.rack03-leaf-a.static_routes: add "
        "{'prefix': '10.99.0.0/16', 'next_hop': '172.16.3.1', 'vrf': 'MGMT'}",
        "devices.yaml: devices.rack03-leaf-a.ntp: add '10.99.0.1'",
        "devices.yaml: devices.rack03-leaf-a.syslog: add '10.99.0.2'",
    ]
    files = apply_edits(project / "intent", plan.edits)
    assert "+      - {server: rack03-gpu004, nic: enp65s0f0}" in patch(files)
    vlans = files["vlans.yaml"][1]
    assert vlans.startswith("# VLANs of the example\n") and "inference:          # the inference pool" in vlans
    for name, (_before, after) in files.items():
        (project / "intent" / name).write_text(after)
    result = compile_intent(project / "intent")
    assert not result.errors, [f.line() for f in result.errors]
    config = result.files[f"configs/{LEAF}.cfg"].decode()
    live: dict[tuple[str, ...], list[str]] = {}
    for change in CHANGES[:-1]:
        live.setdefault(change.path, []).append(change.line)
    for path, lines in live.items():
        have = block(config, path[0]) if path else [line.strip() for line in config.splitlines()]
        assert set(lines) <= set(have), (path, sorted(set(lines) - set(have)))


def test_a_bare_shutdown_takes_a_reason_and_says_what_the_description_becomes(
    project: Path, compiled_example: Path
) -> None:
    context = context_for(project, open_snapshot(compiled_example), LEAF)
    [edit] = plan_adoption(LEAF, [Change(SHUT_PORT, "added", "shutdown")], context).edits
    assert (edit.path[-1], edit.value) == ("shutdown", DEFAULT_REASON)
    assert edit.note == (
        "a shut port's description carries its reason: the next deploy writes "
        "'description SERVER_rack03-gpu003_enp65s0f0 SHUTDOWN: shut on the switch'"
    )


def test_a_port_back_to_the_design_loses_its_entry(project: Path, compiled_example: Path) -> None:
    """The device undid a ports.yaml shutdown: the key goes, and the port's entry with it."""
    ports = project / "intent" / "ports.yaml"
    ports.write_text("# per port\nports:\n  rack03-leaf-a:\n    Ethernet1/5:\n      shutdown: optic RMA 77\n")
    context = context_for(project, open_snapshot(compiled_example), LEAF)
    undone = [
        Change(SHUT_PORT, "removed", "shutdown"),
        Change(
            SHUT_PORT,
            "changed",
            "description SERVER_rack03-gpu003_enp65s0f0",
            "description SERVER_rack03-gpu003_enp65s0f0 SHUTDOWN: optic RMA 77",
        ),
    ]
    plan = plan_adoption(LEAF, undone, context)
    assert [str(e) for e in plan.edits] == ["ports.yaml: ports.rack03-leaf-a.Ethernet1/5.shutdown: remove"]
    assert apply_edits(project / "intent", plan.edits)["ports.yaml"][1] == "# per port\nports: {}\n"


def test_intent_field_names_the_key_without_the_intent() -> None:
    fields = [intent_field(LEAF, change) for change in CHANGES]
    assert fields[3] == "vlans.yaml: vlans.<VLAN 300>.access"
    assert fields[-1] == "vlans.yaml: vlans.<name>.tagged"  # a trunk: the VLAN's entry, written by hand
    lane = Change(("interface Ethernet1/1",), "changed", "speed 100g-2", "speed 400g-8")
    assert intent_field(LEAF, lane) == f"ports.yaml: ports.{LEAF}.Ethernet1/1.breakout"  # the cage's mode says it


def test_adopt_and_the_drift_report_read_a_line_the_same_way(project: Path, compiled_example: Path) -> None:
    """One set of line patterns: what the report calls extra_config's, adopt leaves raw, and the
    other way round (a port-channel is not a ports.yaml entry; the older speed syntax is one)."""
    changes = [
        Change(("interface Port-Channel1000",), "changed", "description by-hand", "description MLAG_PEER"),
        Change(KNOBS, "added", "speed forced 100gfull"),
        Change(KNOBS, "added", "no error-correction encoding"),
    ]
    context = context_for(project, open_snapshot(compiled_example), LEAF)
    plan = plan_adoption(LEAF, changes, context)
    assert [intent_field(LEAF, c) is None for c in changes] == [True, False, False]
    assert [c.line for c in plan.raw] == ["description by-hand"]
    assert [str(e) for e in plan.edits] == [
        "ports.yaml: ports.rack03-leaf-a.Ethernet2/1.speed = '100g'",
        "ports.yaml: ports.rack03-leaf-a.Ethernet2/1.fec = 'disabled'",
    ]
