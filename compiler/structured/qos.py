"""The QoS sections of a fabric switch: DSCP and traffic-class maps, the PFC watchdog, and the
queue profile every RoCE-facing port applies.

Example:
    >>> from pathlib import Path
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> facts = build_facts(load_intent(Path("intent"))).device("spine01")
    >>> config = qos(facts)
    >>> config.profile.name, config.profile.queue_keyword, config.dscp_maps[0]
    ('ROCE-SPINE', 'uc-tx-queue', QosMap(dscps='26 27', traffic_class=3))
    >>> port_qos(facts)
    {'qos_trust_dscp': True, 'service_profile': 'ROCE-SPINE', 'ecn_count_queue': 'uc-tx-queue 3'}
"""

from __future__ import annotations

from typing import Any

from compiler.facts import DeviceFacts
from compiler.platforms import eos
from compiler.structured.model import PfcWatchdog, QosConfig, QosMap, QosProfileConfig, QosQueue


def profile_name(facts: DeviceFacts) -> str:
    """The per-port QoS profile of a switch's role (``service_profiles`` of its QoS profile; a
    super-spine takes the spines')."""
    spec = facts.design.fabrics[facts.switch.network]  # type: ignore[index]
    profile = facts.design.qos_profiles[spec.qos or ""]
    return profile.service_profiles["leaf" if facts.switch.role == "leaf" else "spine"]


def queue_keyword(facts: DeviceFacts) -> str:
    """The queue sub-mode keyword of the switch's model (``uc-tx-queue`` on Trident/Tomahawk,
    ``tx-queue`` on Jericho: the catalog's ``queue``)."""
    return facts.switch.layout.model.queue


def qos(facts: DeviceFacts) -> QosConfig | None:
    """The global QoS of a switch of a RoCE fabric (None elsewhere)."""
    roce = facts.qos
    if roce is None:
        return None
    queues = tuple(
        QosQueue(
            q.id,
            bandwidth_percent=q.bandwidth_percent,
            strict=q.strict,
            ecn=eos.ecn_marking(q.ecn) if q.ecn is not None else None,
        )
        for q in roce.queues
    )
    wd = roce.watchdog
    return QosConfig(
        dscp_maps=tuple(QosMap(" ".join(str(d) for d in dscps), tc) for dscps, tc in roce.dscp_classes),
        tc_to_queue=roce.tc_to_queue,
        watchdog=PfcWatchdog(wd.action, f"{wd.timeout:g}", f"{wd.polling_interval:g}", f"{wd.recovery_time:g}"),
        profile=QosProfileConfig(profile_name(facts), roce.pfc_priority, queue_keyword(facts), queues),
    )


def port_qos(facts: DeviceFacts) -> dict[str, Any]:
    """What a RoCE-facing port of the switch carries (nothing outside a RoCE fabric)."""
    if facts.qos is None:
        return {}
    return {
        "qos_trust_dscp": True,
        "service_profile": profile_name(facts),
        "ecn_count_queue": eos.ecn_count_queue(queue_keyword(facts), facts.qos.ecn_queue),
    }
