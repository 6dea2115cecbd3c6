"""The QoS sections of a fabric switch: DSCP and traffic-class maps, the PFC watchdog, and the
queue profiles its RoCE-facing ports apply, one per port speed.

A profile is named after the role's service profile and the speed (``ROCE-LEAF-100G``): the
lossless queue's ECN band scales with the port speed, and EOS applies queue settings per
profile. Every profile enables the PFC watchdog, so every lossless port runs it.

Example:
    >>> from pathlib import Path
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> facts = build_facts(load_intent(Path("intent"))).device("rack01-leaf-a")
    >>> config = qos(facts)
    >>> [(p.name, p.queue_keyword, p.pfc_watchdog) for p in config.profiles]
    [('ROCE-LEAF-100G', 'uc-tx-queue', True), ('ROCE-LEAF-400G', 'uc-tx-queue', True)]
    >>> config.dscp_maps[1:]
    (QosMap(dscps='26 27', traffic_class=3), QosMap(dscps='48', traffic_class=6))
    >>> port_qos(facts, "400g")
    {'qos_trust_dscp': True, 'service_profile': 'ROCE-LEAF-400G', 'ecn_count_queue': 'uc-tx-queue 3'}
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from compiler.facts import DeviceFacts
from compiler.facts.qos import RoceQos
from compiler.intent import SPEEDS_GBPS
from compiler.memo import per_object
from compiler.platforms import eos
from compiler.structured.model import PfcWatchdog, QosConfig, QosMap, QosProfileConfig, QosQueue

ROCE_PORT_KINDS = ("uplink", "downlink", "peer-link", "server")
"""The ports that carry RoCE: every fabric-facing and server-facing port of a RoCE fabric switch."""


def base_profile_name(facts: DeviceFacts) -> str:
    """The per-port QoS profile of a switch's role (``service_profiles`` of its QoS profile; a
    super-spine takes the spines')."""
    spec = facts.design.fabrics[facts.switch.network]  # type: ignore[index]
    profile = facts.design.qos_profiles[spec.qos or ""]
    return profile.service_profiles["leaf" if facts.switch.role == "leaf" else "spine"]


def profile_name(facts: DeviceFacts, speed: str) -> str:
    """The QoS profile of the switch's RoCE ports of ``speed``.

    Example:
        >>> from pathlib import Path
        >>> from compiler.facts import build_facts
        >>> from compiler.intent import load_intent
        >>> profile_name(build_facts(load_intent(Path("intent"))).device("spine01"), "400g")
        'ROCE-SPINE-400G'
    """
    return speed_profile(base_profile_name(facts), speed)


def speed_profile(base: str, speed: str) -> str:
    """The QoS profile of a role's ports of ``speed``.

    Example:
        >>> speed_profile("ROCE-SPINE", "400g")
        'ROCE-SPINE-400G'
    """
    return f"{base}-{speed.upper()}"


def queue_keyword(facts: DeviceFacts) -> str:
    """The queue sub-mode keyword of the switch's model (``uc-tx-queue`` on Trident/Tomahawk,
    ``tx-queue`` on Jericho: the catalog's ``queue``)."""
    return facts.switch.layout.model.queue


def roce_speeds(facts: DeviceFacts) -> tuple[str, ...]:
    """The speeds of the switch's RoCE-carrying ports, slowest first."""
    speeds = {p.speed for p in facts.ports if p.kind in ROCE_PORT_KINDS and p.speed is not None}
    return tuple(sorted(speeds, key=SPEEDS_GBPS.__getitem__))


def qos(facts: DeviceFacts) -> QosConfig | None:
    """The global QoS of a switch of a RoCE fabric (None elsewhere)."""
    roce = facts.qos
    if roce is None:
        return None
    return _global_qos(roce, roce_speeds(facts), base_profile_name(facts), queue_keyword(facts))


@lru_cache(maxsize=64)
def _global_qos(roce: RoceQos, speeds: tuple[str, ...], profile: str, queue: str) -> QosConfig:
    """The global QoS of ``roce`` for ports of ``speeds``: a pure function of values, and a
    fabric's switches share a handful of them, so each is built once (records are immutable)."""
    profiles = []
    for speed in speeds:
        band = roce.ecn_band(speed)
        queues = tuple(
            QosQueue(
                q.id,
                bandwidth_percent=q.bandwidth_percent,
                strict=q.strict,
                ecn=eos.ecn_marking(*band) if q.ecn and band is not None else None,
            )
            for q in roce.queues
        )
        profiles.append(
            QosProfileConfig(
                speed_profile(profile, speed), speed, roce.pfc_priority, roce.watchdog.enabled, queue, queues
            )
        )
    wd = roce.watchdog
    return QosConfig(
        dscp_maps=tuple(QosMap(" ".join(str(d) for d in dscps), tc) for dscps, tc in roce.dscp_classes),
        tc_to_queue=roce.tc_to_queue,
        watchdog=PfcWatchdog(wd.action, f"{wd.timeout:g}", f"{wd.polling_interval:g}", f"{wd.recovery_time:g}"),
        profiles=tuple(profiles),
    )


def port_qos(facts: DeviceFacts, speed: str | None) -> Mapping[str, Any]:
    """What a RoCE-facing port of ``speed`` carries (nothing outside a RoCE fabric); shared by
    the switch's ports of that speed: read it, do not change it."""
    if facts.qos is None or speed is None:
        return {}
    return _port_qos_by_speed(facts)[speed]


@per_object
def _port_qos_by_speed(facts: DeviceFacts) -> dict[str, Mapping[str, Any]]:
    """The port QoS of each speed of the switch's ports, once per switch (a leaf has hundreds of
    ports and two or three speeds)."""
    assert facts.qos is not None
    ecn = eos.ecn_count_queue(queue_keyword(facts), facts.qos.ecn_queue)
    speeds = {port.speed for port in facts.ports if port.speed is not None}
    return {
        speed: {"qos_trust_dscp": True, "service_profile": profile_name(facts, speed), "ecn_count_queue": ecn}
        for speed in speeds
    }
