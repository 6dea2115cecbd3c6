"""Naming and addressing rules: unique names and addresses, disjoint pools, pool headroom.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
ADR001    error     C6           no name is used twice (devices and servers share one
                                 namespace: inventory, DNS, cabling labels)
ADR002    error     C5           no address is allocated to two owners, across all
                                 three networks (a pair's shared VARP gateway is one
                                 owner)
ADR003    error     C2           the pools of the compute, storage and management
                                 networks (and the management upstream) never overlap
ADR004    error     C5           every pool holds what is allocated from it: says how
                                 many units are needed and how many fit
ADR005    warning   C1           every pool has room for the growth target of 200 GPU
                                 servers at the current servers per rack
ADR006    info      C5           pool usage: "N of M used, K left"
========  ========  ===========  =====================================================

Growth (ADR005) is projected from the design, not from a percentage: the racks needed
for :data:`GROWTH_TARGET_SERVERS` GPU servers at today's servers per rack are appended
after the highest rack, and each pool's need follows the allocation scheme of
:mod:`compiler.fabric` (a /24 per leaf pair, a /31 per leaf-spine link, ...).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from ipaddress import IPv4Network

from compiler.addressing import dotted
from compiler.checks.base import rule
from compiler.checks.rules._common import Held, fabric_spec, fleet, join, problems
from compiler.fabric import ResolvedFabric
from compiler.facts import Allocation, PoolUse
from compiler.facts.addressing import LEAF_LOOPBACK_OFFSET
from compiler.intent import Intent

GROWTH_TARGET_SERVERS = 200
"""C1: the design must grow to about 200 GPU servers without redesign."""


@rule("ADR001", "error", "C6", "No duplicate device or server names")
def unique_names(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield names used twice: by two devices (from resolution) or by a device and a server."""
    del intent
    yield from problems(fabric, "ADR001")
    for name in sorted(set(fabric.devices) & set(fabric.servers)):
        yield name, f"{name!r} names both a switch and a server"


@rule("ADR002", "error", "C5", "No duplicate IP addresses")
def unique_addresses(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each address allocated to more than one owner, in any network."""
    del intent
    # Keyed by the address as a number (addresses are canonical dotted quads: one text each),
    # parsed once per fabric (:meth:`Fleet.allocated`). The first allocation of each address is
    # held alone; an address's owners are gathered only once a second allocation names it (at
    # 16x, a dict per address was most of the rule, for a handful of shared ones).
    index = fleet(fabric)
    first: dict[int, Allocation] = {}
    holders: dict[int, dict[str, Allocation]] = {}
    for allocation, (value, _), host in zip(fabric.allocations, index.allocated, index.host_held, strict=True):
        if host:
            earlier = first.setdefault(value, allocation)
            if earlier is not allocation:
                by_owner = holders.get(value)
                if by_owner is None:
                    by_owner = holders[value] = {earlier.owner: earlier}
                by_owner.setdefault(allocation.owner, allocation)
    for value, by_owner in sorted(item for item in holders.items() if len(item[1]) > 1):
        owners = (f"{a.owner} ({a.network} {a.purpose})" for a in by_owner.values())
        yield dotted(value), f"allocated to {len(by_owner)} owners: {join(owners)}"


def declared_pools(intent: Intent) -> list[tuple[str, IPv4Network]]:
    """Every address pool of the intent with its YAML path, in file order."""
    pools: list[tuple[str, IPv4Network]] = []
    for net, spec in sorted(intent.fabric.fabrics.items()):
        pools.extend((f"fabrics.{net}.pools.{name}", cidr) for name, cidr in spec.pools if cidr is not None)
    mgmt = intent.fabric.management
    pools.append(("management.pool", mgmt.pool))
    pools.append(("management.upstream.subnet", mgmt.upstream.subnet))
    pools.extend((f"vlans.yaml vlans.{key}.pool", v.pool) for key, v in intent.vlans.items() if v.pool is not None)
    return pools


def _rack_subnets(fabric: ResolvedFabric) -> list[tuple[str, Held]]:
    """The management subnets actually handed to racks (the upstream may sit beside them), with
    their integers (:meth:`Fleet.allocated`)."""
    index = fleet(fabric)
    return [
        (a.prefix, address)
        for a, address, host in zip(fabric.allocations, index.allocated, index.host_held, strict=True)
        if a.network == "management" and a.pool == "pool" and not host
    ]


@rule("ADR003", "error", "C2", "No overlapping pools across the three networks")
def disjoint_pools(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each pair of overlapping pools.

    The management upstream transit may be carved out of the management pool, as long as
    no rack's management subnet overlaps it.
    """
    pools = declared_pools(intent)
    for i, (name, cidr) in enumerate(pools):
        for other, other_cidr in pools[i + 1 :]:
            if not cidr.overlaps(other_cidr):
                continue
            if {name, other} == {"management.pool", "management.upstream.subnet"}:
                continue
            yield name, f"{cidr} overlaps {other} {other_cidr}"
    upstream = intent.fabric.management.upstream.subnet
    first, last = int(upstream.network_address), int(upstream.broadcast_address)
    for prefix, (start, length) in _rack_subnets(fabric):
        if start <= last and first <= start | (0xFFFFFFFF >> length):  # two blocks overlap: ranges meet
            yield (
                "management.upstream.subnet",
                (f"{upstream} overlaps the rack management subnet {IPv4Network(prefix)}"),
            )


def _pool_path(pool: PoolUse) -> str:
    if pool.name.startswith("vlans."):
        return f"vlans.yaml {pool.name}.pool"
    if pool.network == "management":
        return f"management.{pool.name}"
    return f"fabrics.{pool.network}.pools.{pool.name}"


def _outside(allocations: list[tuple[Allocation, Held]], pool: PoolUse) -> list[str]:
    """Allocations of ``pool`` (``allocations``: those of its network and name, parsed) outside its
    range: a subnet is inside when its length is at least the pool's and its address is in the pool.

    Example:
        >>> from compiler.checks.rules._common import held
        >>> from compiler.facts import Allocation
        >>> pool = PoolUse("compute", "p2p", "10.31.4.0/22", "/31", 2, 512, 2)
        >>> mine = [Allocation("compute", "p2p", p, "spine01", "p2p") for p in ("10.31.4.1/31", "10.30.0.0/15")]
        >>> _outside([(a, held(a.prefix)) for a in mine], pool)
        ['10.30.0.0/15 (spine01)']
    """
    cidr = IPv4Network(pool.cidr)
    mask, network, length = int(cidr.netmask), int(cidr.network_address), cidr.prefixlen
    return [
        f"{a.prefix} ({a.owner})" for a, (value, own) in allocations if not (own >= length and value & mask == network)
    ]


@rule("ADR004", "error", "C5", "No pool is exhausted")
def pools_not_exhausted(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each pool whose allocations do not fit in it."""
    del intent
    # Grouped once: a scan of every allocation per pool grew with pools x allocations.
    by_pool: dict[tuple[str, str], list[tuple[Allocation, Held]]] = defaultdict(list)
    for allocation, address in zip(fabric.allocations, fleet(fabric).allocated, strict=True):
        by_pool[allocation.network, allocation.pool].append((allocation, address))
    for pool in fabric.pools:
        outside = _outside(by_pool.get((pool.network, pool.name), []), pool)
        if pool.highest_index > pool.capacity or outside:
            needed = max(pool.highest_index, pool.capacity + 1)
            yield (
                _pool_path(pool),
                (
                    f"{pool.cidr} is too small: needs {needed} x {pool.unit}, {pool.capacity} fit; "
                    f"{len(outside)} allocation(s) fall outside it ({join(outside, 3)})"
                ),
            )


@dataclass(frozen=True)
class Growth:
    """The design grown to the target: how many racks, at what density."""

    racks_now: int
    racks_needed: int
    per_rack: float
    highest_rack: int


def growth(intent: Intent) -> Growth | None:
    """Racks needed for :data:`GROWTH_TARGET_SERVERS` GPU servers, appended after the last rack."""
    models = intent.fabric.server_models
    gpu = [s for s in intent.servers if models[s.model].gpus > 0]
    if not gpu or not intent.racks:
        return None
    racks = len({s.rack for s in gpu})
    needed = math.ceil(GROWTH_TARGET_SERVERS * racks / len(gpu))
    extra = max(0, needed - racks)
    return Growth(racks, needed, len(gpu) / racks, max(intent.racks) + extra)


def projected_need(intent: Intent, pool: PoolUse, grown: Growth) -> int:
    """How many units of ``pool`` the grown design uses, by the resolver's allocation scheme."""
    if pool.network == "management" and pool.name == "pool":
        return grown.highest_rack + 1
    spec = fabric_spec(intent, pool.network)
    if spec is None:
        return math.ceil(pool.highest_index * grown.highest_rack / max(intent.racks))
    pairs = (grown.highest_rack - 1) // spec.leaves.racks_per_pair + 1
    per_pool = {
        "hosts": pairs + 1,
        "p2p": 2 * pairs * spec.spines.count,
        "mlag_peer": pairs,
        "mlag_l3": pairs,
        "loopbacks": LEAF_LOOPBACK_OFFSET + 2 * pairs + 1,
    }
    fallback = math.ceil(pool.highest_index * grown.highest_rack / max(intent.racks))
    return per_pool.get(pool.name, fallback)


@rule("ADR005", "warning", "C1", "Pools have room to grow to 200 GPU servers")
def pools_have_headroom(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each pool that fits today but not the growth target."""
    grown = growth(intent)
    if grown is None:
        return
    for pool in fabric.pools:
        need = projected_need(intent, pool, grown)
        if pool.highest_index <= pool.capacity < need:
            yield (
                _pool_path(pool),
                (
                    f"{pool.cidr}: {pool.capacity - pool.highest_index} x {pool.unit} left, but "
                    f"{GROWTH_TARGET_SERVERS} GPU servers ({grown.racks_needed} racks at "
                    f"{grown.per_rack:g} per rack) need {need} of the {pool.capacity} that fit"
                ),
            )


@rule("ADR006", "info", "C5", "Pool usage")
def pool_usage(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield one usage line per pool that is not exhausted."""
    grown = growth(intent)
    for pool in fabric.pools:
        if pool.highest_index > pool.capacity:
            continue
        left = pool.capacity - pool.highest_index
        target = ""
        if grown is not None:
            need = projected_need(intent, pool, grown)
            target = f"; {GROWTH_TARGET_SERVERS} GPU servers need {need}"
        yield (
            _pool_path(pool),
            (
                f"{pool.cidr}: {pool.used} of {pool.capacity} used, {left} left "
                f"({pool.unit}, allocated by index up to {pool.highest_index}{target})"
            ),
        )
