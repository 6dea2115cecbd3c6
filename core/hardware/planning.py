"""What design checks need from the catalog: port budgets, internal VLANs and optics.

Examples:
    >>> from core.hardware import model
    >>> capacity(model("DCS-7060DX5-64S"), "100g")
    256
    >>> (problem,) = internal_vlan_problems(384, VlanRange(1006, 1199), vlans_in_use=[100, 200])
    >>> print(problem.replace("; ", ";\\n").replace(": ", ":\\n"))
    384 routed ports need 384 internal VLANs;
    vlan internal order ascending range 1006 1199 holds 194:
    configure vlan internal order ascending range 1006 1389
    >>> optic_for("400g", 80).name, optic_for("400g", 300).name
    ('400GBASE-SR8', '400GBASE-DR4')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from core.errors import FabricopsError
from core.hardware.catalog import Optic, catalog
from core.hardware.model import Model, Port, VlanRange

#: The highest VLAN id an internal range may use.
LAST_VLAN = 4094


@dataclass(frozen=True)
class PortCount:
    """How many cages of one form factor and default speed a model has."""

    form_factor: str
    speed: str
    count: int


def port_budget(model: Model) -> list[PortCount]:
    """The model's cages per form factor and default speed, in port order.

    Examples:
        >>> from core.hardware import model
        >>> port_budget(model("DCS-7050SX3-48YC8"))
        [PortCount(form_factor='SFP28', speed='25g', count=48), PortCount(form_factor='QSFP28', speed='100g', count=8)]
    """
    counts: dict[tuple[str, str], int] = {}
    for port in model.ports:
        key = (port.form_factor, port.default_mode.speed)
        counts[key] = counts.get(key, 0) + 1
    return [PortCount(ff, speed, count) for (ff, speed), count in counts.items()]


def _most(port: Port, speed: str, modes: Iterable[str] | None = None) -> int:
    """Most interfaces at ``speed`` one cage gives, over ``modes`` (default: those it allows)."""
    chosen = port.allowed_modes() if modes is None else modes
    return max((len(port.kind.modes[m].lanes) for m in chosen if port.kind.modes[m].speed == speed), default=0)


def capacity(model: Model, speed: str) -> int:
    """Most interfaces at ``speed`` the model gives with the breakouts it allows.

    A gearbox pair counts the better of: the first cage broken out alone (its partner absent),
    or both cages in modes that keep both.

    Examples:
        >>> from core.hardware import model
        >>> core = model("DCS-7280CR3-32P4")
        >>> capacity(core, "25g"), capacity(core, "100g"), capacity(core, "400g")
        (64, 48, 4)
    """
    total = 0
    by_label = {port.label: port for port in model.ports}
    for port in model.ports:
        if port.partner is None:
            total += _most(port, speed)
        elif port.primary:
            partner = by_label[f"{port.slot}/{port.partner}" if port.slot is not None else str(port.partner)]
            keep = [m for m in port.allowed_modes() if m not in port.pair_modes]
            total += max(_most(port, speed, port.pair_modes), _most(port, speed, keep) + _most(partner, speed))
    return total


def internal_vlans_needed(routed_ports: int) -> int:
    """Internal VLANs a switch allocates: one per routed port (``no switchport``)."""
    return routed_ports


def internal_vlan_range(
    needed: int, vlans_in_use: Iterable[int], *, first: int = 1006, last: int = LAST_VLAN
) -> VlanRange:
    """The lowest ascending range of ``needed`` VLANs from ``first`` that holds no VLAN in use.

    Examples:
        >>> internal_vlan_range(384, [100, 200])
        VlanRange(first=1006, last=1389, certain=True, note='')
        >>> internal_vlan_range(10, [1010])
        VlanRange(first=1011, last=1020, certain=True, note='')
    """
    used = sorted(v for v in set(vlans_in_use) if first <= v <= last)
    start = first
    for vlan in [*used, last + 1]:
        if vlan - start >= needed:
            return VlanRange(start, start + needed - 1)
        start = max(start, vlan + 1)
    raise FabricopsError(
        f"no run of {needed} free VLANs between {first} and {last}: fewer routed ports, or free VLANs in that span"
    )


def internal_vlan_problems(routed_ports: int, configured: VlanRange, vlans_in_use: Iterable[int]) -> list[str]:
    """Why ``configured`` cannot serve ``routed_ports`` (too small, or VLANs in use inside it).

    Each problem ends with the line that fixes it.

    Examples:
        >>> internal_vlan_problems(48, VlanRange(1006, 1199), [100])
        []
        >>> (problem,) = internal_vlan_problems(8, VlanRange(1006, 1199), [1100])
        >>> print(problem.replace(": ", ":\\n"))
        VLAN 1100 is in use inside vlan internal order ascending range 1006 1199:
        configure vlan internal order ascending range 1101 1294
    """
    in_use = sorted(v for v in set(vlans_in_use) if v in configured)
    needed = internal_vlans_needed(routed_ports)
    if needed <= configured.size and not in_use:
        return []
    fix = internal_vlan_range(max(needed, configured.size), vlans_in_use, first=configured.first).config_line()
    if in_use:
        listed = ", ".join(str(v) for v in in_use)
        noun = "VLAN" if len(in_use) == 1 else "VLANs"
        verb = "is" if len(in_use) == 1 else "are"
        return [f"{noun} {listed} {verb} in use inside {configured.config_line()}: configure {fix}"]
    return [
        f"{routed_ports} routed ports need {needed} internal VLANs; {configured.config_line()} holds"
        f" {configured.size}: configure {fix}"
    ]


@cache
def optics(speed: str) -> tuple[Optic, ...]:
    """The catalog's optics for ``speed``, shortest reach first (the shipped catalog is read once,
    so is this: it is asked twice per cable).

    Example:
        >>> [o.name for o in optics("400g")][:2]
        ['400GBASE-SR8', '400GBASE-DR4']
    """
    return tuple(sorted((o for o in catalog().optics if o.speed == speed), key=lambda o: o.reach_m))


@cache
def _optics_by_name() -> dict[str, Optic]:
    return {o.name: o for o in catalog().optics}


def optic_for(speed: str, length_m: float, *, media: str | None = None, form_factor: str | None = None) -> Optic | None:
    """The shortest-reach optic of ``speed`` (of ``media``, for a ``form_factor`` cage, if given)
    that spans ``length_m``: multimode while it reaches, single-mode beyond.

    Examples:
        >>> optic_for("100g", 1500).name
        '100GBASE-FR'
        >>> optic_for("25g", 20, media="singlemode").name
        '25GBASE-LR'
        >>> optic_for("100g", 20, form_factor="QSFP28").name, optic_for("1g", 3, form_factor="RJ45").name
        ('100GBASE-SR4', '1000BASE-T')
        >>> optic_for("400g", 20000) is None
        True
    """
    for optic in optics(speed):
        if optic.reach_m < length_m or (media is not None and optic.media != media):
            continue
        if form_factor is None or form_factor in optic.form_factors:
            return optic
    return None


def breakout_optics(speed: str, form_factor: str, mode: str, length_m: float) -> tuple[Optic, Optic] | None:
    """The optic of a cage broken out into ``mode`` and the optic at each lane's far end: the
    shortest reach whose cage optic and lane optic both span ``length_m``; None if none does.

    ``speed`` is the cage's own (its default mode's) speed.

    Examples:
        >>> [o.name for o in breakout_optics("400g", "QSFP-DD", "4x100g", 3)]
        ['400GBASE-SR8', '100GBASE-SR2']
        >>> [o.name for o in breakout_optics("400g", "QSFP-DD", "4x100g", 150)]
        ['400GBASE-DR4', '100GBASE-DR']
        >>> [o.name for o in breakout_optics("100g", "QSFP28", "4x25g", 12)]
        ['100GBASE-SR4', '25GBASE-SR']
        >>> breakout_optics("400g", "QSFP-DD", "8x50g", 300) is None
        True
    """
    by_name = _optics_by_name()
    for optic in optics(speed):
        lane = by_name.get(optic.breakout.get(mode, ""))
        if lane is None or form_factor not in optic.form_factors:
            continue
        if min(optic.reach_m, lane.reach_m) >= length_m:
            return optic, lane
    return None
