"""The interfaces of a switch: one per used port (by what is at its far end), the logical
interfaces (port-channels, loopback, Management1, SVIs), and every unused front-panel port
shut down, in EOS's interface order.

Example:
    >>> from pathlib import Path
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> facts = build_facts(load_intent(Path("intent")))
    >>> by_name = {i.name: i for i in interfaces(facts.device("spine02"))}
    >>> by_name["Ethernet6"].description, by_name["Ethernet6"].ip_address
    ('P2P_rack03-leaf-b_Ethernet50', '10.31.4.42/31')
    >>> by_name["Ethernet64"].shutdown
    True
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from compiler.facts import DeviceFacts, Port
from compiler.facts.addressing import MLAG_L3_VLAN, MLAG_PEER_VLAN
from compiler.facts.cabling import PEER_LINK_CHANNEL
from compiler.facts.management import MGMT_VRF
from compiler.platforms import eos
from compiler.structured.model import Interface
from compiler.structured.qos import port_qos
from compiler.structured.switching import MLAG_L3_VLAN_NAME, MLAG_PEER_VLAN_NAME, MLAG_TRUNK_GROUP

LACP_FALLBACK_TIMEOUT = 30
BOND = "bond0"


def interfaces(facts: DeviceFacts) -> tuple[Interface, ...]:
    """Every interface of the switch, in EOS's order."""
    found: dict[str, Interface] = {}
    for iface in _interfaces(facts):
        found[iface.name] = iface
    for name in facts.front_panel:
        if name not in found:
            found[name] = Interface(name, shutdown=True)
    return tuple(sorted(found.values(), key=lambda i: eos.interface_key(i.name)))


def _interfaces(facts: DeviceFacts) -> Iterator[Interface]:
    role = facts.switch.role
    if role == "leaf":
        yield from _leaf(facts)
    elif role == "spine":
        yield from _spine(facts)
    elif role == "mgmt":
        yield from _rack_switch(facts)
    else:
        yield from _core(facts)


def _routed_links(facts: DeviceFacts) -> Iterator[Interface]:
    """Leaf-spine links: routed, this end of the /31, point-to-point in OSPF, RoCE QoS."""
    me = facts.switch.name
    links = {link.spine if link.leaf == me else link.leaf: link for link in facts.fabric_links}
    for port in facts.ports:
        if port.kind in ("uplink", "downlink"):
            link = links[port.peer]
            yield _routed_link(facts, port, link.leaf_address if port.kind == "uplink" else link.spine_address)


def _routed_link(facts: DeviceFacts, port: Port, address: str) -> Interface:
    ospf = facts.routing is not None and facts.routing.protocol == "ospf"
    return Interface(
        port.name,
        description=f"P2P_{port.peer}_{port.peer_port}",
        mtu=facts.design.mtu.switch,
        routed=True,
        ip_address=address,
        ospf_point_to_point=ospf,
        **port_qos(facts),
    )


def _management1(facts: DeviceFacts) -> Interface:
    address = facts.management.address if facts.management else None
    return Interface(eos.MANAGEMENT_PORT, description="OOB_MANAGEMENT", vrf=MGMT_VRF, ip_address=address)


def _loopback(facts: DeviceFacts) -> Interface:
    return Interface(eos.LOOPBACK, description="ROUTER_ID", ip_address=f"{facts.loopback}/32")


def _spine(facts: DeviceFacts) -> Iterator[Interface]:
    yield from _routed_links(facts)
    yield _loopback(facts)
    yield _management1(facts)


def _leaf(facts: DeviceFacts) -> Iterator[Interface]:
    design = facts.design
    spec = design.fabrics[facts.switch.network]  # type: ignore[index]
    mtu = design.mtu.switch
    vlan = design.vlans[spec.vlan]
    qos = port_qos(facts)
    peer = facts.switch.mlag_peer
    yield from _routed_links(facts)
    for port in facts.ports:
        if port.kind == "peer-link":
            yield Interface(port.name, description=f"MLAG_PEER_{peer}_{port.name}", channel_group=port.channel, **qos)
        elif port.kind == "server":
            yield from _server_port(facts, port, vlan.id, qos)
    yield Interface(
        eos.port_channel(PEER_LINK_CHANNEL),
        description=f"MLAG_PEER_{peer}_Po{PEER_LINK_CHANNEL}",
        mtu=mtu,
        switchport_mode="trunk",
        switchport_trunk_groups=(MLAG_TRUNK_GROUP,),
    )
    yield _loopback(facts)
    addresses = facts.leaf
    assert addresses is not None
    ospf = facts.routing is not None and facts.routing.protocol == "ospf"
    yield Interface(
        eos.vlan_interface(vlan.id),
        description=f"{vlan.name}_GW",
        mtu=mtu,
        ip_address=addresses.svi,
        virtual_ip=addresses.gateway,
    )
    yield Interface(
        eos.vlan_interface(MLAG_L3_VLAN),
        description=MLAG_L3_VLAN_NAME,
        mtu=mtu,
        ip_address=addresses.mlag_l3,
        ospf_point_to_point=ospf,
    )
    yield Interface(
        eos.vlan_interface(MLAG_PEER_VLAN),
        description=MLAG_PEER_VLAN_NAME,
        mtu=mtu,
        no_autostate=True,
        ip_address=addresses.mlag_peer,
    )
    yield _management1(facts)


def _server_port(facts: DeviceFacts, port: Port, vlan: int, qos: dict[str, Any]) -> Iterator[Interface]:
    """A server NIC's port: an access port, or a member of the server's MLAG port-channel (LACP)."""
    mtu = facts.design.mtu.switch
    description = f"SERVER_{port.peer}_{port.peer_port}"
    if port.channel is None:
        yield Interface(
            port.name,
            description=description,
            mtu=mtu,
            switchport_access_vlan=vlan,
            portfast=True,
            bpduguard=True,
            **qos,
        )
        return
    yield Interface(port.name, description=description, channel_group=port.channel, **qos)
    yield Interface(
        eos.port_channel(port.channel),
        description=f"SERVER_{port.peer}_{BOND}",
        mtu=mtu,
        switchport_access_vlan=vlan,
        mlag=port.channel,
        lacp_fallback_timeout=LACP_FALLBACK_TIMEOUT,
        portfast=True,
        bpduguard=True,
    )


def _access(name: str, description: str, vlan: int) -> Interface:
    return Interface(name, description=description, switchport_access_vlan=vlan, portfast=True, bpduguard=True)


def _trunk(name: str, description: str, mtu: int, vlan: int) -> Interface:
    return Interface(
        name, description=description, mtu=mtu, switchport_mode="trunk", switchport_trunk_allowed_vlan=str(vlan)
    )


def _rack_switch(facts: DeviceFacts) -> Iterator[Interface]:
    (rack,) = facts.racks
    for port in facts.ports:
        if port.kind == "server":
            yield _access(port.name, f"SERVER_{port.peer}_{port.peer_port}", rack.vlan)
        elif port.kind == "management":
            yield _access(port.name, f"MGMT_{port.peer}_{port.peer_port}", rack.vlan)
        elif port.kind == "rack-uplink":
            yield _trunk(port.name, f"UPLINK_{port.peer}_{port.peer_port}", facts.design.mtu.switch, rack.vlan)
    yield Interface(eos.vlan_interface(rack.vlan), description=rack.vlan_name, ip_address=rack.switch_address)


def _core(facts: DeviceFacts) -> Iterator[Interface]:
    vlan_of = {r.switch: r for r in facts.racks}
    for port in facts.ports:
        if port.kind == "rack-downlink":
            rack = vlan_of[port.peer]
            yield _trunk(port.name, f"DOWNLINK_{port.peer}_{port.peer_port}", facts.design.mtu.switch, rack.vlan)
        elif port.kind == "upstream" and facts.upstream is not None:
            yield Interface(port.name, description="UPSTREAM_SITE", routed=True, ip_address=facts.upstream.address)
    for rack in facts.racks:
        yield Interface(eos.vlan_interface(rack.vlan), description=f"GW_{rack.vlan_name}", ip_address=rack.gateway)
