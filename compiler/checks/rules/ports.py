"""Port rules: every port exists on its model, no switch runs out of ports, leaf budgets.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
PRT001    error     C3           a used port exists on the switch's model
PRT002    error     C3           a server's position fits its leaf pair's
                                 ``ports_per_rack``
PRT003    error     C2           the rack management switch has a port for every
                                 server and switch of the rack
PRT004    error     C3           no switch uses more ports than its model has; a spine
                                 has a port for every leaf of its fabric
PRT005    warning   C3           server downlinks per leaf stay inside the fabric's
                                 ``downlink_budget`` (8-12 in the design)
PRT006    info      C3           per-leaf oversubscription: downlink vs uplink bandwidth
========  ========  ===========  =====================================================

PRT001-PRT003 report what resolution could not place (``ResolvedFabric.problems``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from compiler.checks.base import rule
from compiler.checks.rules._common import devices, fabric_spec, gbps, links_of, problems
from compiler.fabric import ResolvedFabric
from compiler.facts import Cable
from compiler.intent import Intent


@rule("PRT001", "error", "C3", "Every used port exists on the switch model")
def ports_in_model(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each used port beyond the model's port map."""
    del intent
    yield from problems(fabric, "PRT001")


@rule("PRT002", "error", "C3", "Every server position has a leaf port")
def positions_have_ports(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each server whose rack position exceeds the leaves' ports per rack."""
    del intent
    yield from problems(fabric, "PRT002")


@rule("PRT003", "error", "C2", "The management switch has a port for everything in its rack")
def management_ports(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each server or switch the rack management switch has no port for."""
    del intent
    yield from problems(fabric, "PRT003")


@rule("PRT004", "error", "C3", "No switch uses more ports than its model has")
def port_counts(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each switch that needs more ports than its model has (spines: one per leaf)."""
    models = intent.fabric.switch_models
    for name, device in sorted(fabric.devices.items()):
        model = models.get(device.model)
        if model is None:
            yield name, f"switch model {device.model!r} is not in switch_models"
            continue
        have = model.port_count
        if device.role == "spine":
            leaves = len(devices(fabric, "leaf", device.network))
            if leaves > have:
                yield name, (f"{name} ({device.model}) has {have} ports but {leaves} leaves need one each")
                continue
        used = len(fabric.ports(name))
        if used > have:
            yield name, (f"{name} ({device.model}) has {have} ports but {used} are needed")


def _server_downlinks(fabric: ResolvedFabric) -> dict[str, list[Cable]]:
    down: dict[str, list[Cable]] = defaultdict(list)
    for link in links_of(fabric, ["server"]):
        down[link.a.device].append(link)
    return down


@rule("PRT005", "warning", "C3", "Server downlinks per leaf within the downlink budget")
def downlink_budget(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each leaf whose server downlink count is outside its fabric's budget."""
    down = _server_downlinks(fabric)
    for leaf in devices(fabric, "leaf"):
        spec = fabric_spec(intent, leaf.network)
        budget = spec.leaves.downlink_budget if spec else None
        if budget is None:
            continue
        count = len(down[leaf.name])
        if not budget.min <= count <= budget.max:
            yield (
                leaf.name,
                (
                    f"{count} server downlinks, outside fabrics.{leaf.network}.leaves.downlink_budget "
                    f"{budget.min}-{budget.max}"
                ),
            )


def bandwidth(speeds: list[str | None]) -> tuple[str, int]:
    """A list of port speeds as text (``9 x 100G``) and total Gbit/s; unknown speeds count 0.

    Examples:
        >>> bandwidth(["100g"] * 9)
        ('9 x 100G', 900)
        >>> bandwidth(["400g", "100g", None])
        ('1 x 400G + 1 x 100G + 1 x unknown', 500)
    """
    counts = Counter(speed or "unknown" for speed in speeds)
    order = sorted(counts, key=lambda s: -gbps(s) if s != "unknown" else 1)
    text = " + ".join(f"{counts[s]} x {s.upper() if s != 'unknown' else s}" for s in order)
    return text, sum(gbps(s) * n for s, n in counts.items() if s != "unknown")


@rule("PRT006", "info", "C3", "Leaf oversubscription ratio")
def oversubscription(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield one line per leaf: server bandwidth down against spine bandwidth up."""
    del intent
    down = _server_downlinks(fabric)
    up: dict[str, list[str | None]] = defaultdict(list)
    for link in links_of(fabric, ["fabric"]):
        for end, speed in ((link.a, link.a_speed), (link.b, link.b_speed)):
            device = fabric.devices.get(end.device)
            if device is not None and device.role == "leaf":
                up[end.device].append(speed)
    for leaf in devices(fabric, "leaf"):
        down_text, down_gbps = bandwidth([link.a_speed for link in down[leaf.name]])
        up_text, up_gbps = bandwidth(up[leaf.name])
        ratio = f"{down_gbps / up_gbps:.2f}:1" if up_gbps else "no uplink bandwidth"
        yield leaf.name, f"{down_text or 'no servers'} down, {up_text or 'nothing'} up: {ratio}"
