"""VLAN rules: the VLANs of the intent are unique, on their network, and alike on both MLAG peers.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
VLN002    error     N1           a VLAN id or name is used once: the fabrics' VLANs, the
                                 MLAG VLANs, the racks' management VLANs and
                                 ``vlans.yaml``
VLN003    error     N1           a VLAN of ``vlans.yaml`` stays on its network: every
                                 member has a port on it, its pool is private
VLN004    error     N2           both leaves of an MLAG pair carry the same VLANs
VLN005    error     C7           the NICs of a bond carry the same VLANs (a member of
                                 ``vlans.yaml`` names the server, not one NIC)
========  ========  ===========  =====================================================

Each finding about the intent names the line to change (``intent/vlans.yaml:12: vlans.x.id``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import partial

from compiler.checks.base import Part, rule
from compiler.checks.rules._common import devices, problems, where_inputs
from compiler.fabric import Device, ResolvedFabric
from compiler.intent import Intent
from compiler.sources import Source


def declared_vlans(intent: Intent) -> list[tuple[int, str, Source]]:
    """Every VLAN the intent declares: (id, name, where), in file order.

    Example:
        >>> from pathlib import Path
        >>> from compiler.intent import load_intent
        >>> [(vid, name) for vid, name, _ in declared_vlans(load_intent(Path("intent")))][:4]
        [(100, 'GPU-Compute'), (200, 'Storage'), (4094, 'MLAG_PEER'), (4093, 'MLAG_L3_PEER')]
    """
    design = intent.fabric
    found = [(v.id, v.name, Source("fabric.yaml", ("vlans", key))) for key, v in design.vlans.items()]
    mlag = design.mlag
    found.append((mlag.peer_vlan, mlag.peer_vlan_name, Source("fabric.yaml", ("mlag", "peer_vlan"))))
    found.append((mlag.l3_vlan, mlag.l3_vlan_name, Source("fabric.yaml", ("mlag", "l3_vlan"))))
    mgmt = design.management
    for index, rack in enumerate(intent.rack_order):
        where = Source("racks.yaml", ("racks", index, "id"))
        found.append((mgmt.vlan_base + rack, mgmt.vlan_name.format(rack=rack), where))
        found.append((mgmt.server_vlan_base + rack, mgmt.server_vlan_name.format(rack=rack), where))
    for key, vlan in intent.vlans.items():
        found.append((vlan.id, vlan.vlan_name(key), Source("vlans.yaml", ("vlans", key))))
    return found


@rule("VLN002", "error", "N1", "A VLAN id or name is used once")
def unique_vlans(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each VLAN whose id or name an earlier one has (two ``vlan`` blocks on one switch, or
    one VLAN under two names across the fleet)."""
    del fabric
    by_id: dict[int, tuple[str, Source]] = {}
    by_name: dict[str, tuple[int, Source]] = {}
    for vid, name, source in declared_vlans(intent):
        clash = by_id.get(vid)
        if clash is not None:
            first = intent.where(clash[1])
            yield (
                intent.where(source),
                f"VLAN {vid} is {clash[0]} already ({first}): give {name} an id of its own",
            )
            continue
        by_id[vid] = (name, source)
        same = by_name.get(name.lower())
        if same is not None:
            first = intent.where(same[1])
            yield (
                intent.where(source),
                f"VLAN name {name} is VLAN {same[0]}'s already ({first}): give VLAN {vid} a name of its own",
            )
        else:
            by_name[name.lower()] = (vid, source)


@rule("VLN003", "error", "N1", "A VLAN stays on its network")
def vlans_on_their_network(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each member of a ``vlans.yaml`` VLAN with no port on its network, and each pool outside
    the private ranges."""
    yield from problems(fabric, "VLN003")
    for key, vlan in intent.vlans.items():
        if vlan.pool is not None and not vlan.pool.is_private:
            where = intent.where(Source("vlans.yaml", ("vlans", key, "pool")))
            yield where, f"{vlan.pool} is not an RFC1918 private range: take the pool from the {vlan.network} network's"


def _carried(device: Device) -> dict[int, str]:
    return {v.id: v.name for v in device.config.vlans}


def _leaf_pairs(fabric: ResolvedFabric) -> Iterator[tuple[Device, Device]]:
    """Each leaf with the switch it names its MLAG peer, once per pair (the first leaf by name)."""
    seen: set[str] = set()
    for leaf in devices(fabric, "leaf"):
        peer = fabric.devices.get(leaf.mlag_peer or "")
        if peer is None or leaf.name in seen:
            continue
        seen.update({leaf.name, peer.name})
        yield leaf, peer


def peer_vlans_key(intent: Intent, fabric: ResolvedFabric, digests: Mapping[str, str]) -> Iterator[Part]:
    """VLN004 in parts, one per leaf pair, each made of: the two switches' names and facts digests
    (the VLANs they carry are their configs') and the source of each one's ``vlans.yaml`` VLANs,
    with what their places are made of (:func:`where_inputs`). A server row changes the part of
    the pair it is cabled to, at most."""
    provenance = fabric.facts.provenance.vlans
    files: dict[str, tuple[str, str, str]] = {}

    def origins(name: str) -> tuple[object, ...]:
        sources = sorted(provenance.get(name, {}).items())
        for _, source in sources:
            if source.file not in files:
                files[source.file] = where_inputs(intent, source.file)
        return tuple((vid, source, files[source.file]) for vid, source in sources)

    for leaf, peer in _leaf_pairs(fabric):
        inputs = (leaf.name, digests[leaf.name], peer.name, digests[peer.name], origins(leaf.name), origins(peer.name))
        yield inputs, partial(_pair_vlans, intent, fabric, leaf, peer)


@rule("VLN004", "error", "N2", "Both MLAG peers carry the same VLANs", key=peer_vlans_key)
def vlans_on_both_peers(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each VLAN one leaf of a pair carries and its peer does not (or names otherwise)."""
    for leaf, peer in _leaf_pairs(fabric):
        yield from _pair_vlans(intent, fabric, leaf, peer)


def _pair_vlans(intent: Intent, fabric: ResolvedFabric, leaf: Device, peer: Device) -> Iterator[tuple[str, str]]:
    """VLN004 over one pair."""
    provenance = fabric.facts.provenance
    mine, theirs = _carried(leaf), _carried(peer)
    for vid in sorted(set(mine) | set(theirs)):
        if mine.get(vid) == theirs.get(vid):
            continue
        holder = leaf if vid in mine else peer
        other = peer if holder is leaf else leaf
        source = provenance.vlans.get(holder.name, {}).get(vid)
        origin = f" (from {intent.where(source)})" if source is not None else ""
        if vid in mine and vid in theirs:
            what = f"VLAN {vid} is {mine[vid]} on {leaf.name} but {theirs[vid]} on {peer.name}"
        else:
            what = f"VLAN {vid} is on {holder.name}{origin} but not on its MLAG peer {other.name}"
        yield f"{leaf.name}/{peer.name}", f"{what}: MLAG needs both alike; put it on both or on neither"


@rule("VLN005", "error", "C7", "A bond's NICs carry the same VLANs")
def bonds_carry_alike(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each ``vlans.yaml`` member naming one NIC of a bond."""
    del intent
    yield from problems(fabric, "VLN005")
