"""``generated/inventory/ip-plan.csv`` and ``ip-plan.md``: every address and subnet, its owner, pool use.

The table comes in sections (:func:`ipplan_units`): the header, then one per network, pool and
/24, so a server added rebuilds its rack's block of hosts, not the plan.
"""

from __future__ import annotations

from _socket import inet_aton  # socket's C half (compiler.addressing says why)
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from itertools import groupby, repeat
from operator import itemgetter

from compiler.artifacts.tables import csv_rows, header_unit, markdown_table, percent
from compiler.artifacts.units import Unit, built, section_path
from compiler.fabric import ResolvedFabric
from compiler.facts import Allocation
from compiler.intent import Intent

COLUMNS = ("network", "pool", "prefix", "address", "kind", "owner", "purpose")


def kind_of(prefix: str) -> str:
    """``address`` for a host address (a /31 or /32 end counts), ``subnet`` for a network.

    Examples:
        >>> kind_of("10.30.1.0/24"), kind_of("10.30.1.11/24"), kind_of("10.31.4.0/31")
        ('subnet', 'address', 'address')
    """
    address, _, length = prefix.partition("/")
    if int(length or 32) >= 31:
        return "address"
    last_octet = int(address.rsplit(".", 1)[1])
    bits = 32 - int(length)
    return "subnet" if bits <= 8 and last_octet % (1 << bits) == 0 else "address"


def _row(a: Allocation) -> tuple[str, ...]:
    return (a.network, a.pool, a.prefix, a.prefix.split("/", 1)[0], kind_of(a.prefix), a.owner, a.purpose)


def _sort_key(a: Allocation) -> tuple[str, str, bytes, int]:
    """Network, pool, then the address as a number (its four bytes compare as it does).

    Example:
        >>> _sort_key(Allocation("compute", "hosts", "10.30.1.11/24", "gpu1", "nic"))[2:]
        (b'\\n\\x1e\\x01\\x0b', 24)
    """
    address, _, length = a.prefix.partition("/")
    return a.network, a.pool, inet_aton(address), int(length or 32)


IP_PLAN = "inventory/ip-plan.csv"


def ipplan_units(fabric: ResolvedFabric) -> Iterator[Unit]:
    """``ip-plan.csv`` in sections: the header, then per network, pool and /24 its allocations
    in address order (a rack's hosts share theirs), from those allocations.

    The allocations are grouped by block in one pass and only the blocks are sorted: a block
    keeps the allocations in the fabric's order as its key, and sorts them only when built
    (the order of the whole plan, as each block's are contiguous in it; a stable sort of the
    fabric's order, as the whole plan's was). Sorting the fleet's 18,000 allocations by address
    was most of the plan's cost when one rack's block changed.
    """
    yield header_unit("ip-plan", IP_PLAN, COLUMNS)
    blocks: dict[tuple[str, str, str], list[tuple[str, ...]]] = {}
    # Each allocation as its prefix, owner and purpose: its network and pool are its block's,
    # keyed once per block (two fifths of the strings a block's key pickles).
    rows = zip(_blocks(fabric.allocations), map(_OWN, fabric.allocations), strict=True)
    # A block's allocations come in runs (a rack's hosts one after another): one step per run.
    for block, run in groupby(rows, key=_BLOCK):
        blocks.setdefault(block, []).extend(map(_ROW, run))
    for network, pool, block in sorted(blocks, key=_block_order):
        mine = (network, pool, tuple(blocks[network, pool, block]))
        name = f"{network} {pool} {block}"
        yield Unit(f"ip-plan/{name}", mine, partial(_allocation_rows, name, *mine))


def _blocks(allocations: Sequence[Allocation]) -> Iterator[tuple[str, str, str]]:
    """Each allocation's network, pool and /24 (its prefix up to the last dot), made at C speed
    (maps of getters and ``str.rpartition``, no call in Python per allocation: there are 18,000
    at 16x).

    Example:
        >>> list(_blocks([Allocation("compute", "hosts", "10.30.1.11/24", "gpu1", "nic")]))
        [('compute', 'hosts', '10.30.1')]
    """
    prefixes = map(str.rpartition, map(_PREFIX, allocations), repeat("."))
    return zip(map(_NETWORK, allocations), map(_POOL, allocations), map(_BEFORE, prefixes), strict=True)


_NETWORK, _POOL, _PREFIX, _BEFORE = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(0)
_BLOCK, _ROW, _OWN = itemgetter(0), itemgetter(1), itemgetter(2, 3, 4)


def _block_order(block: tuple[str, str, str]) -> tuple[str, str, bytes]:
    """A block's place in the plan: network, pool, then its /24 as a number (as its addresses
    are, see :func:`_sort_key`).

    Example:
        >>> sorted([("c", "h", "10.30.10"), ("c", "h", "10.30.9")], key=_block_order)[0]
        ('c', 'h', '10.30.9')
    """
    network, pool, first = block
    return network, pool, inet_aton(f"{first}.0")


def _allocation_rows(name: str, network: str, pool: str, allocations: Iterable[Sequence[str]]) -> dict[str, str]:
    """Section ``name``: the allocations of ``network`` and ``pool`` (each its prefix, owner and
    purpose) in address order."""
    ordered = sorted((Allocation._make((network, pool, *rest)) for rest in allocations), key=_sort_key)
    return {section_path(IP_PLAN, name): csv_rows(map(_row, ordered))}


def ipplan_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """The IP plan table and its markdown summary of pool utilisation and headroom."""
    return {**built(ipplan_units(fabric)), **ipplan_summary(intent, fabric)}


def ipplan_summary(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """``ip-plan.md``: pool utilisation and headroom (the table comes in sections from :func:`ipplan_units`)."""
    del intent
    pools = sorted(fabric.pools, key=lambda p: (p.network, p.name))
    summary = markdown_table(
        ["network", "pool", "cidr", "unit", "used", "capacity", "headroom", "utilisation"],
        [
            (p.network, p.name, p.cidr, p.unit, p.used, p.capacity, p.capacity - p.used, percent(p.used, p.capacity))
            for p in pools
        ],
    )
    md = (
        "# IP plan\n\n"
        "Every address and subnet is in `ip-plan.csv` (network, pool, prefix, owner, purpose). "
        "Pools are counted in units of their allocation size.\n\n"
        "## Pool utilisation\n\n" + summary
    )
    return {"inventory/ip-plan.md": md}
