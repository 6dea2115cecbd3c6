"""The escape hatch: ``extra_config`` is parsed into the switch's config and checked like the rest.

One scratch intent, resolved and checked once for the module: its block on ``rack03-leaf-a``
holds a line of every kind the schema writes, a section written twice, an interface the model
lacks, and lines only extra_config can say (which are merged, printed and seen by the checks).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from compiler.checks import Finding, run_checks
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import Intent, load_intent
from compiler.render import render_device
from core.errors import IntentError

REPO = Path(__file__).resolve().parents[2]

BLOCK = """\
extra_config:
  rack03-leaf-a: |
    interface Ethernet1/1
       load-interval 5
       description to rack05
       shutdown
       speed 25g
       error-correction encoding fire-code
       no lldp transmit
       storm-control broadcast level 5
       switchport access vlan 300
    interface Ethernet25/1
       mtu 9000
    interface Ethernet1/1
       load-interval 10
    interface Ethernet40/1
       load-interval 5
    interface Ethernet1/5
       no shutdown
    interface Ethernet2/1-4
       load-interval 5
    vlan 300
       name INFERENCE
    ip route 10.99.0.0/16 10.30.3.1
    ntp server vrf MGMT 10.0.0.9
    logging vrf MGMT host 10.0.0.21
    ip name-server vrf MGMT 172.20.0.54
    router ospf 100
       router-id 10.99.0.1
"""
FIRST_LINE = 2 + next(  # the block's first line: its key is on the line after ``extra_config:``
    n
    for n, line in enumerate((REPO / "intent" / "fabric.yaml").read_text().splitlines(), 1)
    if line.startswith("extra_config:")
)


@pytest.fixture(scope="module")
def hatch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Intent, ResolvedFabric, list[Finding]]:
    root = tmp_path_factory.mktemp("extra") / "intent"
    shutil.copytree(REPO / "intent", root)
    fabric_yaml = root / "fabric.yaml"
    fabric_yaml.write_text(fabric_yaml.read_text().replace("extra_config: {}\n", BLOCK, 1))
    (root / "ports.yaml").write_text("ports:\n  rack03-leaf-a:\n    Ethernet1/5:\n      shutdown: optic swap\n")
    intent = load_intent(root, budgets=False)
    fabric = resolve(intent)
    return intent, fabric, run_checks(intent, fabric)


def _at(findings: list[Finding], rule: str) -> dict[int, str]:
    """The findings of ``rule`` by their line of fabric.yaml."""
    out = {}
    for f in findings:
        if f.rule == rule:
            located = re.search(r"intent/fabric\.yaml:(\d+): extra_config\.rack03-leaf-a$", f.subject)
            assert located is not None, f.line()
            out[int(located.group(1))] = f.message
    return out


def test_a_line_the_schema_writes_is_refused_with_its_entry(
    hatch: tuple[Intent, ResolvedFabric, list[Finding]],
) -> None:
    refused = _at(hatch[2], "EXT001")
    offset = {index: FIRST_LINE + index for index in range(len(BLOCK.splitlines()) - 2)}
    assert refused == {
        offset[2]: "'description to rack05' is said by the schema, not extra_config: write "
        "intent/ports.yaml: ports.rack03-leaf-a.Ethernet1/1.description: 'to rack05'",
        offset[3]: "'shutdown' is said by the schema, not extra_config: write "
        "intent/ports.yaml: ports.rack03-leaf-a.Ethernet1/1.shutdown: <why it is shut>",
        offset[4]: "'speed 25g' is said by the schema, not extra_config: write "
        "intent/ports.yaml: ports.rack03-leaf-a.Ethernet1/1.speed: 25g",
        offset[5]: "'error-correction encoding fire-code' is said by the schema, not extra_config: write "
        "intent/ports.yaml: ports.rack03-leaf-a.Ethernet1/1.fec: fire-code",
        offset[6]: "'no lldp transmit' is said by the schema, not extra_config: write "
        "intent/ports.yaml: ports.rack03-leaf-a.Ethernet1/1.lldp: {transmit: false}",
        offset[7]: "'storm-control broadcast level 5' is said by the schema, not extra_config: write "
        "intent/ports.yaml: ports.rack03-leaf-a.Ethernet1/1.storm_control: {broadcast: 5}",
        offset[8]: "'switchport access vlan 300' is said by the schema, not extra_config: write "
        "intent/vlans.yaml: vlans.<name>.access: [{server: <server on rack03-leaf-a Ethernet1/1>}]",
        offset[19]: "'vlan 300' is said by the schema, not extra_config: write "
        "intent/vlans.yaml: vlans.<name>: {id: 300, network: compute|storage, access: [...], tagged: [...]}",
        offset[21]: "'ip route 10.99.0.0/16 10.30.3.1' is said by the schema, not extra_config: write "
        "intent/devices.yaml: devices.rack03-leaf-a.static_routes: [{prefix: 10.99.0.0/16, next_hop: 10.30.3.1}]",
        offset[22]: "'ntp server vrf MGMT 10.0.0.9' is said by the schema, not extra_config: write "
        "intent/devices.yaml: devices.rack03-leaf-a.ntp: [10.0.0.9]",
        offset[23]: "'logging vrf MGMT host 10.0.0.21' is said by the schema, not extra_config: write "
        "intent/devices.yaml: devices.rack03-leaf-a.syslog: [10.0.0.21]",
    }


def test_a_section_twice_and_an_interface_the_model_lacks(hatch: tuple[Intent, ResolvedFabric, list[Finding]]) -> None:
    assert _at(hatch[2], "EXT002") == {
        FIRST_LINE + 11: f"'interface Ethernet1/1' is written twice in rack03-leaf-a's block (first on line "
        f"{FIRST_LINE}): merge the two into one section",
        FIRST_LINE + 13: "Ethernet40/1 does not exist on rack03-leaf-a (DCS-7060DX5-32): name one of its "
        "interfaces (docs/hardware.md)",
        FIRST_LINE + 16: "'no shutdown' contradicts intent/ports.yaml: ports.rack03-leaf-a.Ethernet1/5.shutdown "
        "('optic swap'): remove that entry to bring the port back",
        FIRST_LINE + 17: "'interface Ethernet2/1-4' names a range or list: write one section per interface, so "
        "the checks see each",
    }


def test_what_stays_is_merged_into_its_stanza_and_checked(hatch: tuple[Intent, ResolvedFabric, list[Finding]]) -> None:
    """``mtu 9000`` replaces the field (LNK002 sees it at its line); other lines print in the stanza,
    top-level ones after the config."""
    intent, fabric, findings = hatch
    device = fabric.devices["rack03-leaf-a"]
    ports = {i.name: i for i in device.config.interfaces}
    assert ports["Ethernet25/1"].mtu == 9000
    assert _at(findings, "LNK002") == {
        FIRST_LINE + 10: "mtu 9000 on rack03-leaf-a Ethernet25/1, a link the design runs at MTU 9214: remove the "
        "line (both ends of a link run the design's MTU, fabric.yaml mtu)"
    }
    assert ports["Ethernet1/1"].extra[0] == "load-interval 5" and "load-interval 10" in ports["Ethernet1/1"].extra
    assert "\nip name-server vrf MGMT 172.20.0.54\nrouter ospf 100\n" in str(device.config.extra_config)
    text = render_device(device)
    stanza = text.split("interface Ethernet1/1\n", 1)[1].split("!\n", 1)[0]
    assert "   load-interval 5\n" in stanza
    assert text.count("interface Ethernet1/1\n") == 1
    assert text.rstrip().endswith(
        "ip name-server vrf MGMT 172.20.0.54\nrouter ospf 100\n   router-id 10.99.0.1\n!\nend"
    )
    del intent


def test_two_blocks_for_one_device_are_refused_as_the_intent_loads(tmp_path: Path) -> None:
    """A second block would overwrite the first: the key written twice is one error naming both lines."""
    root = tmp_path / "intent"
    shutil.copytree(REPO / "intent", root)
    fabric_yaml = root / "fabric.yaml"
    twice = "extra_config:\n  spine01: |\n    banner motd a\n  spine01: |\n    banner motd b\n"
    fabric_yaml.write_text(fabric_yaml.read_text().replace("extra_config: {}\n", twice, 1))
    with pytest.raises(IntentError) as raised:
        load_intent(root, budgets=False)
    text = str(raised.value) + "".join(f"\n{p}" for p in getattr(raised.value, "problems", ()))
    first, second = FIRST_LINE - 1, FIRST_LINE + 1
    assert f"fabric.yaml:{second}" in text and f"'spine01' is written twice (first on line {first})" in text, text


def test_a_value_the_design_sets_is_not_replaced_behind_the_checks(
    hatch: tuple[Intent, ResolvedFabric, list[Finding]],
) -> None:
    """Outside the merged interfaces, a single-valued line of a generated section is the design's."""
    assert _at(hatch[2], "EXT003") == {
        FIRST_LINE + 26: "'router-id 10.99.0.1' would replace 'router-id 10.31.0.69' of router ospf 100, which "
        "the design sets and the checks read: change it in the intent's design instead"
    }
