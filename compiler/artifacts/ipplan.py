"""``generated/inventory/ip-plan.csv`` and ``ip-plan.md``: every address and subnet, its owner, pool use."""

from __future__ import annotations

from socket import inet_aton

from compiler.artifacts.tables import csv_text, markdown_table, percent
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


def ipplan_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """The IP plan table and its markdown summary of pool utilisation and headroom."""
    del intent
    allocations = sorted(fabric.allocations, key=_sort_key)
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
    return {"inventory/ip-plan.csv": csv_text(COLUMNS, [_row(a) for a in allocations]), "inventory/ip-plan.md": md}
