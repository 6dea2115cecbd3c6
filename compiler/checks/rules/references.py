"""Reference rules: every name a resolved config uses is defined in that config.

Intent loading already rejects unknown profile names; these rules guard the resolved
configs, so a resolver or template change cannot render a dangling reference.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
REF001    error     N1/C4        every service-profile on an interface is the device's
                                 QoS profile; every access or trunk VLAN is defined on
                                 the device
REF002    error     G1           ``extra_config``, ``ports.yaml`` and ``devices.yaml`` name
                                 devices that exist, ``vlans.yaml`` servers and racks
REF003    error     N3           routing references resolve: BGP peer groups, route
                                 maps, prefix lists, OSPF active interfaces
RES001    error     G1           anything resolution could not place that no other
                                 rule reports (nothing is dropped silently)
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections.abc import Iterator

from compiler.checks.base import RULES, device_rule, rule
from compiler.checks.rules._common import problems
from compiler.fabric import Device, ResolvedFabric
from compiler.intent import Intent
from compiler.platforms import eos
from compiler.sources import Source
from compiler.structured import Interface


def vlan_ids(spec: str) -> set[int]:
    """The VLAN ids of an EOS VLAN list.

    Example:
        >>> sorted(vlan_ids("100,2001-2003"))
        [100, 2001, 2002, 2003]
    """
    ids: set[int] = set()
    for part in spec.split(","):
        low, _, high = part.strip().partition("-")
        ids.update(range(int(low), int(high or low) + 1))
    return ids


def _iface_refs(iface: Interface, vlans: set[int], profiles: list[str] | None) -> Iterator[str]:
    """``profiles``: the device's QoS profile names (None: it has no qos config)."""
    if iface.service_profile is not None:
        if profiles is None:
            yield f"{iface.name}: service-profile {iface.service_profile} but no qos profile"
        elif iface.service_profile not in profiles:
            names = ", ".join(profiles) or "none"
            yield f"{iface.name}: service-profile {iface.service_profile} is not a qos profile of the device ({names})"
    used: set[int] = set()
    if iface.switchport_access_vlan is not None:
        used.add(iface.switchport_access_vlan)
    if iface.switchport_trunk_allowed_vlan:
        used |= vlan_ids(iface.switchport_trunk_allowed_vlan)
    for vlan in sorted(used - vlans):
        yield f"{iface.name}: VLAN {vlan} is not defined on the device"


@device_rule("REF001", "error", "N1/C4", "Every referenced QoS profile and VLAN exists")
def profiles_and_vlans(device: Device) -> Iterator[str]:
    """Yield each interface naming a service-profile or VLAN its device does not define."""
    config = device.config
    profiles = [p.name for p in config.qos.profiles] if config.qos is not None else None
    vlans: set[int] | None = None
    for iface in config.interfaces:
        profile = iface.service_profile
        if profile is None or (profiles is not None and profile in profiles):
            # Nothing to report unless a VLAN is missing: most ports are routed, or server
            # ports in a VLAN the device defines (one set look-up, not _iface_refs' set).
            access, trunk = iface.switchport_access_vlan, iface.switchport_trunk_allowed_vlan
            if access is None and not trunk:
                continue
            if vlans is None:
                vlans = {v.id for v in config.vlans}
            if not trunk and access in vlans:
                continue
        if vlans is None:
            vlans = {v.id for v in config.vlans}
        yield from _iface_refs(iface, vlans, profiles)


@rule("REF002", "error", "G1", "The intent names existing devices, servers and racks")
def extra_config_targets(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each ``extra_config``, ``ports.yaml`` or ``devices.yaml`` key that names no device, and
    each ``vlans.yaml`` member naming no server or rack."""
    yield from problems(fabric, "REF002")
    for name in sorted(intent.devices):
        if name not in fabric.devices:
            where = intent.where(Source("devices.yaml", ("devices", name)))
            yield (
                where,
                f"devices.yaml names no switch of the design {name!r}: check the name (fabricops view lists them)",
            )
    servers = {s.name for s in intent.servers}
    for key, vlan in intent.vlans.items():
        for mode in ("access", "tagged"):
            for index, member in enumerate(getattr(vlan, mode)):
                element = Source("vlans.yaml", ("vlans", key, mode, index))
                if member.server is not None and member.server not in servers:
                    yield intent.where(element), f"no server {member.server!r} in servers.csv"
                elif member.rack is not None and member.rack not in intent.racks:
                    yield intent.where(element), f"no rack {member.rack} in racks.yaml"


@device_rule("REF003", "error", "N3", "Every routing reference resolves")
def routing_references(device: Device) -> Iterator[str]:
    """Yield each peer group, route map, prefix list or OSPF interface used but not defined."""
    config = device.config
    route_maps = {entry.name for entry in config.route_maps}
    prefix_lists = {p.name for p in config.prefix_lists}
    bgp = config.router_bgp
    if bgp is not None:
        groups = {g.name for g in bgp.peer_groups}
        for neighbor in bgp.neighbors:
            if neighbor.peer_group not in groups:
                yield (f"neighbor {neighbor.address}: peer group {neighbor.peer_group} is not defined")
        wanted = [g.route_map_in for g in bgp.peer_groups if g.route_map_in]
        wanted.append(bgp.redistribute_connected_route_map)
        for name in sorted(set(wanted) - route_maps):
            yield f"route-map {name} is used by router bgp but not defined"
    for entry in config.route_maps:
        for match in entry.match:
            matched = eos.matched_prefix_list(match)
            if matched is not None and matched not in prefix_lists:
                yield f"route-map {entry.name} {entry.seq}: prefix-list {matched} is not defined"
    ospf = config.router_ospf
    if ospf is not None:
        for name in sorted(set(ospf.active_interfaces) - {iface.name for iface in config.interfaces}):
            yield f"router ospf activates {name}, which is not configured"


@rule("RES001", "error", "G1", "Every resolution problem is reported")
def unclaimed_problems(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each resolution problem whose rule id no registered rule reports."""
    del intent
    for problem in fabric.problems:
        if problem.rule not in RULES:
            yield problem.subject, f"[{problem.rule}] {problem.message}"
