"""One switch model: its cages, the breakouts each allows, the interface names EOS gives them.

Names follow EOS: a single-lane cage (SFP+, SFP28, RJ45) is ``Ethernet<port>``, a multi-lane cage
(QSFP28, QSFP-DD, OSFP) ``Ethernet<port>/<lane>``, and a chassis prefixes the linecard slot:
``Ethernet<slot>/<port>/<lane>``. In its default mode a cage shows only the interfaces of that
mode (a 400G cage: ``/1``); the other lanes exist, hidden and inactive, and are configured to
break the cage out.

Examples:
    >>> from core.hardware import model
    >>> leaf = model("DCS-7060DX5-32")
    >>> leaf.interface_names()[:2], leaf.interface_names()[-1]
    (['Ethernet1/1', 'Ethernet2/1'], 'Ethernet33')
    >>> [(i.name, i.keyword) for i in leaf.breakout("Ethernet1/1", "4x100g").interfaces]
    [('Ethernet1/1', '100g-2'), ('Ethernet1/3', '100g-2'), ('Ethernet1/5', '100g-2'), ('Ethernet1/7', '100g-2')]
    >>> leaf.has_interface("Ethernet1/8"), leaf.has_interface("Ethernet49")
    (True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import NamedTuple

from core.errors import FabricopsError

#: Interface types that exist only when configured: never checked against a model's ports.
LOGICAL_TYPES = ("Port-Channel", "Loopback", "Vlan", "Vxlan", "Tunnel")
_NAME = re.compile(r"(?P<type>[A-Za-z-]+)(?P<numbers>\d+(?:/\d+)*)$")
_DIGITS = re.compile(r"(\d+)")


def speed_gbps(speed: str) -> int:
    """Gbit/s of a catalog speed.

    Examples:
        >>> speed_gbps("400g"), speed_gbps("1g")
        (400, 1)
    """
    return int(speed.removesuffix("g"))


def sort_interfaces(names: Iterable[str]) -> list[str]:
    """Interface names in EOS's order, each once: numerically, slot, then port, then lane.

    The order of netutils' ``sort_interface_list`` (a test compares them on every model of the
    catalog) by a sort key, at a tenth of its cost: its tree of name parts took a tenth of
    resolving the 16x fabric.

    Examples:
        >>> sort_interfaces(["Ethernet10/1", "Ethernet2/1", "Ethernet1/2", "Ethernet1/1", "Ethernet33"])
        ['Ethernet1/1', 'Ethernet1/2', 'Ethernet2/1', 'Ethernet10/1', 'Ethernet33']
        >>> sort_interfaces(["Ethernet3/10/1", "Ethernet3/2/1", "Ethernet3/1/5", "Ethernet3/1/5"])
        ['Ethernet3/1/5', 'Ethernet3/2/1', 'Ethernet3/10/1']
        >>> sort_interfaces(["Vlan100", "Ethernet9", "Ethernet1/1", "Ethernet1", "Ethernet1.5"])
        ['Ethernet1', 'Ethernet1.5', 'Ethernet1/1', 'Ethernet9', 'Vlan100']
    """
    return sorted(dict.fromkeys(names), key=interface_order)


def interface_order(name: str) -> tuple[str | int, ...]:
    """The sort key of :func:`sort_interfaces`: text and numbers alternate, numbers compared as such.

    Example:
        >>> interface_order("Ethernet3/10/1")
        ('Ethernet', 3, '/', 10, '/', 1, '')
    """
    return tuple(int(part) if part.isdigit() else part for part in _DIGITS.split(name))


def split_name(name: str) -> tuple[str, tuple[int, ...]] | None:
    """The type and numbers of an interface name, or None if it is not one.

    Examples:
        >>> split_name("Ethernet3/1/5")
        ('Ethernet', (3, 1, 5))
        >>> split_name("Port-Channel10")
        ('Port-Channel', (10,))
        >>> split_name("Ethernet1.100") is None
        True
    """
    match = _NAME.match(name)
    if match is None:
        return None
    return match.group("type"), tuple(int(n) for n in match.group("numbers").split("/"))


def _keyword_speed(keyword: str) -> str | None:
    """The catalog speed a ``speed`` value names: ``100g-2`` and ``forced 100gfull`` -> ``100g``.

    Examples:
        >>> _keyword_speed("forced 10000full"), _keyword_speed("25g"), _keyword_speed("auto")
        ('10g', '25g', None)
    """
    match = re.search(r"(\d+)g", keyword)
    if match:
        return f"{match.group(1)}g"
    match = re.search(r"(\d+)full", keyword)
    return f"{int(match.group(1)) // 1000}g" if match and int(match.group(1)) >= 1000 else None


class BreakoutMode(NamedTuple):
    """A breakout mode of a cage: the lanes whose interfaces it activates and their ``speed`` keyword.

    The plain records here are named tuples: a frozen dataclass makes its methods at import
    (0.5 ms each, on every start)."""

    name: str
    speed: str
    keyword: str
    lanes: tuple[int, ...]
    note: str = ""


@dataclass(frozen=True)
class PortKind:
    """A kind of cage (``qsfp-dd-400g``): form factor, lanes and the breakout modes it allows."""

    name: str
    form_factor: str
    lanes: int
    default: str
    modes: Mapping[str, BreakoutMode] = field(hash=False)


@dataclass(frozen=True)
class Port:
    """One cage of a model; ``slot`` is set on a chassis.

    ``partner`` pairs two cages behind one gearbox: on the first of the pair (``primary``) the
    ``pair_modes`` make the partner absent; the second one does not allow them.
    """

    number: int
    kind: PortKind
    slot: int | None = None
    partner: int | None = None
    primary: bool = True
    pair_modes: frozenset[str] = frozenset()

    @cached_property
    def label(self) -> str:
        """``12``, or ``3/12`` on a chassis (kept: asked for every lane of every cage)."""
        return f"{self.slot}/{self.number}" if self.slot is not None else str(self.number)

    @property
    def form_factor(self) -> str:
        return self.kind.form_factor

    @property
    def default_mode(self) -> BreakoutMode:
        return self.kind.modes[self.kind.default]

    def name(self, lane: int = 1) -> str:
        """The interface of ``lane``.

        Examples:
            >>> from core.hardware import model
            >>> port = model("DCS-7804-CH").port("Ethernet3/1/1")
            >>> port.name(5), port.label
            ('Ethernet3/1/5', '3/1')
        """
        base = f"Ethernet{self.label}"
        return base if self.kind.lanes == 1 else f"{base}/{lane}"

    def lane_names(self) -> list[str]:
        """Every interface of the cage, active or not."""
        return [self.name(lane) for lane in range(1, self.kind.lanes + 1)]

    def allowed_modes(self) -> list[str]:
        """The breakout modes this cage allows, in the catalog's order."""
        refused = self.pair_modes if not self.primary else frozenset()
        return [name for name in self.kind.modes if name not in refused]

    def mode(self, name: str) -> BreakoutMode:
        if name not in self.allowed_modes():
            allowed = ", ".join(self.allowed_modes())
            raise FabricopsError(f"{self.name()}: no breakout {name!r} on this port (allowed: {allowed})")
        return self.kind.modes[name]

    def mode_for_keyword(self, keyword: str) -> BreakoutMode | None:
        """The mode a ``speed`` value on lane 1 selects: its keyword, else the first mode of that speed.

        Examples:
            >>> from core.hardware import model
            >>> port = model("DCS-7060DX5-64S").port(1)
            >>> port.mode_for_keyword("100g-2").name, port.mode_for_keyword("forced 200gfull").name
            ('4x100g', '2x200g')
            >>> port.mode_for_keyword("auto") is None
            True
        """
        modes = [self.kind.modes[name] for name in self.allowed_modes()]
        for mode in modes:
            if mode.keyword == keyword:
                return mode
        speed = _keyword_speed(keyword)
        return next((mode for mode in modes if mode.speed == speed), None)


@dataclass(frozen=True)
class Power:
    """Typical and maximum draw in watts, and whether a source confirms them."""

    typical_w: int
    max_w: int
    certain: bool
    source: str

    def __add__(self, other: Power) -> Power:
        return Power(
            self.typical_w + other.typical_w,
            self.max_w + other.max_w,
            self.certain and other.certain,
            f"{self.source}; {other.source}",
        )


class VlanRange(NamedTuple):
    """An internal-VLAN range (``vlan internal order ascending range FIRST LAST``).

    Examples:
        >>> VlanRange(1006, 1199).size
        194
        >>> VlanRange(1006, 1199).config_line()
        'vlan internal order ascending range 1006 1199'
    """

    first: int
    last: int
    certain: bool = True
    note: str = ""

    @property
    def size(self) -> int:
        return self.last - self.first + 1

    def __contains__(self, vlan: object) -> bool:
        return isinstance(vlan, int) and self.first <= vlan <= self.last

    def config_line(self) -> str:
        return f"vlan internal order ascending range {self.first} {self.last}"


class BreakoutInterface(NamedTuple):
    """One interface a breakout makes, with the ``speed`` keyword it needs."""

    name: str
    speed: str
    keyword: str


class Breakout(NamedTuple):
    """What setting a cage to a mode does: the interfaces it makes, the ones it makes absent."""

    port: Port
    mode: BreakoutMode
    interfaces: tuple[BreakoutInterface, ...]
    absent: tuple[str, ...] = ()


class InterfaceInfo(NamedTuple):
    """Where an interface name sits on a model: its cage, lane, form factor and speed.

    ``speed`` is the speed of the cage's default mode when that mode uses the lane, else the
    fastest mode that does (a breakout lane).
    """

    name: str
    port: Port
    lane: int
    form_factor: str
    speed: str
    active_by_default: bool


@dataclass(frozen=True)
class Linecard:
    """A chassis linecard: its cages (numbered from 1 in its slot) and power."""

    id: str
    description: str
    groups: tuple[tuple[int, int, PortKind, frozenset[str]], ...]
    power: Power
    sources: tuple[str, ...] = ()

    def ports(self, slot: int) -> list[Port]:
        return build_ports(self.groups, slot)


@dataclass(frozen=True)
class Chassis:
    """The linecard slots of a chassis and the linecards it takes."""

    slots: tuple[int, ...]
    cards: Mapping[str, Linecard] = field(hash=False)
    default: str


def build_ports(groups: Iterable[tuple[int, int, PortKind, frozenset[str]]], slot: int | None = None) -> list[Port]:
    """The cages of port groups ``(first, last, kind, pair_modes)``; pairs are odd/even neighbours."""
    ports = []
    for first, last, kind, pair_modes in groups:
        for number in range(first, last + 1):
            if pair_modes:
                primary = (number - first) % 2 == 0
                partner = number + 1 if primary else number - 1
                ports.append(Port(number, kind, slot, partner, primary, pair_modes))
            else:
                ports.append(Port(number, kind, slot))
    return ports


@dataclass(frozen=True)
class Model:
    """A switch model of the catalog (see ``docs/hardware.md``)."""

    id: str
    description: str
    family: str
    asic: str
    roles: tuple[str, ...]
    rack_units: int
    airflows: Mapping[str, str] = field(hash=False)
    queue: str
    base_power: Power
    management: tuple[str, ...]
    ports: tuple[Port, ...]
    internal_vlans: VlanRange
    sources: tuple[str, ...] = ()
    uncertain: tuple[str, ...] = ()
    chassis: Chassis | None = None
    linecards: Mapping[int, str] = field(default_factory=dict, hash=False)
    file: str = ""

    # ------------------------------------------------------------------ identity
    def show_version_model(self, airflow: str | None = None) -> str:
        """``modelName`` as ``show version`` reports it: the id and the airflow suffix.

        Examples:
            >>> from core.hardware import model
            >>> model("DCS-7050SX3-48YC8").show_version_model(), model("DCS-7050SX3-48YC8").show_version_model("R")
            ('DCS-7050SX3-48YC8-F', 'DCS-7050SX3-48YC8-R')
            >>> model("DCS-7804-CH").show_version_model()
            'DCS-7804-CH'
        """
        if not self.airflows:
            return self.id
        suffix = airflow or next(iter(self.airflows))
        if suffix not in self.airflows:
            known = ", ".join(self.airflows)
            raise FabricopsError(f"{self.id}: no airflow {suffix!r} (known: {known})")
        return f"{self.id}-{suffix}"

    @property
    def power(self) -> Power:
        """Draw of the system; a chassis adds its installed linecards."""
        total = self.base_power
        if self.chassis is not None:
            for card in self.linecards.values():
                total = total + self.chassis.cards[card].power
        return total

    # ------------------------------------------------------------------ chassis
    def with_linecards(self, cards: Mapping[int, str | None]) -> Model:
        """This chassis with ``cards`` installed (slot -> linecard, None for an empty slot).

        Examples:
            >>> from core.hardware import model
            >>> spine = model("DCS-7804-CH").with_linecards({3: "7800R3-48CQ-LC", 4: None, 5: None, 6: None})
            >>> spine.interface_names()[-1], len(spine.interface_names())
            ('Ethernet3/48/1', 48)
        """
        if self.chassis is None:
            raise FabricopsError(f"{self.id} is not a chassis: it has no linecard slots")
        installed = dict(self.linecards)
        for slot, card in cards.items():
            if slot not in self.chassis.slots:
                slots = ", ".join(str(s) for s in self.chassis.slots)
                raise FabricopsError(f"{self.id}: no linecard slot {slot} (slots: {slots})")
            if card is None:
                installed.pop(slot, None)
            elif card not in self.chassis.cards:
                known = ", ".join(self.chassis.cards)
                raise FabricopsError(f"{self.id} slot {slot}: unknown linecard {card!r} (known: {known})")
            else:
                installed[slot] = card
        ports = [p for slot in sorted(installed) for p in self.chassis.cards[installed[slot]].ports(slot)]
        return replace(self, ports=tuple(ports), linecards=installed)

    # ------------------------------------------------------------------ names
    @cached_property
    def _lanes(self) -> dict[str, tuple[Port, int]]:
        return {port.name(lane): (port, lane) for port in self.ports for lane in range(1, port.kind.lanes + 1)}

    @cached_property
    def _ports(self) -> dict[str, Port]:
        return {port.label: port for port in self.ports}

    def interface_names(self) -> list[str]:
        """Every Ethernet interface of the model in its default breakout, in EOS's order.

        These are the stanzas a factory-default switch prints and ``show interfaces`` lists.
        """
        return self.active_interfaces({})

    def all_interface_names(self) -> list[str]:
        """Every Ethernet interface that can be configured: all lanes of every cage."""
        return sort_interfaces(self._lanes)

    def active_interfaces(self, modes: Mapping[str, str]) -> list[str]:
        """The Ethernet interfaces that exist with ``modes`` (port label -> mode; others default).

        Examples:
            >>> from core.hardware import model
            >>> core = model("DCS-7280CR3-32P4")
            >>> core.active_interfaces({"1": "4x25g"})[:5]
            ['Ethernet1/1', 'Ethernet1/2', 'Ethernet1/3', 'Ethernet1/4', 'Ethernet3/1']
        """
        absent: set[str] = set()
        names: list[str] = []
        for port in self.ports:
            mode = port.mode(modes.get(port.label, port.kind.default))
            names += [port.name(lane) for lane in mode.lanes]
            if port.primary and port.partner is not None and mode.name in port.pair_modes:
                absent.add(self.port(self._partner_label(port)).label)
        kept = [n for n in names if self._lanes[n][0].label not in absent]
        return sort_interfaces(kept)

    def _partner_label(self, port: Port) -> str:
        return f"{port.slot}/{port.partner}" if port.slot is not None else str(port.partner)

    def port(self, ref: int | str) -> Port:
        """A cage by number (``12``, a fixed system), label (``"3/12"``) or interface name.

        Examples:
            >>> from core.hardware import model
            >>> model("DCS-7060DX5-64S").port("Ethernet65").form_factor
            'SFP+'
        """
        if isinstance(ref, int) or (isinstance(ref, str) and not ref.startswith("Ethernet")):
            port = self._ports.get(str(ref))
            if port is None:
                raise FabricopsError(f"{self.id}: no port {ref} ({self.port_summary()})")
            return port
        return self.interface(ref).port

    def locate(self, name: str) -> tuple[Port, int] | None:
        """The cage and lane of an Ethernet interface name, or None when the model lacks it."""
        return self._lanes.get(name)

    def interface(self, name: str) -> InterfaceInfo:
        """Cage, lane, form factor and speed of an interface; an error names what the model has.

        Examples:
            >>> from core.hardware import model
            >>> info = model("DCS-7050SX3-48YC8").interface("Ethernet49/1")
            >>> info.form_factor, info.speed, info.active_by_default
            ('QSFP28', '100g', True)
            >>> model("DCS-7050SX3-48YC8").interface("Ethernet49/2").speed
            '25g'
        """
        found = self._lanes.get(name)
        if found is None:
            raise FabricopsError(self.missing(name) or f"{name} is not an Ethernet interface of {self.id}")
        port, lane = found
        default = port.default_mode
        if lane in default.lanes:
            speed = default.speed
        else:
            speed = max(
                (port.kind.modes[m].speed for m in port.allowed_modes() if lane in port.kind.modes[m].lanes),
                key=speed_gbps,
            )
        return InterfaceInfo(name, port, lane, port.form_factor, speed, lane in default.lanes)

    def speed_of(self, name: str) -> str:
        return self.interface(name).speed

    def form_factor_of(self, name: str) -> str:
        return self.interface(name).form_factor

    def has_interface(self, name: str) -> bool:
        """Whether the model has this interface (logical interfaces always exist).

        Examples:
            >>> from core.hardware import model
            >>> spine = model("DCS-7804-CH")
            >>> [spine.has_interface(n) for n in ("Ethernet6/36/8", "Ethernet7/1/1", "Vlan10")]
            [True, False, True]
        """
        return self.missing(name) is None if self.is_physical(name) else True

    @staticmethod
    def is_physical(name: str) -> bool:
        return name.startswith(("Ethernet", "Management"))

    def missing(self, name: str) -> str | None:
        """One line saying why the model lacks ``name``; None when it has it (or it is logical).

        Examples:
            >>> from core.hardware import model
            >>> print(model("DCS-7060DX5-32").missing("Ethernet49/1"))
            Ethernet49/1 does not exist on DCS-7060DX5-32 (Ethernet1/1-32/1 QSFP-DD (lanes /1-/8), Ethernet33 SFP+)
        """
        if name in self._lanes or name in self.management or not self.is_physical(name):
            return None
        return f"{name} does not exist on {self.id} ({self.port_summary()})"

    def port_summary(self) -> str:
        """The cages, grouped: ``Ethernet1/1-32/1 QSFP-DD (lanes /1-/8), Ethernet33 SFP+``."""
        parts: list[str] = []
        run: list[Port] = []
        for port in [*self.ports, None]:
            if run and (port is None or port.kind != run[-1].kind or port.slot != run[-1].slot):
                first, last = run[0], run[-1]
                span = first.name() if first is last else f"{first.name()}-{last.name().removeprefix('Ethernet')}"
                lanes = f" (lanes /1-/{first.kind.lanes})" if first.kind.lanes > 1 else ""
                parts.append(f"{span} {first.form_factor}{lanes}")
                run = []
            if port is not None:
                run.append(port)
        return ", ".join(parts) if parts else "no ports"

    # ------------------------------------------------------------------ breakouts
    def port_set(self, cages: Iterable[int | str], mode: str | None = None) -> list[str]:
        """The interfaces of ``cages`` in order, each cage broken out into ``mode`` (default: the
        cage's own default mode): the k-th member of a port set is the k-th of this list.

        Examples:
            >>> from core.hardware import model
            >>> model("DCS-7060DX5-32").port_set([1, 2], "4x100g")[:5]
            ['Ethernet1/1', 'Ethernet1/3', 'Ethernet1/5', 'Ethernet1/7', 'Ethernet2/1']
            >>> model("DCS-7050SX3-48YC8").port_set([47, 48, 49])
            ['Ethernet47', 'Ethernet48', 'Ethernet49/1']
            >>> model("DCS-7280CR3-32P4").port_set([2], "4x25g")
            Traceback (most recent call last):
            ...
            core.errors.FabricopsError: Ethernet2/1: no breakout '4x25g' on this port (allowed: 1x100g, 2x50g)
        """
        names: list[str] = []
        for ref in cages:
            cage = self.port(ref)
            chosen = cage.mode(mode) if mode is not None else cage.default_mode
            names += [cage.name(lane) for lane in chosen.lanes]
        return names

    def breakout(self, port: int | str, mode: str) -> Breakout:
        """The interfaces a breakout of one cage makes (with their ``speed`` keyword) and the
        interfaces it makes absent (the partner cage of a gearbox pair).

        Examples:
            >>> from core.hardware import model
            >>> b = model("DCS-7280CR3-32P4").breakout("Ethernet1/1", "4x25g")
            >>> [i.name for i in b.interfaces]
            ['Ethernet1/1', 'Ethernet1/2', 'Ethernet1/3', 'Ethernet1/4']
            >>> b.absent
            ('Ethernet2/1', 'Ethernet2/2', 'Ethernet2/3', 'Ethernet2/4')
        """
        cage = self.port(port)
        chosen = cage.mode(mode)
        interfaces = tuple(BreakoutInterface(cage.name(lane), chosen.speed, chosen.keyword) for lane in chosen.lanes)
        absent: tuple[str, ...] = ()
        if cage.primary and cage.partner is not None and chosen.name in cage.pair_modes:
            absent = tuple(self.port(self._partner_label(cage)).lane_names())
        return Breakout(cage, chosen, interfaces, absent)
