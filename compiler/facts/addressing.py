"""Addressing of the spine-leaf fabrics: loopbacks, leaf-spine /31s, SVIs, MLAG /31s, servers.

Every address is a pure function of a pool and a stable index (``compiler.addressing``):

* leaf-spine link (``L``, spine ``s`` of its pod) = /31 number ``(L - 1) * spines + (s - 1)``
  of ``p2p``, spine on the even address, leaf on the odd; the leaf's port is
  ``uplink_ports[s - 1]``, the spine's the ``l``-th of its ``downlinks`` (``l``: the leaf's
  number in its pod, ``L`` in a two-stage fabric);
* loopbacks: spine ``s`` = pool + ``s``, leaf ``L`` = pool + 64 + ``L``;
* three-stage: pod ``q``'s spine ``s`` = the ``((q - 1) * spines + s)``-th address of
  ``spine_loopbacks``; super-spine ``n`` of plane ``p`` = ``loopbacks`` + ``(p - 1) *
  per_plane + n``; the ``u``-th uplink of pod ``q``'s spine ``s`` (``U`` uplinks, shared out
  in order: ``U / per_plane`` to each super-spine of plane ``s``) = /31 number ``((q - 1) *
  spines + s - 1) * U + u`` of ``spine_p2p``, super-spine on the even address; the super-spine
  port is the ``((q - 1) * U / per_plane + j)``-th of its ``downlinks`` for the ``j``-th link;
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
    >>> link = addressing.fabric_links["rack03-leaf-b", "Ethernet26/1"]
    >>> link.upper, link.upper_port, link.lower_address
    ('spine02', 'Ethernet6/1', '10.31.4.43/31')
    >>> addressing.servers["rack05-gpu007", "compute"]
    HostAddress(address='10.30.5.17/24', gateway='10.30.5.1')
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections.abc import Iterable, Mapping
from ipaddress import IPv4Network
from itertools import repeat
from operator import itemgetter, rshift
from typing import NamedTuple

from compiler.addressing import (
    address_values,
    dotted,
    host_in,
    host_text,
    p2p_text,
    prefix_text,
    subnet_capacity,
    subnets_start,
)
from compiler.facts.common import FabricNetwork, Network, record
from compiler.facts.hardware import Layouts
from compiler.facts.servers import RESERVED, Attachment, Attachments
from compiler.facts.topology import SpineLeaf, Topology
from compiler.facts.vlans import FabricVlan, PortVlans, VlanPlan
from compiler.intent import FabricIntent, Intent
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
    """A routed link between two tiers (leaf-spine, pod spine-super-spine): its ends and /31."""

    network: FabricNetwork
    lower: str
    """The switch of the lower tier (a leaf, or a pod spine towards a super-spine)."""
    lower_port: str
    upper: str
    upper_port: str
    subnet: str
    lower_address: str
    upper_address: str

    def end(self, device: str, port: str) -> tuple[str, str, str]:
        """(own address, far device, far port) seen from ``device``'s ``port``."""
        if device == self.lower and port == self.lower_port:
            return self.lower_address, self.upper, self.upper_port
        return self.upper_address, self.lower, self.lower_port


class Addressing(NamedTuple):
    """Every address of the spine-leaf fabrics, and what each pool holds."""

    loopbacks: Mapping[str, str]
    leaves: Mapping[str, LeafAddresses]
    fabric_links: Mapping[tuple[str, str], FabricLink]
    """By (lower switch, its port)."""
    servers: Mapping[tuple[str, Network], HostAddress]
    """By (server, network): its bond's, or with per-NIC addresses its leaf-a NIC's."""
    nics: Mapping[tuple[str, str], HostAddress]
    """By (server, NIC), on networks with ``bonding: per-nic``: every NIC's own address."""
    allocations: tuple[Allocation, ...]
    pools: tuple[PoolUse, ...]
    tagged: Mapping[tuple[str, str, int], HostAddress] = {}
    """By (server, NIC, VLAN id): the address on a tagged VLAN of ``vlans.yaml`` with a pool (for a
    bond, under the NIC of leaf a)."""
    vlan_svis: Mapping[tuple[str, int], HostAddress] = {}
    """By (leaf, VLAN id): the leaf's SVI address on a routed VLAN of ``vlans.yaml`` and its gateway."""


def build_addressing(
    intent: Intent, topology: Topology, attachments: Attachments, vlans: VlanPlan | None = None
) -> Addressing:
    """Address every leaf, spine, leaf-spine link and server of the spine-leaf fabrics, and the
    VLANs of ``vlans.yaml`` that have a pool."""
    plan = vlans if vlans is not None else VlanPlan({}, {}, {}, ())
    loopbacks: dict[str, str] = {}
    leaves: dict[str, LeafAddresses] = {}
    links: dict[tuple[str, str], FabricLink] = {}
    servers: dict[tuple[str, Network], HostAddress] = {}
    nics: dict[tuple[str, str], HostAddress] = {}
    tagged: dict[tuple[str, str, int], HostAddress] = {}
    allocations: list[Allocation] = []
    pools: list[PoolUse] = []
    pair_of = {leaf: pair.id for fabric in topology.fabrics.values() for pair in fabric.pairs for leaf in pair.leaves}
    for net, fabric in sorted(topology.fabrics.items()):
        added = len(allocations)
        _fabric(intent, topology, fabric, loopbacks, leaves, links, allocations)
        spec = intent.fabric.fabrics[net]
        hosts = _Hosts(servers, nics, tagged, allocations)
        _server_hosts(spec, fabric, attachments, plan, pair_of, hosts)
        pools.extend(_pool_uses(intent, topology.layouts, fabric, allocations[added:]))
    svis = _vlan_svis(topology, plan, pair_of, allocations)
    pools.extend(_vlan_pools(plan, pair_of, allocations))
    return Addressing(loopbacks, leaves, links, servers, nics, tuple(allocations), tuple(pools), tagged, svis)


class _Hosts(NamedTuple):
    """Where the servers' addresses go as they are taken."""

    servers: dict[tuple[str, Network], HostAddress]
    nics: dict[tuple[str, str], HostAddress]
    tagged: dict[tuple[str, str, int], HostAddress]
    allocations: list[Allocation]


def _server_hosts(
    spec: FabricIntent,
    fabric: SpineLeaf,
    attachments: Attachments,
    plan: VlanPlan,
    pair_of: Mapping[str, int],
    out: _Hosts,
) -> None:
    """Every server NIC's addresses on ``fabric``: its bond's (leaf a) or its own (per NIC), on its
    pair's /24 or its access VLAN's, and on its tagged VLANs."""
    net = fabric.network
    per_nic = spec.bonding == "per-nic"
    stride = spec.leaves.racks_per_pair * spec.leaves.ports_per_rack
    # Each leaf's pair's /24 by its first address: a server's address is text from integers,
    # without a subnet object per pair or its properties once per NIC.
    start = _hosts_start(spec, fabric)
    bases = {leaf: (start + pair.id * _HOSTS_SIZE, 24) for pair in fabric.pairs for leaf in pair.leaves}
    gateways = {leaf: dotted(base + GATEWAY_OFFSET) for leaf, (base, _) in bases.items()}
    bond, on_ports = f"{net} bond", plan.ports
    for nic in attachments.nics:
        # Its fields unpacked at once: a read each was a third of this at 16x (10,000 NICs).
        server, network, name, _, _, switch, _, host, side, retired = nic
        if network != net or (side and not per_nic):
            continue
        offset = SERVER_HOST_OFFSET + side * stride + host
        # Most ports have only the fabric's VLAN: no VLAN lookup without a port in vlans.yaml.
        carried = on_ports.get((server, name)) if on_ports else None
        if carried is not None:
            _tagged_hosts(nic, carried, pair_of[switch], offset, out)
        purpose = f"{net} NIC {name}" if per_nic else bond
        if carried is None or carried.access is None:
            base, length = bases[switch]
            address = record(HostAddress, (f"{dotted(base + offset)}/{length}", gateways[switch]))
            owned = (net, "hosts", address[0], server, purpose + RESERVED if retired else purpose)
            out.allocations.append(record(Allocation, owned))
        else:
            found = _vlan_host(carried.access, pair_of[switch], offset)
            if found is None:
                continue  # a layer-2 VLAN: the port has no address
            address = found
            out.allocations.append(_vlan_allocation(carried.access, address, server, purpose))
        if side == 0:
            out.servers[server, net] = address
        if per_nic:
            out.nics[server, name] = address


def _tagged_hosts(nic: Attachment, carried: PortVlans, pair: int, offset: int, out: _Hosts) -> None:
    """A NIC's addresses on the tagged VLANs of its port that have a pool."""
    for vlan in carried.tagged:
        own = _vlan_host(vlan, pair, offset)
        if own is not None:
            out.tagged[nic.server, nic.nic, vlan.id] = own
            purpose = f"{nic.network} NIC {nic.nic} VLAN {vlan.id}"
            out.allocations.append(_vlan_allocation(vlan, own, nic.server, purpose))


def vlan_pool_name(vlan: FabricVlan) -> str:
    """The pool name of a VLAN of ``vlans.yaml`` in allocations and pool uses.

    Example:
        >>> from compiler.sources import Source
        >>> vlan_pool_name(FabricVlan("inference", 300, "I", "compute", None, False, Source("vlans.yaml")))
        'vlans.inference'
    """
    return f"vlans.{vlan.key}"


def _vlan_host(vlan: FabricVlan, pair: int, offset: int) -> HostAddress | None:
    """A server's address on a VLAN with a pool (its gateway when routed), None on a layer-2 VLAN."""
    subnet = vlan.subnet(pair)
    if subnet is None:
        return None
    gateway = host_text(subnet, GATEWAY_OFFSET).partition("/")[0] if vlan.routed else ""
    return record(HostAddress, (host_text(subnet, offset), gateway))


def _vlan_allocation(vlan: FabricVlan, address: HostAddress, owner: str, purpose: str) -> Allocation:
    return record(Allocation, (vlan.network, vlan_pool_name(vlan), address.address, owner, purpose))


def _vlan_svis(
    topology: Topology, plan: VlanPlan, pair_of: Mapping[str, int], allocations: list[Allocation]
) -> dict[tuple[str, int], HostAddress]:
    """Each leaf's SVI on the routed VLANs it carries: .2/.3 of its pair's subnet, gateway .1."""
    svis: dict[tuple[str, int], HostAddress] = {}
    for leaf, carried in plan.leaves.items():
        switch = topology.switches[leaf]
        pair = pair_of[leaf]
        for vlan in carried:
            subnet = vlan.subnet(pair)
            if subnet is None or not vlan.routed:
                continue
            gateway = host_in(subnet, GATEWAY_OFFSET)
            svi = host_in(subnet, LEAF_SVI_OFFSET + (switch.side or 0))
            svis[leaf, vlan.id] = HostAddress(str(svi), str(gateway.ip))
            name = vlan_pool_name(vlan)
            allocations.append(Allocation(vlan.network, name, str(svi), leaf, eos.vlan_interface(vlan.id)))
            if switch.side == 0:
                owner = f"{vlan.network}-pair{pair:02d}"
                allocations.append(Allocation(vlan.network, name, str(subnet), owner, f"VLAN {vlan.id} subnet"))
                allocations.append(Allocation(vlan.network, name, str(gateway), owner, "virtual-router gateway"))
    return svis


def _vlan_pools(plan: VlanPlan, pair_of: Mapping[str, int], allocations: list[Allocation]) -> list[PoolUse]:
    """How full each VLAN pool is, in /24s per leaf pair."""
    uses = []
    for vlan in plan.vlans.values():
        if vlan.pool is None:
            continue
        pairs = [pair_of[leaf] for leaf, carried in plan.leaves.items() if vlan in carried]
        highest = max(pairs, default=0)
        uses.append(
            pool_use(vlan.network, vlan_pool_name(vlan), vlan.pool, "/24 per leaf pair", 24, highest + 1, allocations)
        )
    return uses


def _fabric(
    intent: Intent,
    topology: Topology,
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

    def take(pool: str, prefix: str, owner: str, purpose: str) -> None:
        allocations.append(record(Allocation, (net, pool, prefix, owner, purpose)))

    layouts = topology.layouts
    uplink_ports = spec.leaves.uplink_ports
    per_pod = spec.spines.count
    loopback_base = int(pools.loopbacks.network_address)
    svi_name, peer_name, l3_name = (eos.vlan_interface(v) for v in (vlan.id, mlag.peer_vlan, mlag.l3_vlan))
    loopback_name = eos.loopback()
    hosts_start = _hosts_start(spec, fabric)
    for pod in fabric.pods:
        spine_downlinks = layouts.spine[net].sets["downlinks"]
        for pair in pod.pairs:
            # Addresses as text from integers (``compiler.addressing``): an ``ipaddress`` object
            # per address and link end cost more than the rest of a leaf's addressing.
            hosts = hosts_start + pair.id * _HOSTS_SIZE
            gateway = prefix_text(hosts + GATEWAY_OFFSET, 24)
            owner = f"{net}-pair{pair.id:02d}"
            take("hosts", prefix_text(hosts, 24), owner, "server subnet")
            take("hosts", gateway, owner, "virtual-router gateway")
            peer_link = p2p_text(pools.mlag_peer, pair.id - 1)[1:]
            l3_link = p2p_text(pools.mlag_l3, pair.id - 1)[1:]
            for side, name in enumerate(pair.leaves):
                index = pair.leaf_index(side)
                loopback = dotted(loopback_base + LEAF_LOOPBACK_OFFSET + index)
                svi = prefix_text(hosts + LEAF_SVI_OFFSET + side, 24)
                # A leaf's and a link's allocations appended at once, not by a call to ``take``
                # each (a Python call per allocation, 18,000 at 16x).
                allocations += (
                    record(Allocation, (net, "loopbacks", f"{loopback}/32", name, loopback_name)),
                    record(Allocation, (net, "hosts", svi, name, svi_name)),
                    record(Allocation, (net, "mlag_peer", peer_link[side], name, peer_name)),
                    record(Allocation, (net, "mlag_l3", l3_link[side], name, l3_name)),
                )
                loopbacks[name] = loopback
                mlag_ends = (peer_link[side], peer_link[1 - side], l3_link[side], l3_link[1 - side])
                leaves[name] = record(LeafAddresses, (loopback, svi, gateway.partition("/")[0], *mlag_ends))
                local = pod.local_index(index)
                for number, spine in enumerate(pod.spines[: fabric.uplinks], start=1):
                    if local > len(spine_downlinks):
                        continue  # PRT004 reports the spine's missing port
                    subnet, spine_end, leaf_end = p2p_text(pools.p2p, (index - 1) * per_pod + (number - 1))
                    allocations += (
                        record(Allocation, (net, "p2p", spine_end, spine, f"P2P to {name}")),
                        record(Allocation, (net, "p2p", leaf_end, name, f"P2P to {spine}")),
                    )
                    leaf_port = uplink_ports[number - 1]
                    ends = (name, leaf_port, spine, spine_downlinks[local - 1])
                    links[name, leaf_port] = record(FabricLink, (net, *ends, subnet, leaf_end, spine_end))
        for number, spine in enumerate(pod.spines, start=1):
            if fabric.three_stage and pools.spine_loopbacks is not None:
                loopback = dotted(int(pools.spine_loopbacks.network_address) + (pod.id - 1) * per_pod + number)
                take("spine_loopbacks", f"{loopback}/32", spine, loopback_name)
            else:
                loopback = dotted(loopback_base + number)
                take("loopbacks", f"{loopback}/32", spine, loopback_name)
            loopbacks[spine] = loopback
    if fabric.three_stage:
        _super_spines(intent, topology, fabric, loopbacks, links, allocations)


_HOSTS_SIZE = 256
"""Addresses in a leaf pair's hosts /24."""


def _hosts_start(spec: FabricIntent, fabric: SpineLeaf) -> int:
    """The first address of the hosts pool, pair ``P``'s /24 starting ``P`` /24s on (0 with no
    pair: no subnet taken); raises for a pool that has no such /24s, as taking them would."""
    if not fabric.pairs:
        return 0
    return subnets_start(spec.pools.hosts, 24, max(pair.id for pair in fabric.pairs))


def _super_spines(
    intent: Intent,
    topology: Topology,
    fabric: SpineLeaf,
    loopbacks: dict[str, str],
    links: dict[tuple[str, str], FabricLink],
    allocations: list[Allocation],
) -> None:
    """The super-spines' loopbacks and every pod spine-super-spine /31 (see the module rules)."""
    net = fabric.network
    loopback_name = eos.loopback()
    spec = intent.fabric.fabrics[net]
    pools, pods = spec.pools, spec.pods
    assert pods is not None
    assert pools.spine_p2p is not None
    layouts = topology.layouts
    per_plane = pods.super_spines.per_plane
    per_pod = spec.spines.count
    for plane, members in enumerate(fabric.planes, start=1):
        for number, name in enumerate(members, start=1):
            loopback = dotted(int(pools.loopbacks.network_address) + (plane - 1) * per_plane + number)
            allocations.append(record(Allocation, (net, "loopbacks", f"{loopback}/32", name, loopback_name)))
            loopbacks[name] = loopback
    uplinks = layouts.spine[net].sets.get("uplinks", ())
    downlinks = layouts.super_spine[net].sets["downlinks"]
    share = len(uplinks) // per_plane
    for pod in fabric.pods:
        for number, spine in enumerate(pod.spines, start=1):
            supers = fabric.planes[number - 1]
            for u, spine_port in enumerate(uplinks[: share * per_plane]):
                target, j = divmod(u, share)
                index = (pod.id - 1) * share + j
                if index >= len(downlinks):
                    continue  # PRT004 reports the super-spine's missing port
                link = ((pod.id - 1) * per_pod + number - 1) * len(uplinks) + u
                subnet, upper, lower = p2p_text(pools.spine_p2p, link)
                super_spine = supers[target]
                allocations += (
                    record(Allocation, (net, "spine_p2p", upper, super_spine, f"P2P to {spine}")),
                    record(Allocation, (net, "spine_p2p", lower, spine, f"P2P to {super_spine}")),
                )
                ends = (spine, spine_port, super_spine, downlinks[index])
                links[spine, spine_port] = record(FabricLink, (net, *ends, subnet, lower, upper))


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
        >>> taken += [Allocation("compute", "p2p", "10.31.4.2/32", "spine01", ""),
        ...           Allocation("compute", "p2p", "10.31.4.3", "spine02", "")]
        >>> pool_use("compute", "p2p", IPv4Network("10.31.4.0/22"), "/31", 31, 1, taken).used
        2
    """
    mine = [a.prefix for a in allocations if a.network == net and a.pool == name]
    return _pool_use(net, name, pool, unit, prefixlen, highest, mine)


def _pool_use(
    net: Network, name: str, pool: IPv4Network, unit: str, prefixlen: int, highest: int, prefixes: list[str]
) -> PoolUse:
    """:func:`pool_use` of the ``prefixes`` of pool ``name``'s allocations."""
    # Each prefix split at its "/", the addresses parsed in one batch per prefix length and a
    # unit counted as (``bits``, top ``bits`` of the address): all in C (``map``), since a
    # Python step per allocation (18,000 at 16x) dominated.
    parts = list(map(str.partition, prefixes, repeat("/", len(prefixes))))
    lengths = set(map(_LENGTH, parts))
    units: dict[int, set[int]] = {}
    for length in lengths:
        addresses = list(map(_ADDRESS, parts)) if len(lengths) == 1 else [a for a, _, n in parts if n == length]
        bits = min(int(length) if length else 32, prefixlen)
        values = address_values(addresses)
        units.setdefault(bits, set()).update(map(rshift, values, repeat(32 - bits, len(values))))
    used = sum(len(found) for found in units.values())
    return PoolUse(net, name, str(pool), unit, used, subnet_capacity(pool, prefixlen), highest)


_ADDRESS, _LENGTH = itemgetter(0), itemgetter(2)


def _pool_uses(intent: Intent, layouts: Layouts, fabric: SpineLeaf, allocations: list[Allocation]) -> list[PoolUse]:
    net = fabric.network
    pools = intent.fabric.fabrics[net].pools
    highest_pair = max((p.id for p in fabric.pairs), default=0)
    highest_leaf = max((p.leaf_index(1) for p in fabric.pairs), default=0)
    spines = intent.fabric.fabrics[net].spines.count
    # Each pool counts its own allocations' prefixes: one pass sorts them out (not one per pool).
    by_pool: dict[str, list[str]] = {}
    for allocation in allocations:
        by_pool.setdefault(allocation.pool, []).append(allocation.prefix)
    uses = [
        _pool_use(net, "hosts", pools.hosts, "/24 per leaf pair", 24, highest_pair + 1, by_pool.get("hosts", [])),
        _pool_use(net, "p2p", pools.p2p, "/31 per leaf-spine link", 31, highest_leaf * spines, by_pool.get("p2p", [])),
        _pool_use(
            net, "mlag_peer", pools.mlag_peer, "/31 per leaf pair", 31, highest_pair, by_pool.get("mlag_peer", [])
        ),
        _pool_use(net, "mlag_l3", pools.mlag_l3, "/31 per leaf pair", 31, highest_pair, by_pool.get("mlag_l3", [])),
        _pool_use(
            net,
            "loopbacks",
            pools.loopbacks,
            "/32 per switch",
            32,
            LEAF_LOOPBACK_OFFSET + highest_leaf + 1,
            by_pool.get("loopbacks", []),
        ),
    ]
    if fabric.three_stage and pools.spine_loopbacks is not None and pools.spine_p2p is not None:
        highest_pod = max((p.id for p in fabric.pods), default=0)
        uplinks = len(layouts.spine[net].sets.get("uplinks", []))
        uses += [
            _pool_use(
                net,
                "spine_loopbacks",
                pools.spine_loopbacks,
                "/32 per pod spine",
                32,
                highest_pod * spines,
                by_pool.get("spine_loopbacks", []),
            ),
            _pool_use(
                net,
                "spine_p2p",
                pools.spine_p2p,
                "/31 per pod spine uplink",
                31,
                highest_pod * spines * uplinks,
                by_pool.get("spine_p2p", []),
            ),
        ]
    return uses
