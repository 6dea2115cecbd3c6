"""Lookups shared by the rule modules: devices by role, interfaces by name, speeds, problems."""

from __future__ import annotations

import functools
import hashlib
import os
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property
from ipaddress import IPv4Network
from itertools import repeat
from operator import itemgetter
from typing import Generic, TypeVar

from compiler.addressing import address_value, address_values
from compiler.fabric import Device, ResolvedFabric
from compiler.facts import Cable, Network
from compiler.intent import SPEEDS_GBPS, FabricFile, FabricIntent, Intent
from compiler.structured import Interface

T = TypeVar("T")

SWITCH_LINK_KINDS = frozenset({"fabric", "peer-link", "mgmt-uplink"})
"""Link kinds with a switch at both ends."""


MASKS = tuple((0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF for length in range(33))
"""The netmask of each prefix length, as an integer."""

Held = tuple[int, int]
"""An interface address as integers: (address, prefix length)."""


def held(text: str) -> Held:
    """``address/len`` (or an address: /32) as :data:`Held` integers.

    Example:
        >>> from ipaddress import IPv4Address
        >>> held("10.31.4.1/31") == (int(IPv4Address("10.31.4.1")), 31), held("10.0.0.1")
        (True, (167772161, 32))
    """
    host, _, length = text.partition("/")
    return address_value(host), int(length) if length else 32


def held_all(texts: Sequence[str]) -> list[Held]:
    """:func:`held` of many texts, their addresses read as one array (:func:`address_values`)
    and their lengths by a table, at C speed (``map`` of builtins: 18,000 allocations at 16x).
    Text that does not parse raises as :func:`held` would, at the first such text.

    Example:
        >>> held_all(["10.31.4.1/31", "10.0.0.1"]) == [held("10.31.4.1/31"), held("10.0.0.1")]
        True
        >>> held_all(["10.0.0.1/+8"]) == [held("10.0.0.1/+8")]  # a length int() reads, as held reads it
        True
        >>> held_all(["10.31.4.1/31", "10.0.0.256/31"])
        Traceback (most recent call last):
        ipaddress.AddressValueError: Octet 256 (> 255) not permitted in '10.0.0.256'
    """
    parts = list(map(str.partition, texts, repeat("/")))
    try:
        values = address_values(list(map(_HOST, parts)))
        lengths = list(map(_LENGTHS.__getitem__, map(_LENGTH, parts)))
    except (ValueError, KeyError):
        return [held(text) for text in texts]  # the first bad text's own error, or an odd length
    return list(zip(values, lengths, strict=True))


_HOST, _LENGTH = itemgetter(0), itemgetter(2)
_LENGTHS = {"": 32, **{str(length): length for length in range(33)}}
"""A prefix length's usual spellings (any other goes through ``int``, as :func:`held` reads it)."""


def subnet_of(address: Held) -> Held:
    """The subnet an interface address is on, as (network address, prefix length).

    Example:
        >>> subnet_of(held("10.31.4.1/31")) == held("10.31.4.0/31")
        True
    """
    value, length = address
    return value & (0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF, length


class Fleet:
    """Look-ups several rules make over one resolved fabric, each built once, on first use.

    Every rule used to build its own: a dict of interfaces per device, a pass over every link
    per kind, the devices of a role sorted again. At 16x that was a fifth of the checks, and a
    rule's time depended on which other rules had run. The records are immutable, so what is
    built for a fabric stays true for it.

    Example:
        >>> from pathlib import Path
        >>> from compiler.fabric import resolve
        >>> from compiler.intent import load_intent
        >>> fabric = resolve(load_intent(Path("intent")))
        >>> index = fleet(fabric)
        >>> index is fleet(fabric), [d.name for d in index.devices("spine", "compute")][:2]
        (True, ['spine01', 'spine02'])
        >>> index.interfaces(fabric.devices["spine01"])["Loopback0"].name
        'Loopback0'
    """

    def __init__(self, fabric: ResolvedFabric) -> None:
        self.fabric = fabric
        self._interfaces: dict[str, tuple[Device, dict[str, Interface]]] = {}
        self._links: dict[tuple[frozenset[str], str | None], list[Cable]] = {}
        self._held: dict[str, Held] = {}
        self._addresses: dict[str, tuple[Device, list[tuple[str, Held]]]] = {}
        self._owners: dict[int, tuple[str, Held]] | None = None

    def build(self) -> Fleet:
        """Every look-up built now (the runner and the benchmark: paid once, by no rule)."""
        self.host_held  # noqa: B018  (and the allocations parsed, first: the interface addresses among them)
        for device in self.fabric.devices.values():
            self.interfaces(device)
        self.address_owners()
        self._by_role  # noqa: B018  (built on first use)
        self._by_kind  # noqa: B018
        return self

    def interfaces(self, device: Device) -> dict[str, Interface]:
        """A device's interfaces by name."""
        found = self._interfaces.get(device.name)
        if found is None or found[0] is not device:
            found = self._interfaces[device.name] = (device, {iface.name: iface for iface in device.config.interfaces})
        return found[1]

    def held(self, text: str) -> Held:
        """:func:`held`, parsed once per fabric (several rules read the same interface addresses)."""
        found = self._held.get(text)
        if found is None:
            found = self._held[text] = held(text)
        return found

    def addresses(self, device: Device) -> list[tuple[str, Held]]:
        """The interfaces of ``device`` that have an address: (name, address), in configuration order."""
        found = self._addresses.get(device.name)
        if found is None or found[0] is not device:
            get, parse = self._held.get, self.held  # parsed already, most of them (:attr:`allocated`)
            found = self._addresses[device.name] = (
                device,
                [
                    (iface.name, get(iface.ip_address) or parse(iface.ip_address))
                    for iface in device.config.interfaces
                    if iface.ip_address
                ],
            )
        return found[1]

    def address_owners(self) -> dict[int, tuple[str, Held]]:
        """Every configured interface address: the first device (by name) holding it, and its
        prefix length."""
        if self._owners is None:
            owners: dict[int, tuple[str, Held]] = {}
            for name, device in sorted(self.fabric.devices.items()):
                for _, address in self.addresses(device):
                    if address[0] not in owners:
                        owners[address[0]] = (name, address)
            self._owners = owners
        return self._owners

    @cached_property
    def allocated(self) -> list[Held]:
        """Every allocation's prefix as :data:`Held` integers, in the order of ``fabric.allocations``.

        Parsed at once, and kept for :meth:`held`: every interface address is one of them (the
        facts allocate each), so the switches' addresses are parsed no second time.
        """
        texts = [allocation.prefix for allocation in self.fabric.allocations]
        parsed = held_all(texts)
        self._held.update(zip(texts, parsed, strict=True))
        return parsed

    @cached_property
    def host_held(self) -> list[bool]:
        """Whether each allocation is an address, not a subnet (:func:`is_host_held`), in the order
        of ``fabric.allocations``: a /31 or /32 is one at a glance, and most allocations are."""
        return [
            31 <= address[1] <= 32 or is_host_held(allocation.prefix, address)
            for allocation, address in zip(self.fabric.allocations, self.allocated, strict=True)
        ]

    @cached_property
    def _by_role(self) -> dict[str, list[Device]]:
        out: dict[str, list[Device]] = defaultdict(list)
        for _, device in sorted(self.fabric.devices.items()):
            out[device.role].append(device)
        return out

    def devices(self, role: str, network: Network | None = None) -> list[Device]:
        """The devices of ``role`` (in ``network`` when given), sorted by name."""
        return [d for d in self._by_role.get(role, ()) if network is None or d.network == network]

    @cached_property
    def _by_kind(self) -> dict[str, list[Cable]]:
        out: dict[str, list[Cable]] = defaultdict(list)
        for link in self.fabric.links:
            out[link.kind].append(link)
        return out

    def links(self, kinds: Iterable[str], network: str | None = None) -> list[Cable]:
        """The links of the given kinds (in ``network`` when given), in the fabric's order."""
        key = (frozenset(kinds), network)
        found = self._links.get(key)
        if found is None:
            if network is not None:  # from the links of these kinds in every network (asked per network)
                found = [link for link in self.links(key[0]) if link.network == network]
            elif len(key[0]) == 1:
                (kind,) = key[0]
                found = list(self._by_kind.get(kind, ()))
            else:
                found = [link for link in self.fabric.links if link.kind in key[0]]
            self._links[key] = found
        return found


_LAST_FLEET: list[Fleet] = []
"""The index of the last fabric asked for (one compile checks one fabric; held, so its identity
cannot pass to another)."""


def fleet(fabric: ResolvedFabric) -> Fleet:
    """The shared look-ups of ``fabric``."""
    if not _LAST_FLEET or _LAST_FLEET[0].fabric is not fabric:
        _LAST_FLEET[:] = [Fleet(fabric)]
    return _LAST_FLEET[0]


R = TypeVar("R")


def per_run(derive: Callable[[Intent, ResolvedFabric], R]) -> Callable[[Intent, ResolvedFabric], R]:
    """``derive(intent, fabric)`` computed once for the intent and fabric last asked about (by
    identity, as :func:`fleet`): several rules read the same derived table, which they only read
    (the rack loads of PWR001-PWR004 cost a pass over every switch and server each).

    Example:
        >>> calls = []
        >>> @per_run
        ... def count(intent: Intent, fabric: ResolvedFabric) -> int:
        ...     calls.append(1)
        ...     return len(calls)
        >>> intent, fabric = object(), object()
        >>> count(intent, fabric), count(intent, fabric), count(intent, object())  # type: ignore[arg-type]
        (1, 1, 2)
    """
    last: list[tuple[Intent, ResolvedFabric, R]] = []

    @functools.wraps(derive)
    def run(intent: Intent, fabric: ResolvedFabric) -> R:
        if last and last[0][0] is intent and last[0][1] is fabric:
            return last[0][2]
        result = derive(intent, fabric)
        last[:] = [(intent, fabric, result)]  # held, so their identities cannot pass to others
        return result

    return run


def where_inputs(intent: Intent, file: str) -> tuple[str, str, str]:
    """What :meth:`Intent.where` of an element of intent ``file`` is made of beside the element:
    the intent's directory, the working directory (it is shown from there) and the file's
    content (its lines), as its digest. Part of a key where the findings name such an element
    (the where itself parses the file with line marks, a tenth of a second: only for a finding).

    Example:
        >>> from pathlib import Path
        >>> from compiler.intent import load_intent
        >>> intent = load_intent(Path("intent"))
        >>> where_inputs(intent, "vlans.yaml") != where_inputs(intent, "fabric.yaml")
        True
    """
    lines = intent.lines
    return str(lines.directory), os.getcwd(), hashlib.sha256(lines.raw.get(file, b"")).hexdigest()


def devices(fabric: ResolvedFabric, role: str, network: Network | None = None) -> list[Device]:
    """The devices of ``role`` (in ``network`` when given), sorted by name."""
    return fleet(fabric).devices(role, network)


def fabric_spec(intent: Intent, network: str) -> FabricIntent | None:
    """The spine-leaf fabric of ``network`` in the intent, or None (management)."""
    return design_spec(intent.fabric, network)


def design_spec(design: FabricFile, network: str) -> FabricIntent | None:
    """The spine-leaf fabric of ``network`` in the design, or None (management): a switch rule
    reads its switch's (``device.facts.design``, the intent's design)."""
    for name, spec in design.fabrics.items():
        if name == network:
            return spec
    return None


def interfaces(fabric: ResolvedFabric, device: Device) -> dict[str, Interface]:
    """A device's interfaces by name (built once per fabric)."""
    return fleet(fabric).interfaces(device)


def links_of(fabric: ResolvedFabric, kinds: Iterable[str], network: str | None = None) -> list[Cable]:
    """The links of the given kinds (in ``network`` when given), in the fabric's order."""
    return fleet(fabric).links(kinds, network)


def gbps(speed: str) -> int:
    """A speed keyword in Gbit/s.

    Example:
        >>> gbps("400g")
        400
    """
    return SPEEDS_GBPS[speed]


def address_of(value: str) -> str:
    """The address part of ``address/prefix`` (or the address itself).

    Example:
        >>> address_of("10.31.4.1/31")
        '10.31.4.1'
    """
    return value.split("/", 1)[0]


def is_host_held(prefix: str, address: Held) -> bool:
    """Whether an allocated prefix is an address, not a subnet (``address``: the prefix as :func:`held`).

    A /31 or /32 is always an address; a wider prefix is an address unless it is the network
    address itself. On the integers parsed once per fabric: an ``IPv4Interface`` per allocation
    dominated the checks at scale.

    Examples:
        >>> [is_host_held(p, held(p)) for p in ("10.30.1.0/24", "10.30.1.5/24", "10.31.4.0/31", "10.31.4.7")]
        [False, True, True, True]
    """
    value, prefixlen = address
    if not 0 <= prefixlen <= 32:
        raise ValueError(f"{prefix!r}: prefix length out of range")
    return prefixlen >= 31 or value & ((1 << (32 - prefixlen)) - 1) != 0


def problems(fabric: ResolvedFabric, rule_id: str) -> Iterator[tuple[str, str]]:
    """What resolution could not place under ``rule_id``, as ``(subject, message)`` pairs."""
    for problem in fabric.problems:
        if problem.rule == rule_id:
            yield problem.subject, problem.message


def join(names: Iterable[str], limit: int = 6) -> str:
    """A short, readable list of names.

    Examples:
        >>> join(["a", "b"])
        'a, b'
        >>> join([f"p{i}" for i in range(8)], limit=3)
        'p0, p1, p2 and 5 more'
    """
    items = list(names)
    if len(items) <= limit:
        return ", ".join(items)
    return f"{', '.join(items[:limit])} and {len(items) - limit} more"


class PrefixIndex(Generic[T]):
    """Subnets with a label each, asked which of them overlap a prefix in O(log n), not O(n).

    Two CIDR blocks overlap only when one holds the other: the ones inside the asked prefix
    start within it (a bisection over the sorted starts), the ones holding it are among its
    33 supernets (a look-up each). A rule asking once per switch or server stays linear.

    Example:
        >>> index = PrefixIndex([(IPv4Network("10.0.0.0/24"), "a"), (IPv4Network("10.0.0.0/16"), "b"),
        ...                      (IPv4Network("10.1.0.0/24"), "c")])
        >>> index.overlapping(IPv4Network("10.0.0.0/25")), index.overlapping(IPv4Network("10.1.0.0/16"))
        (['a', 'b'], ['c'])
    """

    def __init__(self, nets: Iterable[tuple[IPv4Network, T]]) -> None:
        self._labels: list[T] = []
        starts: list[tuple[int, int]] = []
        self._exact: dict[tuple[int, int], list[int]] = defaultdict(list)
        for position, (net, label) in enumerate(nets):
            self._labels.append(label)
            start = int(net.network_address)
            starts.append((start, position))
            self._exact[start, net.prefixlen].append(position)
        starts.sort()
        self._starts = [s for s, _ in starts]
        self._positions = [p for _, p in starts]
        self._lengths = sorted({length for _, length in self._exact})

    def overlapping(self, prefix: IPv4Network) -> list[T]:
        """The labels of the subnets overlapping ``prefix``, in the order they were given."""
        first, last = int(prefix.network_address), int(prefix.broadcast_address)
        found = set(self._positions[bisect_left(self._starts, first) : bisect_right(self._starts, last)])
        for length in self._lengths:  # only the lengths the index holds, not all 33
            if length > prefix.prefixlen:
                break
            mask = (0xFFFFFFFF << (32 - length)) & 0xFFFFFFFF
            found.update(self._exact.get((first & mask, length), ()))
        return [self._labels[p] for p in sorted(found)]


def memo(cache: dict[object, list[str]], key: object, make: Callable[[], Iterable[str]]) -> list[str]:
    """``list(make())``, once per distinct ``key``: the switches of a fleet share a few QoS configs
    and port settings, which a rule need judge once each. An unhashable key (a config built by
    hand with lists) is not memoised.

    Example:
        >>> cache: dict[object, list[str]] = {}
        >>> memo(cache, ("a",), lambda: iter(["x"])), memo(cache, ("a",), lambda: iter(["y"]))
        (['x'], ['x'])
    """
    try:
        found = cache.get(key)
    except TypeError:
        return list(make())
    if found is None:
        found = cache[key] = list(make())
    return found
