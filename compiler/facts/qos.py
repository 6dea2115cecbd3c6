"""The RoCEv2 QoS of each fabric, decided once: DSCP classes, traffic-class queues, PFC, ECN.

Every DSCP is classified explicitly: those of ``dscp_to_tc`` to their class, every other one to
``default_tc``, so no platform default puts a stray marking in the lossless or the CNP class.
DSCPs that map to one traffic class are grouped (ordered by their lowest DSCP); each traffic
class in use goes to its queue in ``tc_to_queue`` (by default the queue of its number); the
queues are those with a bandwidth share or strict priority. The lossless queue marks ECN with
the band of the port's speed (``ecn.thresholds``); hosts send RoCE with the ECN-capable ToS.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> qos = build_qos(load_intent(Path("intent")))
    >>> roce = qos.fabrics["compute"]
    >>> [(len(dscps), dscps[:3], tc) for dscps, tc in roce.dscp_classes]
    [(61, (0, 1, 2), 1), (2, (26, 27), 3), (1, (48,), 6)]
    >>> roce.tc_to_queue
    ((1, 1), (3, 3), (6, 6))
    >>> [(q.id, q.bandwidth_percent, q.strict, q.ecn) for q in roce.queues][3:]
    [(3, 80, False, True), (4, 3, False, False), (5, 3, False, False), (6, None, True, False)]
    >>> roce.ecn_band("100g")[:2], roce.ecn_band("400g")[:2], roce.host_tos
    ((256, 512), (1024, 2048), 106)
    >>> "storage" in qos.fabrics
    False
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections import defaultdict
from collections.abc import Mapping
from typing import NamedTuple

from compiler.facts.common import Network
from compiler.intent import SPEEDS_GBPS, Intent, QosProfile, Watchdog

DSCP_VALUES = range(64)
ECN_CODEPOINTS = {"not-ect": 0b00, "ect1": 0b01, "ect0": 0b10}
"""The two ECN bits of the IP ToS byte (RFC 3168)."""


class Queue(NamedTuple):
    """One egress queue: a bandwidth share or strict priority; the lossless one marks ECN."""

    id: int
    bandwidth_percent: int | None
    strict: bool
    ecn: bool


class EcnBand(NamedTuple):
    """The WRED-ECN marking of the lossless queue on ports of one speed."""

    min_kbytes: int
    max_kbytes: int
    max_mark_probability: int
    weight: int


class RoceQos(NamedTuple):
    """The lossless contract of one fabric, as every switch and port of it applies it."""

    profile: str
    """The intent's QoS profile name."""
    dscp_classes: tuple[tuple[tuple[int, ...], int], ...]
    """(DSCPs, traffic class) for all 64 DSCPs, by lowest DSCP."""
    tc_to_queue: tuple[tuple[int, int], ...]
    pfc_priority: int
    ecn_queue: int
    queues: tuple[Queue, ...]
    watchdog: Watchdog
    ecn_bands: tuple[tuple[str, EcnBand], ...]
    """The marking band of each port speed the profile names, by speed keyword."""
    host_tos: int
    """The IP ToS byte hosts send RoCE data with: the RoCE DSCP and the ECN codepoint."""

    def ecn_band(self, speed: str) -> EcnBand | None:
        """The marking band of ports of ``speed``, or None when the profile has none."""
        return dict(self.ecn_bands).get(speed)


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


def dscp_classes(profile: QosProfile) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every DSCP with its traffic class, grouped by class and ordered by the lowest DSCP.

    Example:
        >>> from compiler.intent import Cnp, Ecn
        >>> profile = QosProfile(dscp_to_tc={26: 3, 48: 6}, pfc_priority=3, cnp=Cnp(dscp=48, tc=6),
        ...                      ecn=Ecn(queue=3), queue_bandwidth={})
        >>> [(dscps[:2], len(dscps), tc) for dscps, tc in dscp_classes(profile)]
        [((0, 1), 62, 1), ((26,), 1, 3), ((48,), 1, 6)]
    """
    by_tc: dict[int, list[int]] = defaultdict(list)
    for dscp in DSCP_VALUES:
        by_tc[profile.dscp_to_tc.get(dscp, profile.default_tc)].append(dscp)
    return tuple((tuple(dscps), tc) for tc, dscps in sorted(by_tc.items(), key=lambda item: min(item[1])))


def roce_data_dscp(profile: QosProfile) -> int:
    """The DSCP hosts mark RoCE data with: the lowest one of the lossless class.

    Example:
        >>> from compiler.intent import Cnp, Ecn
        >>> roce_data_dscp(QosProfile(dscp_to_tc={27: 3, 26: 3, 48: 6}, pfc_priority=3,
        ...                           cnp=Cnp(dscp=48, tc=6), ecn=Ecn(queue=3), queue_bandwidth={}))
        26
    """
    return min(d for d, tc in profile.dscp_to_tc.items() if tc == profile.pfc_priority)


def tos_byte(dscp: int, codepoint: str) -> int:
    """The IP ToS byte of a DSCP and an ECN codepoint (``cma_roce_tos -t``).

    Example:
        >>> tos_byte(26, "ect0"), tos_byte(26, "not-ect")
        (106, 104)
    """
    return dscp << 2 | ECN_CODEPOINTS[codepoint]


def roce_qos(name: str, profile: QosProfile) -> RoceQos:
    """The QoS facts of one profile."""
    classes = dscp_classes(profile)
    queues = tuple(
        Queue(
            q,
            None if q in profile.strict_queues else profile.queue_bandwidth[q],
            q in profile.strict_queues,
            q == profile.ecn.queue,
        )
        for q in sorted(set(profile.queue_bandwidth) | set(profile.strict_queues))
    )
    ecn = profile.ecn
    bands = tuple(
        (speed, EcnBand(band.min_kbytes, band.max_kbytes, ecn.max_mark_probability, ecn.weight))
        for speed, band in sorted(ecn.thresholds.items(), key=lambda item: SPEEDS_GBPS[item[0]])
    )
    return RoceQos(
        name,
        classes,
        tuple(sorted((tc, profile.tc_to_queue.get(tc, tc)) for _, tc in classes)),
        profile.pfc_priority,
        ecn.queue,
        queues,
        profile.watchdog,
        bands,
        tos_byte(roce_data_dscp(profile), ecn.host_codepoint),
    )
