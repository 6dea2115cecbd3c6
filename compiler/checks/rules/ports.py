"""Port rules: every port exists on its model as broken out, no switch runs out of ports, leaf budgets.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
PRT001    error     C3           a used port exists on the switch's catalog model
BRK001    error     C3           no used port is one its switch's breakouts make inactive
                                 (a hidden lane) or absent (a gearbox partner)
PRT002    error     C3           a server's position fits its leaf pair's
                                 ``ports_per_rack``
PRT003    error     C2           the rack management switch has a port for every
                                 server and switch of the rack
PRT004    error     C3           every port set holds what it serves, per speed and form
                                 factor: a spine's downlinks a port for every leaf (of its
                                 pod), a super-spine's for every pod spine link, the core's
                                 for every rack; pod spine uplinks share out evenly
PRT007    error     C3           no port is taken twice
PRT008    error     C3           a ``ports.yaml`` speed or breakout is a mode of the cage
                                 (a speed on a one-lane port, a breakout on a cage's first
                                 interface), not on a cage of the role's port sets
PRT009    error     C3           ``ports.yaml`` shuts no peer-link member, fabric link or
                                 management link
LLD001    error     G3           ``ports.yaml`` turns LLDP off on no switch-facing port
VLN001    error     N3           a switch's internal-VLAN range holds one VLAN per routed
                                 port and none of the VLANs it carries
PRT005    warning   C3           server downlinks per leaf stay inside the fabric's
                                 ``downlink_budget`` (8-12 in the design)
PRT006    info      C3           per-leaf oversubscription: downlink vs uplink bandwidth
========  ========  ===========  =====================================================

PRT001-PRT003, BRK001 and PRT007 report what resolution could not place
(``ResolvedFabric.problems``); a port the intent names is checked against its model when the
intent loads (``compiler.intent``), so these catch the ports the design derives.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from compiler.checks.base import device_rule, rule
from compiler.checks.rules._common import devices, fabric_spec, gbps, links_of, problems
from compiler.fabric import Device, ResolvedFabric
from compiler.facts import Cable
from compiler.facts.hardware import Layout
from compiler.facts.ports import PortSetting
from compiler.intent import Intent
from core.hardware import VlanRange, catalog, internal_vlan_problems, port_budget


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


@rule("BRK001", "error", "C3", "No used port is removed by a breakout")
def ports_in_breakout(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each used port that its switch's breakouts make inactive or absent."""
    del intent
    yield from problems(fabric, "BRK001")


@rule("PRT008", "error", "C3", "A port setting is one its switch model takes")
def port_settings_fit(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each ``ports.yaml`` speed or breakout its cage does not take, or that belongs to the role."""
    del intent
    yield from problems(fabric, "PRT008")


@rule("PRT007", "error", "C3", "No port is taken twice")
def ports_taken_once(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each second claim on a port."""
    del intent
    yield from problems(fabric, "PRT007")


def budget(layout: Layout) -> str:
    """A model's cages per form factor and speed, as a message names them.

    Example:
        >>> from core.hardware import model
        >>> from compiler.facts.hardware import layout_of
        >>> budget(layout_of(model("DCS-7060DX5-64S"), {}))
        'DCS-7060DX5-64S: 64 x QSFP-DD 400g, 2 x SFP+ 10g'
    """
    cages = ", ".join(f"{c.count} x {c.form_factor} {c.speed}" for c in port_budget(layout.model))
    return f"{layout.model.id}: {cages}"


@rule("PRT004", "error", "C3", "Every port set holds what it serves")
def port_counts(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each switch whose downlinks cannot take every switch below it (spines: one per
    leaf of the pod; super-spines: every link of every pod spine of their plane; the core: one per
    rack), and each pod spine whose uplinks do not share out evenly over its plane."""
    yield from problems(fabric, "PRT004")
    topology = fabric.facts.topology
    for net, spine_leaf in sorted(topology.fabrics.items()):
        spec = intent.fabric.fabrics[net]
        spine_layout = topology.layouts.spine[net]
        downlinks = spine_layout.sets["downlinks"]
        for pod in spine_leaf.pods:
            highest = max((pod.local_index(p.leaf_index(1)) for p in pod.pairs), default=0)
            if highest > len(downlinks):
                speed = spine_layout.speed(downlinks[0]) if downlinks else "-"
                where = f"pod {pod.id}" if spine_leaf.three_stage else f"the {net} fabric"
                fix = "a smaller pods.racks" if spine_leaf.three_stage else f"pods (fabrics.{net}.pods)"
                for spine in pod.spines:
                    yield (
                        spine,
                        (
                            f"{budget(spine_layout)} has {len(downlinks)} downlinks at {speed} but {where} "
                            f"numbers leaves up to {highest}: use {fix}, or a model with more ports"
                        ),
                    )
        if spec.pods is None or not spine_leaf.planes:
            continue
        uplinks = spine_layout.sets.get("uplinks", ())
        per_plane = spec.pods.super_spines.per_plane
        if len(uplinks) % per_plane:
            yield (
                f"fabrics.{net}.spines.uplinks",
                (
                    f"{len(uplinks)} uplinks per pod spine do not share out evenly over the {per_plane} "
                    f"super-spines of a plane: list a multiple of {per_plane}"
                ),
            )
            continue
        super_layout = topology.layouts.super_spine[net]
        need = max((p.id for p in spine_leaf.pods), default=0) * (len(uplinks) // per_plane)
        have = len(super_layout.sets["downlinks"])
        if need > have:
            for name in spine_leaf.super_spines:
                yield (
                    name,
                    (
                        f"{budget(super_layout)} has {have} downlinks but pods up to "
                        f"{max(p.id for p in spine_leaf.pods)} take {len(uplinks) // per_plane} each ({need}): "
                        "add super-spines per plane (per_plane), or a model with more ports"
                    ),
                )


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
    # The leaves share a few speed lists: each is summed once (a Counter and a sort per leaf
    # and direction were most of the rule).
    sums: dict[tuple[str | None, ...], tuple[str, int]] = {}

    def summed(speeds: list[str | None]) -> tuple[str, int]:
        key = tuple(speeds)
        found = sums.get(key)
        if found is None:
            found = sums[key] = bandwidth(speeds)
        return found

    for leaf in devices(fabric, "leaf"):
        down_text, down_gbps = summed([link.a_speed for link in down[leaf.name]])
        up_text, up_gbps = summed(up[leaf.name])
        ratio = f"{down_gbps / up_gbps:.2f}:1" if up_gbps else "no uplink bandwidth"
        yield leaf.name, f"{down_text or 'no servers'} down, {up_text or 'nothing'} up: {ratio}"


@device_rule("VLN001", "error", "N3", "The internal-VLAN range serves every routed port")
def internal_vlans(device: Device) -> Iterator[str]:
    """Yield each switch whose routed ports outnumber its internal-VLAN range, or whose range holds
    a VLAN it carries: EOS error-disables a routed port that finds no internal VLAN
    (``no-internal-vlan``). A switch without the line has EOS's own range (``core/hardware/eos.yaml``),
    from which EOS skips the VLANs configured: only its size counts there."""
    config = device.config
    routed = sum(1 for iface in config.interfaces if iface.routed)
    if config.vlan_internal_range is not None:
        first, last = (int(v) for v in config.vlan_internal_range.split())
        configured, in_use = VlanRange(first, last), [v.id for v in config.vlans]
    else:
        configured, in_use = catalog().internal_vlans, []
    yield from internal_vlan_problems(routed, configured, in_use)


SWITCH_FACING = {
    "uplink": "a fabric link (uplink) to {peer}",
    "downlink": "a fabric link (downlink) to {peer}",
    "peer-link": "a member of the MLAG peer-link to {peer}",
    "rack-uplink": "the management uplink to {peer}",
    "rack-downlink": "the management link to {peer}",
    "upstream": "the management network's upstream",
    "management": "the management port of {peer}",
}
"""The ports whose far end is the network itself, and what they are, in words."""


def _specific_ports(fabric: ResolvedFabric) -> Iterator[tuple[str, str, PortSetting, str]]:
    """Every ``ports.yaml`` entry on a switch-facing port: device, interface, entry, what the port is."""
    facts = fabric.facts
    for device, entries in sorted(facts.ports.settings.items()):
        for name, entry in sorted(entries.items()):
            used = facts.cabling.port(device, name)
            if used is not None and used.kind in SWITCH_FACING:
                yield device, name, entry, SWITCH_FACING[used.kind].format(peer=used.peer)


@rule("PRT009", "error", "C3", "No switch-facing port is shut on purpose")
def no_shut_fabric_ports(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each ``ports.yaml`` shutdown of a peer-link member, a fabric link or a management link."""
    for device, name, entry, what in _specific_ports(fabric):
        if entry.settings.shutdown is None:
            continue
        yield (
            intent.where(entry.source.child("shutdown")),
            (
                f"{device} {name} is {what}: shutting it takes a link of the design down (the far end's "
                "post-checks and health expect it up); remove the link from the design instead, or drain "
                "and replace the optic without a shutdown"
            ),
        )


@rule("LLD001", "error", "G3", "LLDP runs on every switch-facing port")
def lldp_on_fabric_ports(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each ``ports.yaml`` LLDP exception on a port whose far end is a switch: deploy's
    post-checks and drift's unmanaged-device check read the neighbours there."""
    for device, name, entry, what in _specific_ports(fabric):
        lldp = entry.settings.lldp
        if lldp is None or (lldp.transmit and lldp.receive):
            continue
        yield (
            intent.where(entry.source.child("lldp")),
            (
                f"{device} {name} is {what}: deploy's post-checks and drift compare its LLDP neighbour with "
                "the cabling plan; keep LLDP on there (exceptions are for server and unused ports)"
            ),
        )
