"""The platform layer: the only Python that spells EOS, and the data the templates print."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import jinja2
import yaml

from compiler.platforms import eos

REPO = Path(__file__).resolve().parents[2]
COMPILER = REPO / "compiler"

# EOS syntax in a string literal: an interface name or its prefix alone (the start of an
# f-string), or a phrase of an EOS command.
EOS_SYNTAX = re.compile(
    r"^(Ethernet|Port-Channel|Vlan|Loopback|Management)$"
    r"|\b(Ethernet|Port-Channel|Vlan|Loopback|Management)\d"
    r"|random-detect|prefix-list|channel-group|switchport(?!_)|tx-queue \d|\borigin \w"
)
# Outside the compile stages: the host's ifcfg TYPE is "Ethernet" or "Vlan"; the checks' messages
# name EOS objects to the user. Structured field names (``switchport_mode``) are no EOS text.
NOT_EOS = {("compiler/artifacts/servers.py", "Ethernet"), ("compiler/artifacts/servers.py", "Vlan")}
SCANNED = [p for p in COMPILER.rglob("*.py") if not {"platforms", "checks"} & set(p.relative_to(COMPILER).parts)]


def _docstrings(tree: ast.AST) -> set[int]:
    """The string constants that stand alone as statements: docstrings and attribute docs."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }


def test_no_eos_syntax_outside_the_platform_layer() -> None:
    """Interface names and EOS phrases are made by compiler/platforms/eos.py only."""
    found = []
    for path in SCANNED:
        tree = ast.parse(path.read_text())
        docs = _docstrings(tree)
        where = str(path.relative_to(REPO))
        literals = [
            (node.lineno, node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
        ]
        found += [
            f"{where}:{line}: {text!r}"
            for line, text in literals
            if EOS_SYNTAX.search(text) and (where, text) not in NOT_EOS
        ]
    assert not found, found


def test_the_scan_sees_an_interface_name_being_built() -> None:
    tree = ast.parse('name = f"Ethernet{port}"\nline = "random-detect ecn count"')
    literals = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    assert all(EOS_SYNTAX.search(text) for text in literals)


def test_template_values_come_from_the_platform_data() -> None:
    """A timer the templates print is read from eos.yaml, not written in the template."""
    data = yaml.safe_load((COMPILER / "platforms" / "eos.yaml").read_text())["templates"]
    data["mlag"]["reload_delay_mlag"] = 780
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(COMPILER / "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["eos"] = data
    mlag = {"domain_id": "D", "local_interface": "Vlan4094", "peer_address": "a", "heartbeat_address": "b"}
    text = env.get_template("eos/mlag.j2").render(mlag={**mlag, "heartbeat_vrf": "MGMT", "peer_link": "Po1"})
    assert "   reload-delay mlag 780\n" in text


def test_platform_data_is_typed() -> None:
    """eos.yaml is read through a closed model: a misspelt key fails loudly instead of rendering."""
    assert eos.data().access_mtu == 1500
    assert eos.data().templates["management_ssh"]["idle_timeout"] == 15
