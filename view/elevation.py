"""A rack drawn by rack unit: where each server and switch sits, and what does not fit.

Units come from ``assets.csv`` (top unit and height). A rack is drawn from its highest unit
in use down to U1; anything placed below U1 or over another device is listed as a warning,
so an overfull rack shows as such instead of being drawn as if it fitted.

Example:
    >>> from view.model import Placed
    >>> def box(name, top, height): return Placed(name, "switch", "", "", "", "1", "A", "", top, height)
    >>> rack = elevate([box("sw", 42, 1), box("srv", 4, 4), box("big", 3, 2)])
    >>> rack.top, rack.bottom, [(s.placed.name, s.offset, s.height) for s in rack.slots]
    (42, 1, [('sw', 0, 1), ('srv', 38, 4), ('big', 39, 2)])
    >>> rack.warnings
    ('big (U2-3) overlaps srv (U1-4)',)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from view.model import Placed

MIN_UNITS = 42
"""The smallest rack drawn (a standard rack), so short racks line up with full ones."""


@dataclass(frozen=True, slots=True)
class Slot:
    """A device in the drawing: units from the top of the drawn rack, and its height."""

    placed: Placed
    offset: int
    height: int


@dataclass(frozen=True, slots=True)
class Elevation:
    """The units drawn (top to bottom), the devices and what does not fit."""

    top: int
    bottom: int
    slots: tuple[Slot, ...]
    unplaced: tuple[Placed, ...]
    warnings: tuple[str, ...]

    @property
    def units(self) -> list[int]:
        return list(range(self.top, self.bottom - 1, -1))


def _span(p: Placed) -> str:
    low = p.top_u - p.height_u + 1
    return f"U{p.top_u}" if low == p.top_u else f"U{low}-{p.top_u}"


def elevate(members: Iterable[Placed]) -> Elevation:
    """Lay out one rack's devices by their units."""
    placed = sorted((p for p in members if p.height_u > 0), key=lambda p: (-p.top_u, p.name))
    unplaced = tuple(sorted((p for p in members if p.height_u <= 0), key=lambda p: p.name))
    top = max([MIN_UNITS, *(p.top_u for p in placed)])
    bottom = min([1, *(p.top_u - p.height_u + 1 for p in placed)])
    warnings = []
    taken: dict[int, Placed] = {}
    for p in placed:
        low = p.top_u - p.height_u + 1
        if low < 1:
            warnings.append(f"{p.name} ({_span(p)}) is below U1: the rack is full")
        clash = next((taken[u] for u in range(low, p.top_u + 1) if u in taken), None)
        if clash is not None:
            warnings.append(f"{p.name} ({_span(p)}) overlaps {clash.name} ({_span(clash)})")
        for unit in range(low, p.top_u + 1):
            taken.setdefault(unit, p)
    warnings += [f"{p.name} has no rack unit in generated/" for p in unplaced]
    slots = tuple(Slot(p, top - p.top_u, p.height_u) for p in placed)
    return Elevation(top, bottom, slots, unplaced, tuple(warnings))
