"""Each check of the intent's specifics fires on its bad variant, as one line naming file and line.

One scratch intent holds every fault (each on its own switch, VLAN or port, so none hides
another) and is resolved and checked once for the module; a fault the intent cannot express (a
VLAN on one MLAG peer only: the compiler puts a VLAN on both) is made by replacing a part of the
resolved fabric, as ``test_checks.py`` does.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from compiler.checks import Finding, run_checks
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import Intent, load_intent

REPO = Path(__file__).resolve().parents[2]

BAD_VLANS = """\
vlans:
  inference:
    id: 300
    network: compute
    pool: 10.32.0.0/16
    access:
      - {server: rack03-gpu001}
      - {server: rack03-gpu001}
  training:
    id: 100
    network: compute
    tagged:
      - {rack: 4}
  scratch:
    id: 310
    name: INFERENCE
    network: storage
    access:
      - {server: rack05-gpu001, nic: enp65s0f0}
  public:
    id: 320
    network: compute
    pool: 8.8.0.0/16
"""

BAD_PORTS = """\
ports:
  rack07-leaf-a:
    Ethernet40/1:
      description: not there
    Ethernet25/1:
      shutdown: optic swap
    Ethernet31/1:
      shutdown: peer link test
"""

BAD_EXTRA = """\
extra_config:
  spine01: |
    interface Ethernet1/1
       mtu 1500
"""

MTU_LINE = 3 + next(  # ``mtu 1500``: two lines below ``extra_config:``'s key
    n
    for n, line in enumerate((REPO / "intent" / "fabric.yaml").read_text().splitlines(), 1)
    if line.startswith("extra_config:")
)
LOCATED = re.compile(r"(^|/)intent/(vlans|ports|fabric)\.yaml:(\d+): \S+$")


@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> tuple[Intent, ResolvedFabric, list[Finding]]:
    """The example with every fault below, resolved and checked once."""
    root = tmp_path_factory.mktemp("specifics") / "intent"
    shutil.copytree(REPO / "intent", root)
    (root / "vlans.yaml").write_text(BAD_VLANS)
    (root / "ports.yaml").write_text(BAD_PORTS)
    fabric_yaml = root / "fabric.yaml"
    fabric_yaml.write_text(fabric_yaml.read_text().replace("extra_config: {}\n", BAD_EXTRA, 1))
    intent = load_intent(root, budgets=False)
    fabric = resolve(intent)
    return intent, fabric, run_checks(intent, fabric)


@pytest.mark.parametrize(
    ("rule", "line", "says"),
    [
        ("VLN002", 9, "VLAN 100 is GPU-Compute already"),  # an id used twice
        ("VLN002", 14, "VLAN name INFERENCE is VLAN 300's already"),  # a name used twice
        ("VLN003", 19, "VLAN 310 scratch is on storage: rack05-gpu001 enp65s0f0 is on compute"),
        ("VLN003", 23, "8.8.0.0/16 is not an RFC1918 private range"),
        ("PRT001", 3, "Ethernet40/1 does not exist on DCS-7060DX5-32"),  # a port the model lacks
        ("PRT007", 8, "rack03-gpu001 enp65s0f0 (rack03-leaf-a Ethernet1/1) is claimed twice"),  # a port used twice
        ("PRT009", 6, "rack07-leaf-a Ethernet25/1 is a fabric link (uplink) to spine01"),  # a shut uplink
        ("PRT009", 8, "rack07-leaf-a Ethernet31/1 is a member of the MLAG peer-link"),  # a shut peer-link member
        ("LNK002", MTU_LINE, "mtu 1500 on spine01 Ethernet1/1, a link the design runs at MTU 9214: remove the line"),
    ],
)
def test_each_fault_is_one_line_at_its_place(
    bad: tuple[Intent, ResolvedFabric, list[Finding]], rule: str, line: int, says: str
) -> None:
    """The finding names the intent file and line, what is wrong and what to do."""
    found = [f for f in bad[2] if f.rule == rule and says in f.message]
    assert len(found) == 1, [f.line() for f in bad[2] if f.rule == rule]
    located = LOCATED.search(found[0].subject)
    assert located is not None and int(located.group(3)) == line, found[0].subject


def test_one_root_cause_is_one_finding(bad: tuple[Intent, ResolvedFabric, list[Finding]]) -> None:
    """Nine faults, nine errors: a NIC off the VLAN's network is not also a bond's lone NIC (VLN005)."""
    errors = sorted(f.rule for f in bad[2] if f.severity == "error")
    assert errors == ["LNK002", "PRT001", "PRT007", "PRT009", "PRT009", "VLN002", "VLN002", "VLN003", "VLN003"]


def test_a_vlan_on_one_mlag_peer_only(bad: tuple[Intent, ResolvedFabric, list[Finding]]) -> None:
    """VLN004: the compiler puts a VLAN on both peers; a regression that drops it from one is named."""
    import dataclasses

    intent, fabric, _ = bad
    leaf = fabric.devices["rack03-leaf-b"]
    vlans = tuple(v for v in leaf.config.vlans if v.id != 300)
    devices = {**fabric.devices, leaf.name: leaf.with_config(leaf.config._replace(vlans=vlans))}
    found = [f for f in run_checks(intent, dataclasses.replace(fabric, devices=devices)) if f.rule == "VLN004"]
    assert len(found) == 1 and "300" in found[0].message and "rack03-leaf-a" in found[0].message, found
