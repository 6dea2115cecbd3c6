"""How each server attaches to each spine-leaf fabric: a bond of its two NICs, or one address per NIC.

``fabrics.<net>.bonding`` decides, for every server of the fabric:

* ``active-backup``: one bond, one address; the primary NIC alternates by the server's host
  index on its pair (``primary: by-server``: odd ``k`` on leaf a, even on leaf b; ``k`` counts
  across the pair's racks), so each leaf of a pair is primary for half its servers;
* ``lacp``: one 802.3ad bond (an MLAG port-channel on the leaves), one address;
* ``per-nic``: no bond, each NIC its own address on its own leaf (routed on its own table, so a
  reply leaves by the NIC its request came in on), each with its own RoCE GID.

The link records the NICs' NUMA nodes and adapters, which the bonding rules check (RoCE LAG takes
two ports of one adapter; a GPU's NIC should sit on its NUMA node).

Example:
    >>> from pathlib import Path
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> facts = build_facts(load_intent(Path("intent")))
    >>> compute, storage = facts.servers["rack01-gpu002"].links
    >>> compute.mode, compute.name, [(p.nic, p.numa, p.address) for p in compute.ports]
    ('per-nic', None, [('enp65s0f0', 0, '10.30.1.12/24'), ('enp193s0f0', 1, '10.30.1.24/24')])
    >>> storage.mode, storage.name, storage.primary, storage.address
    ('active-backup', 'bond1', 'enp66s0f1', '10.40.1.12/24')
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections.abc import Mapping
from operator import attrgetter
from typing import Literal, NamedTuple

from compiler.facts.addressing import Addressing
from compiler.facts.common import FabricNetwork, record
from compiler.facts.servers import Attachment, Attachments
from compiler.facts.vlans import FabricVlan, PortVlans, VlanPlan
from compiler.intent import Intent

BOND_NAMES: dict[FabricNetwork, str] = {"compute": "bond0", "storage": "bond1"}
"""One bond per fabric network, named the same on every server so runbooks can say bond0."""

ROUTE_TABLES: dict[FabricNetwork, int] = {"compute": 100, "storage": 110}
"""Per-NIC routing: the leaf-a NIC routes in the main table (unsourced traffic leaves by it), the
leaf-b NIC in the network's base + 1 (compute: table 101), with a rule for its source address."""


class HostVlan(NamedTuple):
    """A tagged VLAN of ``vlans.yaml`` on a server: an 802.1Q interface on its bond or NIC."""

    id: int
    name: str
    parent: str
    """The bond or NIC it is tagged on (the interface is ``<parent>.<id>``)."""
    address: str | None = None
    """None on a VLAN without a pool (layer 2 only)."""
    gateway: str | None = None
    """None on a VLAN its leaves do not route."""
    pool: str | None = None


class HostPort(NamedTuple):
    """One NIC of a server on a fabric: its leaf, NUMA node, adapter and (per-NIC) address."""

    nic: str
    side: int
    """0: leaf a, 1: leaf b."""
    switch: str
    numa: int
    adapter: str
    address: str | None = None
    gateway: str | None = None
    table: int | None = None
    """Its own routing table (the leaf-b NIC of per-NIC addresses)."""
    pool: str | None = None
    """The pool of its per-NIC address (its route goes there through the gateway)."""
    vlan: int | None = None
    """Its untagged VLAN when ``vlans.yaml`` makes it another than the fabric's."""


class HostLink(NamedTuple):
    """A server on one fabric network: a bond (its name, primary, address) or per-NIC addresses."""

    network: FabricNetwork
    mode: Literal["active-backup", "lacp", "per-nic"]
    ports: tuple[HostPort, ...]
    """By side (leaf a first)."""
    name: str | None = None
    """The bond (None per NIC)."""
    primary: str | None = None
    """The active-backup primary NIC."""
    address: str | None = None
    """The bond's address."""
    gateway: str | None = None
    rdma: bool = False
    pool: str | None = None
    """The pool of the bond's address."""
    vlan: int | None = None
    """The bond's untagged VLAN when ``vlans.yaml`` makes it another than the fabric's."""
    tagged: tuple[HostVlan, ...] = ()
    """Tagged VLANs of ``vlans.yaml``, on the bond or on each NIC."""


def primary_side(host: int, rule: str) -> int:
    """The leaf side of an active-backup primary: alternating by host index, or always leaf a.

    Example:
        >>> [primary_side(k, "by-server") for k in (1, 2, 3)], primary_side(2, "leaf-a")
        ([0, 1, 0], 0)
    """
    return (host - 1) % 2 if rule == "by-server" else 0


def build_links(
    intent: Intent, attachments: Attachments, addressing: Addressing, vlans: VlanPlan | None = None
) -> Mapping[str, tuple[HostLink, ...]]:
    """Every in-service server's links, compute before storage."""
    plan = vlans if vlans is not None else VlanPlan({}, {}, {}, ())
    out: dict[str, list[HostLink]] = {}
    model_of = {s.name: s.model for s in intent.servers}
    # What each fabric's links take from its spec, read once (not per server).
    fabrics = [
        (net, spec.bonding, spec.primary, spec.carries_rdma, str(spec.pools.hosts))
        for net, spec in sorted(intent.fabric.fabrics.items())
    ]
    adapters_of = {name: model.adapters for name, model in intent.fabric.server_models.items()}
    for server, nics in sorted(attachments.of_server.items()):
        if any(map(_RETIRED, nics)):
            continue
        adapters = adapters_of[model_of[server]]
        by_net: dict[str, list[Attachment]] = {}
        for a in nics:
            by_net.setdefault(a.network, []).append(a)
        for net, mode, primary, rdma, pool in fabrics:
            on_net = by_net.get(net)
            if not on_net:
                continue
            on_net.sort(key=_SIDE)
            vlans_of = record(_Vlans, (server, pool, plan, addressing))
            link = _link(net, mode, primary, rdma, on_net, adapters, addressing, vlans_of)
            out.setdefault(server, []).append(link)
    return {name: tuple(links) for name, links in out.items()}


_SIDE = attrgetter("side")
_RETIRED = attrgetter("retired")
_NO_ADDRESS = (None, None)


class _Vlans(NamedTuple):
    """The VLANs of ``vlans.yaml`` as one server's links take them."""

    server: str
    fabric_pool: str
    plan: VlanPlan
    addressing: Addressing

    def pool_of(self, vlan: FabricVlan | None) -> str | None:
        """The pool of an untagged address: the fabric's, or the access VLAN's when routed."""
        if vlan is None:
            return self.fabric_pool
        return str(vlan.pool) if vlan.pool is not None and vlan.routed else None

    def tagged_on(self, parent: str, nic: str, carried: PortVlans) -> list[HostVlan]:
        """An 802.1Q interface on ``parent`` per tagged VLAN of ``nic``'s port."""
        found = []
        for vlan in carried.tagged:
            own = self.addressing.tagged.get((self.server, nic, vlan.id))
            found.append(
                HostVlan(
                    vlan.id,
                    vlan.name,
                    parent,
                    own.address if own else None,
                    (own.gateway or None) if own else None,
                    self.pool_of(vlan) if own and own.gateway else None,
                )
            )
        return found


def _link(
    net: FabricNetwork,
    mode: Literal["active-backup", "lacp", "per-nic"],
    primary_rule: str,
    rdma: bool,
    nics: list[Attachment],
    adapters: Mapping[str, str],
    addressing: Addressing,
    vlans: _Vlans,
) -> HostLink:
    """A server's link on ``net`` with the VLANs of ``vlans.yaml`` on its ports: the pool of each
    untagged address (the fabric's, or an access VLAN's) and an 802.1Q interface per tagged VLAN."""
    server = nics[0].server
    if mode == "per-nic" and not vlans.plan.ports:
        # No port has a VLAN of vlans.yaml (most fabrics): each NIC untagged on the fabric's pool.
        base, pool, own_of = ROUTE_TABLES[net], vlans.fabric_pool, addressing.nics
        fabric_only = [
            record(
                HostPort,
                (
                    a.nic,
                    a.side,
                    a.switch,
                    a.numa,
                    adapters[a.nic],
                    *own_of.get((server, a.nic), _NO_ADDRESS),
                    base + a.side if a.side else None,
                    pool,
                    None,
                ),
            )
            for a in nics
        ]
        return record(HostLink, (net, mode, tuple(fabric_only), None, None, None, None, rdma, None, None, ()))
    if mode == "per-nic":
        ports = []
        tagged: list[HostVlan] = []
        for a in nics:
            own = addressing.nics.get((server, a.nic))
            carried = vlans.plan.of(server, a.nic)
            access = carried.access
            address = (own.address, own.gateway) if own else (None, None)
            table = ROUTE_TABLES[net] + a.side if a.side else None
            values = (a.nic, a.side, a.switch, a.numa, adapters[a.nic], *address, table, vlans.pool_of(access))
            ports.append(record(HostPort, (*values, access.id if access else None)))
            tagged += vlans.tagged_on(a.nic, a.nic, carried)
        return record(HostLink, (net, mode, tuple(ports), None, None, None, None, rdma, None, None, tuple(tagged)))
    unset = (None, None, None, None, None)  # a bond's NIC has no address, table, pool, VLAN
    ports = [record(HostPort, (a.nic, a.side, a.switch, a.numa, adapters[a.nic], *unset)) for a in nics]
    primary = _primary(ports, primary_side(nics[0].host, primary_rule)) if mode == "active-backup" else None
    bond = addressing.servers.get((server, net))
    first = nics[0].nic
    carried = vlans.plan.of(server, first)
    access = carried.access
    values = (
        net,
        mode,
        tuple(ports),
        BOND_NAMES[net],
        primary,
        *(bond if bond else (None, None)),
        rdma,
        vlans.pool_of(access),
        access.id if access else None,
        tuple(vlans.tagged_on(BOND_NAMES[net], first, carried)),
    )
    return record(HostLink, values)


def _primary(ports: list[HostPort], side: int) -> str:
    """The NIC on ``side`` (the first NIC when none is): a loop, not a generator per server.

    Example:
        >>> a, b = HostPort("eth0", 0, "leaf-a", 0, "x"), HostPort("eth1", 1, "leaf-b", 0, "x")
        >>> _primary([a, b], 1), _primary([a], 1)
        ('eth1', 'eth0')
    """
    for port in ports:
        if port.side == side:
            return port.nic
    return ports[0].nic
