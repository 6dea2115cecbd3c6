"""ADR002 and ADR004 read every allocation as integers, parsed once per fabric: the addresses they
name, their order and the allocations counted outside a pool must be the ones the text gives."""

from __future__ import annotations

import dataclasses

from compiler.checks.rules.addressing import pools_not_exhausted, unique_addresses
from compiler.fabric import ResolvedFabric
from compiler.facts import Allocation
from compiler.intent import Intent


def test_duplicates_named_in_the_order_of_their_addresses(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """10.30.1.9 sorts before 10.30.1.10 as a number, not as text; a subnet is no address."""
    intent, fabric = resolved_example
    extra = (
        Allocation("compute", "hosts", "10.30.1.10/24", "rack01-gpu098", "compute bond"),
        Allocation("compute", "hosts", "10.30.1.10/24", "rack01-gpu099", "compute bond"),
        Allocation("compute", "hosts", "10.30.1.9/24", "rack01-gpu097", "compute bond"),
        Allocation("compute", "hosts", "10.30.1.9/24", "rack01-gpu096", "compute bond"),
        Allocation("compute", "hosts", "10.30.1.0/24", "rack01-gpu095", "compute bond"),
        Allocation("compute", "hosts", "10.30.1.0/24", "rack01-gpu094", "compute bond"),
    )
    found = list(unique_addresses(intent, dataclasses.replace(fabric, allocations=(*fabric.allocations, *extra))))
    assert found == [
        (
            "10.30.1.9",
            "allocated to 2 owners: rack01-gpu097 (compute compute bond), rack01-gpu096 (compute compute bond)",
        ),
        (
            "10.30.1.10",
            "allocated to 2 owners: rack01-gpu098 (compute compute bond), rack01-gpu099 (compute compute bond)",
        ),
    ]


def test_allocations_outside_a_pool_are_listed(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """Outside: an address past the pool's end, and a subnet wider than the pool that starts in it."""
    intent, fabric = resolved_example
    (pool,) = [p for p in fabric.pools if p.network == "compute" and p.name == "hosts"]
    extra = (
        Allocation("compute", "hosts", "10.31.0.1/24", "rack01-gpu099", "compute bond"),
        Allocation("compute", "hosts", "10.30.0.0/15", "rack01-leaf-a", "svi"),
        Allocation("compute", "hosts", "10.30.255.254/24", "rack01-gpu098", "compute bond"),
    )
    found = list(pools_not_exhausted(intent, dataclasses.replace(fabric, allocations=(*fabric.allocations, *extra))))
    assert pool.cidr == "10.30.0.0/16"
    assert found == [
        (
            "fabrics.compute.pools.hosts",
            f"10.30.0.0/16 is too small: needs {pool.capacity + 1} x {pool.unit}, {pool.capacity} fit; "
            "2 allocation(s) fall outside it (10.31.0.1/24 (rack01-gpu099), 10.30.0.0/15 (rack01-leaf-a))",
        )
    ]
