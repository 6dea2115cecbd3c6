"""Front-panel ports from interface names, whatever the switch: fixed, breakout or chassis.

EOS names a fixed SFP port ``Ethernet7``, a lane of a QSFP/OSFP cage ``Ethernet49/1`` (a
breakout uses ``/1``, ``/3``, ``/5``, ``/7``) and a lane of a chassis port
``Ethernet3/12/1`` (slot 3, port 12). So the last number of a slashed name is the lane, the
rest names the cage, and the first number of a three-part name the line card. Nothing here
assumes how many ports a model has: the cages are the ones the config lists.

Examples:
    >>> cage_of("Ethernet49/1"), cage_of("Ethernet7")
    (Cage(card='', number='49', lanes=True), Cage(card='', number='7', lanes=False))
    >>> cage_of("Ethernet3/12/1")
    Cage(card='3', number='3/12', lanes=True)
    >>> cage_of("Management1") is None
    True
    >>> [p.number for p in panel(["Ethernet1", "Ethernet2", "Ethernet49/1", "Ethernet49/3"])[1].cages]
    ['49']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

_FRONT = re.compile(r"^Ethernet(?P<numbers>\d+(?:/\d+)*)$")


@dataclass(frozen=True, slots=True)
class Cage:
    """A physical port of the front panel: the line card it is on and its printed number."""

    card: str
    number: str
    lanes: bool


@dataclass(slots=True)
class PanelCage:
    """A cage and the interfaces (lanes) the config lists for it, in order."""

    number: str
    interfaces: list[str] = field(default_factory=list)

    @property
    def breakout(self) -> bool:
        """More than one lane of the cage is an interface of its own."""
        return len(self.interfaces) > 1


@dataclass(slots=True)
class PanelGroup:
    """Cages drawn as one block: a line card, or the flat or the laned ports of a fixed switch."""

    title: str
    cages: list[PanelCage] = field(default_factory=list)


def cage_of(interface: str) -> Cage | None:
    """The cage an interface lives in; None for what is not a front-panel port."""
    match = _FRONT.match(interface)
    if match is None:
        return None
    numbers = match.group("numbers").split("/")
    if len(numbers) == 1:
        return Cage("", numbers[0], False)
    cage = "/".join(numbers[:-1])
    return Cage(numbers[0] if len(numbers) > 2 else "", cage, True)


def panel(interfaces: Iterable[str]) -> list[PanelGroup]:
    """The front panel: one group per line card, or flat ports then laned cages on a fixed switch.

    ``interfaces`` come in the order the switch prints them (:func:`core.hardware.sort_interfaces`).
    """
    groups: dict[tuple[str, bool], PanelGroup] = {}
    for name in interfaces:
        cage = cage_of(name)
        if cage is None:
            continue
        key = (cage.card, cage.lanes if not cage.card else True)
        if key not in groups:
            groups[key] = PanelGroup(_title(cage))
        group = groups[key]
        if not group.cages or group.cages[-1].number != cage.number:
            group.cages.append(PanelCage(cage.number))
        group.cages[-1].interfaces.append(name)
    return list(groups.values())


def _title(cage: Cage) -> str:
    if cage.card:
        return f"line card {cage.card}"
    return "multi-lane ports" if cage.lanes else "ports"
