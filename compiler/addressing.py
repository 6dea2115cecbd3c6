"""Address arithmetic: every address is a pure function of a pool and a stable index.

Nothing here looks at lists of servers or devices, so adding one never moves another.
"""

from __future__ import annotations

import struct

# socket's C half: the same functions, without socket.py's 4 ms of enum set-up at import.
from _socket import AF_INET, inet_pton
from collections.abc import Sequence
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from itertools import repeat


def nth_subnet(pool: IPv4Network, prefixlen: int, index: int) -> IPv4Network:
    """The ``index``-th subnet of size ``prefixlen`` inside ``pool`` (0-based).

    The result may lie outside the pool: the pool checks report that, with the headroom.

    Examples:
        >>> nth_subnet(IPv4Network("10.30.0.0/16"), 24, 3)
        IPv4Network('10.30.3.0/24')
        >>> nth_subnet(IPv4Network("10.31.4.0/22"), 31, 5)
        IPv4Network('10.31.4.10/31')
    """
    size = 2 ** (32 - prefixlen)
    return IPv4Network((int(pool.network_address) + index * size, prefixlen))


def subnets_start(pool: IPv4Network, prefixlen: int, highest: int) -> int:
    """The first address of ``pool`` as an integer, for its subnets of size ``prefixlen`` up to
    the ``highest``-th: :func:`nth_subnet` ``(pool, prefixlen, i)`` starts at it plus ``i``
    subnets, without a subnet object each (one per leaf pair and rack cost more than their
    addresses at 16x). Raises as :func:`nth_subnet` would for one of them: the pool's start
    is not a subnet's (host bits set), or the highest is past the address space.

    Examples:
        >>> start = subnets_start(IPv4Network("10.30.0.0/16"), 24, 3)
        >>> prefix_text(start + 3 * 256, 24), str(nth_subnet(IPv4Network("10.30.0.0/16"), 24, 3))
        ('10.30.3.0/24', '10.30.3.0/24')
        >>> subnets_start(IPv4Network("10.30.0.128/25"), 24, 1)
        Traceback (most recent call last):
        ValueError: 10.30.0.128/24 has host bits set
        >>> subnets_start(IPv4Network("255.255.0.0/16"), 24, 256)
        Traceback (most recent call last):
        ipaddress.AddressValueError: 4294967296 (>= 2**32) is not permitted as an IPv4 address
    """
    start = int(nth_subnet(pool, prefixlen, 0).network_address)
    nth_subnet(pool, prefixlen, highest)
    return start


def prefix_text(value: int, prefixlen: int) -> str:
    """Address ``value`` with a prefix length, as text (``address/prefixlen``).

    Example:
        >>> prefix_text(169738497, 24), str(host_in(IPv4Network("10.30.1.0/24"), 1))
        ('10.30.1.1/24', '10.30.1.1/24')
    """
    return f"{dotted(value)}/{prefixlen}"


def host_in(subnet: IPv4Network, offset: int) -> IPv4Interface:
    """Host ``offset`` of ``subnet`` as an interface address (address/prefix).

    Examples:
        >>> host_in(IPv4Network("10.30.1.0/24"), 1)
        IPv4Interface('10.30.1.1/24')
        >>> host_in(IPv4Network("10.31.4.10/31"), 1)
        IPv4Interface('10.31.4.11/31')
    """
    return IPv4Interface((int(subnet.network_address) + offset, subnet.prefixlen))


def host_text(subnet: IPv4Network, offset: int) -> str:
    """``str(host_in(subnet, offset))``, without building the objects: the facts write one for
    every server NIC, and an ``IPv4Interface`` costs ten times the text.

    Examples:
        >>> host_text(IPv4Network("10.30.1.0/24"), 11), host_text(IPv4Network("10.31.4.10/31"), 1)
        ('10.30.1.11/24', '10.31.4.11/31')
    """
    return f"{dotted(int(subnet.network_address) + offset)}/{subnet.prefixlen}"


def network_text(subnet: IPv4Network) -> str:
    """``str(subnet)`` from its integer: the ``ipaddress`` text costs ten times as much, once
    per rack and leaf pair.

    Example:
        >>> network_text(IPv4Network("10.30.4.0/24")), str(IPv4Network("10.30.4.0/24"))
        ('10.30.4.0/24', '10.30.4.0/24')
    """
    return f"{dotted(int(subnet.network_address))}/{subnet.prefixlen}"


def dotted(value: int) -> str:
    """An address as text from its integer, as ``str(IPv4Address(value))`` gives it.

    Example:
        >>> dotted(167772417), str(IPv4Address(167772417)), dotted(167772418)
        ('10.0.1.1', '10.0.1.1', '10.0.1.2')
    """
    # Its /24's first three octets as text, made once per /24, and the last octet from a
    # table: a third of the cost of formatting four octets (the facts write an address per
    # server NIC and link end, about 20,000 at 16x, a few hundred per /24).
    head = _HEADS.get(value >> 8)
    if head is None:
        if len(_HEADS) >= _HEADS_KEPT:
            _HEADS.clear()
        head = f"{_OCTETS[value >> 24 & 255]}.{_OCTETS[value >> 16 & 255]}.{_OCTETS[value >> 8 & 255]}."
        _HEADS[value >> 8] = head
    return head + _OCTETS[value & 255]


_OCTETS = tuple(str(octet) for octet in range(256))
_HEADS: dict[int, str] = {}
"""The text of each /24's first three octets and a dot, by the /24's top 24 bits."""
_HEADS_KEPT = 65536
"""At most this many /24s kept (a few hundred at 16x): a long-lived process stays small."""


def address_value(text: str) -> int:
    """The integer of a dotted-quad address: ``int(IPv4Address(text))`` at a ninth of its cost (the
    checks read back every address the facts wrote). ``inet_pton`` is as strict as ``ipaddress``
    (four decimal octets, no leading zero); what it refuses goes to ``ipaddress`` for its error.

    Examples:
        >>> address_value("10.31.4.1") == int(IPv4Address("10.31.4.1"))
        True
        >>> address_value("10.31.4.256")
        Traceback (most recent call last):
        ipaddress.AddressValueError: Octet 256 (> 255) not permitted in '10.31.4.256'
    """
    try:
        return int.from_bytes(inet_pton(AF_INET, text), "big")
    except OSError:
        return int(IPv4Address(text))


def address_values(texts: Sequence[str]) -> Sequence[int]:
    """:func:`address_value` of many addresses at once: their packed bytes read as one array of
    integers, half the cost of one call each (the pool counts read back every address).

    Examples:
        >>> address_values(["10.31.4.1", "10.0.1.1"]), address_values([])
        ((169804801, 167772417), ())
        >>> address_values(["10.0.0.1", "10.0.0.01"])
        Traceback (most recent call last):
        ipaddress.AddressValueError: Leading zeros are not permitted in '01' in '10.0.0.01'
    """
    try:
        packed = b"".join(map(inet_pton, repeat(AF_INET, len(texts)), texts))  # in C: no step per address
    except OSError:
        return [address_value(text) for text in texts]
    return struct.unpack(f">{len(texts)}I", packed)


def p2p_link(pool: IPv4Network, index: int) -> tuple[IPv4Interface, IPv4Interface]:
    """The two ends of routed link ``index``: (even address, odd address) of its /31.

    Examples:
        >>> p2p_link(IPv4Network("10.31.4.0/22"), 0)
        (IPv4Interface('10.31.4.0/31'), IPv4Interface('10.31.4.1/31'))
    """
    subnet = nth_subnet(pool, 31, index)
    return host_in(subnet, 0), host_in(subnet, 1)


def p2p_text(pool: IPv4Network, index: int) -> tuple[str, str, str]:
    """Routed link ``index`` as text: its /31 and its two ends, as ``str`` gives them of
    :func:`p2p_link` (without the objects: one per link of the fabric).

    Examples:
        >>> p2p_text(IPv4Network("10.31.4.0/22"), 5)
        ('10.31.4.10/31', '10.31.4.10/31', '10.31.4.11/31')
        >>> tuple(str(end) for end in p2p_link(IPv4Network("10.31.4.0/22"), 5))
        ('10.31.4.10/31', '10.31.4.11/31')
    """
    even = int(pool.network_address) + 2 * index
    subnet = f"{dotted(even)}/31"  # the /31 and its even end are one text
    return subnet, subnet, f"{dotted(even + 1)}/31"


def subnet_capacity(pool: IPv4Network, prefixlen: int) -> int:
    """How many subnets of ``prefixlen`` fit in ``pool``.

    Examples:
        >>> subnet_capacity(IPv4Network("10.31.4.0/22"), 31)
        512
        >>> subnet_capacity(IPv4Network("10.31.4.0/22"), 20)
        0
    """
    if prefixlen < pool.prefixlen:
        return 0
    return int(2 ** (prefixlen - pool.prefixlen))
