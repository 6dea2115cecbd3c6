"""The design rules, one topic per module; importing this package registers them all.

=====================  ==============================================================
Module                 Rules
=====================  ==============================================================
``topology``           FAB001 FAB002 FAB003 HOP001 LNK001 LNK002
``addressing``         ADR001 ADR002 ADR003 ADR004 ADR005 ADR006
``ports``              PRT001 BRK001 PRT002 PRT003 PRT004 PRT005 PRT006 PRT007 PRT008
                       PRT009 LLD001 VLN001
``routing``            RTE001 RTE002 RTE003 RTE004
``mlag``               MLG001
``qos``                QOS001 QOS002 QOS003 QOS004 QOS005 QOS006
``references``         REF001 REF002 REF003 RES001
``power``              PWR001 PWR002 PWR003 PWR004 CAB001 RCK001
``edge``               STC001 OVS001
``bonding``            BND001 BND002 BND003
``management``         MGT001 MGT002 MGT003 MGT004
``telemetry``          TEL001 TEL002
``vlans``              VLN002 VLN003 VLN004 VLN005
``devices``            DEV001
``extra``              EXT001 EXT002 EXT003
=====================  ==============================================================

``docs/checks.md`` is the table of every rule for users.
"""

from __future__ import annotations

from compiler.checks.rules import (
    addressing,
    bonding,
    devices,
    edge,
    extra,
    management,
    mlag,
    ports,
    power,
    qos,
    references,
    routing,
    telemetry,
    topology,
    vlans,
)

__all__ = [
    "addressing",
    "bonding",
    "devices",
    "edge",
    "extra",
    "management",
    "mlag",
    "ports",
    "power",
    "qos",
    "references",
    "routing",
    "telemetry",
    "topology",
    "vlans",
]
