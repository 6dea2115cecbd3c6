"""The physical plant: cable lengths, optics, rack units and power, from racks.yaml and the models.

Shared by the cabling, power and asset writers and by the power/reach check rules, so a
table and the check that guards it can never disagree.

Rules (documented in ``docs/artifacts.md``):

* **Cable length**: ``in_rack_m`` inside one rack; otherwise ``slack_m`` (vertical runs
  and service loops) + ``rack_pitch_m`` per rack position apart + ``row_pitch_m`` per row
  apart (rows A, B, ... are adjacent).
* **Length class**: the next stock length at or above the length.
* **Optic**: the first optic of the speed whose reach covers the length; multimode reaches
  100 m, so <= 100 m is multimode (SR4/SR8) and > 100 m single-mode (LR4/FR4). Both ends
  of a cable get the same optic: a link is never mixed.
* **Switch rack units**: switches fill a rack from the top, management switch first, then
  the others in the order of their management port, then switches without one (the core);
  each takes its model's ``rack_units``.
* **Server rack units**: servers fill a rack from the bottom (U1) in the order of their
  position, each taking its model's ``rack_units``; a server's unit is its top one, as a
  switch's is.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from compiler.fabric import ResolvedFabric
from compiler.facts import Cable
from compiler.intent import CableLengths, Intent, Rack
from compiler.platforms import eos

NEAR_LIMIT = 0.9
"""A budget used above this fraction is a warning; above 1.0 it is an error."""

LENGTH_CLASSES_M = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 1000, 2000, 5000, 10000)


@dataclass(frozen=True, slots=True)
class OpticType:
    """A transceiver type: its name, fibre or copper medium, and reach in metres."""

    name: str
    media: str
    reach_m: int


_MM = "multimode OM4"
_SM = "single-mode OS2"
OPTICS: dict[str, tuple[OpticType, ...]] = {
    "1g": (OpticType("1000BASE-T", "copper Cat6A", 100), OpticType("1000BASE-LX", _SM, 10000)),
    "10g": (OpticType("10GBASE-SR", _MM, 100), OpticType("10GBASE-LR", _SM, 10000)),
    "25g": (OpticType("25GBASE-SR", _MM, 100), OpticType("25GBASE-LR", _SM, 10000)),
    "40g": (OpticType("40GBASE-SR4", _MM, 100), OpticType("40GBASE-LR4", _SM, 10000)),
    "50g": (OpticType("50GBASE-SR", _MM, 100), OpticType("50GBASE-LR", _SM, 10000)),
    "100g": (OpticType("100GBASE-SR4", _MM, 100), OpticType("100GBASE-LR4", _SM, 10000)),
    "200g": (OpticType("200GBASE-SR4", _MM, 100), OpticType("200GBASE-FR4", _SM, 2000)),
    "400g": (
        OpticType("400GBASE-SR8", _MM, 100),
        OpticType("400GBASE-FR4", _SM, 2000),
        OpticType("400GBASE-LR4", _SM, 10000),
    ),
    "800g": (OpticType("800GBASE-SR8", _MM, 100), OpticType("800GBASE-FR8", _SM, 2000)),
}
"""Per speed, the optics in order of preference (the shortest reach that covers the run wins)."""


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


def choose_optic(speed: str, length_m: float) -> OpticType | None:
    """The optic for a link of ``speed`` over ``length_m``; None when none reaches.

    Examples:
        >>> choose_optic("400g", 12.0).name, choose_optic("400g", 150.0).name
        ('400GBASE-SR8', '400GBASE-FR4')
        >>> choose_optic("100g", 150.0).media, choose_optic("100g", 20000.0)
        ('single-mode OS2', None)
    """
    for optic in OPTICS.get(speed, ()):
        if length_m <= optic.reach_m:
            return optic
    return None


def longest_reach(speed: str) -> int:
    """The longest reach of any optic of ``speed`` (0 when the speed has none).

    Example:
        >>> longest_reach("400g")
        10000
    """
    return max((o.reach_m for o in OPTICS.get(speed, ())), default=0)


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
    """A cable as laid: its link, length, stock length class and optic (None: out of reach)."""

    link: Cable
    speed: str
    length_m: float
    length_class_m: int | None
    optic: OpticType | None


def runs(intent: Intent, fabric: ResolvedFabric) -> list[Run]:
    """Every cable of the fabric with its length and optic, in the link order."""
    rule = intent.fabric.cabling
    out: list[Run] = []
    for link in fabric.links:
        a = intent.racks[rack_of(fabric, link.a.device)]
        b = intent.racks[rack_of(fabric, link.b.device)]
        length = cable_length_m(a, b, rule)
        speed = link_speed(link)
        out.append(Run(link, speed, length, length_class(length), choose_optic(speed, length)))
    return out


# ------------------------------------------------------------------------------- power


@dataclass(frozen=True, slots=True)
class RackLoad:
    """What a rack draws: its devices (name, watts) and the PDU rating."""

    rack: Rack
    devices: tuple[tuple[str, int], ...]
    pdu_w: int

    @property
    def watts(self) -> int:
        return sum(w for _, w in self.devices)


@dataclass(frozen=True, slots=True)
class RowLoad:
    """What a row draws against its cooling and UPS capacity (0 when racks.yaml has no rows)."""

    row: str
    racks: tuple[int, ...]
    watts: int
    cooling_w: int
    ups_w: int


def rack_loads(intent: Intent, fabric: ResolvedFabric) -> list[RackLoad]:
    """Every rack's devices and watts from the per-model ``power_w``, in rack order."""
    by_rack: dict[int, list[tuple[str, int]]] = defaultdict(list)
    for name, device in fabric.devices.items():
        by_rack[device.rack].append((name, intent.fabric.switch_models[device.model].power_w))
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
    for link in fabric.links:
        if link.kind == "mgmt":
            mgmt_port[link.b.device] = eos.port_number(link.a.port)
    by_rack: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    for name, device in fabric.devices.items():
        order = 0 if device.role == "mgmt" else 1 if name in mgmt_port else 2
        by_rack[device.rack].append((order, mgmt_port.get(name, 0), name))
    out: dict[str, tuple[int, int]] = {}
    for rack_id, members in by_rack.items():
        top = intent.racks[rack_id].units
        for _, _, name in sorted(members):
            height = intent.fabric.switch_models[fabric.devices[name].model].rack_units
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
