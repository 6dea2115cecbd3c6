"""``show running-config`` text, printed the way EOS prints it.

Layout:

* three header lines: ``! Command: show running-config``,
  ``! device: NAME (MODEL, EOS-VERSION)``, ``!`` (``show startup-config`` adds
  ``! Startup-config last modified at ...`` after the device line);
* the body: top-level sections in the order of :data:`SECTION_ORDER`, one
  ``!`` line between sections and around every block (a line that opens a
  mode), consecutive one-line commands of the same section together; inside
  a block, 3 spaces of indentation per level, ``!!`` mode comments first and
  an indented ``!`` before every nested block but one that opens its block (a real
  capture prints ``management api gnmi`` then ``transport grpc def`` directly);
* ``end``.

As on EOS, ``neighbor X maximum-routes N`` is printed with a trailing space
(:data:`TRAILING_SPACE_LINES`).

Inside an interface block, settings follow :data:`lab.modes.INTERFACE_ORDER`;
inside other blocks they keep the order in which they were configured. Within a
section, top-level lines keep the order in which they were configured, except
``interface`` blocks (EOS's natural order: type as in :data:`INTERFACE_TYPE_ORDER`,
then each number numerically), ``vlan`` blocks (numeric) and ``vrf instance``
blocks (by name).

The order of sections (``SECTION_ORDER``) follows the order of Arista AVD's
``eos_cli_config_gen`` (``eos-intended-config.j2``), which mirrors what EOS
prints. A config generator that follows this table produces text that a
lab device prints back unchanged (apart from :data:`DEVICE_DEFAULT_LINES`).

Default lines the device prints although nobody configured them
(:data:`DEVICE_DEFAULT_LINES`; each is printed only while its key is absent
from the configuration; :func:`strip_device_defaults` removes them again for
comparisons):

=========================================== =========================================
Line                                        Printed when
=========================================== =========================================
``no aaa root``                             no ``aaa root ...`` line
``transceiver qsfp default-mode 4x10G``     no ``transceiver qsfp default-mode`` line
``service routing protocols model multi-agent`` no routing-model line
``spanning-tree mode mstp``                 no ``spanning-tree mode`` line
``no ip routing``                           neither ``ip routing`` nor ``no ip routing``
``interface EthernetN`` (empty block)       for every physical port not configured
``interface Management1`` (empty block)     the management port, when not configured
``interface Port-ChannelN`` (empty block)   a member says ``channel-group N`` but no block
=========================================== =========================================

Lines that restate an EOS default are accepted but not printed
(:data:`HIDDEN_DEFAULT_LINES`): ``no shutdown`` under an interface, ``switchport``
under an Ethernet port and ``protocol https`` under ``management api http-commands``.

Examples:
    >>> from lab.configtree import Config, Editor
    >>> cfg = Config()
    >>> ed = Editor(cfg)
    >>> for line in ["interface Ethernet2", "mtu 9214", "hostname leaf1", "ip routing"]:
    ...     ed.apply(line)
    >>> print(render(cfg, device="leaf1", physical=["Ethernet1", "Ethernet2"]), end="")
    ! Command: show running-config
    ! device: leaf1 (cEOSLab, EOS-4.31.2F)
    !
    no aaa root
    !
    transceiver qsfp default-mode 4x10G
    !
    service routing protocols model multi-agent
    !
    hostname leaf1
    !
    spanning-tree mode mstp
    !
    interface Ethernet1
    !
    interface Ethernet2
       mtu 9214
    !
    ip routing
    !
    end
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from lab.configtree import Config, ConfigLine

EOS_VERSION = "4.31.2F"
DEFAULT_MODEL = "cEOSLab"

#: (section name, regex on a top-level line). Earlier sections print first.
SECTION_ORDER: tuple[tuple[str, str], ...] = (
    ("boot", r"boot "),
    ("enable-password", r"enable password"),
    ("aaa-root", r"(no )?aaa root"),
    ("aaa-policy", r"aaa authentication policy"),
    ("users", r"username "),
    ("hardware", r"hardware (counter|access-list)"),
    ("service-routing-bgp", r"service routing configuration"),
    ("daemon", r"daemon "),
    ("vlan-internal", r"vlan internal order"),
    ("errdisable", r"errdisable "),
    ("load-interval", r"load-interval "),
    ("transceiver-default", r"transceiver qsfp default-mode"),
    ("routing-model", r"service routing protocols model"),
    ("lacp", r"lacp "),
    ("queue-monitor", r"queue-monitor length"),
    ("load-balance", r"port-channel load-balance"),
    ("lldp", r"(no )?lldp "),
    ("logging", r"(no )?logging "),
    ("hostname", r"hostname |ip domain lookup|ip name-server|dns domain|ip domain-name|ip host "),
    ("qos-profile", r"qos profile "),
    ("platform", r"platform "),
    ("sflow", r"sflow "),
    ("snmp", r"(no )?snmp-server "),
    ("speed-group", r"hardware speed-group"),
    ("spanning-tree", r"(no )?spanning-tree "),
    ("clock", r"clock "),
    ("vlan", r"vlan \d"),
    ("vrf", r"vrf instance "),
    ("management-api", r"management api http-commands"),
    ("management-console", r"management console"),
    ("management-gnmi", r"management api gnmi"),
    ("management-security", r"management security"),
    ("radius", r"radius-server "),
    ("tacacs", r"tacacs-server "),
    ("aaa-groups", r"aaa group server"),
    ("aaa", r"(no )?aaa "),
    ("interface", r"interface "),
    ("tcam", r"hardware tcam"),
    ("mac-aging", r"mac address-table aging-time"),
    ("virtual-router-mac", r"ip virtual-router mac-address"),
    ("acl", r"(ipv6 |ip )?access-list "),
    ("routing", r"(no )?ip routing|(no )?ip icmp redirect"),
    ("as-path", r"ip as-path "),
    ("community-list", r"ip community-list "),
    ("prefix-list", r"ip prefix-list "),
    ("ipv6-prefix-list", r"ipv6 prefix-list "),
    ("ipv6-routing", r"(no )?ipv6 unicast-routing"),
    ("mac-acl", r"mac access-list "),
    ("mlag", r"mlag configuration"),
    ("static-routes", r"ip route "),
    ("ipv6-static-routes", r"ipv6 route "),
    ("ntp", r"(no )?ntp "),
    ("qos", r"qos map |qos rewrite "),
    ("pfc", r"(no )?priority-flow-control "),
    ("radius-source", r"ip radius "),
    ("route-map", r"route-map "),
    ("router-bfd", r"router bfd"),
    ("router-bgp", r"router bgp "),
    ("router-general", r"router general"),
    ("router-ospf", r"router ospf "),
    ("tacacs-source", r"ip tacacs "),
    ("management-ssh", r"management ssh"),
    ("mst", r"spanning-tree mst configuration"),
)
_SECTION_RE = [(i, name, re.compile(rx)) for i, (name, rx) in enumerate(SECTION_ORDER)]
_HOSTNAME_SUBORDER = ("hostname ", "ip domain lookup", "ip name-server", "dns domain", "ip domain")
_ROUTING_SUBORDER = ("ip routing", "no ip routing", "ip icmp", "no ip icmp")

#: Interface types in the order EOS prints them.
INTERFACE_TYPE_ORDER = (
    "Port-Channel",
    "Ethernet",
    "Loopback",
    "Management",
    "Tunnel",
    "Vlan",
    "Vxlan",
)

#: (line, key that suppresses it): lines printed although not configured.
DEVICE_DEFAULT_LINES: tuple[tuple[str, str], ...] = (
    ("no aaa root", "aaa root"),
    ("transceiver qsfp default-mode 4x10G", "transceiver qsfp default-mode"),
    ("service routing protocols model multi-agent", "service routing protocols model"),
    ("spanning-tree mode mstp", "spanning-tree mode"),
    ("no ip routing", "ip routing"),
)


#: (top-level block regex, line): lines EOS accepts in that block but does not print,
#: because they restate its default.
HIDDEN_DEFAULT_LINES: tuple[tuple[str, str], ...] = (
    # Interfaces are enabled by default: only "shutdown" is printed.
    (r"interface \S+$", "no shutdown"),
    # Ethernet ports are layer 2 by default: only "no switchport" is printed.
    (r"interface Ethernet\S+$", "switchport"),
    # eAPI serves HTTPS by default: only "no protocol https" is printed.
    (r"management api http-commands$", "protocol https"),
)
_HIDDEN = [(re.compile(rx), line) for rx, line in HIDDEN_DEFAULT_LINES]


#: Lines EOS prints with a trailing space (a quirk drift normalisation must absorb).
TRAILING_SPACE_LINES = (re.compile(r"neighbor \S+ maximum-routes \d+$"),)


def hidden_in(block: str) -> frozenset[str]:
    """The lines a top-level ``block`` does not print.

    Examples:
        >>> sorted(hidden_in("interface Ethernet1"))
        ['no shutdown', 'switchport']
        >>> sorted(hidden_in("interface Port-Channel1"))
        ['no shutdown']
    """
    return frozenset(line for rx, line in _HIDDEN if rx.match(block))


def strip_hidden_defaults(text: str) -> str:
    """Remove the :data:`HIDDEN_DEFAULT_LINES` from config text (what a switch would print).

    Examples:
        >>> strip_hidden_defaults("interface Ethernet1\\n   no shutdown\\n   mtu 9214\\n!\\n")
        'interface Ethernet1\\n   mtu 9214\\n!\\n'
    """
    out = []
    hidden: frozenset[str] = frozenset()
    for line in text.splitlines():
        if line and not line.startswith(" "):
            hidden = hidden_in(line)
        if not (line.startswith("   ") and not line.startswith("    ") and line[3:] in hidden):
            out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def section_of(text: str) -> tuple[int, str]:
    """(rank, name) of a top-level line; unknown lines sort last.

    Examples:
        >>> section_of("router bgp 65100")[1]
        'router-bgp'
        >>> section_of("interface Ethernet1")[0] < section_of("router bgp 1")[0]
        True
    """
    if text.startswith("spanning-tree mst configuration"):
        return len(SECTION_ORDER) - 1, "mst"
    for rank, name, rx in _SECTION_RE:
        if rx.match(text):
            return rank, name
    return len(SECTION_ORDER), "other"


@lru_cache(maxsize=65536)
def interface_sort_key(name: str) -> tuple[int, tuple[int, ...], str]:
    """EOS's natural order of interface names.

    Examples:
        >>> sorted(["Ethernet10", "Vlan4094", "Ethernet2/1", "Port-Channel31", "Ethernet2"],
        ...        key=interface_sort_key)
        ['Port-Channel31', 'Ethernet2', 'Ethernet2/1', 'Ethernet10', 'Vlan4094']
    """
    m = re.match(r"([A-Za-z-]+)(.*)", name)
    kind, rest = (m.group(1), m.group(2)) if m else (name, "")
    rank = INTERFACE_TYPE_ORDER.index(kind) if kind in INTERFACE_TYPE_ORDER else 99
    nums = tuple(int(x) for x in re.findall(r"\d+", rest))
    return rank, nums, name


def _sub_rank(name: str, text: str) -> tuple[int, tuple[int, ...], str]:
    if name == "interface":
        return interface_sort_key(text.split(" ", 1)[1])
    if name == "vlan":
        return 0, tuple(int(x) for x in re.findall(r"\d+", text)[:1]), ""
    if name == "vrf":
        return 0, (), text
    if name == "hostname":
        return next((i for i, p in enumerate(_HOSTNAME_SUBORDER) if text.startswith(p)), 9), (), ""
    if name == "routing":
        return next((i for i, p in enumerate(_ROUTING_SUBORDER) if text.startswith(p)), 9), (), ""
    return 0, (), ""


def _with_defaults(config: Config, physical: Iterable[str]) -> list[ConfigLine]:
    nodes = list(config.root.children)
    keys = {n.key for n in nodes}
    texts = {n.text for n in nodes}
    for line, key in DEVICE_DEFAULT_LINES:
        if key not in keys and not any(k.startswith(key) for k in keys):
            nodes.append(ConfigLine(line, key))
    for port in physical:
        if f"interface {port}" not in texts:
            nodes.append(ConfigLine(f"interface {port}", f"interface {port}", "interface"))
    # EOS creates the Port-Channel a "channel-group N" names, and prints it.
    for node in config.root.children:
        for child in node.children if node.mode == "interface" else ():
            if child.text.startswith("channel-group "):
                channel = f"interface Port-Channel{child.text.split()[1]}"
                if channel not in texts:
                    texts.add(channel)
                    nodes.append(ConfigLine(channel, channel, "interface"))
    return nodes


def body_lines(config: Config, physical: Iterable[str] = ()) -> list[str]:
    """The body of the running-config (after the header, up to and including ``end``)."""
    decorated = []
    for pos, node in enumerate(_with_defaults(config, physical)):
        rank, name = section_of(node.text)
        decorated.append(((rank, _sub_rank(name, node.text), pos), name, node))
    decorated.sort(key=lambda d: d[0])
    out: list[str] = []
    prev: tuple[str, ConfigLine] | None = None
    for _, name, node in decorated:
        if prev is not None and (prev[0] != name or prev[1].mode or node.mode):
            out.append("!")
        out += _block(node, 0)
        prev = (name, node)
    out += ["!", "end"]
    return out


def _block(node: ConfigLine, depth: int) -> list[str]:
    pad = "   " * depth
    quirk = " " if any(rx.match(node.text) for rx in TRAILING_SPACE_LINES) else ""
    out = [pad + node.text + quirk]
    inner = "   " * (depth + 1)
    out += [inner + c for c in node.comments]
    hidden = hidden_in(node.text) if depth == 0 else frozenset()
    printed = False
    for child in node.children:
        if child.text in hidden:
            continue
        if child.mode and printed:
            out.append(inner + "!")
        out += _block(child, depth + 1)
        printed = True
    return out


def render(
    config: Config,
    *,
    device: str,
    model: str = DEFAULT_MODEL,
    version: str = EOS_VERSION,
    physical: Iterable[str] = (),
    command: str = "show running-config",
    extra_header: Iterable[str] = (),
) -> str:
    """The full text EOS returns for ``show running-config`` (or ``command``)."""
    head = [f"! Command: {command}", f"! device: {device} ({model}, EOS-{version})"]
    head += list(extra_header)
    head.append("!")
    return "\n".join(head + body_lines(config, physical)) + "\n"


_HEADER = re.compile(r"^! (Command:|device:|Startup-config last modified)")


def strip_header(text: str) -> str:
    """The body of ``show running-config`` output: the header lines removed.

    Examples:
        >>> strip_header("! Command: show running-config\\n! device: a (b, EOS-c)\\n!\\nhostname a\\n")
        'hostname a\\n'
    """
    lines = text.splitlines()
    while lines and (_HEADER.match(lines[0]) or lines[0] == "!"):
        lines.pop(0)
    return "\n".join(lines) + "\n"


_EMPTY_PORT = re.compile(r"interface (Ethernet|Management|Port-Channel)\d")


def strip_device_defaults(body: str) -> str:
    """Remove the :data:`DEVICE_DEFAULT_LINES` and empty physical interface blocks.

    Examples:
        >>> strip_device_defaults("no aaa root\\n!\\ninterface Ethernet1\\n!\\nhostname a\\n!\\nend\\n")
        'hostname a\\n!\\nend\\n'
    """
    defaults = {line for line, _ in DEVICE_DEFAULT_LINES}
    chunks: list[list[str]] = [[]]
    for line in body.splitlines():
        if line == "!":
            chunks.append([])
        else:
            chunks[-1].append(line)
    kept: list[str] = []
    for chunk in chunks:
        lines = []
        for i, line in enumerate(chunk):
            nxt = chunk[i + 1] if i + 1 < len(chunk) else ""
            empty_port = _EMPTY_PORT.match(line) is not None and not nxt.startswith(" ")
            if line not in defaults and not empty_port:
                lines.append(line)
        if lines:
            kept.append("\n".join(lines))
    return "\n!\n".join(kept) + "\n"
