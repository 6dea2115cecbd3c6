"""STC001 sorts only the ports it names: they must come in EOS's interface order all the same."""

from __future__ import annotations

from compiler.checks import RULES
from compiler.checks.rules.edge import server_facing
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from compiler.platforms import eos
from tests.compiler.checks.conftest import with_interfaces


def test_uncapped_ports_named_in_interface_order(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """The server ports of a switch without a broadcast cap are named as ``server_facing`` orders
    them (Ethernet9 before Ethernet10, which text puts first), whatever order they were found in."""
    intent, fabric = resolved_example
    leaf = "rack01-stor-leaf-a"
    ports = [p.name for p in server_facing(fabric.devices[leaf])]
    assert ports == sorted(ports, key=eos.interface_key)
    uncapped = ports[8:12]
    assert sorted(uncapped) != uncapped  # text order differs from the interface order
    changed = with_interfaces(fabric, leaf, {name: {"storm_control": (("multicast", "1"),)} for name in uncapped})
    found = [(subject, message) for subject, message in RULES["STC001"].check(intent, changed) if subject == leaf]
    assert found == [
        (
            leaf,
            f"4 server-facing port(s) without broadcast storm-control at or below 10% ({', '.join(uncapped)}): "
            "set storm_control.broadcast in fabric.yaml",
        )
    ]
