"""The system sections of every switch: users, name servers, logging, NTP, the management VRF,
routing model, default route.

Fabric switches keep management in VRF MGMT on Management1; the management switches and the
core are the management network and run it in the default VRF.

Example:
    >>> from pathlib import Path
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> facts = build_facts(load_intent(Path("intent")))
    >>> management_vrf(facts.device("spine01")), management_vrf(facts.device("rack01-mgmt"))
    ('MGMT', None)
    >>> static_routes(facts.device("rack01-leaf-a"))
    (StaticRoute(prefix='0.0.0.0/0', next_hop='172.16.1.1', vrf='MGMT'),)
"""

from __future__ import annotations

from ipaddress import IPv4Address

from compiler.addressing import address_value
from compiler.facts import DeviceFacts
from compiler.facts.hardware import internal_vlans
from compiler.platforms import eos
from compiler.structured.model import StaticRoute, User, VrfHost
from compiler.structured.switching import vlans

DEFAULT_ROUTE = "0.0.0.0/0"


def is_fabric_switch(facts: DeviceFacts) -> bool:
    """A leaf, spine or super-spine (not the management network's own switches)."""
    return facts.switch.role in ("leaf", "spine", "super-spine")


def management_vrf(facts: DeviceFacts) -> str | None:
    """The VRF management lives in: ``management.vrf`` on fabric switches, the default VRF elsewhere."""
    return facts.design.management.vrf if is_fabric_switch(facts) else None


def routes_ip(facts: DeviceFacts) -> bool:
    """Whether the switch routes (everything but a rack management switch)."""
    return facts.switch.role != "mgmt"


def users(facts: DeviceFacts) -> tuple[User, ...]:
    """The local admin user; its hash is a secret resolved on the way to the device."""
    admin = facts.design.services.admin_user
    platform = eos.data()
    return (User(admin, platform.admin_privilege, platform.admin_role, f"{admin}_sha512"),)


def name_servers(facts: DeviceFacts) -> tuple[VrfHost, ...]:
    vrf = management_vrf(facts)
    return tuple(VrfHost(str(a), vrf) for a in facts.design.services.dns)


def logging_hosts(facts: DeviceFacts) -> tuple[VrfHost, ...]:
    """The syslog hosts of ``services`` and the switch's own (``devices.yaml``), in the management VRF."""
    vrf = management_vrf(facts)
    hosts = _unique([*facts.design.services.syslog, *facts.settings.syslog])
    return tuple(VrfHost(str(a), vrf) for a in hosts)


def _unique(addresses: list[IPv4Address]) -> list[IPv4Address]:
    """Addresses in order, each once (a device may repeat one of ``services``: a check says so)."""
    return list(dict.fromkeys(addresses))


def logging_source(facts: DeviceFacts) -> VrfHost | None:
    vrf = management_vrf(facts)
    return VrfHost(facts.switch.layout.management_port, vrf) if vrf else None


def ntp_servers(facts: DeviceFacts) -> tuple[VrfHost, ...]:
    """The NTP servers of ``services``, the first preferred, then the switch's own (``devices.yaml``)."""
    vrf = management_vrf(facts)
    servers = _unique([*facts.design.services.ntp, *facts.settings.ntp])
    return tuple(VrfHost(str(a), vrf, prefer=i == 0) for i, a in enumerate(servers))


def static_routes(facts: DeviceFacts) -> tuple[StaticRoute, ...]:
    """The default route (towards the site on the core, the rack gateway, or in VRF MGMT to the
    rack's), then the switch's own (``devices.yaml``); the default VRF first, as EOS prints them."""
    own = [StaticRoute(str(r.prefix), str(r.next_hop), r.vrf) for r in facts.settings.static_routes]
    routes = [*_default_route(facts), *own]
    return tuple(sorted(routes, key=lambda r: (r.vrf is not None, r.vrf or "", route_key(r.prefix))))


def route_key(prefix: str) -> tuple[int, int]:
    """A prefix in numeric order.

    Example:
        >>> sorted(["10.9.0.0/16", "10.10.0.0/16", "0.0.0.0/0"], key=route_key)
        ['0.0.0.0/0', '10.9.0.0/16', '10.10.0.0/16']
    """
    address, _, length = prefix.partition("/")
    return address_value(address), int(length) if length else 32


def _default_route(facts: DeviceFacts) -> tuple[StaticRoute, ...]:
    role = facts.switch.role
    if role == "core" and facts.upstream is not None:
        return (StaticRoute(DEFAULT_ROUTE, facts.upstream.gateway),)
    if role == "mgmt":
        return (StaticRoute(DEFAULT_ROUTE, facts.racks[0].gateway.split("/")[0]),)
    if facts.management is not None:
        return (StaticRoute(DEFAULT_ROUTE, facts.management.gateway, management_vrf(facts)),)
    return ()


def routing_model(facts: DeviceFacts) -> str | None:
    return eos.data().routing_model if routes_ip(facts) else None


def vlan_internal_range(facts: DeviceFacts) -> str | None:
    """The VLANs EOS takes for routed ports, set on the switches that route on their ports: the
    platform's range, or a larger one clear of the switch's VLANs when its model can route more
    ports than that range holds (:func:`compiler.facts.hardware.internal_vlans`)."""
    if not is_fabric_switch(facts):
        return None
    chosen = internal_vlans(facts.switch.layout, [v.id for v in vlans(facts)])
    return eos.vlan_range(chosen.first, chosen.last)
