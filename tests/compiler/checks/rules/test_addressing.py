"""ADR002 and ADR004 read every allocation as integers, parsed once per fabric: the addresses they
name, their order and the allocations counted outside a pool must be the ones the text gives."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from ipaddress import IPv4Network
from pathlib import Path

import pytest

from compiler.checks.rules.addressing import disjoint_pools, pools_not_exhausted, unique_addresses
from compiler.fabric import ResolvedFabric, resolve
from compiler.facts import Allocation
from compiler.intent import Intent, load_intent


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


@pytest.mark.parametrize(
    ("upstream", "overlapped"),
    [
        ("172.16.15.0/30", None),
        ("172.16.14.252/30", "172.16.14.128/25"),
        ("172.16.14.124/30", "172.16.14.0/25"),
        ("172.16.14.128/30", "172.16.14.128/25"),
    ],
)
def test_upstream_against_the_rack_subnets_at_their_edges(
    project: Path, edit: Callable[[str, str, str], None], upstream: str, overlapped: str | None
) -> None:
    """The last rack's management subnets are 172.16.14.0/25 and .128/25: a block just past their end
    is apart, one on a subnet's first or last addresses overlaps it."""
    gateway = str(IPv4Network(upstream)[1])
    old = "{subnet: 172.16.255.0/30, gateway: 172.16.255.1}"
    edit("fabric.yaml", old, f"{{subnet: {upstream}, gateway: {gateway}}}")
    intent = load_intent(project / "intent", budgets=False)
    found = [message for _, message in disjoint_pools(intent, resolve(intent))]
    assert found == ([f"{upstream} overlaps the rack management subnet {overlapped}"] if overlapped else [])


def test_owners_gathered_from_the_second_allocation(resolved_example: tuple[Intent, ResolvedFabric]) -> None:
    """An address's owners are gathered once a second allocation names it: the first is kept among
    them, an owner allocated it twice counts once (its first allocation named), three owners are three."""
    intent, fabric = resolved_example
    owners = [(200, "gpu090", "compute"), (200, "gpu090", "storage"), (201, "gpu091", "compute")]
    owners += [(201, "gpu092", "compute"), (201, "gpu091", "storage"), (201, "gpu093", "compute")]
    extra = [
        Allocation("compute", "hosts", f"10.30.1.{host}/24", f"rack01-{server}", f"{bond} bond")
        for host, server, bond in owners
    ]
    found = list(unique_addresses(intent, dataclasses.replace(fabric, allocations=(*fabric.allocations, *extra))))
    assert found == [
        (
            "10.30.1.201",
            "allocated to 3 owners: rack01-gpu091 (compute compute bond), rack01-gpu092 (compute compute bond), "
            "rack01-gpu093 (compute compute bond)",
        ),
    ]
