"""Underlay routing rules: ECMP across all spines, sessions that match on both ends.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
RTE001    error     N3           every leaf, spine and super-spine runs an underlay whose
                                 ECMP ``maximum-paths`` is at least the spine count (of
                                 a pod)
RTE002    error     N3           eBGP: every neighbor is a connected address of another
                                 switch whose ASN is the neighbor's remote-as, and that
                                 switch peers back; every leaf-spine link has a session
RTE003    error     N3           OSPF: every leaf-spine link is point-to-point, active
                                 (not passive) and inside a network statement on both
                                 ends, and both ends run OSPF
RTE004    error     N3           BFD on every underlay adjacency (``bfd default`` in
                                 OSPF, the underlay peer group in eBGP) with timers
                                 that take a dead link out in under a second
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from compiler.addressing import address_value, address_values, dotted
from compiler.checks.base import device_rule, rule
from compiler.checks.rules._common import (
    MASKS,
    Held,
    design_spec,
    fleet,
    held,
    interfaces,
    links_of,
    per_run,
    subnet_of,
)
from compiler.fabric import Device, ResolvedFabric
from compiler.facts import Endpoint
from compiler.intent import Intent
from compiler.structured import RouterBgp

FABRIC_ROLES = ("leaf", "spine", "super-spine")


def _fabric_switches(fabric: ResolvedFabric) -> list[Device]:
    return [d for _, d in sorted(fabric.devices.items()) if d.role in FABRIC_ROLES]


@device_rule("RTE001", "error", "N3", "ECMP maximum-paths covers every spine")
def ecmp_paths(device: Device) -> Iterator[str]:
    """Yield each leaf or spine whose underlay cannot use all spines at once."""
    if device.role not in FABRIC_ROLES:
        return
    spec = design_spec(device.facts.design, device.network)
    spines = spec.spines.count if spec else 0
    config = device.config
    protocols = [
        (name, router.maximum_paths)
        for name, router in (("bgp", config.router_bgp), ("ospf", config.router_ospf))
        if router is not None
    ]
    if not protocols:
        yield "no underlay routing (neither router bgp nor router ospf)"
    for name, paths in protocols:
        if paths < spines:
            yield (
                f"router {name} maximum-paths {paths} < {spines} spines: "
                f"ECMP would leave {spines - paths} spine(s) unused"
            )


class _Peering:
    """One switch's interface data for the OSPF checks, indexed once per run (addresses are
    integers, :data:`Held`, parsed once per fabric: :meth:`Fleet.held`)."""

    def __init__(self, fabric: ResolvedFabric, device: Device) -> None:
        self.device = device
        self.interfaces = interfaces(fabric, device)
        self._fleet = fleet(fabric)
        self._ospf_networks: list[Held] | None = None

    def address(self, port: str) -> Held | None:
        """The address of interface ``port``, if it is configured with one."""
        iface = self.interfaces.get(port)
        if iface is None or not iface.ip_address:
            return None
        return self._fleet.held(iface.ip_address)

    def ospf_networks(self) -> list[Held]:
        """The prefixes of the device's OSPF network statements, parsed once."""
        if self._ospf_networks is None:
            ospf = self.device.config.router_ospf
            self._ospf_networks = [subnet_of(held(prefix)) for prefix, _ in ospf.networks] if ospf else []
        return self._ospf_networks


def _peerings(fabric: ResolvedFabric) -> Callable[[str], _Peering]:
    """A lazy, memoised :class:`_Peering` per device name."""
    cache: dict[str, _Peering] = {}

    def get(name: str) -> _Peering:
        found = cache.get(name)
        if found is None:
            found = cache[name] = _Peering(fabric, fabric.devices[name])
        return found

    return get


class _Speaker:
    """One BGP switch's sessions as plain look-ups, built once per run: a spine has a neighbor
    per leaf, and RTE002 reads each as a neighbor and again as a peer's.

    Example:
        >>> from compiler.structured import BgpNeighbor, BgpPeerGroup, RouterBgp
        >>> neighbors = (BgpNeighbor("10.1.0.1", "up"), BgpNeighbor("10.1.0.1", "up", 64999),
        ...              BgpNeighbor("bad", "up", 1))
        >>> speaker = _Speaker(RouterBgp(65001, "10.0.0.1", 4, (BgpPeerGroup("up", 65000),), neighbors, "map"))
        >>> speaker.values, speaker.heard == {167837697}, speaker.remote
        ([167837697, 167837697, None], True, {'bad': 1, '10.1.0.1': 65000})
    """

    __slots__ = ("bgp", "heard", "remote", "values")

    def __init__(self, bgp: RouterBgp) -> None:
        self.bgp = bgp
        addresses = [neighbor.address for neighbor in bgp.neighbors]
        try:
            values: list[int | None] = list(address_values(addresses))
        except ValueError:
            values = [_value_or_none(address) for address in addresses]
        self.values = values
        """The address of each neighbor statement as an integer, in configuration order (None:
        not a dotted quad)."""
        self.heard = set(values)
        """The addresses neighbor statements name (``dotted(value) in neighbors``: a dotted quad
        that parses has one spelling, and one that does not names no address)."""
        self.heard.discard(None)
        groups = {group.name: group.remote_as for group in bgp.peer_groups}
        self.remote: dict[str, int | None] = {}
        """Each neighbor address's remote AS, as its first statement gives it (or its peer group)."""
        for neighbor in reversed(bgp.neighbors):  # the first statement of an address written last
            remote = neighbor.remote_as
            self.remote[neighbor.address] = remote if remote is not None else groups.get(neighbor.peer_group)


def _value_or_none(address: str) -> int | None:
    try:
        return address_value(address)
    except ValueError:
        return None


def _speakers(fabric: ResolvedFabric) -> dict[str, _Speaker]:
    """A :class:`_Speaker` per switch that runs BGP, by name."""
    return {
        name: _Speaker(bgp) for name, device in fabric.devices.items() if (bgp := device.config.router_bgp) is not None
    }


def _subnets(addresses: list[tuple[str, Held]]) -> tuple[list[tuple[int, int]], dict[int, tuple[int, Held]]]:
    """The prefix lengths held (with their masks), and the first interface (in configuration
    order: its position and address) on each subnet, by :func:`_subnet_key`: "the first local
    interface whose subnet contains an address" becomes a look-up per length.

    Example:
        >>> addresses = [("a", held("10.0.0.1/31")), ("b", held("10.0.0.0/31")), ("c", held("10.1.0.1/32"))]
        >>> lengths, first = _subnets(addresses)
        >>> sorted(lengths) == [(MASKS[31], 31), (MASKS[32], 32)], first[_subnet_key(held("10.0.0.0/31"))]
        (True, (0, (167772161, 31)))
    """
    masks = MASKS
    keyed = [((own[0] & masks[own[1]]) << 6 | own[1], (index, own)) for index, (_, own) in enumerate(addresses)]
    first = dict(reversed(keyed))  # the first of a subnet written last
    return [(MASKS[length], length) for length in {length for _, (_, length) in addresses}], first


def _subnet_key(address: Held) -> int:
    """A subnet as one integer: its network address and prefix length (:func:`_subnets` and
    RTE002 write it out, for speed)."""
    value, length = address
    return (value & MASKS[length]) << 6 | length


def bgp_read(device: Device) -> object:
    """All RTE002 reads of a switch: its role, its BGP and the name and address of each of its
    interfaces, in configuration order (the addresses another switch's neighbors may name, the
    subnets of its own, which port a cable lands on)."""
    config = device.config
    return device.role, config.router_bgp, tuple((iface.name, iface.ip_address) for iface in config.interfaces)


@per_run  # both rules ask for it
def bgp_cables(intent: Intent, fabric: ResolvedFabric) -> object:
    """All RTE002 and RTE003 read beside their switches: the ends of each leaf-spine cable, in order."""
    del intent
    return tuple((link.a.device, link.a.port, link.b.device, link.b.port) for link in links_of(fabric, ["fabric"]))


@rule("RTE002", "error", "N3", "eBGP sessions match on both ends", reads=bgp_read, shared=bgp_cables)
def bgp_sessions(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each BGP neighbor that is unreachable, has the wrong remote-as, or is one-sided."""
    del intent
    index = fleet(fabric)
    owners = index.address_owners()
    speakers = _speakers(fabric)
    for device in _fabric_switches(fabric):
        local = speakers.get(device.name)
        if local is None:
            continue
        lengths, subnets = _subnets(index.addresses(device))
        for neighbor, parsed in zip(local.bgp.neighbors, local.values, strict=True):
            # One pass of plain look-ups per neighbor (a spine has one per leaf): what a session
            # needs, in the order the messages name it; the first fault ends the neighbor's checks.
            address = neighbor.address
            value = parsed if parsed is not None else address_value(address)  # what fails to parse raises here
            owner = owners.get(value)
            if owner is None:
                yield device.name, f"neighbor {address} is no switch's interface address"
                continue
            peer_name, peer_iface = owner
            found: tuple[int, Held] | None = None  # the first local interface on a subnet holding it
            for mask, length in lengths:
                hit = subnets.get((value & mask) << 6 | length)
                if hit is not None and (found is None or hit[0] < found[0]):
                    found = hit
            mine = found[1] if found is not None else None
            if mine is None or mine[1] != peer_iface[1] or (mine[0] ^ peer_iface[0]) & MASKS[mine[1]]:
                yield device.name, f"neighbor {address} ({peer_name}) is not on a connected subnet"
                continue
            peer = speakers.get(peer_name)
            if peer is None:
                yield device.name, f"neighbor {address} ({peer_name}) does not run BGP"
                continue
            remote_as = local.remote[address]
            if remote_as != peer.bgp.asn:
                yield (
                    device.name,
                    f"neighbor {address} ({peer_name}) has remote-as {remote_as}, but {peer_name} is AS {peer.bgp.asn}",
                )
            if mine[0] not in peer.heard:
                yield device.name, f"{peer_name} has no neighbor {dotted(mine[0])} back to {device.name}"
    yield from _links_without_sessions(fabric, speakers)


def _links_without_sessions(fabric: ResolvedFabric, speakers: dict[str, _Speaker]) -> Iterator[tuple[str, str]]:
    """Leaf-spine link ends between two BGP speakers that carry no session."""
    index = fleet(fabric)
    ports: dict[str, dict[str, Held]] = {}  # per speaker, the address of each port that has one

    def addressed(name: str) -> dict[str, Held]:
        found = ports.get(name)
        if found is None:
            device = fabric.devices[name]
            own = index.interfaces(device)
            if len(own) == len(device.config.interfaces):  # names unique: its addressed ones, by name
                found = ports[name] = dict(index.addresses(device))
            else:  # a name twice: the last interface of that name, as the look-up by name gives it
                found = ports[name] = {
                    port: index.held(iface.ip_address) for port, iface in own.items() if iface.ip_address
                }
        return found

    for link in links_of(fabric, ["fabric"]):
        a, b = link.a, link.b
        if a.device not in speakers or b.device not in speakers:
            continue
        for near, far in ((a, b), (b, a)):
            address = (ports.get(far.device) or addressed(far.device)).get(far.port)
            if address is not None and address[0] not in speakers[near.device].heard:
                yield near.device, f"no BGP session over {near.port} to {far.device} ({dotted(address[0])})"


def ospf_read(device: Device) -> object:
    """All RTE003 reads of a switch: none when it runs no OSPF, else its OSPF and the name,
    address and network type of each of its interfaces, in configuration order."""
    config = device.config
    if config.router_ospf is None:
        return None
    interfaces = tuple((iface.name, iface.ip_address, iface.ospf_point_to_point) for iface in config.interfaces)
    return config.router_ospf, interfaces


@rule("RTE003", "error", "N3", "OSPF uplinks point-to-point and active", reads=ospf_read, shared=bgp_cables)
def ospf_uplinks(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each OSPF end of a leaf-spine link that is passive, broadcast or not covered."""
    del intent
    peering = _peerings(fabric)
    active: dict[str, set[str]] = {}
    speakers = {name for name, device in fabric.devices.items() if device.config.router_ospf is not None}
    for link in links_of(fabric, ["fabric"]):
        if link.a.device not in speakers and link.b.device not in speakers:
            continue  # no end runs OSPF (an eBGP underlay): nothing to name
        ends = [(fabric.devices.get(e.device), e) for e in (link.a, link.b)]
        running = [d.config.router_ospf is not None for d, _ in ends if d is not None]
        if any(running) and not all(running):
            yield f"{link.a.device}:{link.a.port}", (f"link to {link.b.device} runs OSPF on one end only")
            continue
        for device, end in ends:
            if device is not None and device.config.router_ospf is not None:
                ospf = device.config.router_ospf
                if device.name not in active:
                    active[device.name] = set(ospf.active_interfaces)
                yield from _ospf_end(peering(device.name), active[device.name], end)


def _ospf_end(peer: _Peering, active: set[str], end: Endpoint) -> Iterator[tuple[str, str]]:
    device, ifaces = peer.device, peer.interfaces
    iface = ifaces.get(end.port)
    if iface is None:
        yield device.name, f"{end.port} is cabled but not configured"
        return
    if not iface.ospf_point_to_point:
        yield device.name, f"{end.port}: OSPF network type is not point-to-point"
    if end.port not in active:
        yield device.name, f"{end.port}: passive in OSPF (not in the active interfaces)"
    address = peer.address(end.port)
    covered = address is not None and any(
        subnet_of((address[0], length)) == (network, length) for network, length in peer.ospf_networks()
    )
    if not covered:
        yield device.name, f"{end.port} ({iface.ip_address or None}) is in no OSPF network statement"


BFD_DETECTION_LIMIT_MS = 1000
"""N3: a dead leaf-spine link must leave ECMP in under a second (routing protocol timers take 3-40 s)."""


def _bfd_problems(device: Device) -> Iterator[str]:
    config = device.config
    missing = []
    if config.router_ospf is not None and not config.router_ospf.bfd_default:
        missing.append(
            "OSPF neighbors run without BFD (no bfd default): a silent link failure waits for the dead timer"
        )
    if config.router_bgp is not None:
        bgp = config.router_bgp
        for group in bgp.peer_groups:
            if group.remote_as != bgp.asn and not group.bfd:  # the iBGP MLAG peer rides the peer-link
                missing.append(
                    f"eBGP peer group {group.name} runs without BFD: a silent link failure waits for the hold timer"
                )
    yield from missing
    if missing or (config.router_ospf is None and config.router_bgp is None):
        return
    timers = config.router_bfd
    if timers is None:
        yield "no router bfd timers"
        return
    detection = max(timers.interval, timers.min_rx) * timers.multiplier
    if detection >= BFD_DETECTION_LIMIT_MS:
        yield (
            f"BFD {timers.interval} ms / {timers.min_rx} ms x {timers.multiplier} takes {detection} ms to declare "
            f"a link dead: keep it under {BFD_DETECTION_LIMIT_MS} ms (routing_profiles.<name>.bfd)"
        )


@device_rule("RTE004", "error", "N3", "BFD on the underlay takes a dead link out in under a second")
def bfd(device: Device) -> Iterator[str]:
    """Yield each leaf or spine whose underlay runs without BFD or with BFD too slow for a fabric."""
    if device.role in FABRIC_ROLES:
        yield from _bfd_problems(device)
