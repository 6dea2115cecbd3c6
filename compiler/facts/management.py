"""The out-of-band management network: a VLAN and a /24 per rack, routed by the core.

Rack ``R`` = VLAN ``vlan_base + R`` and the ``R``-th /24 of the pool: gateway .1 (the core),
rack switch .2, the fabric switch in slot ``k`` .(2 + k) on its management port
(``Management1``, ``Management0`` on a chassis), server .(20 + position). The core reaches the
site on .2 of the upstream subnet.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> from compiler.facts.topology import build_topology
    >>> from compiler.facts.servers import build_attachments
    >>> intent = load_intent(Path("intent"))
    >>> topology = build_topology(intent)
    >>> management = build_management(intent, topology, build_attachments(intent, topology))
    >>> management.racks[5].vlan, management.racks[5].subnet
    (2005, '172.16.5.0/24')
    >>> management.switches["rack01-leaf-a"], management.servers["rack05-gpu007"].address
    (HostAddress(address='172.16.1.3/24', gateway='172.16.1.1'), '172.16.5.27/24')
"""

from __future__ import annotations

from collections.abc import Mapping
from ipaddress import IPv4Interface, IPv4Network
from typing import NamedTuple

from compiler.addressing import host_in, nth_subnet
from compiler.facts.addressing import Allocation, HostAddress, PoolUse, pool_use
from compiler.facts.servers import Attachments
from compiler.facts.topology import Topology
from compiler.intent import Intent

GATEWAY_OFFSET = 1
RACK_SWITCH_OFFSET = 2
SERVER_OFFSET = 20
UPSTREAM_OFFSET = 2


class RackManagement(NamedTuple):
    """The management VLAN and subnet of one rack, its gateway on the core, its switch's SVI."""

    rack: int
    switch: str
    """The rack's management switch."""
    vlan: int
    vlan_name: str
    subnet: str
    gateway: str
    switch_address: str


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


def build_management(intent: Intent, topology: Topology, attachments: Attachments) -> ManagementNetwork:
    """Address the management network of every rack."""
    mgmt = intent.fabric.management
    allocations: list[Allocation] = []

    def take(pool: str, prefix: IPv4Interface | IPv4Network, owner: str, purpose: str) -> None:
        allocations.append(Allocation("management", pool, str(prefix), owner, purpose))

    racks: dict[int, RackManagement] = {}
    switches: dict[str, HostAddress] = {}
    servers: dict[str, HostAddress] = {}
    for rack, switch in topology.rack_switches.items():
        subnet = rack_subnet(intent, rack)
        gateway, own = host_in(subnet, GATEWAY_OFFSET), host_in(subnet, RACK_SWITCH_OFFSET)
        take("pool", subnet, f"rack{rack:02d}", "rack management subnet")
        take("pool", own, switch, "management switch SVI")
        take("pool", gateway, topology.core, f"gateway of rack {rack}")
        vlan = mgmt.vlan_base + rack
        name = mgmt.vlan_name.format(rack=rack)
        racks[rack] = RackManagement(rack, switch, vlan, name, str(subnet), str(gateway), str(own))
        for fabric_switch in topology.in_rack(rack):
            if fabric_switch.mgmt_port is not None and fabric_switch.slot is not None:
                address = host_in(subnet, RACK_SWITCH_OFFSET + fabric_switch.slot)
                take("pool", address, fabric_switch.name, fabric_switch.layout.management_port)
                switches[fabric_switch.name] = HostAddress(str(address), str(gateway.ip))
    by_switch = {r.switch: r for r in racks.values()}
    for nic in attachments.nics:
        if nic.network == "management":
            rack_facts = by_switch[nic.switch]
            address = host_in(IPv4Network(rack_facts.subnet), SERVER_OFFSET + nic.host)
            take("pool", address, nic.server, "server management")
            servers[nic.server] = HostAddress(str(address), rack_facts.gateway.split("/")[0])
    up = mgmt.upstream
    address = host_in(up.subnet, UPSTREAM_OFFSET)
    take("upstream", up.subnet, topology.core, "upstream transit")
    take("upstream", address, topology.core, "upstream")
    highest = max(intent.racks, default=0) + 1
    pool = pool_use("management", "pool", mgmt.pool, "/24 per rack", 24, highest, allocations)
    return ManagementNetwork(
        mgmt.vrf, racks, switches, servers, HostAddress(str(address), str(up.gateway)), tuple(allocations), pool
    )
