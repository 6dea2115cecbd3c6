"""Arista EOS: the rule data behind drift normalisation and remediation.

The lines a switch prints by itself, or hides although configured, depend on its release and
are data: ``core/platforms/eos.yaml`` (read by :mod:`core.platforms.versions`, for the version
:func:`core.platforms.get_rules` is given). What is here holds for every release: volatile
lines, single-valued commands, negation, ordered sections.

Volatile lines: ``! Command:``, ``! device:``, ``! Startup-config last modified``, every other
comment (``!`` and ``!!``), ``end``, empty lines and trailing whitespace (EOS prints
``neighbor X maximum-routes 12000 `` with a trailing space).

Examples:
    >>> EOS.name, EOS.indent
    ('eos', 3)
    >>> len(EOS.secrets) > 10
    True
"""

from __future__ import annotations

import re

from core.masking import SECRET_RULES
from core.platforms import PlatformRules


def _rx(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


EOS = PlatformRules(
    name="eos",
    indent=3,
    volatile=_rx(r"\s*!", r"end$", r"\s*$"),
    secrets=SECRET_RULES,
    default_lines=(),  # per release: core/platforms/eos.yaml
    empty_sections=(),
    idempotent=_rx(
        # interfaces
        r"description\b",
        r"mtu\b",
        r"shutdown$",
        r"switchport$",
        r"switchport mode\b",
        r"switchport access vlan\b",
        r"switchport trunk native vlan\b",
        r"switchport trunk allowed vlan\b",
        r"channel-group\b",
        r"service-profile\b",
        r"speed\b",
        r"autostate$",
        r"ip address (?!.*\bsecondary$)",
        r"ip virtual-router address\b",
        r"qos trust\b",
        # queues and QoS profiles
        r"priority\b(?!-)",
        r"bandwidth percent\b",
        r"random-detect ecn minimum-threshold\b",
        # vlans, mlag, routing processes
        r"name\b",
        r"router-id\b",
        r"domain-id\b",
        r"local-interface\b",
        r"peer-address (?!heartbeat)",
        r"peer-address heartbeat\b",
        r"peer-link\b",
        r"reload-delay mlag\b",
        r"reload-delay non-mlag\b",
        r"maximum-paths\b",
        r"max-lsa\b",
        r"idle-timeout\b",
        # top level
        r"hostname\b",
        r"dns domain\b",
        r"ip routing$",
        r"aaa root\b",
        r"spanning-tree mode\b",
        r"vlan internal order\b",
        r"service routing protocols model\b",
        r"transceiver qsfp default-mode\b",
        r"ip virtual-router mac-address\b",
        r"username \S+ (?!ssh-key\b)",
    ),
    ordered=_rx(
        r"(ip |ipv6 |mac )?access-list \S+",
        r"ip as-path access-list \S+",
        r"ip community-list \S+",
        r"banner (login|motd)$",
    ),
    negations=(
        (re.compile(r"username (\S+) .*"), r"no username \1"),
        (re.compile(r"(description|mtu|channel-group|service-profile|switchport access vlan) .*"), r"no \1"),
        (re.compile(r"hostname .*"), "no hostname"),
        (re.compile(r"no (.*)"), r"\1"),
    ),
    heredocs=_rx(r"banner (login|motd)$"),
)
