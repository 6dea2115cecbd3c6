"""QOS001 and QOS003 judge each distinct QoS config once: a switch whose config differs from its
peers' is judged on its own, and a config built by hand with lists is judged too."""

from __future__ import annotations

import dataclasses
from typing import Any

from compiler.checks.rules.qos import roce_qos, stray_dscps
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from compiler.structured import QosMap


def _qos_replaced(fabric: ResolvedFabric, name: str, **changes: Any) -> ResolvedFabric:
    device = fabric.devices[name]
    assert device.config.qos is not None
    config = device.config._replace(qos=device.config.qos._replace(**changes))
    return dataclasses.replace(fabric, devices={**fabric.devices, name: device.with_config(config)})


def test_one_switch_off_its_peers_config(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    assert list(stray_dscps(intent, fabric)) == list(roce_qos(intent, fabric)) == []
    maps = [QosMap("26 27", 3), QosMap("48", 6)]  # a list: not hashable
    fabric = _qos_replaced(fabric, "spine02", dscp_maps=maps)
    fabric = _qos_replaced(fabric, "rack03-leaf-b", dscp_maps=(QosMap("26", 3), QosMap("48", 6)))
    assert sorted({subject for subject, _ in stray_dscps(intent, fabric)}) == ["rack03-leaf-b", "spine02"]
    assert [subject for subject, _ in roce_qos(intent, fabric)] == ["rack03-leaf-b"]
