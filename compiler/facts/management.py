"""The out-of-band management network: per rack a /24, split between switches and servers.

Rack ``R`` gets the ``R``-th /24 of the pool. Its lower /25 is the switches' management subnet,
on VLAN ``vlan_base + R``: gateway .1 (the core), rack switch .2, the fabric switch in slot ``k``
.(2 + k) on its management
port (``Management1``, ``Management0`` on a chassis). Its upper /25 is the servers' management subnet, on VLAN
``server_vlan_base + R``: gateway .129 (the core), server .(129 + position). Servers never share
a subnet or a VLAN with the switches' management interfaces, so a server cannot reach a switch's
management plane but through the core (and the ACLs of its services). The core reaches the site
on .2 of the upstream subnet.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> from compiler.facts.topology import build_topology
    >>> from compiler.facts.servers import build_attachments
    >>> intent = load_intent(Path("intent"))
    >>> topology = build_topology(intent)
    >>> management = build_management(intent, topology, build_attachments(intent, topology))
    >>> rack = management.racks[5]
    >>> (rack.vlan, rack.subnet), (rack.server_vlan, rack.server_subnet, rack.server_gateway)
    ((2005, '172.16.5.0/25'), (2505, '172.16.5.128/25', '172.16.5.129/25'))
    >>> management.switches["rack01-leaf-a"], management.servers["rack05-gpu007"].address
    (HostAddress(address='172.16.1.3/25', gateway='172.16.1.1'), '172.16.5.136/25')
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections.abc import Mapping
from ipaddress import IPv4Interface, IPv4Network
from typing import NamedTuple

from compiler.addressing import dotted, host_in, nth_subnet, prefix_text, subnets_start
from compiler.facts.addressing import Allocation, HostAddress, PoolUse, pool_use
from compiler.facts.common import record
from compiler.facts.servers import RESERVED, Attachments
from compiler.facts.topology import Topology
from compiler.intent import Intent, Services
from compiler.memo import same_as_last

GATEWAY_OFFSET = 1
RACK_SWITCH_OFFSET = 2
SERVER_OFFSET = 1
"""A server's address is its position after the gateway of the servers' half."""
UPSTREAM_OFFSET = 2


class RackManagement(NamedTuple):
    """The management VLANs and subnets of one rack: the switches' and the servers', their gateways
    on the core, the rack switch's SVI."""

    rack: int
    switch: str
    """The rack's management switch."""
    vlan: int
    vlan_name: str
    subnet: str
    """The switches' management subnet."""
    gateway: str
    switch_address: str
    server_vlan: int
    server_vlan_name: str
    server_subnet: str
    server_gateway: str


class ManagementNetwork(NamedTuple):
    """Every management address: per rack, per fabric switch (Management1), per server, upstream."""

    vrf: str
    racks: Mapping[int, RackManagement]
    switches: Mapping[str, HostAddress]
    servers: Mapping[str, HostAddress]
    upstream: HostAddress
    """The core's address towards the site, and the site's gateway."""
    allocations: tuple[Allocation, ...]
    pool: PoolUse


def rack_subnet(intent: Intent, rack: int) -> IPv4Network:
    """The management /24 of ``rack``."""
    return nth_subnet(intent.fabric.management.pool, 24, rack)


def rack_halves(intent: Intent, rack: int) -> tuple[IPv4Network, IPv4Network]:
    """The switches' and the servers' management subnets of ``rack``: the two /25 of its /24.

    Example:
        >>> from pathlib import Path
        >>> from compiler.intent import load_intent
        >>> intent = load_intent(Path("intent"))
        >>> rack_halves(intent, 3)
        (IPv4Network('172.16.3.0/25'), IPv4Network('172.16.3.128/25'))
        >>> all(rack_halves(intent, r) == tuple(rack_subnet(intent, r).subnets(1)) for r in range(1, 256))
        True
    """
    # The 2R-th and (2R+1)-th /25 of the pool, as the halves of its R-th /24: splitting the /24
    # object was a fifth of the management network at 16x.
    pool = intent.fabric.management.pool
    return nth_subnet(pool, 25, 2 * rack), nth_subnet(pool, 25, 2 * rack + 1)


_RACK_SIZE = 256
"""Addresses in a rack's management /24 (its two /25s: :func:`rack_halves`)."""


def build_management(intent: Intent, topology: Topology, attachments: Attachments) -> ManagementNetwork:
    """Address the management network of every rack."""
    mgmt = intent.fabric.management
    allocations: list[Allocation] = []

    def take(pool: str, prefix: IPv4Interface | IPv4Network | str, owner: str, purpose: str) -> None:
        allocations.append(record(Allocation, ("management", pool, str(prefix), owner, purpose)))

    racks: dict[int, RackManagement] = {}
    switches: dict[str, HostAddress] = {}
    servers: dict[str, HostAddress] = {}
    in_rack = topology.by_rack()
    # Addresses as text from integers (rack_halves' /25s by their first address): objects per
    # rack and per switch were most of this at 16x.
    racks_of = topology.rack_switches
    start = subnets_start(mgmt.pool, 25, 2 * max(racks_of) + 1) if racks_of else 0
    server_subnets: dict[str, int] = {}
    for rack, switch in racks_of.items():
        subnet = start + rack * _RACK_SIZE
        server_subnet = server_subnets[switch] = subnet + _RACK_SIZE // 2
        gateway, own = prefix_text(subnet + GATEWAY_OFFSET, 25), prefix_text(subnet + RACK_SWITCH_OFFSET, 25)
        server_gateway = prefix_text(server_subnet + GATEWAY_OFFSET, 25)
        subnet_text, server_subnet_text = prefix_text(subnet, 25), prefix_text(server_subnet, 25)
        take("pool", subnet_text, f"rack{rack:02d}", "switch management subnet")
        take("pool", server_subnet_text, f"rack{rack:02d}", "server management subnet")
        take("pool", own, switch, "management switch SVI")
        take("pool", gateway, topology.core, f"gateway of rack {rack} switches")
        take("pool", server_gateway, topology.core, f"gateway of rack {rack} servers")
        racks[rack] = RackManagement(
            rack,
            switch,
            mgmt.vlan_base + rack,
            mgmt.vlan_name.format(rack=rack),
            subnet_text,
            gateway,
            own,
            mgmt.server_vlan_base + rack,
            mgmt.server_vlan_name.format(rack=rack),
            server_subnet_text,
            server_gateway,
        )
        gateway_address = gateway.partition("/")[0]
        for fabric_switch in in_rack.get(rack, []):
            if fabric_switch.mgmt_port is not None and fabric_switch.slot is not None:
                address = prefix_text(subnet + RACK_SWITCH_OFFSET + fabric_switch.slot, 25)
                take("pool", address, fabric_switch.name, fabric_switch.layout.management_port)
                switches[fabric_switch.name] = HostAddress(address, gateway_address)
    # Each rack switch's server subnet as (first address, prefix length, gateway), once.
    server_nets = {r.switch: (server_subnets[r.switch], 25, r.server_gateway.split("/")[0]) for r in racks.values()}
    for nic in attachments.nics:
        if nic.network == "management":
            base, length, server_gateway = server_nets[nic.switch]
            server_address = f"{dotted(base + SERVER_OFFSET + nic.host)}/{length}"
            purpose = "server management" + ("" if not nic.retired else RESERVED)
            allocations.append(record(Allocation, ("management", "pool", server_address, nic.server, purpose)))
            servers[nic.server] = record(HostAddress, (server_address, server_gateway))
    up = mgmt.upstream
    upstream = host_in(up.subnet, UPSTREAM_OFFSET)
    take("upstream", up.subnet, topology.core, "upstream transit")
    take("upstream", upstream, topology.core, "upstream")
    highest = max(intent.racks, default=0) + 1
    pool = pool_use("management", "pool", mgmt.pool, "/24 per rack", 24, highest, allocations)
    return ManagementNetwork(
        mgmt.vrf, racks, switches, servers, HostAddress(str(upstream), str(up.gateway)), tuple(allocations), pool
    )


MANAGEMENT_SERVICES = ("eapi", "ssh", "gnmi")


@same_as_last
def access_prefixes(services: Services) -> Mapping[str, tuple[IPv4Network, ...]]:
    """The sources each management service of the switches accepts.

    A service's own ``access.<service>.prefixes`` when given; else ``management_prefixes``, and
    for gNMI also every gNMI collector (it dials in to the switches).

    Example:
        >>> from ipaddress import IPv4Address
        >>> from compiler.intent import Collectors
        >>> services = Services(management_prefixes=(IPv4Network("172.20.0.0/28"),),
        ...                     collectors=Collectors(gnmi=(IPv4Address("172.20.1.40"),)))
        >>> {k: [str(p) for p in v] for k, v in access_prefixes(services).items()}
        {'eapi': ['172.20.0.0/28'], 'ssh': ['172.20.0.0/28'], 'gnmi': ['172.20.0.0/28', '172.20.1.40/32']}
    """
    out: dict[str, tuple[IPv4Network, ...]] = {}
    for service in MANAGEMENT_SERVICES:
        rule = getattr(services.access, service)
        if rule.prefixes is not None:
            out[service] = tuple(rule.prefixes)
            continue
        prefixes = list(services.management_prefixes)
        if service == "gnmi":
            prefixes += [IPv4Network(a) for a in services.collectors.gnmi]
        out[service] = tuple(dict.fromkeys(prefixes))
    return out
