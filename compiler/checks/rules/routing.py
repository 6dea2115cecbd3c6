"""Underlay routing rules: ECMP across all spines, sessions that match on both ends.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
RTE001    error     N3           every leaf and spine runs an underlay whose ECMP
                                 ``maximum-paths`` is at least the spine count
RTE002    error     N3           eBGP: every neighbor is a connected address of another
                                 switch whose ASN is the neighbor's remote-as, and that
                                 switch peers back; every leaf-spine link has a session
RTE003    error     N3           OSPF: every leaf-spine link is point-to-point, active
                                 (not passive) and inside a network statement on both
                                 ends, and both ends run OSPF
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections.abc import Iterator
from ipaddress import IPv4Address, IPv4Interface, IPv4Network

from compiler.checks.base import rule
from compiler.checks.rules._common import fabric_spec, interfaces, links_of
from compiler.intent import Intent
from compiler.structured import Device, Endpoint, Fabric, RouterBgp

FABRIC_ROLES = ("leaf", "spine")


def _fabric_switches(fabric: Fabric) -> list[Device]:
    return [d for _, d in sorted(fabric.devices.items()) if d.role in FABRIC_ROLES]


@rule("RTE001", "error", "N3", "ECMP maximum-paths covers every spine")
def ecmp_paths(intent: Intent, fabric: Fabric) -> Iterator[tuple[str, str]]:
    """Yield each leaf or spine whose underlay cannot use all spines at once."""
    for device in _fabric_switches(fabric):
        spec = fabric_spec(intent, device.network)
        spines = spec.spines.count if spec else 0
        config = device.config
        protocols = [
            (name, router.maximum_paths)
            for name, router in (("bgp", config.router_bgp), ("ospf", config.router_ospf))
            if router is not None
        ]
        if not protocols:
            yield device.name, "no underlay routing (neither router bgp nor router ospf)"
        for name, paths in protocols:
            if paths < spines:
                yield device.name, (
                    f"router {name} maximum-paths {paths} < {spines} spines: "
                    f"ECMP would leave {spines - paths} spine(s) unused"
                )


def _addresses(fabric: Fabric) -> dict[IPv4Address, tuple[str, IPv4Interface]]:
    """Every configured interface address: which device holds it, on which subnet."""
    owners: dict[IPv4Address, tuple[str, IPv4Interface]] = {}
    for name, device in sorted(fabric.devices.items()):
        for iface in device.config.interfaces:
            if iface.ip_address:
                address = IPv4Interface(iface.ip_address)
                owners.setdefault(address.ip, (name, address))
    return owners


def _remote_as(bgp: RouterBgp, neighbor_address: str) -> int | None:
    for neighbor in bgp.neighbors:
        if neighbor.address == neighbor_address:
            if neighbor.remote_as is not None:
                return neighbor.remote_as
            groups = {g.name: g for g in bgp.peer_groups}
            group = groups.get(neighbor.peer_group)
            return group.remote_as if group else None
    return None


def _local_subnets(device: Device) -> list[IPv4Interface]:
    return [IPv4Interface(i.ip_address) for i in device.config.interfaces if i.ip_address]


@rule("RTE002", "error", "N3", "eBGP sessions match on both ends")
def bgp_sessions(intent: Intent, fabric: Fabric) -> Iterator[tuple[str, str]]:
    """Yield each BGP neighbor that is unreachable, has the wrong remote-as, or is one-sided."""
    del intent
    owners = _addresses(fabric)
    for device in _fabric_switches(fabric):
        bgp = device.config.router_bgp
        if bgp is None:
            continue
        for neighbor in bgp.neighbors:
            yield from _check_neighbor(fabric, owners, device, bgp, neighbor.address)
    yield from _links_without_sessions(fabric)


def _check_neighbor(
    fabric: Fabric,
    owners: dict[IPv4Address, tuple[str, IPv4Interface]],
    device: Device,
    bgp: RouterBgp,
    address: str,
) -> Iterator[tuple[str, str]]:
    held = owners.get(IPv4Address(address))
    if held is None:
        yield device.name, f"neighbor {address} is no switch's interface address"
        return
    peer_name, peer_iface = held
    local = [i for i in _local_subnets(device) if IPv4Address(address) in i.network]
    if not local or local[0].network != peer_iface.network:
        yield device.name, f"neighbor {address} ({peer_name}) is not on a connected subnet"
        return
    peer_bgp = fabric.devices[peer_name].config.router_bgp
    if peer_bgp is None:
        yield device.name, f"neighbor {address} ({peer_name}) does not run BGP"
        return
    remote_as = _remote_as(bgp, address)
    if remote_as != peer_bgp.asn:
        yield device.name, (
            f"neighbor {address} ({peer_name}) has remote-as {remote_as}, "
            f"but {peer_name} is AS {peer_bgp.asn}"
        )
    back = str(local[0].ip)
    if all(n.address != back for n in peer_bgp.neighbors):
        yield device.name, f"{peer_name} has no neighbor {back} back to {device.name}"


def _links_without_sessions(fabric: Fabric) -> Iterator[tuple[str, str]]:
    """Leaf-spine link ends between two BGP speakers that carry no session."""
    for link in links_of(fabric, ["fabric"]):
        for near_end, far_end in ((link.a, link.b), (link.b, link.a)):
            near, far = fabric.devices.get(near_end.device), fabric.devices.get(far_end.device)
            if near is None or far is None or far.config.router_bgp is None:
                continue
            bgp = near.config.router_bgp
            address = _iface_address(far, far_end)
            if bgp is not None and address is not None and all(
                n.address != str(address.ip) for n in bgp.neighbors
            ):
                yield near.name, (
                    f"no BGP session over {near_end.port} to {far.name} ({address.ip})"
                )


def _iface_address(device: Device, end: Endpoint) -> IPv4Interface | None:
    iface = interfaces(device).get(end.port)
    if iface is None or not iface.ip_address:
        return None
    return IPv4Interface(iface.ip_address)


@rule("RTE003", "error", "N3", "OSPF uplinks point-to-point and active")
def ospf_uplinks(intent: Intent, fabric: Fabric) -> Iterator[tuple[str, str]]:
    """Yield each OSPF end of a leaf-spine link that is passive, broadcast or not covered."""
    del intent
    for link in links_of(fabric, ["fabric"]):
        ends = [(fabric.devices.get(e.device), e) for e in (link.a, link.b)]
        running = [d.config.router_ospf is not None for d, _ in ends if d is not None]
        if any(running) and not all(running):
            yield f"{link.a.device}:{link.a.port}", (
                f"link to {link.b.device} runs OSPF on one end only"
            )
            continue
        for device, end in ends:
            if device is not None and device.config.router_ospf is not None:
                yield from _ospf_end(device, end)


def _ospf_end(device: Device, end: Endpoint) -> Iterator[tuple[str, str]]:
    ospf = device.config.router_ospf
    assert ospf is not None  # the caller checked
    iface = interfaces(device).get(end.port)
    if iface is None:
        yield device.name, f"{end.port} is cabled but not configured"
        return
    if not iface.ospf_point_to_point:
        yield device.name, f"{end.port}: OSPF network type is not point-to-point"
    if end.port not in ospf.active_interfaces:
        yield device.name, f"{end.port}: passive in OSPF (not in the active interfaces)"
    address = _iface_address(device, end)
    covered = address is not None and any(
        address.ip in IPv4Network(prefix) for prefix, _ in ospf.networks
    )
    if not covered:
        yield device.name, f"{end.port} ({address}) is in no OSPF network statement"
