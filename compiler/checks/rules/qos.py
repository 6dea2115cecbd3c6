"""Lossless RoCEv2 rules: classification, PFC, ECN, the PFC watchdog, host marking (C4, N4).

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
QOS001    error     C4/N4        RoCE DSCPs 26/27 map to the PFC no-drop traffic class;
                                 the CNP class is not the no-drop one; ECN marks exactly
                                 the no-drop queue in every profile; every class in use
                                 has a scheduled queue; every server, uplink and peer-link
                                 port of a RoCE fabric trusts DSCP and carries a profile
QOS002    warning   C4/N4        the PFC watchdog polls at least twice per timeout and
                                 per recovery time (EOS: polling-interval <=
                                 min(timeout, recovery-time) / 2)
QOS003    error     C4/N4        only the RoCE DSCPs reach the no-drop class and only
                                 the CNP DSCP the CNP class, counting EOS's default map
                                 for every DSCP no ``qos map dscp`` names
QOS004    warning   C4/N4        the ECN band grows with port speed: kilobytes per
                                 Gbit/s within a factor 2 across the speeds in use
QOS005    error     C4/N4        hosts send RoCE ECN-capable (ToS 106 for DSCP 26, not
                                 104): a switch marks CE only on ECT packets
QOS006    error     C4/N4        the PFC watchdog runs on every lossless port (its
                                 profile enables it), not only as global timers
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from functools import partial

from compiler.artifacts.units import digest_of
from compiler.checks.base import Part, device_rule, rule
from compiler.checks.rules._common import design_spec, devices, fabric_spec, gbps, interfaces, join, links_of, memo
from compiler.fabric import Device, ResolvedFabric
from compiler.facts.qos import ECN_CODEPOINTS
from compiler.intent import ROCE_DSCPS, Intent, QosProfile
from compiler.platforms import eos
from compiler.structured import QosConfig

ROCE_PORT_KINDS = ("server", "fabric", "peer-link")


def dscp_to_tc(qos: QosConfig) -> dict[int, int]:
    """The DSCP -> traffic-class map a device's ``qos map dscp`` lines configure.

    Example:
        >>> from compiler.structured import QosMap
        >>> dscp_to_tc(QosConfig([QosMap("26 27", 3), QosMap("48", 6)], [], None, ()))
        {26: 3, 27: 3, 48: 6}
    """
    return {int(d): m.traffic_class for m in qos.dscp_maps for d in m.dscps.split()}


def effective_dscp_to_tc(qos: QosConfig) -> dict[int, int]:
    """The class every DSCP lands in on the device: its maps, else EOS's default map.

    Example:
        >>> from compiler.structured import QosMap
        >>> tcs = effective_dscp_to_tc(QosConfig([QosMap("26", 3)], [], None, ()))
        >>> tcs[26], tcs[24], tcs[0], tcs[8]
        (3, 3, 1, 0)
    """
    configured = dscp_to_tc(qos)
    return {d: configured.get(d, eos.default_traffic_class(d)) for d in range(64)}


def dscp_ranges(dscps: list[int]) -> str:
    """DSCPs as short ranges.

    Example:
        >>> dscp_ranges([24, 25, 28, 29, 30, 31])
        '24-25, 28-31'
    """
    spans: list[list[int]] = []
    for d in sorted(dscps):
        if spans and spans[-1][1] == d - 1:
            spans[-1][1] = d
        else:
            spans.append([d, d])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def _profile(intent: Intent, device: Device) -> QosProfile | None:
    spec = fabric_spec(intent, device.network)
    if spec is None or spec.qos is None:
        return None
    return intent.fabric.qos_profiles.get(spec.qos)


ROCE_ROLES = ("leaf", "spine", "super-spine")
"""The roles whose switches carry RoCE on a fabric with a QoS profile (:func:`_roce_devices`)."""


def _design_profile(device: Device) -> QosProfile | None:
    """:func:`_profile` from the switch's own design (``device.facts.design``, the intent's), for
    a switch of :data:`ROCE_ROLES`: what :func:`_roce_devices` pairs it with, for a switch rule."""
    if device.role not in ROCE_ROLES:
        return None
    design = device.facts.design
    spec = design_spec(design, device.network)
    if spec is None or spec.qos is None:
        return None
    return design.qos_profiles.get(spec.qos)


def _roce_devices(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[Device, QosProfile]]:
    """The switches of :data:`ROCE_ROLES` on a fabric with a QoS profile, with it (leaves, then
    spines, then super-spines, each by name; their configs not read)."""
    for device in devices(fabric, "leaf") + devices(fabric, "spine") + devices(fabric, "super-spine"):
        profile = _profile(intent, device)
        if profile is not None:
            yield device, profile


def _classes(qos: QosConfig, profile: QosProfile) -> Iterator[str]:
    pfc = profile.pfc_priority
    for p in qos.profiles:
        if p.pfc_priority != pfc:
            yield f"{p.name}: PFC no-drop priority {p.pfc_priority}, the profile says {pfc}"
    tcs = dscp_to_tc(qos)
    for dscp in ROCE_DSCPS:
        if tcs.get(dscp) != pfc:
            yield f"RoCE DSCP {dscp} maps to TC {tcs.get(dscp)}, not the no-drop TC {pfc}"
    cnp_tc = tcs.get(profile.cnp.dscp)
    if cnp_tc is None:
        yield f"CNP DSCP {profile.cnp.dscp} is not classified (profile: TC {profile.cnp.tc})"
    elif cnp_tc == pfc:
        yield f"CNP DSCP {profile.cnp.dscp} shares the no-drop TC {pfc}: CNPs must not pause"
    to_queue = dict(qos.tc_to_queue)
    queue = to_queue.get(pfc, pfc)
    for p in qos.profiles:
        marked = sorted(q.id for q in p.queues if q.ecn)
        if marked != [queue]:
            yield f"{p.name}: ECN marks queue(s) {marked or 'none'}, but no-drop TC {pfc} uses queue {queue}"
        scheduled = {q.id for q in p.queues}
        unscheduled = sorted({to_queue.get(tc, tc) for tc in set(tcs.values())} - scheduled)
        if unscheduled:
            yield (
                f"{p.name}: queue(s) {unscheduled} carry traffic but have no bandwidth share or strict "
                "priority (EOS schedules them strict by default and they could starve RoCE)"
            )


def _roce_ports(fabric: ResolvedFabric, switches: set[str]) -> dict[tuple[str, str], list[str]]:
    """The cabled RoCE-carrying ports of ``switches``, by (network, device), in link order.

    A port its model lacks is left out: PRT001 and LNK001 name it. Built once per run: scanning
    every link for every switch was quadratic in the fabric size.
    """
    used = fabric.facts.cabling.ports
    ports: dict[tuple[str, str], list[str]] = defaultdict(list)
    for link in links_of(fabric, ROCE_PORT_KINDS):
        for end in (link.a, link.b):
            if end.device in switches:
                own = used.get(end.device)
                port = own.get(end.port) if own is not None else None
                if port is not None and port.speed is not None:
                    ports[link.network, end.device].append(end.port)
    return ports


def _unmarked_ports(fabric: ResolvedFabric, device: Device, cabled: list[str]) -> Iterator[str]:
    """RoCE-carrying ports of ``device`` (``cabled``) without trust dscp or without a service-profile
    (a port shut on purpose carries nothing)."""
    ifaces = interfaces(fabric, device)
    missing: dict[str, list[str]] = defaultdict(list)
    for port in cabled:
        iface = ifaces.get(port)
        if iface is None or iface.shutdown:
            continue
        if not iface.qos_trust_dscp:
            missing["qos trust dscp"].append(iface.name)
        if iface.service_profile is None:
            missing["service-profile"].append(iface.name)
    for what, ports in sorted(missing.items()):
        yield f"no {what} on {len(ports)} RoCE port(s): {join(ports, 4)}"


def roce_key(intent: Intent, fabric: ResolvedFabric, digests: Mapping[str, str]) -> Iterator[Part]:
    """QOS001 in parts, one per RoCE-fabric switch (leaves, then spines, then super-spines, each
    by name), each made of: its QoS profile, its name and facts digest (its QoS config and
    interfaces are its config's) and its cabled RoCE-carrying ports, in link order. A server row
    changes the part of the leaf it is cabled to."""
    roce = list(_roce_devices(intent, fabric))
    roce_ports = _roce_ports(fabric, {device.name for device, _ in roce})
    shapes = _shapes()
    classes: dict[object, list[str]] = {}
    for device, profile in roce:
        ports = roce_ports.get((device.network, device.name), [])
        inputs = (shapes(profile), device.name, digests[device.name], tuple(ports))
        yield inputs, partial(_roce_switch, fabric, classes, device, profile, ports)


def _shapes() -> Callable[[QosProfile], str]:
    """:func:`digest_of` a QoS profile, taken once per profile."""
    taken: dict[int, tuple[QosProfile, str]] = {}

    def shape(profile: QosProfile) -> str:
        found = taken.get(id(profile))
        if found is None:
            found = taken[id(profile)] = (profile, digest_of(profile))  # held: its id stays its own
        return found[1]

    return shape


def _roce_switch(
    fabric: ResolvedFabric,
    classes: dict[object, list[str]],
    device: Device,
    profile: QosProfile,
    ports: list[str],
) -> Iterator[tuple[str, str]]:
    """QOS001 over one switch (``classes``: the verdicts on the QoS configs met, shared)."""
    qos = device.config.qos
    if qos is None:
        yield device.name, "the fabric has a RoCE QoS profile but the switch has no qos config"
        return
    for message in memo(classes, (qos, id(profile)), lambda: _classes(qos, profile)):
        yield device.name, message
    for message in _unmarked_ports(fabric, device, ports):
        yield device.name, message


@rule("QOS001", "error", "C4/N4", "RoCE lossless QoS consistent on every fabric port", key=roce_key)
def roce_qos(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each RoCE-fabric switch whose QoS would drop, mis-pause or miss RoCE traffic."""
    roce = list(_roce_devices(intent, fabric))
    roce_ports = _roce_ports(fabric, {device.name for device, _ in roce})
    classes: dict[object, list[str]] = {}
    for device, profile in roce:
        yield from _roce_switch(fabric, classes, device, profile, roce_ports.get((device.network, device.name), []))


@device_rule("QOS002", "warning", "C4/N4", "PFC watchdog polls often enough")
def watchdog_timing(device: Device) -> Iterator[str]:
    """Yield each switch whose PFC watchdog polling interval exceeds half its shortest timer."""
    qos = device.config.qos
    if qos is None:
        return
    wd = qos.watchdog
    polling, timeout, recovery = (float(v) for v in (wd.polling_interval, wd.timeout, wd.recovery_time))
    limit = min(timeout, recovery) / 2
    if polling > limit:
        yield (
            f"pfc watchdog polling-interval {wd.polling_interval} exceeds "
            f"min(timeout {wd.timeout}, recovery-time {wd.recovery_time}) / 2 = {limit:g}"
        )


def strays_key(intent: Intent, fabric: ResolvedFabric, digests: Mapping[str, str]) -> Iterator[Part]:
    """QOS003 in parts, one per RoCE-fabric switch (as QOS001's), each made of: its QoS profile,
    its name and facts digest (its DSCP maps are its config's)."""
    shapes = _shapes()
    strays: dict[object, list[str]] = {}
    for device, profile in _roce_devices(intent, fabric):
        inputs = (shapes(profile), device.name, digests[device.name])
        yield inputs, partial(_stray_switch, strays, device, profile)


@rule("QOS003", "error", "C4/N4", "Only RoCE and CNP markings reach the no-drop and CNP classes", key=strays_key)
def stray_dscps(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each switch where another DSCP shares the no-drop or the CNP class (maps and EOS defaults)."""
    strays: dict[object, list[str]] = {}
    for device, profile in _roce_devices(intent, fabric):
        yield from _stray_switch(strays, device, profile)


def _stray_switch(strays: dict[object, list[str]], device: Device, profile: QosProfile) -> Iterator[tuple[str, str]]:
    """QOS003 over one switch (``strays``: the verdicts on the DSCP maps met, shared)."""
    qos = device.config.qos
    if qos is None:
        return
    for message in memo(strays, (qos.dscp_maps, id(profile)), lambda: _strays(qos, profile)):
        yield device.name, message


def _strays(qos: QosConfig, profile: QosProfile) -> Iterator[str]:
    roce = {d for d, tc in profile.dscp_to_tc.items() if tc == profile.pfc_priority}
    effective = effective_dscp_to_tc(qos)
    configured = dscp_to_tc(qos)
    for tc, allowed, what in (
        (profile.pfc_priority, roce, "the no-drop"),
        (profile.cnp.tc, {profile.cnp.dscp}, "the CNP"),
    ):
        stray = sorted(d for d, t in effective.items() if t == tc and d not in allowed)
        if not stray:
            continue
        by_default = [d for d in stray if d not in configured]
        how = " (by EOS's default DSCP map: map every DSCP explicitly, default_tc)" if by_default else ""
        yield f"DSCP {dscp_ranges(stray)} land in {what} class TC {tc}{how}"


def speeds_read(device: Device) -> object:
    """All QOS004 reads of a switch: none off a RoCE fabric (:func:`_design_profile`), else its
    fabric's QoS profile name and the speed of each of its QoS profiles."""
    if _design_profile(device) is None:
        return None
    qos = device.config.qos
    return _profile_name_of(device), tuple(p.speed for p in qos.profiles) if qos is not None else ()


def _profile_name_of(device: Device) -> str:
    """:func:`_profile_name` from the switch's own design (``device.facts.design``, the intent's)."""
    spec = design_spec(device.facts.design, device.network)
    return spec.qos if spec is not None and spec.qos is not None else ""


def ecn_profiles(intent: Intent, fabric: ResolvedFabric) -> object:
    """All QOS004 reads beside its switches: the intent's QoS profiles."""
    del fabric
    return digest_of(intent.fabric.qos_profiles)


@rule("QOS004", "warning", "C4/N4", "ECN thresholds scale with port speed", reads=speeds_read, shared=ecn_profiles)
def ecn_scaling(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each QoS profile whose ECN band does not grow with the speeds of the ports it serves."""
    used: dict[str, set[str]] = defaultdict(set)
    for device, _ in _roce_devices(intent, fabric):
        qos = device.config.qos
        for p in qos.profiles if qos is not None else ():
            used[_profile_name(intent, device)].add(p.speed)
    for name, speeds in sorted(used.items()):
        thresholds = intent.fabric.qos_profiles[name].ecn.thresholds
        per_gbps = {s: thresholds[s].min_kbytes / gbps(s) for s in speeds if s in thresholds}
        if len(per_gbps) < 2:
            continue
        low, high = min(per_gbps, key=per_gbps.__getitem__), max(per_gbps, key=per_gbps.__getitem__)
        if per_gbps[high] > 2 * per_gbps[low]:
            bands = ", ".join(f"{s} from {thresholds[s].min_kbytes} KB" for s in sorted(per_gbps, key=gbps))
            yield (
                f"qos_profiles.{name}.ecn.thresholds",
                f"the ECN band per Gbit/s differs {per_gbps[high] / per_gbps[low]:g}x across port speeds "
                f"({bands}): scale min/max_kbytes with speed, so every port marks at the same queueing delay",
            )


def _profile_name(intent: Intent, device: Device) -> str:
    spec = fabric_spec(intent, device.network)
    return spec.qos if spec is not None and spec.qos is not None else ""


@rule("QOS005", "error", "C4/N4", "Hosts send RoCE ECN-capable")
def host_marking(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each RoCE QoS profile whose hosts would send RoCE data as not-ECT."""
    for net, roce in sorted(fabric.facts.qos.fabrics.items()):
        if roce.host_tos & 0b11 == ECN_CODEPOINTS["not-ect"]:
            yield (
                f"qos_profiles.{roce.profile}.ecn.host_codepoint",
                f"hosts of the {net} fabric send RoCE with ToS {roce.host_tos} (not ECN-capable): switches "
                f"never mark it CE, so DCQCN never slows a sender and PFC does all the work; use ect0 "
                f"(ToS {roce.host_tos | ECN_CODEPOINTS['ect0']})",
            )


@device_rule("QOS006", "error", "C4/N4", "PFC watchdog on every lossless port")
def watchdog_on_ports(device: Device) -> Iterator[str]:
    """Yield each switch with lossless ports whose profile does not run the PFC watchdog."""
    qos = device.config.qos if _design_profile(device) is not None else None
    if qos is None:
        return
    off = {p.name for p in qos.profiles if not p.pfc_watchdog}
    ports = [i.name for i in device.config.interfaces if i.service_profile in off]
    if ports:
        yield (
            f"no PFC watchdog on {len(ports)} lossless port(s) ({join(ports, 4)}): the global timers "
            "alone stop no pause storm (qos_profiles.<name>.watchdog.enabled)"
        )
