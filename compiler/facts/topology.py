"""Which switches exist, where they stand and how they pair: the skeleton every other fact hangs on.

* leaf pair ``P`` of a fabric = ``(rack - 1) // racks_per_pair + 1``, for the racks whose
  servers have a NIC on that fabric; its leaves stand in the first of those racks;
* leaf index ``L = 2 * (P - 1) + side + 1`` (side a = 0, b = 1); spine ``s`` = 1..count;
* a management switch per rack of ``racks.yaml``, and one core;
* management slots: in its rack, a compute leaf takes slot 1 or 2, a storage leaf 3 or 4;
  compute spines 5.., then storage spines; slot ``k`` is port ``devices_first + k - 1`` of
  the rack's management switch.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> topology = build_topology(load_intent(Path("intent")))
    >>> leaf = topology.switches["rack03-leaf-b"]
    >>> leaf.role, leaf.pair, leaf.number, leaf.mlag_peer, leaf.slot, leaf.mgmt_port
    ('leaf', 3, 6, 'rack03-leaf-a', 2, 38)
    >>> topology.fabrics["storage"].pairs[0].leaves
    ('rack01-stor-leaf-a', 'rack01-stor-leaf-b')
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from compiler.facts.common import FabricNetwork, Network, Problem, Role
from compiler.intent import FabricIntent, Intent, Server

SIDES = ("a", "b")


def leaf_name(rack: int, suffix: str, side: str) -> str:
    """Name of a leaf: its rack, its fabric's suffix and its side.

    Example:
        >>> leaf_name(3, "leaf", "a")
        'rack03-leaf-a'
    """
    return f"rack{rack:02d}-{suffix}-{side}"


def spine_name(prefix: str, number: int) -> str:
    """Name of spine ``number`` of a fabric.

    Example:
        >>> spine_name("stor-spine", 2)
        'stor-spine02'
    """
    return f"{prefix}{number:02d}"


def rack_switch_name(rule: str, rack: int) -> str:
    """Name of the management switch of ``rack`` under the naming ``rule`` (``management.switch_name``).

    Example:
        >>> rack_switch_name("rack{rack:02d}-mgmt", 7)
        'rack07-mgmt'
    """
    return rule.format(rack=rack)


class Switch(NamedTuple):
    """A switch of the design: who it is, where it stands, what it pairs with."""

    name: str
    role: Role
    network: Network
    model: str
    rack: int
    redundancy_group: str
    number: int
    """Leaf index ``L``, spine number ``s``, rack number of a management switch, 0 for the core."""
    pair: int | None = None
    side: int | None = None
    mlag_peer: str | None = None
    slot: int | None = None
    """Its slot on its rack's management switch (fabric switches)."""
    mgmt_port: int | None = None
    """The port of that slot on the management switch; None when the switch has no such port."""


class LeafPair(NamedTuple):
    """An MLAG leaf pair of one fabric and the servers it serves."""

    network: FabricNetwork
    id: int
    rack: int
    first_rack: int
    leaves: tuple[str, str]
    servers: tuple[Server, ...]

    def leaf_index(self, side: int) -> int:
        """``L`` of the leaf on ``side``."""
        return 2 * (self.id - 1) + side + 1


class SpineLeaf(NamedTuple):
    """One spine-leaf fabric: its spines, its leaf pairs, and how many spines each leaf reaches."""

    network: FabricNetwork
    spines: tuple[str, ...]
    pairs: tuple[LeafPair, ...]
    uplinks: int


class Topology(NamedTuple):
    """Every switch by name, the spine-leaf fabrics, and the management tree."""

    switches: Mapping[str, Switch]
    fabrics: Mapping[FabricNetwork, SpineLeaf]
    core: str
    rack_switches: Mapping[int, str]
    problems: tuple[Problem, ...]

    def in_rack(self, rack: int) -> Iterator[Switch]:
        """The fabric switches with a management slot in ``rack``, by slot."""
        yield from sorted(
            (s for s in self.switches.values() if s.slot is not None and s.rack == rack), key=lambda s: s.slot or 0
        )


def build_topology(intent: Intent) -> Topology:
    """Plan every switch of ``intent``; pure and deterministic."""
    spec = intent.fabric
    switches: dict[str, Switch] = {}
    problems: list[Problem] = []

    def add(switch: Switch) -> None:
        if switch.name in switches:
            problems.append(Problem("ADR001", switch.name, f"device name {switch.name!r} is used twice"))
        switches[switch.name] = switch

    mgmt = spec.management
    rack_switches = {rack: rack_switch_name(mgmt.switch_name, rack) for rack in intent.racks}
    for rack, name in rack_switches.items():
        add(Switch(name, "mgmt", "management", mgmt.switch_model, rack, f"mgmt-rack{rack:02d}", rack))
    add(Switch(mgmt.core.name, "core", "management", mgmt.core.model, mgmt.core.rack, "mgmt-core", 0))

    fabrics: dict[FabricNetwork, SpineLeaf] = {}
    compute = spec.fabrics.get("compute")
    spine_slot_base = {"compute": 4, "storage": 4 + (compute.spines.count if compute else 0)}
    for net in sorted(spec.fabrics):
        fab = spec.fabrics[net]
        fabric = _spine_leaf(intent, net, fab)
        fabrics[net] = fabric
        slot_base = 0 if net == "compute" else 2
        for pair in fabric.pairs:
            for side, name in enumerate(pair.leaves):
                slot = slot_base + side + 1
                add(
                    Switch(
                        name,
                        "leaf",
                        net,
                        fab.leaves.model,
                        pair.rack,
                        f"{net}-pair{pair.id:02d}",
                        pair.leaf_index(side),
                        pair=pair.id,
                        side=side,
                        mlag_peer=pair.leaves[1 - side],
                        slot=slot,
                        mgmt_port=_slot_port(intent, slot),
                    )
                )
        for number, name in enumerate(fabric.spines, start=1):
            slot = spine_slot_base[net] + number
            add(
                Switch(
                    name,
                    "spine",
                    net,
                    fab.spines.model,
                    fab.spines.rack,
                    f"{net}-spines",
                    number,
                    slot=slot,
                    mgmt_port=_slot_port(intent, slot),
                )
            )
    for switch in switches.values():
        if switch.slot is not None and switch.mgmt_port is None:
            ports = mgmt.switch_ports
            room = f"ports {ports.devices_first}-{ports.devices_last}"
            message = f"{switch.name}: slot {switch.slot} has no device port ({room})"
            subject = rack_switches.get(switch.rack, rack_switch_name(mgmt.switch_name, switch.rack))
            problems.append(Problem("PRT003", subject, message))
    return Topology(switches, fabrics, mgmt.core.name, rack_switches, tuple(problems))


def _slot_port(intent: Intent, slot: int) -> int | None:
    """The management switch port of ``slot``, or None beyond the device port range."""
    ports = intent.fabric.management.switch_ports
    number = ports.devices_first + slot - 1
    return number if number <= ports.devices_last else None


def _spine_leaf(intent: Intent, net: FabricNetwork, fab: FabricIntent) -> SpineLeaf:
    models = intent.fabric.server_models
    per = fab.leaves.racks_per_pair
    members: dict[int, list[Server]] = defaultdict(list)
    for server in intent.servers:
        if models[server.model].nics_on(net):
            members[(server.rack - 1) // per + 1].append(server)
    pairs = []
    for pair_id, servers in sorted(members.items()):
        rack = min(s.rack for s in servers)
        leaves = (leaf_name(rack, fab.leaves.name_suffix, SIDES[0]), leaf_name(rack, fab.leaves.name_suffix, SIDES[1]))
        pairs.append(LeafPair(net, pair_id, rack, (pair_id - 1) * per + 1, leaves, tuple(servers)))
    count = fab.spines.count
    spines = tuple(spine_name(fab.spines.name_prefix, s) for s in range(1, count + 1))
    uplinks = min(fab.leaves.uplinks_per_leaf or count, count, len(fab.leaves.uplink_ports))
    return SpineLeaf(net, spines, tuple(pairs), uplinks)
