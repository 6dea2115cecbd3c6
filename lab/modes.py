"""Per-mode command tables: what each EOS configuration mode accepts, and how.

Every mode lists the command families the lab knows (an allow-list). A line
that matches no family of the current mode or of any parent mode is rejected
with EOS's parser error, so a template bug fails in the lab as on a switch.

Each family is a :class:`Cmd`:

* ``spec``: the grammar (see :mod:`lab.grammar`);
* ``key``: what makes the line unique in its block. A new line with the same
  key replaces the old one in place (``mtu 9214`` replaces ``mtu 1500``).
  ``None`` means the whole line is its own key (``ntp server``-like lists);
  an int means the first N words; a callable computes it;
* ``neg``: ``"store"`` when ``no <line>`` is a setting EOS keeps and prints
  (``no shutdown``, ``no switchport``); otherwise ``no <line>`` removes;
* ``opens``: the sub-mode the line enters, if any;
* ``canon``: rewrites the canonical words (hashing a clear-text secret).

How a line that arrives without indentation finds its mode (as EOS does):
the current mode is tried first, then each parent up to the top level, and
the first mode with a matching family takes it.

Examples:
    >>> [c.spec.text for c in MODES["txq"].cmds][:2]
    ['priority strict', 'no priority']
    >>> MODES["interface"].parents
    ('config',)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from lab.grammar import Spec, compile_spec
from lab.hashing import sha512_crypt, type7_encode

Words = tuple[str, ...]
KeyFn = Callable[[Words], str]


@dataclass(frozen=True)
class Cmd:
    """One command family of a mode."""

    spec: Spec
    key: int | KeyFn | None = None
    neg: str = "remove"
    opens: str | None = None
    canon: Callable[[Words], Words] | None = None

    def key_of(self, words: Words) -> str:
        """The uniqueness key of a canonical line (``no`` already stripped)."""
        if self.key is None:
            return " ".join(words)
        if isinstance(self.key, int):
            return " ".join(words[: self.key])
        return self.key(words)


@dataclass(frozen=True)
class Mode:
    """A configuration mode: its families and the modes it can be entered from."""

    name: str
    parents: tuple[str, ...]
    cmds: tuple[Cmd, ...] = field(default_factory=tuple)


def _c(
    spec: str,
    key: int | KeyFn | None = None,
    *,
    neg: str = "remove",
    opens: str | None = None,
    canon: Callable[[Words], Words] | None = None,
) -> Cmd:
    return Cmd(compile_spec(spec), key, neg, opens, canon)


# --------------------------------------------------------------------------- canonicalisers


def _hash_secret(words: Words) -> Words:
    """``secret [0] clear`` -> ``secret sha512 $6$...``, as EOS stores it."""
    out = list(words)
    if "secret" not in out:
        return words
    i = out.index("secret")
    rest = out[i + 1 :]
    if len(rest) == 1:
        return (*out[: i + 1], "sha512", sha512_crypt(rest[0]))
    if rest and rest[0] == "0":
        return (*out[: i + 1], "sha512", sha512_crypt(rest[1]))
    return words


def _type7(keyword: str) -> Callable[[Words], Words]:
    """``key [0] clear`` -> ``key 7 <type7>``: EOS shows reversible secrets in type 7."""

    def canon(words: Words) -> Words:
        if keyword not in words:
            return words
        i = words.index(keyword)
        rest = words[i + 1 :]
        if len(rest) == 1:
            return (*words[: i + 1], "7", type7_encode(rest[0]), *rest[1:])
        if rest and rest[0] == "0":
            return (*words[: i + 1], "7", type7_encode(rest[1]), *rest[2:])
        return words

    return canon


def _key_ip_address(words: Words) -> str:
    # Secondary addresses are a list; the primary is single-valued.
    return " ".join(words) if words[-1] == "secondary" else "ip address"


def _key_upto(*stop: str) -> KeyFn:
    """Key = words up to and including the first word in ``stop``."""

    def key(words: Words) -> str:
        for i, w in enumerate(words):
            if w in stop:
                return " ".join(words[: i + 1])
        return " ".join(words)

    return key


def _key_route_map_dir(words: Words) -> str:
    return " ".join((*words[:3], words[-1]))


# --------------------------------------------------------------------------- families

_NEIGHBOR = (
    _c("neighbor <peer> peer group [ <word> ]", 4),
    _c("neighbor <peer> remote-as <asn>", 3),
    _c("neighbor <peer> description <line>", 3),
    _c("neighbor <peer> bfd", 3, neg="store"),
    _c("neighbor <peer> send-community [ <line> ]", 3, neg="store"),
    _c("neighbor <peer> next-hop-self", 3, neg="store"),
    _c("neighbor <peer> shutdown", 3, neg="store"),
    _c("neighbor <peer> route-reflector-client", 3),
    _c("neighbor <peer> allowas-in [ <int> ]", 3),
    _c("neighbor <peer> ebgp-multihop [ <int> ]", 3),
    _c("neighbor <peer> maximum-routes <int> [ <line> ]", 3),
    _c("neighbor <peer> password [ ( 0 | 7 ) ] <word>", 3, canon=_type7("password")),
    _c("neighbor <peer> update-source <ifname>", 3),
    _c("neighbor <peer> local-as <asn> [ <line> ]", 3),
    _c("neighbor <peer> timers <int> <int>", 3),
    _c("neighbor <peer> weight <int>", 3),
    _c("neighbor <peer> route-map <word> ( in | out )", _key_route_map_dir),
    _c("neighbor <peer> activate", 3, neg="store"),
    _c("neighbor <peer> next-hop address-family ipv6 [ originate ]", 4),
    _c("neighbor <peer> additional-paths ( receive | send any )", 4),
    _c("neighbor <peer> default-originate [ <line> ]", 3),
    _c("neighbor <peer> rib-in pre-policy retain [ <line> ]", 3),
    _c("neighbor default encapsulation ( mpls | vxlan ) [ <line> ]", 3),
)
_REDISTRIBUTE = _c(
    "redistribute ( connected | static | ospf | bgp | isis | attached-host | learned ) [ route-map <word> ]",
    2,
)
_TXQ_OPENER = _c("( tx-queue | uc-tx-queue | mc-tx-queue ) <int>", None, opens="txq")
_PFC_PRIORITY = _c("priority-flow-control priority <int> ( drop | no-drop )", 3)
_PFC_WATCHDOG = _c("priority-flow-control pause watchdog", 3, neg="store")
_PFC_ON = _c("priority-flow-control ( on | off | mode on )", 1)
_QOS_TRUST = _c("qos trust ( dscp | cos | disabled )", 2)

MODES: dict[str, Mode] = {}


def _mode(name: str, parents: tuple[str, ...], *cmds: Cmd) -> None:
    MODES[name] = Mode(name, parents, cmds)


_mode(
    "config",
    (),
    # --- sub-mode openers
    _c("interface <ifname>", None, opens="interface"),
    _c("router bgp <asn>", 2, opens="router-bgp"),
    _c("router ospf <int> [ vrf <word> ]", None, opens="router-ospf"),
    _c("router bfd", None, opens="router-bfd"),
    _c("router general", None, opens="router-general"),
    _c("vlan <vlans>", None, opens="vlan"),
    _c("vrf instance <word>", None, opens="vrf-instance"),
    _c("ip prefix-list <word>", None, opens="prefix-list"),
    _c("ipv6 prefix-list <word>", None, opens="prefix-list"),
    _c("route-map <word> ( permit | deny ) <int>", None, opens="route-map"),
    _c("ip access-list [ standard ] <word>", None, opens="acl"),
    _c("ipv6 access-list [ standard ] <word>", None, opens="acl"),
    _c("mac access-list <word>", None, opens="acl"),
    _c("management api http-commands", None, opens="mgmt-api"),
    _c("management ssh", None, opens="mgmt-ssh"),
    _c("management console", None, opens="mgmt-console"),
    _c("management api gnmi", None, opens="mgmt-gnmi"),
    _c("management security", None, opens="mgmt-security"),
    _c("mlag configuration", None, opens="mlag"),
    _c("qos profile <word>", None, opens="qos-profile"),
    _c("aaa group server ( tacacs+ | radius ) <word>", None, opens="aaa-group"),
    _c("daemon <word>", None, opens="daemon"),
    _c("spanning-tree mst configuration", None, opens="mst"),
    # --- system
    _c("boot system <word>", 2),
    _c("hostname <word>", 1),
    _c("service routing protocols model ( multi-agent | ribd )", 4),
    _c("service routing configuration bgp no-equals-default", None),
    _c("vlan internal order ascending range <int> <int>", 3),
    _c("clock timezone <word>", 2),
    _c("transceiver qsfp default-mode <word>", 3),
    _c("load-interval default <int>", 2),
    _c("errdisable recovery cause <word>", None),
    _c("errdisable recovery interval <int>", 3),
    _c("lacp system-priority <int>", 2),
    _c("port-channel load-balance <line>", None),
    _c("queue-monitor length [ <line> ]", None),
    _c("hardware counter feature <line>", None),
    _c("hardware speed-group <int> serdes <word>", 3),
    _c("hardware tcam profile <word>", 3),
    _c("platform <word> <line>", None),
    _c("mac address-table aging-time <int>", 2),
    _c("ip virtual-router mac-address <mac>", 3),
    _c("ip address virtual source-nat vrf <word> address <ip>", 6),
    _c("service interface inactive port-id allocation disabled", None, neg="store"),
    _c("lldp run", 2, neg="store"),
    _c("lldp timer <int>", 2),
    _c("lldp hold-time <int>", 2),
    _c("lldp management-address [ vrf <word> ] <ifname>", 2),
    _c("sflow ( run | sample <int> | polling-interval <int> )", 2),
    _c("sflow [ vrf <word> ] ( destination <ip> [ <int> ] | source-interface <ifname> )", None),
    # --- DNS
    _c("ip domain lookup [ vrf <word> ] source-interface <ifname>", _key_upto("source-interface")),
    _c("ip name-server [ vrf <word> ] <ip>...", None),
    _c("dns domain <word>", 2),
    _c("ip domain-name <word>", 2),
    _c("ip host <word> <ip>...", 3),
    # --- routing
    _c("ip routing [ vrf <word> ]", None, neg="store"),
    _c("ipv6 unicast-routing [ vrf <word> ]", None, neg="store"),
    _c("ip icmp redirect", None, neg="store"),
    _c(
        "ip route [ vrf <word> ] <pfx> ( <ip> | <ifname> | null0 ) [ <ip> ] [ <int> ] [ tag <int> ] [ name <word> ]",
        None,
    ),
    _c("ipv6 route [ vrf <word> ] <pfx6> ( <ipv6> | <ifname> | null0 ) [ <int> ]", None),
    _c(
        "ip prefix-list <word> seq <int> ( permit | deny ) <pfx> [ ( eq | ge | le ) <int> ] [ le <int> ]",
        None,
    ),
    _c("ip community-list <line>", None),
    _c("ip as-path access-list <line>", None),
    # --- AAA and users
    _c("no aaa root", 2),
    _c("aaa root secret [ ( 0 | sha512 ) ] <word>", 2, canon=_hash_secret),
    _c(
        "username <word> [ privilege <int> ] [ role <word> ] ( nopassword | secret [ ( 0 | 5 | sha512 ) ] <word> )",
        2,
        canon=_hash_secret,
    ),
    _c("username <word> ssh-key <line>", 3),
    _c("enable password [ ( 0 | sha512 ) ] <word>", 2, canon=_hash_secret),
    _c("aaa authentication login ( default | console ) <line>", 4),
    _c("aaa authentication policy <line>", None),
    _c("aaa authorization exec default <line>", 4),
    _c("aaa authorization commands ( all | <int> ) default <line>", 5),
    _c("aaa authorization serial-console", None, neg="store"),
    _c("aaa accounting exec ( default | console ) <line>", 4),
    _c("aaa accounting commands ( all | <int> ) ( default | console ) <line>", 5),
    _c("aaa accounting system default <line>", 4),
    _c("ip ( tacacs | radius ) [ vrf <word> ] source-interface <ifname>", _key_upto("source-interface")),
    _c(
        "tacacs-server host ( <ip> | <word> ) [ single-connection ] [ vrf <word> ] [ port <int> ] "
        "[ timeout <int> ] [ key [ ( 0 | 7 | 8a ) ] <word> ]",
        _key_upto("port", "timeout", "key"),
        canon=_type7("key"),
    ),
    _c("tacacs-server key [ ( 0 | 7 ) ] <word>", 2, canon=_type7("key")),
    _c("tacacs-server timeout <int>", 2),
    _c(
        "radius-server host ( <ip> | <word> ) [ vrf <word> ] [ key [ ( 0 | 7 ) ] <word> ]",
        _key_upto("key"),
        canon=_type7("key"),
    ),
    # --- NTP, logging, SNMP
    _c("ntp local-interface [ vrf <word> ] <ifname>", 2),
    _c(
        "ntp server [ vrf <word> ] ( <ip> | <word> ) [ prefer ] [ iburst ] [ burst ] "
        "[ source <ifname> ] [ local-interface <ifname> ] [ version <int> ] [ key <int> ]",
        _key_upto("prefer", "iburst", "burst", "source", "local-interface", "version", "key"),
    ),
    _c("ntp authenticate", 2, neg="store"),
    _c("ntp authentication-key <int> ( md5 | sha1 ) [ ( 0 | 7 ) ] <word>", 3, canon=_type7("md5")),
    _c("ntp trusted-key <int>", 2),
    _c("logging buffered [ <int> ] [ <word> ]", 2),
    _c("logging ( trap | console | monitor | facility ) <word>", 2, neg="store"),
    _c("logging synchronous [ level <word> ]", 2),
    _c("logging repeat-messages", 2),
    _c("logging format timestamp ( high-resolution | traditional )", 3),
    _c("logging format hostname fqdn", 3),
    _c("logging format sequence-numbers", 3, neg="store"),
    _c("logging [ vrf <word> ] host ( <ip> | <word> ) [ <int> ] [ protocol ( tcp | udp ) ]", None),
    _c("logging [ vrf <word> ] source-interface <ifname>", _key_upto("source-interface")),
    _c("logging event <line>", None),
    _c("snmp-server contact <line>", 2),
    _c("snmp-server location <line>", 2),
    _c("snmp-server [ vrf <word> ] local-interface <ifname>", _key_upto("local-interface")),
    _c("snmp-server vrf <word>", None),
    _c("snmp-server view <word> <word> ( included | excluded )", None),
    _c(
        "snmp-server group <word> ( v1 | v2c | v3 ) [ ( auth | noauth | priv ) ] [ read <word> ] "
        "[ write <word> ] [ notify <word> ]",
        4,
    ),
    _c(
        "snmp-server user <word> <word> ( v1 | v2c | v3 ) [ localized <word> ] "
        "[ auth ( md5 | sha | sha256 | sha384 | sha512 ) <word> "
        "[ priv ( des | aes | aes192 | aes256 ) <word> ] ]",
        3,
    ),
    _c(
        "snmp-server host ( <ip> | <word> ) [ vrf <word> ] [ ( traps | informs ) ] "
        "[ version ( 1 | 2c | 3 ( auth | noauth | priv ) ) ] <word> [ udp-port <int> ]",
        None,
    ),
    _c("snmp-server community <word> [ view <word> ] [ ( ro | rw ) ] [ <word> ]", 3),
    _c("snmp-server enable traps [ <line> ]", None, neg="store"),
    _c("snmp-server engineid local <word>", 3),
    # --- spanning tree
    _c("spanning-tree mode ( mstp | rstp | rapid-pvst | none )", 2),
    _c("spanning-tree mst <int> priority <int>", 3),
    _c("spanning-tree priority <int>", 2),
    _c("spanning-tree vlan-id <vlans> priority <int>", 3),
    _c("no spanning-tree vlan-id <vlans>", None),
    _c("spanning-tree ( edge-port | portfast ) bpduguard default", 3, neg="store"),
    # --- QoS / RoCE
    _c("qos map dscp <int>... to traffic-class <int>", None),
    _c("qos map traffic-class <int>... to tx-queue <int>", None),
    _c("qos map cos <int>... to traffic-class <int>", None),
    _c("qos map traffic-class <int>... to ( dscp | cos ) <int>", None),
    _c("priority-flow-control pause watchdog action ( drop | errdisable | notify-only )", 4),
    _c(
        "priority-flow-control pause watchdog default ( timeout | polling-interval | recovery-time ) <num> [ forced ]",
        5,
    ),
    _c("priority-flow-control pause watchdog hardware <line>", None),
    _c("priority-flow-control all off", 3, neg="store"),
)

_mode(
    "interface",
    ("config",),
    _c("description <line>", 1),
    _c("shutdown", 1, neg="store"),
    _c("mtu <int>", 1),
    _c("l2 mtu <int>", 2),
    _c("speed ( forced <speed> | auto [ <speed> ] | <speed> )", 1),
    _c("error-correction encoding ( fire-code | reed-solomon )", None),
    _c("link-debounce time <int> [ <int> ]", 2),
    _c("flowcontrol ( send | receive ) ( on | off )", 2),
    _c("load-interval <int>", 1),
    _c("logging event <line>", None),
    _c("switchport", 1, neg="store"),
    _c("switchport mode ( access | trunk | dot1q-tunnel | tap | tool | routed )", 2),
    _c("switchport access vlan <int>", 3),
    _c("switchport trunk allowed vlan ( <vlans> | all | none )", 4),
    _c("switchport trunk native vlan ( <int> | tag )", 4),
    _c("switchport trunk group <word>", None),
    _c("spanning-tree portfast [ ( network | auto | edge ) ]", 2, neg="store"),
    _c("spanning-tree bpduguard ( enable | disable )", 2),
    _c("spanning-tree bpdufilter ( enable | disable )", 2),
    _c("spanning-tree link-type point-to-point", 2),
    _c("spanning-tree guard ( root | loop | none )", 2),
    _c("storm-control ( broadcast | multicast | unknown-unicast | all ) level <line>", 2),
    _c("channel-group <int> mode ( active | passive | on )", 1),
    _c("mlag <int>", 1),
    _c("port-channel lacp fallback ( individual | static )", 3),
    _c("port-channel lacp fallback timeout <int>", 4),
    _c("port-channel min-links <int>", 2),
    _c("lacp ( rate ( fast | normal ) | port-priority <int> )", 2),
    _c("vrf <word>", 1),
    _c("ip address <pfx> [ secondary ]", _key_ip_address),
    _c("ip address virtual <pfx>", 3),
    _c("ipv6 enable", 2, neg="store"),
    _c("ipv6 address <pfx6> [ link-local ]", None),
    _c("ip virtual-router address ( <ip> | <pfx> )", None),
    _c("autostate", 1, neg="store"),
    _c("ip ospf network point-to-point", 3),
    _c("ip ospf area <word>", 3),
    _c("ip ospf cost <int>", 3),
    _c("ip ospf neighbor bfd", 3, neg="store"),
    _c("ip ospf authentication [ <line> ]", 3),
    _c("ip ospf authentication-key [ ( 0 | 7 | 8a ) ] <word>", 3, canon=_type7("authentication-key")),
    _c(
        "ip ospf message-digest-key <int> ( md5 | sha1 | sha256 | sha384 | sha512 ) [ ( 0 | 7 | 8a ) ] <word>",
        4,
    ),
    _c("ip helper-address <ip> [ <line> ]", None),
    _c("arp aging timeout <int>", 3),
    _QOS_TRUST,
    _c("qos cos <int>", 2),
    _c("qos dscp <int>", 2),
    _c("service-profile <word>", 1),
    _c("service-policy type qos input <word>", 4),
    _PFC_ON,
    _PFC_PRIORITY,
    _PFC_WATCHDOG,
    _c("dcbx mode ( ieee | cee )", 2),
    _c("bfd interval <int> min-rx <int> multiplier <int>", 2),
    _c("encapsulation dot1q vlan <int>", 3),
    _c("vxlan source-interface <ifname>", 2),
    _c("vxlan udp-port <int>", 2),
    _c("vxlan vlan <int> vni <int>", 3),
    _c("vxlan vrf <word> vni <int>", 3),
    _c("vxlan virtual-router encapsulation mac-address mlag-system-id", 3),
    _c("pim ipv4 sparse-mode", 3, neg="store"),
    _c("ip igmp <line>", None),
    _TXQ_OPENER,
)

_mode(
    "txq",
    ("interface", "qos-profile"),
    _c("priority strict", 1),
    _c("no priority", 1),
    _c("bandwidth percent <int>", 2),
    _c("bandwidth guaranteed <int> [ <word> ]", 2),
    _c("shape rate <int> [ <word> ]", 2),
    _c(
        "random-detect ecn minimum-threshold <int> <word> maximum-threshold <int> <word> "
        "[ max-mark-probability <int> ] [ weight <int> ]",
        2,
    ),
    _c("random-detect ecn count", 3, neg="store"),
    _c(
        "random-detect drop minimum-threshold <int> <word> maximum-threshold <int> <word> "
        "drop-probability <int> [ weight <int> ]",
        2,
    ),
)

_mode(
    "qos-profile",
    ("config",),
    _PFC_ON,
    _PFC_PRIORITY,
    _PFC_WATCHDOG,
    _QOS_TRUST,
    _c("qos cos <int>", 2),
    _c("qos dscp <int>", 2),
    _c("service-policy type qos input <word>", 4),
    _c("shape rate <int> [ <word> ]", 2),
    _c("priority-flow-control pause watchdog port action ( drop | errdisable | notify-only )", 5),
    _TXQ_OPENER,
)

_mode(
    "mlag",
    ("config",),
    _c("domain-id <word>", 1),
    _c("local-interface <ifname>", 1),
    _c("peer-address heartbeat <ip> [ vrf <word> ]", 2),
    _c("peer-address <ip>", 1),
    _c("peer-link <ifname>", 1),
    _c("dual-primary detection delay <int> [ action errdisable all-interfaces ]", 3),
    _c("dual-primary recovery delay mlag <int> non-mlag <int>", 3),
    _c("reload-delay ( mlag | non-mlag ) <int>", 2),
    _c("reload-delay <int>", 1),
    _c("heartbeat-interval <int>", 1),
    _c("shutdown", 1, neg="store"),
)

_BGP_COMMON = (
    _c("router-id <ip>", 1),
    _c("bgp default ( ipv4-unicast | ipv6-unicast )", None, neg="store"),
    _c("bgp asn notation ( asplain | asdot )", 3),
    _c("bgp bestpath <line>", None),
    _c("bgp log-neighbor-changes", 2, neg="store"),
    _c("bgp listen range <line>", None),
    _c("bgp additional-paths <line>", None),
    _c("distance bgp <int> <int> <int>", 2),
    _c("maximum-paths <int> [ ecmp <int> ]", 1),
    _c("timers bgp <int> <int>", 2),
    _c("graceful-restart restart-time <int>", 2),
    _c("graceful-restart", 1, neg="store"),
    _c("graceful-restart-helper", 1, neg="store"),
    _c("update ( wait-for-convergence | wait-install )", 2, neg="store"),
    _c("rd <word>", 1),
    _c("route-target ( both | import | export ) [ ( evpn | vpn-ipv4 | vpn-ipv6 ) ] <word>", None),
    _c("network <pfx> [ route-map <word> ]", 2),
    _c("aggregate-address <pfx> [ <line> ]", 2),
    _REDISTRIBUTE,
    *_NEIGHBOR,
    _c(
        "address-family ( ipv4 [ ( multicast | labeled-unicast ) ] | ipv6 [ multicast ] | evpn | vpn-ipv4 | vpn-ipv6 )",
        None,
        opens="bgp-af",
    ),
)

_mode(
    "router-bgp",
    ("config",),
    *_BGP_COMMON,
    _c("vrf <word>", None, opens="bgp-vrf"),
    _c("vlan <int>", None, opens="bgp-vlan"),
    _c("vlan-aware-bundle <word>", None, opens="bgp-bundle"),
)
_mode("bgp-vrf", ("router-bgp",), *_BGP_COMMON)
_mode(
    "bgp-af",
    ("router-bgp", "bgp-vrf"),
    *_NEIGHBOR,
    _c("network <pfx> [ route-map <word> ]", 2),
    _REDISTRIBUTE,
    _c("maximum-paths <int> [ ecmp <int> ]", 1),
    _c("bgp additional-paths <line>", None),
)
_BGP_VLAN = (
    _c("rd <word>", 1),
    _c("route-target ( both | import | export ) <word>", None),
    _c("redistribute ( learned | static | router-mac <line> )", 2),
)
# A ``vlan N`` block has no ``vlan`` line of its own: a flat ``vlan 160`` after ``vlan 110``'s
# lines is the next block, not a child (only a bundle lists its VLANs).
_mode("bgp-vlan", ("router-bgp",), *_BGP_VLAN)
_mode("bgp-bundle", ("router-bgp",), *_BGP_VLAN, _c("vlan <vlans>", 1))

_mode(
    "router-ospf",
    ("config",),
    _c("router-id <ip>", 1),
    _c("passive-interface ( default | <ifname> )", None, neg="store"),
    _c("network <pfx> area <word>", 2),
    _c("maximum-paths <int>", 1),
    _c("max-lsa <int> [ <line> ]", 1),
    _REDISTRIBUTE,
    _c("bfd default", 2, neg="store"),
    _c("log-adjacency-changes [ detail ]", 1, neg="store"),
    _c("auto-cost reference-bandwidth <int>", 2),
    _c("timers <line>", None),
    _c("area <word> <line>", None),
    _c("distance ospf <line>", 3),
    _c("default-information originate [ always ]", 2),
    _c("shutdown", 1, neg="store"),
)

_mode(
    "router-bfd",
    ("config",),
    _c("interval <int> min-rx <int> multiplier <int> [ default ]", 1),
    _c("multihop interval <int> min-rx <int> multiplier <int>", 2),
)
_mode("router-general", ("config",), _c("router-id ( ipv4 <ip> | ipv6 <ipv6> )", 2))
_mode(
    "vlan",
    ("config",),
    _c("name <word>", 1),
    _c("trunk group <word>", None),
    _c("state ( active | suspend )", 1),
)
_mode("vrf-instance", ("config",), _c("description <line>", 1))
_mode(
    "prefix-list",
    ("config",),
    _c("seq <int> ( permit | deny ) ( <pfx> | <pfx6> ) [ ( eq | ge | le ) <int> ] [ le <int> ]", 2),
)
_mode(
    "route-map",
    ("config",),
    _c("description <line>", 1),
    _c("match ( ip | ipv6 ) address prefix-list <word>", 4),
    _c("match ( interface | community | as-path | tag | source-protocol ) <line>", 2),
    _c("set ( local-preference | metric | weight | tag | origin | distance ) <word>", 2),
    _c("set community <line>", 2),
    _c("set as-path <line>", 3),
    _c("set ( ip | ipv6 ) next-hop <line>", 3),
    _c("continue [ <int> ]", 1),
)
_mode(
    "acl",
    ("config",),
    _c("<int> ( permit | deny | remark ) <line>", 1),
    _c("statistics per-entry", 2, neg="store"),
)
_mode(
    "mgmt-api",
    ("config",),
    _c("protocol ( http | https ) [ localhost ] [ port <int> ]", 2, neg="store"),
    _c("protocol unix-socket", 2, neg="store"),
    _c("shutdown", 1, neg="store"),
    _c("cors allowed-origin <line>", None),
    _c("vrf <word>", None, opens="mgmt-vrf"),
)
_mode(
    "mgmt-vrf",
    ("mgmt-api", "mgmt-ssh", "mgmt-gnmi"),
    _c("shutdown", 1, neg="store"),
    _c("( ip | ipv4 | ipv6 ) access-group <word> [ in ]", 2),
)
_mode(
    "mgmt-ssh",
    ("config",),
    _c("idle-timeout <int>", 1),
    _c("authentication mode ( keyboard-interactive | password )", 2),
    _c("( ip | ipv4 | ipv6 ) access-group <word> [ vrf <word> ] in", None),
    _c("client-alive ( interval | count-max ) <int>", 2),
    _c("log-level <word>", 1),
    _c("cipher <line>", 1),
    _c("shutdown", 1, neg="store"),
    _c("vrf <word>", None, opens="mgmt-vrf"),
)
_mode("mgmt-console", ("config",), _c("idle-timeout <int>", 1))
_mode(
    "mgmt-gnmi",
    ("config",),
    _c("transport grpc <word>", None, opens="mgmt-transport"),
    _c("provider eos-native", 1, neg="store"),
)
_mode(
    "mgmt-transport",
    ("mgmt-gnmi",),
    _c("ssl profile <word>", 2),
    _c("vrf <word>", 1),
    _c("port <int>", 1),
    _c("ip access-group <word>", 2),
    _c("notification timestamp ( send-time | last-change-time )", 2),
)
_mode(
    "mgmt-security",
    ("config",),
    _c("ssl profile <word>", None, opens="ssl-profile"),
    _c("password minimum length <int>", 3),
    _c("password encryption-key common", 3, neg="store"),
    _c("password encryption reversible <word>", 3),
    _c("entropy source <line>", 2),
    _c("session shared-secret profile <word>", None, opens="shared-secret"),
)
_mode("shared-secret", ("mgmt-security",), _c("secret <word> <line>", 2))
_mode(
    "ssl-profile",
    ("mgmt-security",),
    _c("certificate <word> key <word>", 1),
    _c("tls versions <line>", 2),
    _c("cipher-list <line>", 1),
    _c("trust certificate <word>", None),
    _c("chain certificate <word>", None),
    _c("crl <word>", None),
)
_mode("aaa-group", ("config",), _c("server ( <ip> | <word> ) [ vrf <word> ] [ port <int> ]", None))
_mode(
    "daemon",
    ("config",),
    _c("exec <line>", 1),
    _c("shutdown", 1, neg="store"),
)
_mode(
    "mst",
    ("config",),
    _c("name <word>", 1),
    _c("revision <int>", 1),
    _c("instance <int> vlan <vlans>", 2),
)


#: EOS command families the lab does not model, per mode (a family is its first words): a line
#: of one is stored and printed back exactly as written, unchecked. Everything else keeps strict
#: validation, so a typo in a line the project generates is still EOS's ``Invalid input``. The
#: lines inside an unmodelled block are stored as they come (indentation gives their level).
VERBATIM: dict[str, tuple[str, ...]] = {
    "config": (
        "alias",
        "banner",
        "dot1x",
        "event-handler",
        "event-monitor",
        "ip dhcp",
        "ip igmp",
        "ip multicast",
        "ip ssh",
        "ipv6 dhcp",
        "ipv6 nd",
        "key chain",
        "mac security",
        "management cvx",
        "management defaults",
        "monitor",
        "mpls",
        "peer-filter",
        "policy-map",
        "class-map",
        "prompt",
        "ptp",
        "router isis",
        "router igmp",
        "router msdp",
        "router multicast",
        "router pim",
        "router traffic-engineering",
        "system",
        "tap",
        "terminal",
        "traffic-policies",
    ),
    "interface": (
        "dot1x",
        "evpn",
        "isis",
        "mac security",
        "mpls",
        "multicast",
        "node-segment",
        "ptp",
        "sflow",
        "tcp",
        "traffic-policy",
    ),
}

#: Unmodelled families that open a block, with the sub-blocks inside them: only needed for
#: lines that arrive without indentation (NAPALM strips it).
VERBATIM_BLOCKS: dict[str, tuple[str, ...]] = {
    "router isis": ("address-family", "segment-routing"),
    "router multicast": ("ipv4", "ipv6", "vrf"),
    "router pim": ("vrf", "ipv4", "ipv6"),
    "router igmp": ("vrf",),
    "router msdp": ("vrf", "peer"),
    "router traffic-engineering": ("segment-routing", "rsvp"),
    "mpls ldp": (),
    "mpls rsvp": (),
    "system l1": (),
    "management cvx": (),
    "key chain": ("key",),
    "mac security": ("profile",),
    "monitor connectivity": ("host", "vrf"),
    "event-handler": (),
    "policy-map": ("class",),
    "class-map": (),
    "peer-filter": (),
}

#: Unmodelled families whose text follows on the next lines up to ``EOF`` (NAPALM sends the
#: text as the command's ``input``).
HEREDOCS = ("banner login", "banner motd")


def verbatim_family(mode: str, line: str) -> str | None:
    """The unmodelled family ``line`` belongs to in ``mode`` (``no``/``default`` ignored), or None.

    Examples:
        >>> verbatim_family("config", "router isis 0"), verbatim_family("interface", "no isis enable 0")
        ('router isis', 'isis')
        >>> verbatim_family("config", "hostnamee x") is None
        True
    """
    words = line.split()
    if words and words[0] in ("no", "default"):
        words = words[1:]
    text = " ".join(words) + " "
    for family in VERBATIM.get(mode, ()):
        if text.startswith(family + " "):
            return family
    return None


def verbatim_opener(line: str, inside: str | None = None) -> str | None:
    """The block family ``line`` opens (at top level, or inside the block family ``inside``).

    Examples:
        >>> verbatim_opener("router multicast"), verbatim_opener("ipv4", "router multicast")
        ('router multicast', 'ipv4')
        >>> verbatim_opener("routing", "router multicast") is None
        True
    """
    names = VERBATIM_BLOCKS.get(inside, ()) if inside is not None else tuple(VERBATIM_BLOCKS)
    text = line + " "
    return next((name for name in names if text.startswith(name + " ")), None)


def check_tables() -> list[str]:
    """Problems in the tables (a parent that does not exist, an opener to nowhere)."""
    problems = []
    for mode in MODES.values():
        problems += [f"{mode.name}: unknown parent {p}" for p in mode.parents if p not in MODES]
        for cmd in mode.cmds:
            if cmd.opens and mode.name not in MODES[cmd.opens].parents:
                problems.append(f"{mode.name}: {cmd.spec.text!r} opens {cmd.opens} elsewhere")
    return problems


#: EOS's order of settings inside an ``interface`` block (the order of AVD's interface
#: templates, which mirror ``show running-config``). A setting added later is printed in
#: its place, not at the end; families not listed go after these, before nested blocks.
INTERFACE_ORDER: tuple[str, ...] = (
    r"description ",
    r"(no )?shutdown$",
    r"load-interval ",
    r"mtu ",
    r"logging event ",
    r"l2 mtu ",
    r"speed ",
    r"error-correction ",
    r"flowcontrol ",
    r"link-debounce ",
    r"switchport access vlan ",
    r"switchport trunk native vlan ",
    r"switchport trunk allowed vlan ",
    r"switchport mode ",
    r"switchport trunk group ",
    r"(no )?switchport$",
    r"encapsulation ",
    r"channel-group ",
    r"lacp ",
    r"vrf ",
    r"(no )?autostate$",
    r"ip address (?!virtual)",
    r"(no )?ipv6 enable$",
    r"ipv6 address ",
    r"ip address virtual ",
    r"ip virtual-router address ",
    r"ip helper-address ",
    r"ip igmp ",
    r"(no )?ip ospf ",
    r"(no )?pim ",
    r"bfd ",
    r"mlag ",
    r"port-channel lacp fallback (individual|static)$",
    r"port-channel lacp fallback timeout ",
    r"port-channel min-links ",
    r"qos trust ",
    r"qos (cos|dscp) ",
    r"service-policy ",
    r"priority-flow-control ",
    r"dcbx ",
    r"service-profile ",
    r"storm-control ",
    r"(no )?spanning-tree ",
    r"arp aging ",
    r"vxlan ",
)
_INTERFACE_ORDER = [re.compile(rx) for rx in INTERFACE_ORDER]


@lru_cache(maxsize=65536)
def setting_rank(mode: str, text: str) -> int:
    """Where a setting goes among its siblings (only ``interface`` has an order table).

    Examples:
        >>> setting_rank("interface", "description x") < setting_rank("interface", "mtu 9214")
        True
        >>> setting_rank("router-bgp", "router-id 1.1.1.1")
        1000
    """
    if mode == "interface":
        for rank, rx in enumerate(_INTERFACE_ORDER):
            if rx.match(text):
                return rank
    return 1000
