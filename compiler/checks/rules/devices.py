"""Device rules: what ``devices.yaml`` gives one switch holds on that switch.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
DEV001    error     N3           a static route of ``devices.yaml`` is in a VRF of its
                                 switch, and its next hop on a subnet the switch has in
                                 that VRF
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections.abc import Iterator
from ipaddress import IPv4Address, IPv4Interface

from compiler.checks.base import rule
from compiler.checks.rules._common import join
from compiler.fabric import Device, ResolvedFabric
from compiler.intent import Intent
from compiler.sources import Source


def connected(device: Device, vrf: str | None) -> list[IPv4Interface]:
    """The subnets of the device's interfaces in ``vrf`` (None: the default VRF)."""
    return [
        IPv4Interface(iface.ip_address)
        for iface in device.config.interfaces
        if iface.ip_address is not None and iface.vrf == vrf
    ]


@rule("DEV001", "error", "N3", "A static route of devices.yaml has a reachable next hop")
def static_routes_resolve(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each ``devices.yaml`` static route in a VRF the switch lacks, or whose next hop is on
    none of the switch's subnets in that VRF (EOS keeps such a route, inactive)."""
    for name, entry in sorted(intent.devices.items()):
        device = fabric.devices.get(name)
        if device is None:
            continue  # REF002 names it
        vrfs = set(device.config.vrfs)
        for index, route in enumerate(entry.static_routes):
            where = intent.where(Source("devices.yaml", ("devices", name, "static_routes", index)))
            if route.vrf is not None and route.vrf not in vrfs:
                known = ", ".join(sorted(vrfs)) or "none but the default"
                yield where, f"{name} has no VRF {route.vrf} (its VRFs: {known}): name one of them, or none"
                continue
            subnets = connected(device, route.vrf)
            if not any(IPv4Address(route.next_hop) in s.network for s in subnets):
                listed = join([str(s.network) for s in subnets], 3) or "none"
                yield (
                    where,
                    (
                        f"next hop {route.next_hop} is on no subnet of {name} in "
                        f"{'VRF ' + route.vrf if route.vrf else 'the default VRF'} ({listed}): "
                        "route via an address the switch reaches directly"
                    ),
                )
