"""Which switches exist, where they stand and how they pair: the skeleton every other fact hangs on.

* leaf pair ``P`` of a fabric = ``(rack - 1) // racks_per_pair + 1``, for the racks whose
  servers have a NIC on that fabric; its leaves stand in the first of those racks;
* leaf index ``L = 2 * (P - 1) + side + 1`` (side a = 0, b = 1); spine ``s`` = 1..count;
* a three-stage fabric (``pods``): pod ``q = (rack - 1) // pods.racks + 1``; its spines
  ``pod03-spine01``.. stand in ``pods.spine_racks[q - 1]``; pod spine ``s`` is in plane ``s``,
  whose super-spines ``plane2-superspine01``.. stand in ``pods.super_spines.racks[s - 1]`` (a
  list of racks there: filled in order, evenly); a pod exists when one of its racks has servers
  on the fabric;
* a management switch per rack of ``racks.yaml``, and one core;
* management slots: in its rack, a compute leaf takes slot 1 or 2, a storage leaf 3 or 4; the
  spines and super-spines standing in a rack take slots 5.. (compute before storage, spines
  before super-spines, by pod, plane and number); slot ``k`` is the k-th port of the rack
  management switch's ``devices``.

Every switch carries the layout of its role (:mod:`compiler.facts.hardware`): its catalog model
and the ports its design uses.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> topology = build_topology(load_intent(Path("intent")))
    >>> leaf = topology.switches["rack03-leaf-b"]
    >>> leaf.role, leaf.model, leaf.pair, leaf.number, leaf.mlag_peer, leaf.slot, leaf.mgmt_port
    ('leaf', 'DCS-7060DX5-32', 3, 6, 'rack03-leaf-a', 2, 'Ethernet38')
    >>> topology.fabrics["storage"].pairs[0].leaves
    ('rack01-stor-leaf-a', 'rack01-stor-leaf-b')
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections import defaultdict
from collections.abc import Mapping
from typing import NamedTuple

from compiler.facts.common import FabricNetwork, Network, Problem, Role
from compiler.facts.hardware import Layout, Layouts, build_layouts
from compiler.intent import FabricIntent, Intent, Server

SIDES = ("a", "b")


def pair_of(rack: int, racks_per_pair: int) -> int:
    """The leaf pair ``P`` that serves ``rack``.

    Example:
        >>> pair_of(3, 1), pair_of(5, 4)
        (3, 2)
    """
    return (rack - 1) // racks_per_pair + 1


def pod_of(rack: int, pod_racks: int) -> int:
    """The pod ``q`` of ``rack`` in a three-stage fabric of pods of ``pod_racks`` racks.

    Example:
        >>> pod_of(16, 16), pod_of(17, 16)
        (1, 2)
    """
    return (rack - 1) // pod_racks + 1


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


def pod_spine_name(prefix: str, pod: int, number: int) -> str:
    """Name of spine ``number`` of pod ``pod`` (three-stage fabric).

    Example:
        >>> pod_spine_name("spine", 3, 2)
        'pod03-spine02'
    """
    return f"pod{pod:02d}-{prefix}{number:02d}"


def super_spine_name(prefix: str, plane: int, number: int) -> str:
    """Name of super-spine ``number`` of plane ``plane``.

    Example:
        >>> super_spine_name("superspine", 2, 1)
        'plane2-superspine01'
    """
    return f"plane{plane}-{prefix}{number:02d}"


def rack_switch_name(rule: str, rack: int) -> str:
    """Name of the management switch of ``rack`` under the naming ``rule`` (``management.switch_name``).

    Example:
        >>> rack_switch_name("rack{rack:02d}-mgmt", 7)
        'rack07-mgmt'
    """
    return rule.format(rack=rack)


class Switch(NamedTuple):
    """A switch of the design: who it is, where it stands, what it pairs with, its hardware."""

    name: str
    role: Role
    network: Network
    model: str
    """Its catalog model id (``docs/hardware.md``)."""
    rack: int
    redundancy_group: str
    number: int
    """Leaf index ``L``, spine number ``s`` (in its pod), super-spine number (in its plane), rack
    number of a management switch, 0 for the core."""
    layout: Layout
    """Its model and the ports its role uses."""
    pair: int | None = None
    side: int | None = None
    mlag_peer: str | None = None
    slot: int | None = None
    """Its slot on its rack's management switch (fabric switches)."""
    mgmt_port: str | None = None
    """The port of that slot on the management switch; None when the switch has no such port."""
    pod: int | None = None
    """Its pod (leaves and spines of a three-stage fabric)."""
    plane: int | None = None
    """Its plane (super-spines; a pod spine's plane is its number)."""


class LeafPair(NamedTuple):
    """An MLAG leaf pair of one fabric and the servers it serves."""

    network: FabricNetwork
    id: int
    rack: int
    first_rack: int
    leaves: tuple[str, str]
    servers: tuple[Server, ...]
    pod: int = 1

    def leaf_index(self, side: int) -> int:
        """``L`` of the leaf on ``side``."""
        return 2 * (self.id - 1) + side + 1


class Pod(NamedTuple):
    """A pod: leaf pairs and the spines every leaf of them connects to.

    A two-stage fabric is one pod (number 1) whose spines are the fabric's.
    """

    id: int
    spines: tuple[str, ...]
    pairs: tuple[LeafPair, ...]
    first_pair: int
    """The lowest pair id the pod can hold: leaf ``L`` is the pod's ``L - 2 (first_pair - 1)``-th."""
    rack: int
    """Where its spines stand."""

    def local_index(self, leaf_index: int) -> int:
        """The leaf's number among the pod's leaves (the pod spines' port for it)."""
        return leaf_index - 2 * (self.first_pair - 1)


class SpineLeaf(NamedTuple):
    """One spine-leaf fabric: its pods (one unless three-stage), super-spines, leaf pairs, and how
    many spines each leaf reaches."""

    network: FabricNetwork
    spines: tuple[str, ...]
    """Every spine (of every pod)."""
    pairs: tuple[LeafPair, ...]
    uplinks: int
    pods: tuple[Pod, ...] = ()
    planes: tuple[tuple[str, ...], ...] = ()
    """The super-spines of each plane (plane p = index p - 1); empty in a two-stage fabric."""

    @property
    def three_stage(self) -> bool:
        return bool(self.planes)

    @property
    def super_spines(self) -> tuple[str, ...]:
        return tuple(name for plane in self.planes for name in plane)

    def pod_of(self, pair: LeafPair) -> Pod:
        """The pod of a leaf pair."""
        return next(p for p in self.pods if p.id == pair.pod)


class Topology(NamedTuple):
    """Every switch by name, the spine-leaf fabrics, the management tree, and the role layouts."""

    switches: Mapping[str, Switch]
    fabrics: Mapping[FabricNetwork, SpineLeaf]
    core: str
    rack_switches: Mapping[int, str]
    problems: tuple[Problem, ...]
    layouts: Layouts

    def by_rack(self) -> dict[int, list[Switch]]:
        """Per rack, the fabric switches with a management slot in it, by slot (one pass over all
        switches: a rack's own scan of them was quadratic in racks)."""
        racks: dict[int, list[Switch]] = {}
        for switch in self.switches.values():
            if switch.slot is not None:
                racks.setdefault(switch.rack, []).append(switch)
        return {rack: sorted(found, key=lambda s: s.slot or 0) for rack, found in racks.items()}


def build_topology(intent: Intent) -> Topology:
    """Plan every switch of ``intent``; pure and deterministic."""
    spec = intent.fabric
    layouts = build_layouts(intent)
    switches: dict[str, Switch] = {}
    problems: list[Problem] = []

    def add(switch: Switch) -> None:
        if switch.name in switches:
            problems.append(Problem("ADR001", switch.name, f"device name {switch.name!r} is used twice"))
        switches[switch.name] = switch

    mgmt = spec.management
    rack_switches = {rack: rack_switch_name(mgmt.switch_name, rack) for rack in intent.racks}
    for rack, name in rack_switches.items():
        add(Switch(name, "mgmt", "management", layouts.mgmt.model.id, rack, f"mgmt-rack{rack:02d}", rack, layouts.mgmt))
    core = mgmt.core
    add(Switch(core.name, "core", "management", layouts.core.model.id, core.rack, "mgmt-core", 0, layouts.core))

    fabrics: dict[FabricNetwork, SpineLeaf] = {}
    # The spines and super-spines of every fabric, to number their slots per rack afterwards.
    spine_like: list[tuple[tuple[int, int, int, int, int], Switch]] = []
    for order, net in enumerate(sorted(spec.fabrics)):
        fab = spec.fabrics[net]
        fabric, pod_problems = _spine_leaf(intent, net, fab)
        problems.extend(pod_problems)
        fabrics[net] = fabric
        leaf_layout, spine_layout = layouts.leaf[net], layouts.spine[net]
        slot_base = 0 if net == "compute" else 2
        for pair in fabric.pairs:
            for side, name in enumerate(pair.leaves):
                slot = slot_base + side + 1
                add(
                    Switch(
                        name,
                        "leaf",
                        net,
                        leaf_layout.model.id,
                        pair.rack,
                        f"{net}-pair{pair.id:02d}",
                        pair.leaf_index(side),
                        leaf_layout,
                        pair=pair.id,
                        side=side,
                        mlag_peer=pair.leaves[1 - side],
                        slot=slot,
                        mgmt_port=_slot_port(layouts, slot),
                        pod=pair.pod if fabric.three_stage else None,
                    )
                )
        for pod in fabric.pods:
            group = f"{net}-pod{pod.id:02d}-spines" if fabric.three_stage else f"{net}-spines"
            for number, name in enumerate(pod.spines, start=1):
                spine = Switch(
                    name,
                    "spine",
                    net,
                    spine_layout.model.id,
                    pod.rack,
                    group,
                    number,
                    spine_layout,
                    pod=pod.id if fabric.three_stage else None,
                    plane=number if fabric.three_stage else None,
                )
                spine_like.append(((order, 0, pod.id, number, 0), spine))
        for plane, members in enumerate(fabric.planes, start=1):
            layout = layouts.super_spine[net]
            supers = fab.pods.super_spines if fab.pods else None
            assert supers is not None
            for number, name in enumerate(members, start=1):
                switch = Switch(
                    name,
                    "super-spine",
                    net,
                    layout.model.id,
                    supers.rack_of(plane, number),
                    f"{net}-plane{plane}",
                    number,
                    layout,
                    plane=plane,
                )
                spine_like.append(((order, 1, plane, number, 0), switch))
    next_slot: dict[int, int] = {}
    for _, switch in sorted(spine_like, key=lambda item: item[0]):
        slot = next_slot.get(switch.rack, 5)
        next_slot[switch.rack] = slot + 1
        add(switch._replace(slot=slot, mgmt_port=_slot_port(layouts, slot)))
    devices = layouts.mgmt.sets["devices"]
    for switch in switches.values():
        if switch.slot is not None and switch.mgmt_port is None:
            message = f"{switch.name}: slot {switch.slot} has no device port (devices holds {len(devices)})"
            subject = rack_switches.get(switch.rack, rack_switch_name(mgmt.switch_name, switch.rack))
            problems.append(Problem("PRT003", subject, message))
    return Topology(switches, fabrics, core.name, rack_switches, tuple(problems), layouts)


def _slot_port(layouts: Layouts, slot: int) -> str | None:
    """The management switch port of ``slot``, or None beyond its ``devices``."""
    devices = layouts.mgmt.sets["devices"]
    return devices[slot - 1] if slot <= len(devices) else None


def _spine_leaf(intent: Intent, net: FabricNetwork, fab: FabricIntent) -> tuple[SpineLeaf, list[Problem]]:
    models = intent.fabric.server_models
    per = fab.leaves.racks_per_pair
    pods = fab.pods
    pod_racks = pods.racks if pods is not None else None
    members: dict[int, list[Server]] = defaultdict(list)
    on_net = {name: bool(model.nics_on(net)) for name, model in models.items()}  # per model, not per server
    for server in intent.servers:
        if on_net[server.model]:
            members[pair_of(server.rack, per)].append(server)
    pairs = []
    for pair_id, servers in sorted(members.items()):
        rack = min(s.rack for s in servers)
        first_rack = (pair_id - 1) * per + 1
        pod = pod_of(first_rack, pod_racks) if pod_racks else 1
        leaves = (leaf_name(rack, fab.leaves.name_suffix, SIDES[0]), leaf_name(rack, fab.leaves.name_suffix, SIDES[1]))
        pairs.append(LeafPair(net, pair_id, rack, first_rack, leaves, tuple(servers), pod))
    count = fab.spines.count
    uplinks = min(fab.leaves.uplinks_per_leaf or count, count, len(fab.leaves.uplink_ports))
    problems: list[Problem] = []
    if pods is None:
        spines = tuple(spine_name(fab.spines.name_prefix, s) for s in range(1, count + 1))
        only = Pod(1, spines, tuple(pairs), 1, fab.spines.rack)
        return SpineLeaf(net, spines, tuple(pairs), uplinks, (only,)), problems
    pairs_per_pod = max(pods.racks // per, 1)
    by_pod: dict[int, list[LeafPair]] = defaultdict(list)
    for pair in pairs:
        by_pod[pair.pod].append(pair)
    built = []
    for pod_id, pod_pairs in sorted(by_pod.items()):
        names = tuple(pod_spine_name(fab.spines.name_prefix, pod_id, s) for s in range(1, count + 1))
        if pod_id <= len(pods.spine_racks):
            rack = pods.spine_racks[pod_id - 1]
        else:
            rack = fab.spines.rack
            message = (
                f"pod {pod_id} (racks {(pod_id - 1) * pods.racks + 1}-{pod_id * pods.racks}) has no spine rack: "
                f"add one to fabrics.{net}.pods.spine_racks"
            )
            problems.append(Problem("FAB003", f"fabrics.{net}", message))
        built.append(Pod(pod_id, names, tuple(pod_pairs), (pod_id - 1) * pairs_per_pod + 1, rack))
    supers = pods.super_spines
    planes = tuple(
        tuple(super_spine_name(supers.name_prefix, plane, n) for n in range(1, supers.per_plane + 1))
        for plane in range(1, count + 1)
    )
    spines = tuple(name for pod in built for name in pod.spines)
    return SpineLeaf(net, spines, tuple(pairs), uplinks, tuple(built), planes), problems
