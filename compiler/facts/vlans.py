"""VLANs on server ports (``vlans.yaml``): which port carries which VLAN, untagged or tagged.

Every server port of a fabric network is an access port of the fabric's VLAN
(``fabrics.<net>.vlan``) unless a VLAN of ``vlans.yaml`` says otherwise:

* ``access``: the port's untagged VLAN is that VLAN instead (one per port);
* ``tagged``: the port becomes an 802.1Q trunk whose native VLAN is its untagged one.

A member is every server of a rack, every NIC of a server on the VLAN's network, or one NIC
(decommissioned servers excluded). Both leaves of a pair carry a VLAN any of the pair's ports
carry. A VLAN with a ``pool`` addresses as the fabric's hosts pool does: pair ``P`` takes the
``P``-th /24, gateway .1, leaves .2/.3 on their SVIs (when it is routed), server host index ``k``
at .10 + ``k`` (a leaf-b NIC of per-NIC addressing at .10 + ``H`` + ``k``).

What cannot be is a problem naming its line in ``vlans.yaml``: a member outside the VLAN's
network (VLN003), a port in two access VLANs or in one VLAN twice (PRT007), one NIC of a bond
(VLN005: a bond's NICs carry the same VLANs).

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> from compiler.facts.topology import build_topology
    >>> from compiler.facts.servers import build_attachments
    >>> intent = load_intent(Path("intent"))
    >>> topology = build_topology(intent)
    >>> plan = build_vlans(intent, topology, build_attachments(intent, topology))
    >>> plan.vlans, plan.ports, plan.problems
    ({}, {}, ())
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections import defaultdict
from collections.abc import Iterator, Mapping
from ipaddress import IPv4Network
from typing import NamedTuple

from compiler.addressing import nth_subnet
from compiler.facts.common import FabricNetwork, Problem
from compiler.facts.servers import Attachment, Attachments
from compiler.facts.topology import Topology
from compiler.intent import Intent
from compiler.sources import Source
from compiler.specifics import VlanMember

HOSTS_PREFIXLEN = 24
"""Each leaf pair's subnet of a VLAN pool, as of the fabric's hosts pool."""


class FabricVlan(NamedTuple):
    """A VLAN of ``vlans.yaml`` as the facts use it."""

    key: str
    id: int
    name: str
    network: FabricNetwork
    pool: IPv4Network | None
    routed: bool
    """SVIs and a virtual gateway on the leaves."""
    source: Source

    def subnet(self, pair: int) -> IPv4Network | None:
        """The subnet of leaf pair ``pair`` (None without a pool).

        Example:
            >>> vlan = FabricVlan("x", 300, "X", "compute", IPv4Network("10.32.0.0/16"), True, Source("vlans.yaml"))
            >>> vlan.subnet(3)
            IPv4Network('10.32.3.0/24')
        """
        return nth_subnet(self.pool, HOSTS_PREFIXLEN, pair) if self.pool is not None else None


class PortVlans(NamedTuple):
    """The VLANs of one server NIC's port beyond the fabric's own."""

    access: FabricVlan | None = None
    """Its untagged VLAN when it is not the fabric's."""
    tagged: tuple[FabricVlan, ...] = ()
    """802.1Q VLANs on top, by id."""
    access_source: Source | None = None
    """The ``access`` member that made it so."""
    tagged_sources: tuple[Source, ...] = ()
    """The ``tagged`` members, in the order of ``tagged``."""


class VlanPlan(NamedTuple):
    """Every VLAN of ``vlans.yaml``, the ports that carry it and the leaves that define it."""

    vlans: Mapping[str, FabricVlan]
    ports: Mapping[tuple[str, str], PortVlans]
    """By (server, NIC): only the ports with a VLAN of ``vlans.yaml``."""
    leaves: Mapping[str, tuple[FabricVlan, ...]]
    """By leaf: the VLANs of ``vlans.yaml`` it carries, by id (both leaves of a pair alike)."""
    problems: tuple[Problem, ...]
    trunked: frozenset[str] = frozenset()
    """The leaves of the pairs with a server port that is a trunk (one with tagged VLANs)."""

    def of(self, server: str, nic: str) -> PortVlans:
        """The VLANs of one NIC's port (empty: only the fabric's VLAN)."""
        return self.ports.get((server, nic), _FABRIC_VLAN_ONLY)


_FABRIC_VLAN_ONLY = PortVlans()
"""What :meth:`VlanPlan.of` answers for most ports (asked per NIC, more than once), made once."""


def build_vlans(intent: Intent, topology: Topology, attachments: Attachments) -> VlanPlan:
    """Resolve every member of every VLAN to server ports; the leaves that carry each VLAN."""
    vlans = {
        key: FabricVlan(
            key,
            spec.id,
            spec.vlan_name(key),
            spec.network,
            spec.pool,
            spec.routed,
            Source("vlans.yaml", ("vlans", key)),
        )
        for key, spec in sorted(intent.vlans.items())
    }
    problems: list[Problem] = []
    access: dict[tuple[str, str], tuple[FabricVlan, Source]] = {}
    tagged: dict[tuple[str, str], dict[int, tuple[FabricVlan, Source]]] = defaultdict(dict)
    by_server = attachments.of_server
    for key, spec in sorted(intent.vlans.items()):
        vlan = vlans[key]
        for mode in ("access", "tagged"):
            members: tuple[VlanMember, ...] = getattr(spec, mode)
            for index, member in enumerate(members):
                source = vlan.source.child(mode, index)
                named, found = _ports_of(intent, vlan, member, by_server, source)
                problems.extend(found)
                if not found:  # a member off the VLAN's network is that one problem (VLN003)
                    problems.extend(_bond_problems(intent, vlan, member, source))
                claims = [p for port in named for p in _claim(intent, port, vlan, mode, source, access, tagged)]
                problems.extend(claims[:1])  # one member, one finding: its first port says it
    ports: dict[tuple[str, str], PortVlans] = {}
    for nic_key in sorted(set(access) | set(tagged)):
        untagged = access.get(nic_key)
        extra = sorted(tagged.get(nic_key, {}).values(), key=lambda found: found[0].id)
        ports[nic_key] = PortVlans(
            untagged[0] if untagged else None,
            tuple(v for v, _ in extra),
            untagged[1] if untagged else None,
            tuple(s for _, s in extra),
        )
    trunked: set[str] = set()
    # Without a port on a VLAN of vlans.yaml (most fabrics), no NIC needs looking at.
    for nic in attachments.nics if ports else ():
        if ports.get((nic.server, nic.nic), _FABRIC_VLAN_ONLY).tagged:
            trunked.add(nic.switch)
            trunked.add(topology.switches[nic.switch].mlag_peer or nic.switch)
    return VlanPlan(vlans, ports, _leaves(topology, attachments, ports), tuple(problems), frozenset(trunked))


def _ports_of(
    intent: Intent,
    vlan: FabricVlan,
    member: VlanMember,
    by_server: Mapping[str, tuple[Attachment, ...]],
    source: Source,
) -> tuple[list[Attachment], list[Problem]]:
    """The in-service server ports a member names on the VLAN's network, or why there are none."""
    net = vlan.network
    if member.rack is not None and member.rack not in intent.racks:
        return [], []  # REF002 names it
    if member.server is not None and all(s.name != member.server for s in intent.servers):
        return [], []
    if member.rack is not None:
        servers = [s.name for s in intent.servers if s.rack == member.rack and s.active]
        ports = [a for name in servers for a in by_server.get(name, ()) if a.network == net]
        if ports:
            return ports, []
        why = f"rack {member.rack} has no server in service with a NIC on {net}"
        return [], [Problem("VLN003", intent.where(source), f"VLAN {vlan.id} {vlan.key} is on {net}: {why}")]
    name = str(member.server)
    own = [a for a in by_server.get(name, ()) if a.network == net and (member.nic is None or a.nic == member.nic)]
    if own:
        return [a for a in own if not a.retired], []
    if member.nic is not None:
        other = next((a.network for a in by_server.get(name, ()) if a.nic == member.nic), None)
        where = f"{name} {member.nic} is on {other}" if other else f"{name} {member.nic} is cabled to no switch"
    else:
        where = f"{name} has no NIC on {net}"
    message = f"VLAN {vlan.id} {vlan.key} is on {net}: {where}; name a member on {net} or move the VLAN"
    return [], [Problem("VLN003", intent.where(source), message)]


def _bond_problems(intent: Intent, vlan: FabricVlan, member: VlanMember, source: Source) -> Iterator[Problem]:
    """One NIC of a bond cannot take a VLAN alone: its partner would not carry it."""
    spec = intent.fabric.fabrics.get(vlan.network)
    if member.nic is None or spec is None or spec.bonding == "per-nic":
        return
    message = (
        f"{member.server} {member.nic} is a port of a bond ({spec.bonding}) on {vlan.network}: both NICs of a bond "
        f"carry the same VLANs; name the server ({{server: {member.server}}})"
    )
    yield Problem("VLN005", intent.where(source), message)


def _claim(
    intent: Intent,
    port: Attachment,
    vlan: FabricVlan,
    mode: str,
    source: Source,
    access: dict[tuple[str, str], tuple[FabricVlan, Source]],
    tagged: dict[tuple[str, str], dict[int, tuple[FabricVlan, Source]]],
) -> Iterator[Problem]:
    """Put ``vlan`` on a port as ``mode``; a second claim of the same kind is a problem."""
    nic = (port.server, port.nic)
    label = f"{port.server} {port.nic} ({port.switch} {port.port})"
    before = access.get(nic) if mode == "access" else tagged[nic].get(vlan.id)
    if before is None and mode == "tagged" and nic in access and access[nic][0].id == vlan.id:
        before = access[nic]
    if before is None and mode == "access" and vlan.id in tagged[nic]:
        before = tagged[nic][vlan.id]
    if before is not None:
        other, where = before
        what = "the same VLAN" if other.id == vlan.id else f"VLAN {other.id} {other.key}"
        message = (
            f"{label} is claimed twice: by {source.path[-2]} of VLAN {vlan.id} {vlan.key} here and by {what} "
            f"({intent.where(where)}); a port has one untagged VLAN and lists each VLAN once"
        )
        yield Problem("PRT007", intent.where(source), message)
        return
    if mode == "access":
        access[nic] = (vlan, source)
    else:
        tagged[nic][vlan.id] = (vlan, source)


def _leaves(
    topology: Topology, attachments: Attachments, ports: Mapping[tuple[str, str], PortVlans]
) -> dict[str, tuple[FabricVlan, ...]]:
    """Each leaf's VLANs: those of its own ports and of its MLAG peer's."""
    found: dict[str, dict[int, FabricVlan]] = defaultdict(dict)
    for nic in attachments.nics if ports else ():
        carried = ports.get((nic.server, nic.nic))
        if carried is None:
            continue
        peer = topology.switches[nic.switch].mlag_peer
        for vlan in (*([carried.access] if carried.access else []), *carried.tagged):
            for leaf in (nic.switch, peer):
                if leaf is not None:
                    found[leaf][vlan.id] = vlan
    return {leaf: tuple(v for _, v in sorted(by_id.items())) for leaf, by_id in sorted(found.items())}
