"""REF001 looks up only the interfaces that refer to something: each kind of reference must still
be caught, alone or beside another on the same interface."""

from __future__ import annotations

from compiler.checks import RULES
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from tests.compiler.checks.conftest import with_interfaces


def test_every_kind_of_dangling_reference(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    intent, fabric = resolved_example
    assert list(RULES["REF001"].check(intent, fabric)) == []
    fabric = with_interfaces(
        fabric,
        "rack07-leaf-a",
        {
            "Ethernet1/1": {"switchport_access_vlan": 998},  # a known profile beside an unknown VLAN
            "Ethernet1/3": {"switchport_trunk_allowed_vlan": "100,997"},  # a trunk, one VLAN unknown
            "Ethernet1/5": {"service_profile": "ROCE-OTHER"},
        },
    )
    fabric = with_interfaces(fabric, "rack01-mgmt", {"Ethernet1": {"service_profile": "ROCE-LEAF-100G"}})
    assert list(RULES["REF001"].check(intent, fabric)) == [
        ("rack01-mgmt", "Ethernet1: service-profile ROCE-LEAF-100G but no qos profile"),
        ("rack07-leaf-a", "Ethernet1/1: VLAN 998 is not defined on the device"),
        ("rack07-leaf-a", "Ethernet1/3: VLAN 997 is not defined on the device"),
        (
            "rack07-leaf-a",
            "Ethernet1/5: service-profile ROCE-OTHER is not a qos profile of the device "
            "(ROCE-LEAF-100G, ROCE-LEAF-400G)",
        ),
    ]
