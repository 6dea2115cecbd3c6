"""Port specifics: the settings ``ports.yaml`` gives one port, checked against its switch's model.

A switch's ``speed`` and ``breakout`` entries put cages in other modes than its role's layout
(:func:`compiler.facts.hardware.with_modes`): the switch gets a layout of its own, so its
interfaces, lane keywords and port speeds follow. What an entry cannot be is a problem naming its
line in ``ports.yaml``:

* a switch the design does not have (REF002), an interface its model lacks (PRT001);
* a speed or breakout the cage does not take, a breakout on a cage of the role's port sets (set
  it in ``fabric.yaml``), a breakout not on the cage's first interface, a speed on a multi-lane
  cage (PRT008);
* a setting on an interface the switch's breakouts leave inactive or absent (BRK001).

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> from compiler.facts.topology import build_topology
    >>> intent = load_intent(Path("intent"))
    >>> specifics = build_port_specifics(intent, build_topology(intent))
    >>> specifics.settings, specifics.problems
    ({}, ())
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections.abc import Iterator, Mapping
from typing import NamedTuple

from compiler.facts.common import Problem
from compiler.facts.hardware import Layout, with_modes
from compiler.facts.topology import Switch, Topology
from compiler.intent import Intent
from compiler.sources import Source
from compiler.specifics import PortSettings
from core.errors import FabricopsError


class PortSetting(NamedTuple):
    """One ``ports.yaml`` entry and where it is written."""

    settings: PortSettings
    source: Source


class PortSpecifics(NamedTuple):
    """The ``ports.yaml`` entries that hold, by switch and interface, and the switches' own layouts."""

    settings: Mapping[str, Mapping[str, PortSetting]]
    layouts: Mapping[str, Layout]
    """Switches whose entries change a cage's mode: their layout with those modes."""
    problems: tuple[Problem, ...]

    def apply(self, topology: Topology) -> Topology:
        """``topology`` with each switch of an own layout carrying it."""
        if not self.layouts:
            return topology
        switches = dict(topology.switches)
        for name, layout in self.layouts.items():
            switches[name] = switches[name]._replace(layout=layout)
        return topology._replace(switches=switches)


def build_port_specifics(intent: Intent, topology: Topology) -> PortSpecifics:
    """Every ``ports.yaml`` entry checked against its switch; the modes they set, as layouts."""
    settings: dict[str, dict[str, PortSetting]] = {}
    layouts: dict[str, Layout] = {}
    problems: list[Problem] = []
    for device, entries in sorted(intent.ports.items()):
        here = Source("ports.yaml", ("ports", device))
        switch = topology.switches.get(device)
        if switch is None:
            message = f"ports.yaml names no switch of the design {device!r}: check the name (fabricops view lists them)"
            problems.append(Problem("REF002", intent.where(here), message))
            continue
        modes: dict[str, str] = {}
        kept: dict[str, PortSetting] = {}
        for name, entry in entries.items():
            source = here.child(name)
            found = list(_entry_problems(intent, switch, name, entry, source, modes))
            problems.extend(found)
            if not found:
                kept[name] = PortSetting(entry, source)
        layout = with_modes(switch.layout, modes) if modes else switch.layout
        if modes:
            layouts[device] = layout
        for name, setting in list(kept.items()):
            if layout.speed(name) is None:
                where = intent.where(setting.source)
                problems.append(Problem("BRK001", where, f"{layout.why_absent(name)} ({device})"))
                del kept[name]
        if kept:
            settings[device] = kept
    return PortSpecifics(settings, layouts, tuple(problems))


def _entry_problems(
    intent: Intent, switch: Switch, name: str, entry: PortSettings, source: Source, modes: dict[str, str]
) -> Iterator[Problem]:
    """What is wrong with one entry; the cage mode it sets goes into ``modes``."""
    model = switch.layout.model
    missing = model.missing(name)
    if missing is not None:
        yield Problem("PRT001", intent.where(source), f"{missing} ({switch.name})")
        return
    info = model.interface(name)
    port = info.port
    for key, wanted in (("speed", entry.speed), ("breakout", entry.breakout)):
        if wanted is None:
            continue
        mode = f"1x{wanted}" if key == "speed" else wanted
        why = _mode_problem(switch.layout, name, key, mode)
        if why is not None:
            yield Problem("PRT008", intent.where(source.child(key)), f"{switch.name} {name}: {why}")
            continue
        try:
            port.mode(mode)
        except FabricopsError:
            allowed = ", ".join(port.allowed_modes())
            yield Problem(
                "PRT008",
                intent.where(source.child(key)),
                f"{switch.name} {name}: {port.form_factor} cage {port.label} of {model.id} takes {allowed}, "
                f"not {mode}: use one of them",
            )
            continue
        modes[port.label] = mode


def _mode_problem(layout: Layout, name: str, key: str, mode: str) -> str | None:
    """Why ``key`` (speed or breakout) cannot be set on interface ``name`` of ``layout``, or None."""
    info = layout.model.interface(name)
    port = info.port
    if key == "speed" and port.kind.lanes > 1:
        example = mode.replace("1x", "4x")
        return f"a {port.form_factor} cage has lanes: set its breakout on {port.name(1)} (e.g. breakout: {example})"
    if key == "breakout" and port.kind.lanes == 1:
        return f"a {port.form_factor} port has one lane: set its speed instead"
    if key == "breakout" and info.lane != 1:
        return f"a breakout is set on the cage's first interface, {port.name(1)}"
    for set_name, members in layout.sets.items():
        if any(layout.model.locate(member) and layout.model.port(member).label == port.label for member in members):
            return f"cage {port.label} is in the role's {set_name}: change its mode there, in fabric.yaml"
    return None


def settings_of(specifics: PortSpecifics, device: str) -> Mapping[str, PortSettings]:
    """The settings of one switch's ports, by interface."""
    return {name: found.settings for name, found in specifics.settings.get(device, {}).items()}
