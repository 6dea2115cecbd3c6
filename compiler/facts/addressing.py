"""Addressing of the spine-leaf fabrics: loopbacks, leaf-spine /31s, SVIs, MLAG /31s, servers.

Every address is a pure function of a pool and a stable index (``compiler.addressing``):

* leaf-spine link (``L``, spine ``s``) = /31 number ``(L - 1) * spines + (s - 1)`` of
  ``p2p``, spine on the even address, leaf on the odd;
* loopbacks: spine ``s`` = pool + ``s``, leaf ``L`` = pool + 64 + ``L``;
* hosts subnet of pair ``P`` = the ``P``-th /24 of ``hosts``: virtual gateway .1, leaf a .2,
  leaf b .3, server .10 + its host index ``k`` (its bond, or with ``bonding: per-nic`` its
  leaf-a NIC; the leaf-b NIC takes .10 + ``H`` + ``k``, ``H`` = the pair's server ports per leaf,
  ``racks_per_pair`` x ``ports_per_rack``, so both depend on the position only);
* MLAG peer and L3 peer of pair ``P`` = the ``(P - 1)``-th /31 of ``mlag_peer`` / ``mlag_l3``,
  leaf a on the even address.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> from compiler.facts.topology import build_topology
    >>> from compiler.facts.servers import build_attachments
    >>> intent = load_intent(Path("intent"))
    >>> topology = build_topology(intent)
    >>> addressing = build_addressing(intent, topology, build_attachments(intent, topology))
    >>> addressing.loopbacks["rack01-leaf-a"], addressing.leaves["rack05-leaf-b"].svi
    ('10.31.0.65', '10.30.5.3/24')
    >>> addressing.fabric_links["rack03-leaf-b", "spine02"].leaf_address
    '10.31.4.43/31'
    >>> addressing.servers["rack05-gpu007", "compute"]
    HostAddress(address='10.30.5.17/24', gateway='10.30.5.1')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from ipaddress import IPv4Address, IPv4Interface, IPv4Network
from typing import NamedTuple

from compiler.addressing import host_address, host_in, nth_subnet, p2p_link, subnet_capacity
from compiler.facts.common import FabricNetwork, Network
from compiler.facts.servers import Attachments
from compiler.facts.topology import SpineLeaf, Topology
from compiler.intent import Intent
from compiler.platforms import eos

LEAF_LOOPBACK_OFFSET = 64
SERVER_HOST_OFFSET = 10
GATEWAY_OFFSET = 1
LEAF_SVI_OFFSET = 2


class Allocation(NamedTuple):
    """One address or subnet taken from a pool, and who owns it."""

    network: Network
    pool: str
    prefix: str
    owner: str
    purpose: str


class PoolUse(NamedTuple):
    """How full a pool is, in units of its allocation size."""

    network: Network
    name: str
    cidr: str
    unit: str
    used: int
    capacity: int
    highest_index: int


class HostAddress(NamedTuple):
    """An address with its prefix length, and the gateway of its subnet."""

    address: str
    gateway: str


class LeafAddresses(NamedTuple):
    """A leaf's own addresses: router id, SVI and gateway of its pair's subnet, MLAG /31 ends."""

    loopback: str
    svi: str
    gateway: str
    mlag_peer: str
    mlag_peer_remote: str
    mlag_l3: str
    mlag_l3_remote: str


class FabricLink(NamedTuple):
    """The /31 of one leaf-spine link and its two ends."""

    network: FabricNetwork
    leaf: str
    spine: str
    subnet: str
    leaf_address: str
    spine_address: str


class Addressing(NamedTuple):
    """Every address of the spine-leaf fabrics, and what each pool holds."""

    loopbacks: Mapping[str, str]
    leaves: Mapping[str, LeafAddresses]
    fabric_links: Mapping[tuple[str, str], FabricLink]
    """By (leaf, spine)."""
    servers: Mapping[tuple[str, Network], HostAddress]
    """By (server, network): its bond's, or with per-NIC addresses its leaf-a NIC's."""
    nics: Mapping[tuple[str, str], HostAddress]
    """By (server, NIC), on networks with ``bonding: per-nic``: every NIC's own address."""
    allocations: tuple[Allocation, ...]
    pools: tuple[PoolUse, ...]


def build_addressing(intent: Intent, topology: Topology, attachments: Attachments) -> Addressing:
    """Address every leaf, spine, leaf-spine link and server of the spine-leaf fabrics."""
    loopbacks: dict[str, str] = {}
    leaves: dict[str, LeafAddresses] = {}
    links: dict[tuple[str, str], FabricLink] = {}
    servers: dict[tuple[str, Network], HostAddress] = {}
    nics: dict[tuple[str, str], HostAddress] = {}
    allocations: list[Allocation] = []
    pools: list[PoolUse] = []
    for net, fabric in sorted(topology.fabrics.items()):
        added = len(allocations)
        _fabric(intent, fabric, loopbacks, leaves, links, allocations)
        spec = intent.fabric.fabrics[net]
        per_nic = spec.bonding == "per-nic"
        stride = spec.leaves.racks_per_pair * spec.leaves.ports_per_rack
        subnets = {leaf: nth_subnet(spec.pools.hosts, 24, pair.id) for pair in fabric.pairs for leaf in pair.leaves}
        gateways = {leaf: str(host_in(hosts, GATEWAY_OFFSET).ip) for leaf, hosts in subnets.items()}
        for nic in attachments.nics:
            if nic.network != net or (nic.side and not per_nic):
                continue
            offset = SERVER_HOST_OFFSET + nic.side * stride + nic.host
            address = HostAddress(str(host_in(subnets[nic.switch], offset)), gateways[nic.switch])
            purpose = f"{net} NIC {nic.nic}" if per_nic else f"{net} bond"
            allocations.append(Allocation(net, "hosts", address.address, nic.server, purpose))
            if nic.side == 0:
                servers[nic.server, net] = address
            if per_nic:
                nics[nic.server, nic.nic] = address
        pools.extend(_pool_uses(intent, fabric, allocations[added:]))
    return Addressing(loopbacks, leaves, links, servers, nics, tuple(allocations), tuple(pools))


def _fabric(
    intent: Intent,
    fabric: SpineLeaf,
    loopbacks: dict[str, str],
    leaves: dict[str, LeafAddresses],
    links: dict[tuple[str, str], FabricLink],
    allocations: list[Allocation],
) -> None:
    net = fabric.network
    spec = intent.fabric.fabrics[net]
    pools = spec.pools
    vlan = intent.fabric.vlans[spec.vlan]
    mlag = intent.fabric.mlag

    def take(pool: str, prefix: IPv4Interface | IPv4Network, owner: str, purpose: str) -> None:
        allocations.append(Allocation(net, pool, str(prefix), owner, purpose))

    for pair in fabric.pairs:
        hosts = nth_subnet(pools.hosts, 24, pair.id)
        gateway = host_in(hosts, GATEWAY_OFFSET)
        take("hosts", hosts, f"{net}-pair{pair.id:02d}", "server subnet")
        take("hosts", gateway, f"{net}-pair{pair.id:02d}", "virtual-router gateway")
        peer_link, l3_link = p2p_link(pools.mlag_peer, pair.id - 1), p2p_link(pools.mlag_l3, pair.id - 1)
        for side, name in enumerate(pair.leaves):
            index = pair.leaf_index(side)
            loopback = host_address(pools.loopbacks, LEAF_LOOPBACK_OFFSET + index)
            svi = host_in(hosts, LEAF_SVI_OFFSET + side)
            take("loopbacks", IPv4Interface((loopback, 32)), name, eos.loopback())
            take("hosts", svi, name, eos.vlan_interface(vlan.id))
            take("mlag_peer", peer_link[side], name, eos.vlan_interface(mlag.peer_vlan))
            take("mlag_l3", l3_link[side], name, eos.vlan_interface(mlag.l3_vlan))
            loopbacks[name] = str(loopback)
            leaves[name] = LeafAddresses(
                str(loopback),
                str(svi),
                str(gateway.ip),
                str(peer_link[side]),
                str(peer_link[1 - side]),
                str(l3_link[side]),
                str(l3_link[1 - side]),
            )
            for number, spine in enumerate(fabric.spines[: fabric.uplinks], start=1):
                spine_end, leaf_end = p2p_link(pools.p2p, (index - 1) * len(fabric.spines) + (number - 1))
                take("p2p", spine_end, spine, f"P2P to {name}")
                take("p2p", leaf_end, name, f"P2P to {spine}")
                links[name, spine] = FabricLink(net, name, spine, str(spine_end.network), str(leaf_end), str(spine_end))
    for number, spine in enumerate(fabric.spines, start=1):
        loopback = host_address(pools.loopbacks, number)
        take("loopbacks", IPv4Interface((loopback, 32)), spine, eos.loopback())
        loopbacks[spine] = str(loopback)


def pool_use(
    net: Network,
    name: str,
    pool: IPv4Network,
    unit: str,
    prefixlen: int,
    highest: int,
    allocations: Iterable[Allocation],
) -> PoolUse:
    """How many ``prefixlen`` units of ``pool`` hold one of ``allocations`` (those of its pool).

    A unit is the allocation's own network, or its supernet of ``prefixlen`` when it is
    smaller; computed on integers, since an ``IPv4Interface`` per allocation dominated
    resolution at scale.

    Example:
        >>> taken = [Allocation("compute", "p2p", "10.31.4.0/31", "spine01", ""),
        ...          Allocation("compute", "p2p", "10.31.4.1/31", "rack01-leaf-a", "")]
        >>> pool_use("compute", "p2p", IPv4Network("10.31.4.0/22"), "/31", 31, 1, taken).used
        1
    """
    units = set()
    for a in allocations:
        if a.network == net and a.pool == name:
            address, _, length = a.prefix.partition("/")
            bits = min(int(length) if length else 32, prefixlen)
            value = int(IPv4Address(address))
            units.add((value >> (32 - bits) if bits else 0, bits))
    return PoolUse(net, name, str(pool), unit, len(units), subnet_capacity(pool, prefixlen), highest)


def _pool_uses(intent: Intent, fabric: SpineLeaf, allocations: list[Allocation]) -> list[PoolUse]:
    net = fabric.network
    pools = intent.fabric.fabrics[net].pools
    highest_pair = max((p.id for p in fabric.pairs), default=0)
    highest_leaf = max((p.leaf_index(1) for p in fabric.pairs), default=0)
    spines = len(fabric.spines)
    return [
        pool_use(net, "hosts", pools.hosts, "/24 per leaf pair", 24, highest_pair + 1, allocations),
        pool_use(net, "p2p", pools.p2p, "/31 per leaf-spine link", 31, highest_leaf * spines, allocations),
        pool_use(net, "mlag_peer", pools.mlag_peer, "/31 per leaf pair", 31, highest_pair, allocations),
        pool_use(net, "mlag_l3", pools.mlag_l3, "/31 per leaf pair", 31, highest_pair, allocations),
        pool_use(
            net,
            "loopbacks",
            pools.loopbacks,
            "/32 per switch",
            32,
            LEAF_LOOPBACK_OFFSET + highest_leaf + 1,
            allocations,
        ),
    ]
