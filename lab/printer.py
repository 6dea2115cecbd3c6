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

Inside an interface block, settings follow :data:`lab.modes.INTERFACE_ORDER`;
inside other blocks they keep the order in which they were configured. Within a
section, top-level lines keep the order in which they were configured, except
``interface`` blocks (EOS's natural order: type as in :data:`INTERFACE_TYPE_ORDER`,
then each number numerically), ``vlan`` blocks (numeric) and ``vrf instance``
blocks (by name).

The order of sections (``SECTION_ORDER``) follows the order of Arista AVD's
``eos_cli_config_gen`` (``eos-intended-config.j2``), which mirrors what EOS
prints, checked against real captures; a release may print some sections
elsewhere (``order`` in the defaults table: the 4.25 train prints users after
``spanning-tree``, 4.33 the eAPI block after the users). A config generator
that follows this table produces text that a lab device prints back unchanged,
apart from the release's own lines.

What a release prints by itself comes from the defaults table that drift
normalisation reads (``core/platforms/eos.yaml``, :mod:`core.platforms.versions`):
its ``prints`` lines appear while no sibling line suppresses them (``no aaa root``
while no ``aaa root``; ``system l1`` from 4.30; ``router multicast`` from 4.32.2),
merged into a block the config has; its ``hides`` lines (``no shutdown`` under an
interface) are accepted and not printed. Every physical port is printed, and the
Port-Channel a ``channel-group N`` names. :func:`strip_device_defaults` and
:func:`strip_hidden_defaults` remove them again for comparisons.

A line of a family the lab does not model is printed as it was stored; a
top-level one of a family without a section prints after the line it followed
when it was loaded.

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
    system l1
       unsupported speed action error
       unsupported error-correction action error
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

import itertools
import re
from collections.abc import Iterable
from functools import lru_cache

from core.platforms.versions import Release, release
from lab.configtree import HEREDOC, Config, ConfigLine

EOS_VERSION = "4.31.2F"
DEFAULT_MODEL = "cEOSLab"

#: (section name, regex on a top-level line). Earlier sections print first.
SECTION_ORDER: tuple[tuple[str, str], ...] = (
    ("boot", r"boot "),
    ("enable-password", r"enable password"),
    ("aaa-root", r"(no )?aaa root|aaa authentication policy"),
    ("users", r"username "),
    ("hardware", r"hardware (counter|access-list)"),
    ("service-routing-bgp", r"service routing configuration"),
    ("cli", r"prompt |terminal |alias "),
    ("daemon", r"daemon "),
    ("vlan-internal", r"vlan internal order"),
    ("errdisable", r"errdisable "),
    ("load-interval", r"load-interval "),
    ("service-interface", r"(no )?service interface "),
    ("transceiver-default", r"transceiver qsfp default-mode"),
    ("dhcp-relay", r"(no )?ipv?6? ?dhcp "),
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
    ("system-l1", r"system l1"),
    ("clock", r"clock "),
    ("vlan", r"vlan \d"),
    ("vrf", r"vrf instance "),
    ("banner", r"banner "),
    ("management-api", r"management api http-commands"),
    ("management-console", r"management console"),
    ("management-cvx", r"management cvx"),
    ("management-defaults", r"management defaults"),
    ("management-gnmi", r"management api gnmi"),
    ("management-security", r"management security"),
    ("radius", r"radius-server "),
    ("tacacs", r"tacacs-server "),
    ("aaa-groups", r"aaa group server"),
    ("aaa", r"(no )?aaa "),
    ("interface", r"interface "),
    ("tcam", r"hardware tcam"),
    ("mac-aging", r"mac address-table aging-time"),
    ("virtual-router-mac", r"ip virtual-router mac-address|ip address virtual source-nat "),
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
    ("mpls", r"(no )?mpls "),
    ("ntp", r"(no )?ntp "),
    ("qos", r"qos map |qos rewrite "),
    ("pfc", r"(no )?priority-flow-control "),
    ("radius-source", r"ip radius "),
    ("route-map", r"route-map "),
    ("router-bfd", r"router bfd"),
    ("router-bgp", r"router bgp "),
    ("router-general", r"router general"),
    ("router-traffic-engineering", r"router traffic-engineering"),
    ("router-igmp", r"router igmp"),
    ("router-isis", r"router isis "),
    ("router-multicast", r"router multicast"),
    ("router-ospf", r"router ospf "),
    ("router-pim", r"router pim "),
    ("router-msdp", r"router msdp"),
    ("tacacs-source", r"ip tacacs "),
    ("management-ssh", r"management ssh"),
    ("mst", r"spanning-tree mst configuration"),
)
_SECTION_RE = [(i, name, re.compile(rx)) for i, (name, rx) in enumerate(SECTION_ORDER)]
_HOSTNAME_SUBORDER = ("hostname ", "ip domain lookup", "ip name-server", "dns domain", "ip domain")
_ROUTING_VRF = re.compile(r"(?:no )?ip routing vrf (\S+)")

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


def hidden_in(block: str, version: str = EOS_VERSION) -> frozenset[str]:
    """The lines a top-level ``block`` does not print (of those the lab can store).

    Examples:
        >>> sorted(hidden_in("interface Ethernet1"))
        ['no shutdown', 'switchport']
        >>> sorted(hidden_in("interface Port-Channel1"))
        ['no shutdown']
    """
    found = release(version)
    return frozenset(
        line
        for line in ("no shutdown", "switchport", "protocol https")
        for h in found.hidden
        if h.section is not None and h.section.match(block) and h.line.match(line)
    )


def _hides(found: Release, block: str, line: str) -> bool:
    return any(h.section is not None and h.section.match(block) and h.line.match(line) for h in found.hidden)


def strip_hidden_defaults(text: str, version: str = EOS_VERSION) -> str:
    """Remove the lines EOS accepts but never prints (the release's ``hides``) from config text.

    Examples:
        >>> strip_hidden_defaults("interface Ethernet1\\n   no shutdown\\n   mtu 9214\\n!\\n")
        'interface Ethernet1\\n   mtu 9214\\n!\\n'
    """
    found = release(version)
    out = []
    block = ""
    for line in text.splitlines():
        if line and not line.startswith(" "):
            block = line
        if not (line.startswith("   ") and not line.startswith("    ") and _hides(found, block, line[3:])):
            out.append(line)
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


@lru_cache(maxsize=65536)
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
        # "ip routing" first, then the VRFs by name whether enabled or not, then ICMP redirects.
        vrf = _ROUTING_VRF.match(text)
        return (1, (), vrf.group(1)) if vrf else ((0, (), "") if "routing" in text else (2, (), ""))
    return 0, (), ""


@lru_cache(maxsize=64)
def _section_ranks(version: str) -> dict[str, int]:
    """Each section's place for a release: :data:`SECTION_ORDER` with the release's moves applied."""
    names = [name for name, _ in SECTION_ORDER]
    for moved, after in release(version).moves:
        names = [n for n in names if n not in moved]
        at = len(names) if after == "end" or after not in names else names.index(after) + 1
        names[at:at] = list(moved)
    return {name: rank for rank, name in enumerate(names)}


def _top_level(config: Config, physical: Iterable[str], found: Release) -> list[ConfigLine]:
    """The top-level nodes as the device prints them: the config, the release's default lines
    (merged into configured blocks), every physical port, the Port-Channels members create."""
    nodes = list(config.root.children)
    texts = {n.text for n in nodes}
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
    root = ConfigLine("", "", "config", nodes)
    copied: set[int] = {id(root)}
    created: set[int] = set()
    for default in found.printed:
        parent = root
        for header in default.path:
            parent = _child_block(parent, header, copied, created)
        if parent.find(default.line) is None and not any(default.unless.match(c.text) for c in parent.children):
            opens = any(p.path[: len(default.path) + 1] == (*default.path, default.line) for p in found.printed)
            node = ConfigLine(default.line, default.line, "verbatim" if opens else None)
            parent.children.append(node)
            if opens:
                copied.add(id(node))
                created.add(id(node))
    # A default block none of whose lines apply is not printed.
    return [n for n in root.children if id(n) not in created or n.children]


def _child_block(parent: ConfigLine, header: str, copied: set[int], created: set[int]) -> ConfigLine:
    """The block ``header`` under ``parent``: copied before defaults go into it, or created."""
    for i, child in enumerate(parent.children):
        if child.text != header:
            continue
        if id(child) in copied:
            return child
        copy = ConfigLine(header, child.key, child.mode, list(child.children), list(child.comments), child.verbatim)
        copy.anchor = child.anchor
        parent.children[i] = copy
        copied.add(id(copy))
        return copy
    block = ConfigLine(header, header, "verbatim")
    parent.children.append(block)
    copied.add(id(block))
    created.add(id(block))
    return block


def body_lines(config: Config, physical: Iterable[str] = (), version: str = EOS_VERSION) -> list[str]:
    """The body of the running-config (after the header, up to and including ``end``)."""
    found = release(version)
    ranks = _section_ranks(version)
    nodes = _top_level(config, physical, found)
    by_text = {n.text: n for n in nodes}
    decorated = []
    for pos, node in enumerate(nodes):
        _, name = section_of(node.text)
        sub = _sub_rank(name, node.text)
        if name == "other" and node.anchor:
            name, sub = _anchored(node, by_text)
        decorated.append(((ranks.get(name, len(ranks)), sub, pos), name, node))
    decorated.sort(key=lambda d: d[0])
    out: list[str] = []
    prev: tuple[str, ConfigLine] | None = None
    for _, name, node in decorated:
        if prev is not None and (prev[0] != name or prev[1].mode or node.mode):
            out.append("!")
        out += _block(node, 0, found)
        prev = (name, node)
    out += ["!", "end"]
    return out


def _anchored(node: ConfigLine, by_text: dict[str, ConfigLine]) -> tuple[str, tuple[int, tuple[int, ...], str]]:
    """A line of a family without a section prints after the line it followed when loaded."""
    seen = {node.text}
    anchor = by_text.get(node.anchor)
    while anchor is not None and anchor.text not in seen:
        seen.add(anchor.text)
        _, name = section_of(anchor.text)
        if name != "other":
            return name, (10**9, (), "")
        anchor = by_text.get(anchor.anchor)
    return "other", (0, (), "")


def _block(node: ConfigLine, depth: int, found: Release) -> list[str]:
    pad = "   " * depth
    if node.mode == HEREDOC:
        return [pad + node.text, *(c.text for c in node.children), "EOF"]
    # The boot image is not running config: EOS shows it as a comment.
    out = [pad + ("! " if depth == 0 and node.text.startswith("boot system ") else "") + node.text]
    inner = "   " * (depth + 1)
    out += [inner + c for c in node.comments]
    for child in node.children:
        if depth == 0 and _hides(found, node.text, child.text):
            continue
        if child.mode and len(out) > 1:  # a "!" before a nested block, unless it comes first
            out.append(inner + "!")
        out += _block(child, depth + 1, found)
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
    body = "\n".join(body_lines(config, physical, version))
    return header(command, device, model, version, extra_header) + body + "\n"


def header(
    command: str, device: str, model: str = DEFAULT_MODEL, version: str = EOS_VERSION, extra: Iterable[str] = ()
) -> str:
    """The header lines of a config EOS prints, each with its newline.

    Example:
        >>> print(header("show running-config", "leaf1"), end="")
        ! Command: show running-config
        ! device: leaf1 (cEOSLab, EOS-4.31.2F)
        !
    """
    lines = (f"! Command: {command}", f"! device: {device} ({model}, EOS-{version})", *extra, "!")
    return "".join(f"{line}\n" for line in lines)


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


def strip_device_defaults(body: str, version: str = EOS_VERSION) -> str:
    """Remove the lines the release prints by itself (and their blocks) and empty physical ports.

    Examples:
        >>> strip_device_defaults("no aaa root\\n!\\ninterface Ethernet1\\n!\\nhostname a\\n!\\nend\\n")
        'hostname a\\n!\\nend\\n'
        >>> strip_device_defaults("system l1\\n   unsupported speed action error\\n!\\nend\\n")
        'end\\n'
    """
    found = release(version)
    defaults = {(p.path, p.line) for p in found.printed}
    chunks: list[list[str]] = [[]]
    for line in body.splitlines():
        if line == "!":
            chunks.append([])
        else:
            chunks[-1].append(line)
    kept: list[str] = []
    for chunk in chunks:
        lines = _strip_chunk(chunk, defaults, found)
        if lines:
            kept.append("\n".join(lines))
    return "\n!\n".join(kept) + "\n"


def _strip_chunk(chunk: list[str], defaults: set[tuple[tuple[str, ...], str]], found: Release) -> list[str]:
    """One ``!``-separated chunk without its default lines (a default header only when emptied)."""
    stack: list[tuple[int, str]] = []
    marked: list[tuple[str, bool, int]] = []  # line, is a default, indent
    for line in chunk:
        indent = len(line) - len(line.lstrip(" "))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        text = line.strip()
        path = tuple(t for _, t in stack)
        marked.append(
            (line, (path, text) in defaults or (not path and any(rx.match(text) for rx in found.empty)), indent)
        )
        stack.append((indent, text))
    out: list[str] = []
    for i, (line, default, indent) in enumerate(marked):
        block = itertools.takewhile(lambda m: m[2] > indent, marked[i + 1 :])  # noqa: B023 - used at once
        if not (default and all(is_default for _, is_default, _ in block)):
            out.append(line)
    return out
