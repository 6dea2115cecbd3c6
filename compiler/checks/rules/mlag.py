"""MLAG rule: the two leaves of a pair agree on everything MLAG compares (N2).

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
MLG001    error     N2           each leaf has a peer that names it back; both run MLAG
                                 with the same domain-id, virtual-router MAC and
                                 gateway VIPs and peer-link (VLANs: VLN004); each one's peer-address is
                                 the other's local-interface address, its heartbeat the
                                 other's management address; the peer-link is cabled
                                 between them
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial

from compiler.checks.base import Part, rule
from compiler.checks.rules._common import address_of, devices, interfaces, links_of
from compiler.fabric import Device, ResolvedFabric
from compiler.intent import Intent
from compiler.structured import Mlag


def _vips(device: Device) -> dict[str, str]:
    return {i.name: i.virtual_ip for i in device.config.interfaces if i.virtual_ip}


SAME: list[tuple[str, Callable[[Device], object]]] = [
    ("domain-id", lambda d: d.config.mlag.domain_id if d.config.mlag else None),
    ("peer-link", lambda d: d.config.mlag.peer_link if d.config.mlag else None),
    ("virtual-router MAC", lambda d: d.config.virtual_router_mac),
    ("virtual-router gateways", _vips),
]
"""What both peers must hold identically."""


def pairs_key(intent: Intent, fabric: ResolvedFabric, digests: Mapping[str, str]) -> Iterator[Part]:
    """MLG001 in parts, one per leaf pair (or leaf without a peer), each made of: the two
    leaves' names and facts digests (their peer names, management addresses and configs) and
    whether a peer-link cable joins them; a leaf without a peer, of its name and the peer it
    names. A server row changes the part of the pair it is cabled to, at most."""
    del intent
    for leaf, peer, cabled in _pairs(fabric):
        if peer is None:
            yield (leaf.name, leaf.mlag_peer), partial(_unpaired, leaf)
        else:
            inputs = (leaf.name, digests[leaf.name], peer.name, digests[peer.name], cabled)
            yield inputs, partial(_pair, fabric, cabled, leaf, peer)


def _pairs(fabric: ResolvedFabric) -> Iterator[tuple[Device, Device | None, bool]]:
    """Each leaf pair once (the first leaf by name, its peer, whether a peer-link cable joins
    them), or a leaf whose peer is no switch (None)."""
    seen: set[str] = set()
    # Cabled peer-link ends, collected once (a scan of every link per pair was quadratic).
    cabled = {frozenset((link.a.device, link.b.device)) for link in links_of(fabric, ["peer-link"])}
    for leaf in devices(fabric, "leaf"):
        if leaf.name in seen:
            continue
        peer = fabric.devices.get(leaf.mlag_peer) if leaf.mlag_peer else None
        if peer is None:
            yield leaf, None, False
            continue
        seen.update({leaf.name, peer.name})
        yield leaf, peer, frozenset((leaf.name, peer.name)) in cabled


def _unpaired(leaf: Device) -> Iterator[tuple[str, str]]:
    yield leaf.name, f"no MLAG peer (mlag_peer: {leaf.mlag_peer!r})"


@rule("MLG001", "error", "N2", "MLAG peers consistent", key=pairs_key)
def mlag_pairs(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each inconsistency between the two leaves of an MLAG pair, once per pair."""
    del intent
    for leaf, peer, cabled in _pairs(fabric):
        yield from _unpaired(leaf) if peer is None else _pair(fabric, cabled, leaf, peer)


def _pair(fabric: ResolvedFabric, cabled: bool, a: Device, b: Device) -> Iterator[tuple[str, str]]:
    subject = f"{a.name}/{b.name}"
    if b.mlag_peer != a.name:
        yield subject, f"{b.name} names {b.mlag_peer!r} as its peer, not {a.name}"
    if a.config.mlag is None or b.config.mlag is None:
        missing = [d.name for d in (a, b) if d.config.mlag is None]
        yield subject, f"no mlag configuration on {', '.join(missing)}"
        return
    for what, get in SAME:
        mine, theirs = get(a), get(b)
        if mine != theirs:
            yield subject, f"{what} differ: {mine} on {a.name}, {theirs} on {b.name}"
    for local, far in ((a, b), (b, a)):
        yield from _points_at(fabric, subject, local, far)
    if not cabled:
        yield subject, "no peer-link cable between them"


def _points_at(fabric: ResolvedFabric, subject: str, local: Device, far: Device) -> Iterator[tuple[str, str]]:
    """``local``'s peer-address and heartbeat must be ``far``'s addresses."""
    mine: Mlag | None = local.config.mlag
    theirs: Mlag | None = far.config.mlag
    if mine is None or theirs is None:
        return
    far_local = interfaces(fabric, far).get(theirs.local_interface)
    far_address = address_of(far_local.ip_address) if far_local and far_local.ip_address else None
    if mine.peer_address != far_address:
        yield (
            subject,
            (
                f"{local.name} peer-address {mine.peer_address} is not {far.name}'s "
                f"{theirs.local_interface} address ({far_address})"
            ),
        )
    if mine.heartbeat_address != far.mgmt_address:
        yield (
            subject,
            (
                f"{local.name} heartbeat {mine.heartbeat_address} is not {far.name}'s "
                f"management address ({far.mgmt_address or 'none'})"
            ),
        )
    own = interfaces(fabric, local)
    if mine.peer_link not in own:
        yield subject, f"{local.name} peer-link {mine.peer_link} is not configured"
