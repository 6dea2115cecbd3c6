"""The design rules, one topic per module; importing this package registers them all.

=====================  ==============================================================
Module                 Rules
=====================  ==============================================================
``topology``           FAB001 FAB002 FAB003 HOP001 LNK001 LNK002
``addressing``         ADR001 ADR002 ADR003 ADR004 ADR005 ADR006
``ports``              PRT001 BRK001 PRT002 PRT003 PRT004 PRT005 PRT006 PRT007 VLN001
``routing``            RTE001 RTE002 RTE003
``mlag``               MLG001
``qos``                QOS001 QOS002
``references``         REF001 REF002 REF003 RES001
``power``              PWR001 PWR002 PWR003 PWR004 CAB001
=====================  ==============================================================

``docs/checks.md`` is the table of every rule for users.
"""

from __future__ import annotations

from compiler.checks.rules import addressing, mlag, ports, power, qos, references, routing, topology

__all__ = ["addressing", "mlag", "ports", "power", "qos", "references", "routing", "topology"]
