"""The physical plant: cable lengths, optics, rack units and power, from racks.yaml and the models.

Shared by the cabling, power and asset writers and by the power/reach check rules, so a
table and the check that guards it can never disagree.

Rules (documented in ``docs/artifacts.md``):

* **Cable length**: ``in_rack_m`` inside one rack; otherwise ``slack_m`` (vertical runs
  and service loops) + ``rack_pitch_m`` per rack position apart + ``row_pitch_m`` per row
  apart (rows A, B, ... are adjacent).
* **Length class**: the next stock length at or above the length.
* **Optic** (the catalog's, ``core/hardware/optics.yaml``): the shortest-reach optic of the
  link's speed that fits the switch's cage and spans the length, so multimode (SR) while it
  reaches (100 m on OM4), single-mode (DR, FR, LR) beyond; both ends take it, never mixed. A
  lane of a broken-out cage takes the cage's parallel optic (``400GBASE-SR8``, shared by the
  cage's lanes) at the switch and its breakout optic at the far end (``100GBASE-SR2``); both
  must span the length.
* **Switch rack units**: switches fill a rack from the top, management switch first, then
  the others in the order of their management port, then switches without one (the core);
  each takes its catalog model's ``rack_units``.
* **Power**: a switch draws its catalog model's typical power (a chassis with its linecards);
  several figures are estimates (``docs/hardware.md``), and the power table marks them.
* **Server rack units**: servers fill a rack from the bottom (U1) in the order of their
  position, each taking its model's ``rack_units``; a server's unit is its top one, as a
  switch's is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from operator import itemgetter
from typing import NamedTuple

from compiler.artifacts.diagram import cables_by_kind
from compiler.fabric import ResolvedFabric
from compiler.facts import Cable
from compiler.facts.hardware import Layout
from compiler.intent import CableLengths, Intent, Rack
from compiler.memo import same_as_last
from compiler.platforms import eos
from core.hardware import Optic, Power, breakout_optics, catalog, optic_for, optics

NEAR_LIMIT = 0.9
"""A budget used above this fraction is a warning; above 1.0 it is an error."""

LENGTH_CLASSES_M = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000, 2000, 5000, 10000)


def row_index(row: str) -> int:
    """The ordinal of a row letter (A = 0, Z = 25, AA = 26).

    Examples:
        >>> row_index("A"), row_index("C"), row_index("AA")
        (0, 2, 26)
    """
    value = 0
    for letter in row:
        value = value * 26 + ord(letter) - ord("A") + 1
    return value - 1


def cable_length_m(a: Rack, b: Rack, rule: CableLengths) -> float:
    """The length of a cable between racks ``a`` and ``b`` under ``rule``.

    Examples:
        >>> r1 = Rack(id=1, row="A", position=1, pdu_kw=70, role="gpu")
        >>> r13 = Rack(id=13, row="C", position=1, pdu_kw=20, role="network")
        >>> cable_length_m(r1, r1, CableLengths()), cable_length_m(r1, r13, CableLengths())
        (3.0, 12.0)
    """
    if a.id == b.id:
        return rule.in_rack_m
    rows = abs(row_index(a.row) - row_index(b.row))
    positions = abs(a.position - b.position)
    return round(rule.slack_m + positions * rule.rack_pitch_m + rows * rule.row_pitch_m, 1)


def length_class(length_m: float) -> int | None:
    """The stock cable length for a run: the next class at or above it; None beyond the longest.

    Examples:
        >>> length_class(3.0), length_class(12.0), length_class(20000.0)
        (3, 15, None)
    """
    for stock in LENGTH_CLASSES_M:
        if length_m <= stock:
            return stock
    return None


def link_speed(link: Cable) -> str:
    """The speed a cable runs at: its A end's, else its B end's (LNK001 checks they agree)."""
    return link.a_speed or link.b_speed or ""


def rack_of(fabric: ResolvedFabric, name: str) -> int:
    """The rack of a switch or a server."""
    device = fabric.devices.get(name)
    if device is not None:
        return device.rack
    return fabric.servers[name].rack


@dataclass(frozen=True, slots=True)
class Run:
    """A cable as laid: its link, length, stock length class and the optic at each end (None:
    out of reach). ``a_cage`` names a broken-out cage whose one optic serves several cables."""

    link: Cable
    speed: str
    length_m: float
    length_class_m: int | None
    a_optic: Optic | None
    b_optic: Optic | None
    a_cage: str | None = None
    b_cage: str | None = None
    reach_m: int = 0
    """The longest run any optic choice for this cable spans (its speed, cage and breakout)."""

    @property
    def media(self) -> str:
        optic = self.a_optic or self.b_optic
        return optic.media if optic else ""


class _End(NamedTuple):
    """A switch end of a cable: its cage's form factor and speed, the cage (``<device> <cage>``,
    or the cage's name alone in a :class:`Laid`) and the cage's breakout."""

    form_factor: str
    cage_speed: str
    cage: str
    breakout: str | None


def _layout_end(layout: Layout, port: str, modes: dict[int, dict[str, str]]) -> _End | None:
    """The cage of ``port`` under ``layout``, named by the cage alone; ``modes`` holds each
    layout's breakouts by cage, made once per layout (a role's layout is shared by its
    switches, and a chassis has hundreds of cages)."""
    found = layout.model.locate(port)
    if found is None:
        return None
    cage = found[0]
    by_cage = modes.get(id(layout))
    if by_cage is None:
        by_cage = modes[id(layout)] = dict(layout.breakouts)
    return _End(cage.form_factor, cage.default_mode.speed, cage.name(), by_cage.get(cage.label))


def _switch_end(fabric: ResolvedFabric, device: str, port: str, modes: dict[int, dict[str, str]]) -> _End | None:
    """The switch end of a cable, its cage named ``<device> <cage>`` (``modes``: see :func:`_layout_end`)."""
    switch = fabric.facts.topology.switches.get(device)
    end = _layout_end(switch.layout, port, modes) if switch is not None else None
    return end._replace(cage=f"{device} {end.cage}") if end is not None else None


@cache
def _optics_by_name() -> dict[str, Optic]:
    return {o.name: o for o in catalog().optics}


def _optics(a: _End | None, b: _End | None, speed: str, length: float) -> tuple[Optic | None, Optic | None, int]:
    """The optics at the A and B end of a cable, by the rule of this module, and the longest
    run any choice would span."""
    for near, far, flip in ((a, b, False), (b, a, True)):
        if near is not None and near.breakout is not None:
            found = breakout_optics(near.cage_speed, near.form_factor, near.breakout, length)
            cage, lane = found if found else (None, None)
            far_optic = cage if far is not None and far.breakout is not None else lane
            by_name = _optics_by_name()
            reach = max(
                (
                    min(o.reach_m, by_name[o.breakout[near.breakout]].reach_m)
                    for o in optics(near.cage_speed)
                    if near.breakout in o.breakout and near.form_factor in o.form_factors
                ),
                default=0,
            )
            return ((far_optic, cage) if flip else (cage, far_optic)) + (reach,)
    form_factor = a.form_factor if a is not None else b.form_factor if b is not None else None
    fitting = [o for o in optics(speed) if form_factor is None or form_factor in o.form_factors]
    optic = optic_for(speed, length, form_factor=form_factor)
    return optic, optic, max((o.reach_m for o in fitting), default=0)


Shape = tuple[str, str, str | None] | None
"""A cage as the optics see it: form factor, speed and breakout (which cage does not matter); None: a server."""


def _shape(end: _End | None) -> Shape:
    return (end[0], end[1], end[3]) if end is not None else None


@cache
def optics_of(a: Shape, b: Shape, speed: str, length: float) -> tuple[Optic | None, Optic | None, int]:
    """The optics at the A and B end of a cable (:data:`Kind`) and the longest run any choice
    would span: a fleet's thousands of cables come in a few dozen kinds, each decided once
    (the shipped optics are code: kept for the process)."""
    return _optics(_End(a[0], a[1], "", a[2]) if a else None, _End(b[0], b[1], "", b[2]) if b else None, speed, length)


Kind = tuple[Shape, Shape, str, float]
"""What a cable's optics follow from: the shape of each end's cage, the speed and the length."""


class Laid(NamedTuple):
    """A cable as placed: its link, its length and the cage at each switch end (None: a server
    NIC), named by the cage alone, and its :data:`Kind`. Everything its optics, length class
    and labels follow from."""

    link: Cable
    length_m: float
    a_end: _End | None
    b_end: _End | None
    kind: Kind


def laid(intent: Intent, fabric: ResolvedFabric, links: Iterable[Cable] | None = None) -> list[Laid]:
    """Every cable of the fabric (or of ``links``) with its length and cages, in the link
    order; each length taken once per pair of racks, each cage once per layout and port."""
    return [
        Laid(link, length, a, b, (a_shape, b_shape, link.a_speed or link.b_speed or "", length))
        for link, length, a, b, a_shape, b_shape in _placed(intent, fabric, links)
    ]


BrokenOut = dict[tuple[str, str], tuple[Kind, int]]
"""Each broken-out cage (``(device, cage)``): the kind of its first cable and which end of it
the cage is (0: A, 1: B); its one parallel optic serves all its lanes."""


def cable_kinds(intent: Intent, fabric: ResolvedFabric) -> tuple[list[Kind], BrokenOut]:
    """Every cable's :data:`Kind`, in the link order, and the broken-out cages: all a bill of
    materials counts, in :func:`laid`'s pass without a record per cable."""
    kinds: list[Kind] = []
    cages: BrokenOut = {}
    for link, length, a, b, a_shape, b_shape in _placed(intent, fabric, None):
        kind = (a_shape, b_shape, link.a_speed or link.b_speed or "", length)
        kinds.append(kind)
        if a is not None and a.breakout:
            cages.setdefault((link.a.device, a.cage), (kind, 0))
        if b is not None and b.breakout:
            cages.setdefault((link.b.device, b.cage), (kind, 1))
    return kinds, cages


def _placed(
    intent: Intent, fabric: ResolvedFabric, links: Iterable[Cable] | None
) -> Iterator[tuple[Cable, float, _End | None, _End | None, Shape, Shape]]:
    """Each cable with its length and the cage at each end, and their shapes."""
    rule = intent.fabric.cabling
    racks = _racks(fabric)
    lengths: dict[tuple[int, int], float] = {}
    cages, modes = _cage_book(fabric)
    switches = fabric.facts.topology.switches
    server: tuple[_End | None, Shape] = (None, None)

    def cage(device: str, port: str) -> tuple[_End | None, Shape]:
        end = _layout_end(switches[device].layout, port, modes)
        found = cages[device][port] = (end, _shape(end))
        return found

    for link in fabric.links if links is None else links:
        (a_device, a_port), (b_device, b_port) = link.a, link.b
        pair = racks[a_device], racks[b_device]
        length = lengths.get(pair)
        if length is None:
            length = lengths[pair] = cable_length_m(intent.racks[pair[0]], intent.racks[pair[1]], rule)
        ports = cages.get(a_device)
        a, a_shape = server if ports is None else ports.get(a_port) or cage(a_device, a_port)
        ports = cages.get(b_device)
        b, b_shape = server if ports is None else ports.get(b_port) or cage(b_device, b_port)
        yield link, length, a, b, a_shape, b_shape


Cages = dict[str, dict[str, tuple[_End | None, Shape]]]
"""Per switch, the cages of its layout by port, and their shapes."""


@same_as_last
def _cage_book(fabric: ResolvedFabric) -> tuple[Cages, dict[int, dict[str, str]]]:
    """Per switch, the cages of its layout by port (one mapping for the switches of a layout,
    filled as ports are looked up), and each layout's breakouts (:func:`_layout_end`): a cable's
    ends are two look-ups, a cage is found once per layout and port in a compile, however many
    sections of the cable list are built."""
    by_layout: dict[int, dict[str, tuple[_End | None, Shape]]] = {}
    switches = fabric.facts.topology.switches
    return {name: by_layout.setdefault(id(switch.layout), {}) for name, switch in switches.items()}, {}


@same_as_last
def _racks(fabric: ResolvedFabric) -> dict[str, int]:
    """The rack of every switch and server (as :func:`rack_of`: a switch first), once per
    fabric for every section of the cable list built."""
    racks = {name: server.rack for name, server in fabric.servers.items()}
    racks.update((name, device.rack) for name, device in fabric.devices.items())
    return racks


def run_of(cable: Laid) -> Run:
    """The run of a placed cable: its optics by the rule of this module."""
    link, length, a, b, kind = cable
    speed = kind[2]
    a_optic, b_optic, reach = optics_of(*kind)
    return Run(
        link,
        speed,
        length,
        length_class(length),
        a_optic,
        b_optic,
        f"{link.a.device} {a.cage}" if a is not None and a.breakout else None,
        f"{link.b.device} {b.cage}" if b is not None and b.breakout else None,
        reach,
    )


def runs(intent: Intent, fabric: ResolvedFabric) -> list[Run]:
    """Every cable of the fabric with its length and optics, in the link order."""
    return [run_of(cable) for cable in laid(intent, fabric)]


# ------------------------------------------------------------------------------- power


@dataclass(frozen=True, slots=True)
class RackLoad:
    """What a rack draws: its devices (name, watts) and the PDU rating."""

    rack: Rack
    devices: tuple[tuple[str, int], ...]
    pdu_w: int

    @property
    def watts(self) -> int:
        return sum(map(itemgetter(1), self.devices))  # asked per table and row: summed at C speed


@dataclass(frozen=True, slots=True)
class RowLoad:
    """What a row draws against its cooling and UPS capacity (0 when racks.yaml has no rows)."""

    row: str
    racks: tuple[int, ...]
    watts: int
    cooling_w: int
    ups_w: int


def switch_power(fabric: ResolvedFabric, name: str) -> Power:
    """The catalog power of switch ``name`` (a chassis with its linecards)."""
    return fabric.facts.topology.switches[name].layout.model.power


def rack_loads(intent: Intent, fabric: ResolvedFabric) -> list[RackLoad]:
    """Every rack's devices and watts (switches: their model's typical draw), in rack order:
    worked out once for the intent and fabric last asked about (by identity), for the power
    table and the design doc alike (callers only read it).

    Example:
        >>> from pathlib import Path
        >>> from compiler.fabric import resolve
        >>> from compiler.intent import load_intent
        >>> intent = load_intent(Path("intent"))
        >>> fabric = resolve(intent)
        >>> rack_loads(intent, fabric) is rack_loads(intent, fabric) is not rack_loads(intent, resolve(intent))
        True
    """
    last = _LAST_LOADS
    if not last or last[0] is not intent or last[1] is not fabric:
        last[:] = [intent, fabric, _rack_loads(intent, fabric)]  # held: their identities are not reused
    return last[2]  # type: ignore[return-value]


_LAST_LOADS: list[object] = []


def _rack_loads(intent: Intent, fabric: ResolvedFabric) -> list[RackLoad]:
    by_rack: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for name, device in fabric.devices.items():
        by_rack[device.rack].append((name, switch_power(fabric, name).typical_w))
    for name, server in fabric.servers.items():
        by_rack[server.rack].append((name, intent.fabric.server_models[server.model].power_w))
    return [
        RackLoad(rack, tuple(sorted(by_rack[rack_id])), round(rack.pdu_kw * 1000))
        for rack_id, rack in sorted(intent.racks.items())
    ]


def row_loads(intent: Intent, loads: list[RackLoad]) -> list[RowLoad]:
    """Rack loads summed per row, with the row's cooling and UPS capacity."""
    racks: dict[str, list[RackLoad]] = defaultdict(list)
    for load in loads:
        racks[load.rack.row].append(load)
    out: list[RowLoad] = []
    for row, members in sorted(racks.items(), key=lambda item: row_index(item[0])):
        capacity = intent.rows.get(row)
        out.append(
            RowLoad(
                row,
                tuple(m.rack.id for m in members),
                sum(m.watts for m in members),
                round(capacity.cooling_kw * 1000) if capacity else 0,
                round(capacity.ups_kw * 1000) if capacity else 0,
            )
        )
    return out


def utilisation(used: int, capacity: int) -> float:
    """``used`` as a fraction of ``capacity`` (0 when there is no capacity to measure).

    Examples:
        >>> utilisation(61750, 70000), utilisation(5, 0)
        (0.8821428571428571, 0.0)
    """
    return used / capacity if capacity else 0.0


def budget_status(used: int, capacity: int) -> str:
    """``ok``, ``near`` (above :data:`NEAR_LIMIT`) or ``over`` (above the capacity).

    Examples:
        >>> budget_status(61750, 70000), budget_status(66000, 70000), budget_status(71000, 70000)
        ('ok', 'near', 'over')
    """
    if capacity and used > capacity:
        return "over"
    if utilisation(used, capacity) > NEAR_LIMIT:
        return "near"
    return "ok"


# ------------------------------------------------------------------------- rack units


def switch_units(intent: Intent, fabric: ResolvedFabric) -> dict[str, tuple[int, int]]:
    """Each switch's (top U, height in U) under the top-down rule of this module."""
    mgmt_port: dict[str, int] = {}
    for (_, kind), cables in cables_by_kind(fabric).items():
        if kind == "mgmt":  # a switch's Management1 (its kind's cables, not a pass over the fleet's)
            for link in cables:
                mgmt_port[link.b.device] = eos.port_number(link.a.port)
    by_rack: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for name, device in fabric.devices.items():
        order = 0 if device.role == "mgmt" else 1 if name in mgmt_port else 2
        by_rack[device.rack].append((order, mgmt_port.get(name, 0), name))
    out: dict[str, tuple[int, int]] = {}
    for rack_id, members in by_rack.items():
        top = intent.racks[rack_id].units
        for _, _, name in sorted(members):
            height = fabric.facts.topology.switches[name].layout.model.rack_units
            out[name] = (top, height)
            top -= height
    return out


def server_units(intent: Intent, fabric: ResolvedFabric) -> dict[str, tuple[int, int]]:
    """Each server's (top U, height in U) under the bottom-up rule of this module."""
    models = {s.name: s.model for s in intent.servers}
    by_rack: dict[int, list[tuple[int, str]]] = defaultdict(list)
    for name, server in fabric.servers.items():
        by_rack[server.rack].append((server.position, name))
    out: dict[str, tuple[int, int]] = {}
    for members in by_rack.values():
        bottom = 1
        for _, name in sorted(members):
            height = intent.fabric.server_models[models[name]].rack_units
            out[name] = (bottom + height - 1, height)
            bottom += height
    return out
