"""Lossless RoCEv2 rules: classification, PFC, ECN and the PFC watchdog (C4, N4).

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
QOS001    error     C4/N4        RoCE DSCPs 26/27 map to the PFC no-drop traffic class;
                                 the CNP class is not the no-drop one; ECN marks exactly
                                 the no-drop queue; every server, uplink and peer-link
                                 port of a RoCE fabric trusts DSCP and carries the
                                 service-profile
QOS002    warning   C4/N4        the PFC watchdog polls at least twice per timeout and
                                 per recovery time (EOS: polling-interval <=
                                 min(timeout, recovery-time) / 2)
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from compiler.checks.base import rule
from compiler.checks.rules._common import devices, fabric_spec, interfaces, join, links_of
from compiler.fabric import Device, ResolvedFabric
from compiler.intent import Intent, QosProfile
from compiler.structured import QosConfig

ROCE_DSCPS = (26, 27)
"""C4: RoCEv2 data is marked DSCP 26/27 and must land in the no-drop class."""

ROCE_PORT_KINDS = ("server", "fabric", "peer-link")


def dscp_to_tc(qos: QosConfig) -> dict[int, int]:
    """The resolved DSCP -> traffic-class map of a device.

    Example:
        >>> from compiler.structured import QosMap
        >>> dscp_to_tc(QosConfig([QosMap("26 27", 3), QosMap("48", 6)], [], None, None))
        {26: 3, 27: 3, 48: 6}
    """
    return {int(d): m.traffic_class for m in qos.dscp_maps for d in m.dscps.split()}


def _profile(intent: Intent, device: Device) -> QosProfile | None:
    spec = fabric_spec(intent, device.network)
    if spec is None or spec.qos is None:
        return None
    return intent.fabric.qos_profiles.get(spec.qos)


def _classes(qos: QosConfig, profile: QosProfile) -> Iterator[str]:
    pfc = qos.profile.pfc_priority
    if pfc != profile.pfc_priority:
        yield f"PFC no-drop priority {pfc}, the profile says {profile.pfc_priority}"
    tcs = dscp_to_tc(qos)
    for dscp in ROCE_DSCPS:
        if tcs.get(dscp) != pfc:
            yield f"RoCE DSCP {dscp} maps to TC {tcs.get(dscp)}, not the no-drop TC {pfc}"
    cnp_tc = tcs.get(profile.cnp.dscp)
    if cnp_tc is None:
        yield f"CNP DSCP {profile.cnp.dscp} is not classified (profile: TC {profile.cnp.tc})"
    elif cnp_tc == pfc:
        yield f"CNP DSCP {profile.cnp.dscp} shares the no-drop TC {pfc}: CNPs must not pause"
    queue = dict(qos.tc_to_queue).get(pfc, pfc)
    marked = sorted(q.id for q in qos.profile.queues if q.ecn)
    if marked != [queue]:
        yield f"ECN marks queue(s) {marked or 'none'}, but no-drop TC {pfc} uses queue {queue}"


def _roce_ports(fabric: ResolvedFabric) -> dict[tuple[str, str], list[str]]:
    """The cabled RoCE-carrying ports of every switch, by (network, device), in link order.

    Built once per run: scanning every link for every switch was quadratic in the fabric size.
    """
    ports: dict[tuple[str, str], list[str]] = defaultdict(list)
    for link in links_of(fabric, ROCE_PORT_KINDS):
        for end in (link.a, link.b):
            ports[link.network, end.device].append(end.port)
    return ports


def _unmarked_ports(device: Device, cabled: list[str]) -> Iterator[str]:
    """RoCE-carrying ports of ``device`` (``cabled``) without trust dscp or without a service-profile."""
    ifaces = interfaces(device)
    missing: dict[str, list[str]] = defaultdict(list)
    for port in cabled:
        iface = ifaces.get(port)
        if iface is None:
            continue
        if not iface.qos_trust_dscp:
            missing["qos trust dscp"].append(iface.name)
        if iface.service_profile is None:
            missing["service-profile"].append(iface.name)
    for what, ports in sorted(missing.items()):
        yield f"no {what} on {len(ports)} RoCE port(s): {join(ports, 4)}"


@rule("QOS001", "error", "C4/N4", "RoCE lossless QoS consistent on every fabric port")
def roce_qos(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each RoCE-fabric switch whose QoS would drop, mis-pause or miss RoCE traffic."""
    roce_ports = _roce_ports(fabric)
    for device in devices(fabric, "leaf") + devices(fabric, "spine") + devices(fabric, "super-spine"):
        profile = _profile(intent, device)
        if profile is None:
            continue
        qos = device.config.qos
        if qos is None:
            yield device.name, "the fabric has a RoCE QoS profile but the switch has no qos config"
            continue
        for message in _classes(qos, profile):
            yield device.name, message
        for message in _unmarked_ports(device, roce_ports.get((device.network, device.name), [])):
            yield device.name, message


@rule("QOS002", "warning", "C4/N4", "PFC watchdog polls often enough")
def watchdog_timing(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each switch whose PFC watchdog polling interval exceeds half its shortest timer."""
    del intent
    for name, device in sorted(fabric.devices.items()):
        qos = device.config.qos
        if qos is None:
            continue
        wd = qos.watchdog
        polling, timeout, recovery = (float(v) for v in (wd.polling_interval, wd.timeout, wd.recovery_time))
        limit = min(timeout, recovery) / 2
        if polling > limit:
            yield (
                name,
                (
                    f"pfc watchdog polling-interval {wd.polling_interval} exceeds "
                    f"min(timeout {wd.timeout}, recovery-time {wd.recovery_time}) / 2 = {limit:g}"
                ),
            )
