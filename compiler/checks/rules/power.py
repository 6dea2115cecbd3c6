"""The physical plant: power per rack and row, cooling, and optic reach (C8, C9).

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
PWR001    error     C9           a rack draws more than its PDU rating (switches at their
                                 model's typical draw; an estimated figure is named)
PWR002    warning   C9           a rack draws more than 90% of its PDU rating
PWR003    error     C9           a row draws more than its cooling or UPS capacity
PWR004    warning   C9           a row draws more than 90% of its cooling or UPS capacity
CAB001    error     C8           a cable is longer than any optic of its speed reaches
                                 (a lane of a broken-out cage: any parallel optic and
                                 breakout optic pair of that mode)
RCK001    error     C9           a rack's switches and servers take more rack units than
                                 it has (``units`` in racks.yaml, default 42)
========  ========  ===========  =====================================================

Rack units come from the switches' catalog models (``rack_units``, a chassis as a whole) and
the servers' models of ``intent/fabric.yaml``; watts from the switches' catalog models (typical
draw) and the servers' ``power_w``; rows from the ``rows:`` section of ``intent/racks.yaml``.
The figures are the ones ``generated/inventory/power.csv``, ``assets.csv`` and ``cabling.csv``
print (``compiler.artifacts.physical``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from compiler.artifacts.physical import (
    NEAR_LIMIT,
    _End,
    _optics,
    _switch_end,
    budget_status,
    cable_length_m,
    link_speed,
    rack_loads,
    row_loads,
    switch_power,
    utilisation,
)
from compiler.checks.base import rule
from compiler.checks.rules._common import per_run
from compiler.fabric import ResolvedFabric
from compiler.facts import Cable, Endpoint
from compiler.intent import Intent

_rack_loads = per_run(rack_loads)
"""The rack loads, once for the four rules that read them."""


def _kw(watts: int) -> str:
    """Watts as kW for a message.

    Example:
        >>> _kw(61750)
        '61.75 kW'
    """
    return f"{watts / 1000:g} kW"


def _racks(intent: Intent, fabric: ResolvedFabric, status: str) -> Iterator[tuple[str, str]]:
    for load in _rack_loads(intent, fabric):
        if budget_status(load.watts, load.pdu_w) != status:
            continue
        heaviest = max(load.devices, key=lambda d: d[1])  # the first by name among equals
        estimated = sorted(
            {
                fabric.devices[n].model
                for n, _ in load.devices
                if n in fabric.devices and not switch_power(fabric, n).certain
            }
        )
        note = f"; typical draw of {', '.join(estimated)} is an estimate (docs/hardware.md)" if estimated else ""
        yield (
            f"rack{load.rack.id:02d}",
            (
                f"draws {_kw(load.watts)} ({utilisation(load.watts, load.pdu_w):.0%}) of its {_kw(load.pdu_w)} PDU "
                f"with {len(load.devices)} devices (largest {heaviest[0]} {heaviest[1]} W): "
                f"move servers to another rack or raise pdu_kw in racks.yaml{note}"
            ),
        )


def _rows(intent: Intent, fabric: ResolvedFabric, status: str) -> Iterator[tuple[str, str]]:
    for row in row_loads(intent, _rack_loads(intent, fabric)):
        for what, capacity in (("cooling", row.cooling_w), ("UPS", row.ups_w)):
            if capacity and budget_status(row.watts, capacity) == status:
                yield (
                    f"row {row.row}",
                    (
                        f"racks {', '.join(str(r) for r in row.racks)} draw {_kw(row.watts)} "
                        f"({utilisation(row.watts, capacity):.0%}) of the row's {_kw(capacity)} {what} capacity: "
                        f"spread the load over other rows or raise rows.{row.row} in racks.yaml"
                    ),
                )


@rule("PWR001", "error", "C9", "Every rack within its PDU rating")
def rack_over_pdu(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each rack whose devices draw more than its PDU rating."""
    yield from _racks(intent, fabric, "over")


@rule("PWR002", "warning", "C9", f"Every rack below {NEAR_LIMIT:.0%} of its PDU rating")
def rack_near_pdu(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each rack within 10% of its PDU rating."""
    yield from _racks(intent, fabric, "near")


@rule("PWR003", "error", "C9", "Every row within its cooling and UPS capacity")
def row_over_capacity(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each row drawing more than its cooling or UPS capacity."""
    yield from _rows(intent, fabric, "over")


@rule("PWR004", "warning", "C9", f"Every row below {NEAR_LIMIT:.0%} of its cooling and UPS capacity")
def row_near_capacity(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each row within 10% of its cooling or UPS capacity."""
    yield from _rows(intent, fabric, "near")


@rule("CAB001", "error", "C8", "Every cable within the reach of an optic of its speed")
def cable_reach(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each cable whose length (from rack rows and positions) no optic of its speed reaches."""
    for link, length, breakout, reach in _beyond_reach(intent, fabric):
        yield (
            f"{link.a.device} {link.a.port}",
            (
                f"cable to {link.b.device} {link.b.port} is {length:g} m, beyond every "
                f"{link_speed(link) or 'unknown-speed'}{' breakout' if breakout else ''} optic "
                f"(longest reach {reach} m): place the racks closer (row, position in racks.yaml)"
            ),
        )


def _beyond_reach(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[Cable, float, bool, int]]:
    """The cables ``physical.runs`` would give no optic at one end: (link, length, whether an end
    is a broken-out cage, the longest reach of any choice), in the link order.

    The optics of a cable depend only on its speed, its length and each end's cage as the optics
    see it (form factor, speed, breakout), and a fleet has few such combinations: each is decided
    once, each cage found once per switch layout and port, rather than a ``Run`` per cable (the
    cable list builds those; the rule needs none).
    """
    cabling = intent.fabric.cabling
    switches = fabric.facts.topology.switches
    racks = {name: server.rack for name, server in fabric.servers.items()}
    racks.update((name, device.rack) for name, device in fabric.devices.items())  # a switch first, as rack_of
    layouts = {name: id(switch.layout) for name, switch in switches.items()}
    modes: dict[int, dict[str, str]] = {}
    kinds: list[_End | None] = [None]  # each distinct cage (the cage's name left out); 0: a server end
    kind_of: dict[_End | None, int] = {None: 0}
    lengths: dict[tuple[int, int], float] = {}
    verdicts: dict[tuple[int, int, str, float], tuple[bool, int]] = {}
    cages: dict[tuple[int | None, str], int] = {}  # by (layout, port); a server's port: (None, port), 0

    def cage(end: Endpoint) -> int:
        layout = layouts.get(end.device)
        if layout is None:
            found = cages[None, end.port] = 0
            return found
        seen = _switch_end(fabric, end.device, end.port, modes)
        shape = seen._replace(cage="") if seen is not None else None
        if shape not in kind_of:
            kind_of[shape] = len(kinds)
            kinds.append(shape)
        found = cages[layout, end.port] = kind_of[shape]
        return found

    for link in fabric.links:  # look-ups written out: a pass over every cable of the fleet
        a, b = link.a, link.b
        pair = racks[a.device], racks[b.device]
        length = lengths.get(pair)
        if length is None:
            length = lengths[pair] = cable_length_m(intent.racks[pair[0]], intent.racks[pair[1]], cabling)
        a_cage = cages.get((layouts.get(a.device), a.port))
        b_cage = cages.get((layouts.get(b.device), b.port))
        key = (
            a_cage if a_cage is not None else cage(a),
            b_cage if b_cage is not None else cage(b),
            link.a_speed or link.b_speed or "",  # link_speed(link)
            length,
        )
        verdict = verdicts.get(key)
        if verdict is None:
            a_optic, b_optic, reach = _optics(kinds[key[0]], kinds[key[1]], key[2], length)
            verdict = verdicts[key] = (a_optic is None or b_optic is None, reach)
        if verdict[0]:
            near, far = kinds[key[0]], kinds[key[1]]
            broken_out = bool(near is not None and near.breakout) or bool(far is not None and far.breakout)
            yield link, length, broken_out, verdict[1]


@rule("RCK001", "error", "C9", "Every rack holds its devices' rack units")
def rack_over_units(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each rack whose switches (from the top) and servers (from the bottom) take more
    units than it has: their units in ``inventory/assets.csv`` would overlap."""
    switches: dict[int, list[int]] = defaultdict(list)
    servers: dict[int, list[int]] = defaultdict(list)
    for name, device in fabric.devices.items():
        switches[device.rack].append(fabric.facts.topology.switches[name].layout.model.rack_units)
    for server in fabric.servers.values():
        servers[server.rack].append(intent.fabric.server_models[server.model].rack_units)
    for rack_id, rack in sorted(intent.racks.items()):
        up, down = sum(switches[rack_id]), sum(servers[rack_id])
        if up + down > rack.units:
            yield (
                f"rack{rack_id:02d}",
                (
                    f"{len(switches[rack_id])} switches take {up}U and {len(servers[rack_id])} servers {down}U: "
                    f"{up + down}U of its {rack.units}U: move devices to another rack or set units in racks.yaml"
                ),
            )
