"""Design rules over the resolved fabric: each has an id, a severity and the requirement it protects.

Example:
    >>> from compiler.checks import Finding
    >>> Finding("FAB001", "error", "C3", "rack01-leaf-a", "does not reach spine03").line()
    'error FAB001 [C3] rack01-leaf-a: does not reach spine03'
"""

from __future__ import annotations

from compiler.checks.base import RULES, Finding, Judgement, Rule, Severity, checked, device_rule, run_checks

__all__ = ["RULES", "Finding", "Judgement", "Rule", "Severity", "checked", "device_rule", "run_checks"]
