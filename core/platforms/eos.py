"""Arista EOS: the rule data behind drift normalisation and remediation.

What the device prints that nobody configured, and what it hides although configured
(:data:`DEFAULT_LINES`, ``docs/drift.md`` prints this table). The first five rows are what
both a cEOS 4.3x and the lab print on a switch whose config does not mention them; the rest
are lines EOS accepts and then does not print, because they set the default.

================================================ ============== ===============================
Line                                             Section        Why it is no drift
================================================ ============== ===============================
``no aaa root``                                  top level      printed while no ``aaa root``
``transceiver qsfp default-mode 4x10G``          top level      printed while not configured
``service routing protocols model multi-agent``  top level      printed while not configured
``spanning-tree mode mstp``                      top level      the default STP mode, printed
``no ip routing``                                top level      printed while no ``ip routing``
``interface EthernetN`` / ``ManagementN`` empty  top level      every physical port is printed
``interface Port-ChannelN`` empty                top level      created by a ``channel-group``
``protocol https``                               ``management   HTTPS is eAPI's default
                                                 api http-co…``
``no shutdown``                                  ``interface``  admin up is the default, hidden
``no description|mtu|channel-group|...``         ``interface``  unsetting a value is hidden
``switchport``                                   ``interface``  layer 2 is the default, hidden
================================================ ============== ===============================

Volatile lines: ``! Command:``, ``! device:``, ``! Startup-config last modified``, every other
comment (``!`` and ``!!``), ``end``, empty lines and trailing whitespace (EOS prints
``neighbor X maximum-routes 12000 `` with a trailing space).

Examples:
    >>> EOS.name, EOS.indent
    ('eos', 3)
    >>> bool(EOS.secret_line.match("username admin privilege 15 role network-admin secret sha512 $6$a$b"))
    True
"""

from __future__ import annotations

import re

from core.platforms import DefaultLine, PlatformRules
from core.secrets import SECRET_LINE

_INTERFACE = re.compile(r"interface \S+$")


def _rx(*patterns: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p) for p in patterns)


DEFAULT_LINES: tuple[DefaultLine, ...] = (
    DefaultLine(None, re.compile(r"no aaa root$"), "printed while no `aaa root` is configured"),
    DefaultLine(None, re.compile(r"transceiver qsfp default-mode 4x10G$"), "printed while not configured"),
    DefaultLine(None, re.compile(r"service routing protocols model multi-agent$"), "printed while not configured"),
    DefaultLine(None, re.compile(r"spanning-tree mode mstp$"), "the default STP mode, always printed"),
    DefaultLine(None, re.compile(r"no ip routing$"), "printed while `ip routing` is not configured"),
    DefaultLine(_INTERFACE, re.compile(r"no shutdown$"), "admin up is the default: EOS hides it"),
    DefaultLine(
        _INTERFACE,
        re.compile(r"no (description|mtu|channel-group|service-profile|switchport access vlan|ip address)$"),
        "unsetting a value: EOS prints nothing",
    ),
    DefaultLine(re.compile(r"interface Ethernet\S+$"), re.compile(r"switchport$"), "layer 2 is the default on a port"),
    DefaultLine(
        re.compile(r"management api http-commands$"), re.compile(r"protocol https$"), "HTTPS is eAPI's default: hidden"
    ),
)

EOS = PlatformRules(
    name="eos",
    indent=3,
    volatile=_rx(r"\s*!", r"end$", r"\s*$"),
    secret_line=SECRET_LINE,
    default_lines=DEFAULT_LINES,
    empty_sections=_rx(r"interface (Ethernet|Management|Port-Channel)\d+(/\d+)*$"),
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
        r"username \S+ ",
    ),
    ordered=_rx(r"(ip |ipv6 |mac )?access-list \S+", r"ip as-path access-list \S+", r"ip community-list \S+"),
    negations=(
        (re.compile(r"username (\S+) .*"), r"no username \1"),
        (re.compile(r"(description|mtu|channel-group|service-profile|switchport access vlan) .*"), r"no \1"),
        (re.compile(r"hostname .*"), "no hostname"),
        (re.compile(r"no (.*)"), r"\1"),
    ),
)
