"""``generated/inventory/power.csv`` and ``power.md``: the power and cooling budget per rack and row (C9).

Rack rows compare the devices' watts (a switch's catalog model's typical draw, a server's
``power_w``) with the PDU rating; row rows compare the racks' sum with the row's cooling and UPS
capacity. ``status`` is ``ok``, ``near`` (> 90%: check warning PWR002/PWR004) or ``over`` (check
error PWR001/PWR003). The switch models whose figures are estimates are listed below the table.
"""

from __future__ import annotations

from compiler.artifacts.physical import budget_status, rack_loads, row_loads, switch_power
from compiler.artifacts.tables import csv_text, markdown_table, percent
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent

COLUMNS = ("scope", "name", "row", "devices", "watts", "capacity", "capacity_w", "margin_w", "utilisation", "status")


def power_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """One row per rack (against its PDU) and two per row (cooling, UPS)."""
    racks = rack_loads(intent, fabric)
    rows: list[tuple[object, ...]] = []
    for load in racks:
        rows.append(
            (
                "rack",
                f"rack{load.rack.id:02d}",
                load.rack.row,
                len(load.devices),
                load.watts,
                "pdu",
                load.pdu_w,
                load.pdu_w - load.watts,
                percent(load.watts, load.pdu_w),
                budget_status(load.watts, load.pdu_w),
            )
        )
    for row in row_loads(intent, racks):
        devices = sum(len(r.devices) for r in racks if r.rack.row == row.row)
        for what, capacity in (("cooling", row.cooling_w), ("ups", row.ups_w)):
            status = budget_status(row.watts, capacity) if capacity else "unknown"
            rows.append(
                (
                    "row",
                    row.row,
                    row.row,
                    devices,
                    row.watts,
                    what,
                    capacity,
                    capacity - row.watts if capacity else "",
                    percent(row.watts, capacity),
                    status,
                )
            )
    models: dict[str, tuple[int, int, bool, str]] = {}
    for name, device in fabric.devices.items():
        power = switch_power(fabric, name)
        models.setdefault(device.model, (power.typical_w, power.max_w, power.certain, power.source))
    md = (
        "# Power and cooling budget\n\n"
        "Watts are a switch's typical draw from the model catalog (`docs/hardware.md`) and a server's "
        "`power_w` of `intent/fabric.yaml`; PDU ratings are in `intent/racks.yaml`, row cooling and UPS "
        "capacity under its `rows:`. Over 90% of a budget is a warning, over 100% an error.\n\n"
        + markdown_table(
            ["scope", "name", "devices", "watts", "against", "capacity (W)", "margin (W)", "used", "status"],
            [(r[0], r[1], r[3], r[4], r[5], r[6], r[7], r[8], r[9]) for r in rows],
        )
        + "\n## Switch models\n\n"
        "Typical and maximum draw per model; an estimate is marked: take the figure from the datasheet "
        "before trusting a margin near it.\n\n"
        + markdown_table(
            ["model", "typical (W)", "max (W)", "figure"],
            [(m, t, x, "source" if certain else "estimate") for m, (t, x, certain, _) in sorted(models.items())],
        )
    )
    return {"inventory/power.csv": csv_text(COLUMNS, rows), "inventory/power.md": md}
