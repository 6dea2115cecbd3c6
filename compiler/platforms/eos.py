"""Arista EOS: interface names, their order and ranges, the EOS phrases the structured config
carries, and the platform's values (``eos.yaml``).

Every EOS interface name the compiler writes is made here or comes from the switch's catalog
model (:mod:`core.hardware`: ``Ethernet1``, ``Ethernet29/1``, ``Ethernet3/1/1`` on a chassis,
the same names the lab emulates); no other Python spells EOS syntax.

Example:
    >>> data().management_port_speed, data().vlan_internal_range
    ('1g', (1006, 1199))
"""

# No ``from __future__ import annotations``: pydantic would compile and evaluate the text of every
# field's annotation as it builds the models, at every start.

import re
from collections.abc import Iterable
from functools import cache
from ipaddress import IPv4Network
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from compiler import intentcache
from compiler.intent import Speed
from core.generated import yaml_load

DATA = Path(__file__).with_name("eos.yaml")


class EosData(BaseModel):
    """``eos.yaml``: what EOS configs carry that the intent does not set."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    management_port_speed: Speed
    loopback: str
    access_mtu: int = Field(ge=68, le=9216)
    routing_model: str
    vlan_internal_range: tuple[int, int]
    admin_privilege: int = Field(ge=0, le=15)
    admin_role: str
    gnmi_transport: str
    gnmi_default_port: int = Field(ge=1, le=65535)
    spanning_tree_mode: Literal["mstp", "rstp", "rapid-pvst"]
    routed_spanning_tree_mode: Literal["none", "mstp"]
    default_dscp_to_tc: tuple[int, int, int, int, int, int, int, int]
    """The traffic class of each block of eight DSCPs (0-7, 8-15, ...) when no map names the DSCP."""
    templates: dict[str, Any]
    """Values the templates print (their global ``eos``)."""


@cache
def data() -> EosData:
    """The EOS platform data, read once: as validated before, when kept beside the intent being
    compiled (:func:`compiler.intentcache.last`: no model built), else parsed (libyaml's loader:
    the pure-Python one takes a dozen times as long, at every start) and validated."""
    raw = DATA.read_bytes()
    kept = intentcache.last()
    found = kept.get(DATA.name, raw, EosData)
    if found is None:
        found = EosData.model_validate(yaml_load(raw.decode()))
        kept.put(DATA.name, raw, found)
    return found


_ORDER = {"Port-Channel": 0, "Ethernet": 1, "Loopback": 2, "Management": 3, "Vlan": 4}
_SHORT = {"Ethernet": "Et", "Management": "Ma"}
_NAME = re.compile(r"^([A-Za-z-]+)(\d+(?:/\d+)*)$")


def loopback() -> str:
    """The router-id loopback.

    Example:
        >>> loopback()
        'Loopback0'
    """
    return data().loopback


def port_channel(number: int) -> str:
    """The EOS name of port-channel ``number``.

    Example:
        >>> port_channel(1000)
        'Port-Channel1000'
    """
    return f"Port-Channel{number}"


def vlan_interface(vlan: int) -> str:
    """The EOS name of the routed interface (SVI) of ``vlan``.

    Example:
        >>> vlan_interface(4094)
        'Vlan4094'
    """
    return f"Vlan{vlan}"


def is_front_panel(name: str) -> bool:
    """Whether ``name`` is a front-panel port (not a port-channel, SVI, loopback or Management1).

    Example:
        >>> is_front_panel("Ethernet49/1"), is_front_panel("Management1"), is_front_panel("Vlan100")
        (True, False, False)
    """
    return name.startswith("Ethernet")


@cache
def interface_key(name: str) -> tuple[int, tuple[int, ...]]:
    """EOS's interface order: port-channels, ethernets, loopbacks, management, VLANs, each by number.

    Example:
        >>> names = ["Vlan100", "Ethernet10", "Ethernet9/2", "Ethernet9/1", "Port-Channel1000"]
        >>> sorted(names, key=interface_key)
        ['Port-Channel1000', 'Ethernet9/1', 'Ethernet9/2', 'Ethernet10', 'Vlan100']
    """
    match = _NAME.match(name)
    if match is None:
        return 9, ()
    kind, numbers = match.groups()
    return _ORDER.get(kind, 9), tuple(int(n) for n in numbers.split("/"))


def short_name(name: str) -> str:
    """An interface name as EOS abbreviates it (for labels).

    Example:
        >>> short_name("Ethernet49"), short_name("Management1"), short_name("enp65s0f0")
        ('Et49', 'Ma1', 'enp65s0f0')
    """
    match = _NAME.match(name)
    if match is None or match.group(1) not in _SHORT:
        return name
    return _SHORT[match.group(1)] + match.group(2)


def interface_ranges(names: Iterable[str]) -> str:
    """Front-panel port names as one EOS interface range (runs of consecutive last numbers).

    Examples:
        >>> interface_ranges([f"Ethernet{n}" for n in (1, 2, 3, 9, 52, 49, 50)])
        'Ethernet1-3,9,49-50,52'
        >>> interface_ranges(["Ethernet49/1", "Ethernet50/1", "Ethernet1"])
        'Ethernet1,49/1,50/1'
        >>> interface_ranges([])
        ''
    """
    spans: list[list[tuple[int, ...]]] = []
    for name in sorted(names, key=interface_key):
        numbers = interface_key(name)[1]
        last = spans[-1][1] if spans else None
        if last is not None and last[:-1] == numbers[:-1] and last[-1] == numbers[-1] - 1:
            spans[-1][1] = numbers
        else:
            spans.append([numbers, numbers])

    def text(numbers: tuple[int, ...]) -> str:
        return "/".join(str(n) for n in numbers)

    body = ",".join(text(a) if a == b else f"{text(a)}-{b[-1]}" for a, b in spans)
    return f"Ethernet{body}" if body else ""


def port_number(name: str) -> int:
    """The first number of an interface name (the port of a flat name), 0 when there is none.

    Example:
        >>> port_number("Ethernet37"), port_number("Management1"), port_number("enp65s0f0")
        (37, 1, 0)
    """
    numbers = interface_key(name)[1]
    return numbers[0] if numbers else 0


def ecn_count_queue(queue_keyword: str, queue: int) -> str:
    """The per-port queue sub-mode that counts ECN marks (``uc-tx-queue`` on Trident/Tomahawk).

    Example:
        >>> ecn_count_queue("uc-tx-queue", 3)
        'uc-tx-queue 3'
    """
    return f"{queue_keyword} {queue}"


def ecn_marking(min_kbytes: int, max_kbytes: int, max_mark_probability: int, weight: int) -> str:
    """The WRED-ECN line of the lossless queue.

    Example:
        >>> ecn_marking(256, 512, 100, 0)
        'random-detect ecn minimum-threshold 256 kbytes maximum-threshold 512 kbytes max-mark-probability 100 weight 0'
    """
    return (
        f"random-detect ecn minimum-threshold {min_kbytes} kbytes maximum-threshold "
        f"{max_kbytes} kbytes max-mark-probability {max_mark_probability} weight {weight}"
    )


def acl_source(prefix: IPv4Network) -> str:
    """A standard ACL's source as EOS prints it: ``host A.B.C.D`` for one address.

    Example:
        >>> acl_source(IPv4Network("172.20.0.40/32")), acl_source(IPv4Network("172.20.0.0/24"))
        ('host 172.20.0.40', '172.20.0.0/24')
    """
    return f"host {prefix.network_address}" if prefix.prefixlen == 32 else str(prefix)


@cache
def acl_source_prefix(source: str) -> IPv4Network | None:
    """The prefix a standard ACL source names (``any`` is 0.0.0.0/0), or None when it is not one
    (parsed once per source: every switch lists the same few, and the rules read them all).

    Example:
        >>> acl_source_prefix("host 172.20.0.40"), acl_source_prefix("any"), acl_source_prefix("x")
        (IPv4Network('172.20.0.40/32'), IPv4Network('0.0.0.0/0'), None)
    """
    words = source.split()
    text = {"any": "0.0.0.0/0"}.get(source, words[1] + "/32" if words[:1] == ["host"] and len(words) == 2 else source)
    try:
        return IPv4Network(text)
    except ValueError:
        return None


def aaa_server_keyword(protocol: str) -> str:
    """The command that names a server of an AAA protocol.

    Example:
        >>> aaa_server_keyword("tacacs+"), aaa_server_keyword("radius")
        ('tacacs-server', 'radius-server')
    """
    return {"tacacs+": "tacacs-server", "radius": "radius-server"}[protocol]


def aaa_methods(protocol: str, group: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Method lists: the server group first, local accounts when no server answers.

    TACACS+ also authorizes every command; RADIUS cannot, so only the exec session is.

    Example:
        >>> authentication, authorization, accounting = aaa_methods("radius", "AAA")
        >>> authentication, authorization, accounting
        (('login default group AAA local',), ('exec default group AAA local',), ('exec default start-stop group AAA',))
    """
    authentication = (f"login default group {group} local",)
    authorization = [f"exec default group {group} local"]
    accounting = [f"exec default start-stop group {group}"]
    if protocol == "tacacs+":
        authorization.append(f"commands all default group {group} local")
        accounting.append(f"commands all default start-stop group {group}")
    return authentication, tuple(authorization), tuple(accounting)


def error_correction(fec: str) -> str:
    """The forward error correction line of a port: an encoding, or FEC off.

    Examples:
        >>> error_correction("reed-solomon"), error_correction("disabled")
        ('error-correction encoding reed-solomon', 'no error-correction encoding')
    """
    return "no error-correction encoding" if fec == "disabled" else f"error-correction encoding {fec}"


STORM_CONTROL_KINDS = {"broadcast": "broadcast", "multicast": "multicast", "unknown_unicast": "unknown-unicast"}


def storm_control(levels: dict[str, float | None]) -> tuple[tuple[str, str], ...]:
    """Storm-control levels (percent of the port's speed) as EOS names the traffic kinds; None is off.

    Example:
        >>> storm_control({"broadcast": 1.0, "multicast": None, "unknown_unicast": 0.5})
        (('broadcast', '1'), ('unknown-unicast', '0.5'))
    """
    return tuple((STORM_CONTROL_KINDS[kind], f"{level:g}") for kind, level in levels.items() if level is not None)


def default_traffic_class(dscp: int) -> int:
    """The traffic class EOS gives ``dscp`` on a port that trusts DSCP when no ``qos map dscp`` names it.

    Examples:
        >>> default_traffic_class(0), default_traffic_class(10), default_traffic_class(24), default_traffic_class(50)
        (1, 0, 3, 6)
    """
    return data().default_dscp_to_tc[dscp // 8]


def vlan_range(first: int, last: int) -> str:
    """A VLAN range as ``vlan internal order ... range`` takes it.

    Example:
        >>> vlan_range(1006, 1199)
        '1006 1199'
    """
    return f"{first} {last}"


def vlan_list(vlans: Iterable[int]) -> str:
    """VLAN ids as ``no spanning-tree vlan-id`` and trunk lists take them: runs as ranges.

    Examples:
        >>> vlan_list([4094, 4093])
        '4093-4094'
        >>> vlan_list([100, 4090, 4094, 101])
        '100-101,4090,4094'
    """
    spans: list[list[int]] = []
    for vlan in sorted(set(vlans)):
        if spans and spans[-1][1] == vlan - 1:
            spans[-1][1] = vlan
        else:
            spans.append([vlan, vlan])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def matched_prefix_list(clause: str) -> str | None:
    """The prefix list a route-map match clause names, or None for another kind of match.

    Example:
        >>> matched_prefix_list("ip address prefix-list PL-LOOPBACKS"), matched_prefix_list("tag 7")
        ('PL-LOOPBACKS', None)
    """
    words = clause.split()
    return words[3] if words[:3] == ["ip", "address", "prefix-list"] and len(words) > 3 else None


def set_origin(origin: str) -> str:
    """A route-map clause setting the BGP origin.

    Example:
        >>> set_origin("incomplete")
        'origin incomplete'
    """
    return f"origin {origin}"


def match_prefix_list(name: str) -> str:
    """A route-map clause matching prefix-list ``name``.

    Example:
        >>> match_prefix_list("PL-LOOPBACKS")
        'ip address prefix-list PL-LOOPBACKS'
    """
    return f"ip address prefix-list {name}"


_INTERFACE_LINES: tuple[tuple[re.Pattern[str], str, type[int] | type[str] | bool], ...] = (
    (re.compile(r"^no shutdown$"), "shutdown", False),
    (re.compile(r"^mtu (\d+)$"), "mtu", int),
    (re.compile(r"^vrf (\S+)$"), "vrf", str),
    (re.compile(r"^ip address (\d+\.\d+\.\d+\.\d+/\d+)$"), "ip_address", str),
    (re.compile(r"^ip virtual-router address (\S+)$"), "virtual_ip", str),
    (re.compile(r"^service-profile (\S+)$"), "service_profile", str),
    (re.compile(r"^no switchport$"), "routed", True),
    (re.compile(r"^switchport$"), "routed", False),
    (re.compile(r"^qos trust dscp$"), "qos_trust_dscp", True),
    (re.compile(r"^ip ospf network point-to-point$"), "ospf_point_to_point", True),
    (re.compile(r"^spanning-tree portfast$"), "portfast", True),
    (re.compile(r"^spanning-tree bpduguard enable$"), "bpduguard", True),
)
"""Interface lines of the structured :class:`~compiler.structured.Interface` fields that no
specific file of the intent writes: an ``extra_config`` line among them replaces the field."""


def interface_line_field(line: str) -> tuple[str, int | str | bool] | None:
    """The structured interface field an interface config line sets, and its value.

    Only fields the intent's specific files do not write (those lines are refused in
    ``extra_config``, :mod:`core.expressible`); ``None`` for any other line.

    Examples:
        >>> interface_line_field("mtu 1500"), interface_line_field("no switchport")
        (('mtu', 1500), ('routed', True))
        >>> interface_line_field("no shutdown")  # bringing up a port the design leaves unused
        ('shutdown', False)
        >>> interface_line_field("load-interval 5") is None
        True
    """
    text = " ".join(line.split())
    for pattern, field, kind in _INTERFACE_LINES:
        match = pattern.match(text)
        if match is not None:
            if isinstance(kind, bool):
                return field, kind
            return field, kind(match.group(1))
    return None
