"""Moved servers: the ports a server left behind, shut and described as vacated.

A move is a renamed row of ``servers.csv`` keeping its asset tag (rack and position come from
the name), so the server is cabled, addressed and configured at its new position like any other.
Its ``moved_from`` column names the old name: each port of the old position that no server takes
now is described ``MOVED_<old>_<nic>_TO_<new>`` (``naming.descriptions.moved_port``; shut, as
every unused port is), as a ``ports.yaml`` entry would, until a later change clears the column.
A server placed at the old position takes those ports (they are free); a ``ports.yaml`` entry
for one of them wins.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> from compiler.facts import build_facts
    >>> facts = build_facts(load_intent(Path("intent")))
    >>> vacated_ports(facts.intent, facts.topology, facts.cabling)
    {}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from compiler.facts.cabling import Cabling
from compiler.facts.ports import PortSetting
from compiler.facts.topology import Topology
from compiler.intent import Intent, Server
from compiler.sources import Source
from compiler.specifics import PortSettings


def vacated_ports(intent: Intent, topology: Topology, cabling: Cabling) -> Mapping[str, Mapping[str, PortSetting]]:
    """By switch and interface: the description of each port a moved server left that is unused now."""
    describe = intent.fabric.naming.descriptions.moved_port
    out: dict[str, dict[str, PortSetting]] = {}
    for server in intent.servers:
        if server.moved_from is None:
            continue
        old = server.moved_from[2]
        source = Source("servers.csv", (server.name, "moved_from"))
        for switch, port, nic in old_ports(intent, topology, server):
            if cabling.port(switch, port) is not None or port in intent.ports.get(switch, {}):
                continue
            text = describe.format(server=old, nic=nic, moved_to=server.name)
            out.setdefault(switch, {})[port] = PortSetting(PortSettings(description=text), source)
    return out


def old_ports(intent: Intent, topology: Topology, server: Server) -> Iterator[tuple[str, str, str]]:
    """(switch, interface, NIC) of each port ``server`` had at the position it moved from, where
    that position's switches exist (a leaf pair with no server left has none)."""
    assert server.moved_from is not None
    rack, position, _ = server.moved_from
    nics = intent.fabric.server_models[server.model]
    switch = topology.rack_switches.get(rack)
    servers_set = topology.layouts.mgmt.sets["servers"]
    if switch is not None and nics.nics_on("management") and position <= len(servers_set):
        yield switch, servers_set[position - 1], nics.nics_on("management")[0].name
    for net, fabric in sorted(topology.fabrics.items()):
        leaves = intent.fabric.fabrics[net].leaves
        downlinks = topology.layouts.leaf[net].sets["downlinks"]
        net_nics = nics.nics_on(net)
        for pair in fabric.pairs:
            if not pair.first_rack <= rack < pair.first_rack + leaves.racks_per_pair:
                continue
            host = (rack - pair.first_rack) * leaves.ports_per_rack + position
            if position > leaves.ports_per_rack or host > len(downlinks):
                continue
            for side, leaf in enumerate(pair.leaves[: len(net_nics)]):
                yield leaf, downlinks[host - 1], net_nics[side].name
