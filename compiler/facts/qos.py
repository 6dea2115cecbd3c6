"""The RoCEv2 QoS of each fabric, decided once: DSCP classes, traffic-class queues, PFC, ECN.

DSCPs that map to one traffic class are grouped (ordered by their lowest DSCP); each traffic
class in use goes to its queue in ``tc_to_queue`` (by default the queue of its number); the
queues are those with a bandwidth share or strict priority, the ECN queue marking with the
profile's thresholds.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> qos = build_qos(load_intent(Path("intent")))
    >>> roce = qos.fabrics["compute"]
    >>> roce.dscp_classes, roce.tc_to_queue
    ((((26, 27), 3), ((48,), 6)), ((3, 3), (6, 6)))
    >>> [(q.id, q.bandwidth_percent, q.strict, q.ecn is not None) for q in roce.queues][3:]
    [(3, 80, False, True), (4, 3, False, False), (5, 3, False, False), (6, None, True, False)]
    >>> "storage" in qos.fabrics
    False
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import NamedTuple

from compiler.facts.common import Network
from compiler.intent import Ecn, Intent, QosProfile, Watchdog


class Queue(NamedTuple):
    """One egress queue: a bandwidth share or strict priority; the lossless one marks ECN."""

    id: int
    bandwidth_percent: int | None
    strict: bool
    ecn: Ecn | None


class RoceQos(NamedTuple):
    """The lossless contract of one fabric, as every switch and port of it applies it."""

    profile: str
    """The intent's QoS profile name."""
    dscp_classes: tuple[tuple[tuple[int, ...], int], ...]
    """(DSCPs, traffic class), by lowest DSCP."""
    tc_to_queue: tuple[tuple[int, int], ...]
    pfc_priority: int
    ecn_queue: int
    queues: tuple[Queue, ...]
    watchdog: Watchdog


class Qos(NamedTuple):
    """The RoCE QoS of each fabric that has a profile."""

    fabrics: Mapping[Network, RoceQos]


def build_qos(intent: Intent) -> Qos:
    """Decide the QoS of every fabric with a ``qos`` profile."""
    fabrics: dict[Network, RoceQos] = {}
    for net, spec in sorted(intent.fabric.fabrics.items()):
        if spec.qos is not None and spec.qos in intent.fabric.qos_profiles:
            fabrics[net] = roce_qos(spec.qos, intent.fabric.qos_profiles[spec.qos])
    return Qos(fabrics)


def roce_qos(name: str, profile: QosProfile) -> RoceQos:
    """The QoS facts of one profile."""
    by_tc: dict[int, list[int]] = defaultdict(list)
    for dscp, tc in sorted(profile.dscp_to_tc.items()):
        by_tc[tc].append(dscp)
    classes = tuple((tuple(dscps), tc) for tc, dscps in sorted(by_tc.items(), key=lambda item: min(item[1])))
    queues = tuple(
        Queue(
            q,
            None if q in profile.strict_queues else profile.queue_bandwidth[q],
            q in profile.strict_queues,
            profile.ecn if q == profile.ecn.queue else None,
        )
        for q in sorted(set(profile.queue_bandwidth) | set(profile.strict_queues))
    )
    return RoceQos(
        name,
        classes,
        tuple(sorted((tc, profile.tc_to_queue.get(tc, tc)) for tc in by_tc)),
        profile.pfc_priority,
        profile.ecn.queue,
        queues,
        profile.watchdog,
    )
