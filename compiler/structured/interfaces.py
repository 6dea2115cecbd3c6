"""The interfaces of a switch: one per used port (by what is at its far end), the logical
interfaces (port-channels, loopback, the management port, SVIs), and every other interface of
the model under its breakouts shut down, as EOS prints every port; in EOS's interface order. A
breakout lane carries its ``speed`` keyword, used or not; an interface a breakout removes has no
stanza. Descriptions follow ``naming.descriptions``; every
server-facing port (an access port or a server's port-channel) has storm-control.

Example:
    >>> from pathlib import Path
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> facts = build_facts(load_intent(Path("intent")))
    >>> by_name = {i.name: i for i in interfaces(facts.device("spine02"))}
    >>> by_name["Ethernet6/1"].description, by_name["Ethernet6/1"].ip_address
    ('P2P_rack03-leaf-b_Ethernet26/1', '10.31.4.42/31')
    >>> by_name["Ethernet64/1"].shutdown
    True
    >>> leaf = {i.name: i for i in interfaces(facts.device("rack01-leaf-a"))}
    >>> leaf["Ethernet1/3"].speed, leaf["Ethernet1/3"].description, leaf["Ethernet25/1"].speed
    ('100g-2', 'SERVER_rack01-gpu002_enp65s0f0', None)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from compiler.facts import DeviceFacts, UsedPort
from compiler.facts.hardware import Layout
from compiler.facts.hosts import BOND_NAMES
from compiler.facts.management import RackManagement
from compiler.intent import StormControl
from compiler.memo import per_object, same_as_last
from compiler.platforms import eos
from compiler.specifics import PortSettings
from compiler.structured.model import Interface, with_speed
from compiler.structured.qos import port_qos


def interfaces(facts: DeviceFacts) -> tuple[Interface, ...]:
    """Every interface of the switch, in EOS's order."""
    layout = facts.switch.layout
    found: dict[str, Interface] = {}
    for iface in _interfaces(facts):
        found[iface.name] = iface
    for name, iface in found.items():
        keyword = layout.keyword(name)
        if keyword is not None:
            found[name] = with_speed(iface, keyword)
    for name, unused in _unused_ports(layout).items():
        if name not in found:
            found[name] = unused
    for name, settings in facts.port_settings.items():
        found[name] = with_settings(facts, found[name], settings)
    return tuple(found[name] for name in sorted(found, key=eos.interface_key))


@per_object
def _unused_ports(layout: Layout) -> dict[str, Interface]:
    """Every front-panel interface of ``layout`` as a port nothing uses: shut down, with the
    ``speed`` of its breakout lane. One set per role layout, shared by its switches (the
    records are immutable): most of a spine's interfaces are these."""
    return {name: Interface(name, shutdown=True, speed=layout.keyword(name)) for name in layout.interfaces}


def with_settings(facts: DeviceFacts, iface: Interface, settings: PortSettings) -> Interface:
    """An interface with its ``ports.yaml`` entry: description, shutdown and its reason, FEC, LLDP,
    storm-control (speed and breakout are in the switch's layout already).

    Example:
        >>> from pathlib import Path
        >>> from compiler.facts import build_facts
        >>> from compiler.intent import load_intent
        >>> facts = build_facts(load_intent(Path("intent"))).device("rack03-leaf-a")
        >>> port = Interface("Ethernet1/3", description="SERVER_rack03-gpu002_enp65s0f0")
        >>> shut = with_settings(facts, port, PortSettings(shutdown="NIC failed, RMA 4411", fec="disabled"))
        >>> shut.shutdown, shut.description, shut.error_correction
        (True, 'SERVER_rack03-gpu002_enp65s0f0 SHUTDOWN: NIC failed, RMA 4411', 'no error-correction encoding')
    """
    description = settings.description if settings.description is not None else iface.description
    if settings.shutdown is not None:
        template = facts.design.naming.descriptions.shutdown_port
        description = template.format(description=description or "", reason=settings.shutdown).strip()
        iface = iface._replace(shutdown=True)
    iface = iface._replace(description=description)
    if settings.fec is not None:
        iface = iface._replace(error_correction=eos.error_correction(settings.fec))
    if settings.lldp is not None:
        iface = iface._replace(no_lldp_transmit=not settings.lldp.transmit, no_lldp_receive=not settings.lldp.receive)
    if settings.storm_control is not None:
        levels = dict(iface.storm_control)
        given = settings.storm_control.model_fields_set  # the kinds written (no serializer built)
        for kind, level in ((kind, level) for kind, level in settings.storm_control if kind in given):
            name = eos.STORM_CONTROL_KINDS[kind]
            levels.pop(name, None)
            if level is not None:
                levels[name] = eos.storm_control({kind: level})[0][1]
        order = list(eos.STORM_CONTROL_KINDS.values())
        iface = iface._replace(storm_control=tuple(sorted(levels.items(), key=lambda item: order.index(item[0]))))
    return iface


def _interfaces(facts: DeviceFacts) -> Iterator[Interface]:
    role = facts.switch.role
    if role == "leaf":
        yield from _leaf(facts)
    elif role in ("spine", "super-spine"):
        yield from _spine(facts)
    elif role == "mgmt":
        yield from _rack_switch(facts)
    else:
        yield from _core(facts)


def _ospf(facts: DeviceFacts) -> bool:
    return facts.routing is not None and facts.routing.protocol == "ospf"


def _routed_links(facts: DeviceFacts) -> Iterator[Interface]:
    """Links between tiers: routed, this end of the /31, point-to-point in OSPF, RoCE QoS."""
    me = facts.switch.name
    links = {}  # this end's address, by this end's port
    for link in facts.fabric_links:
        if link.lower == me:
            links[link.lower_port] = link.lower_address
        else:
            links[link.upper_port] = link.upper_address
    describe = facts.design.naming.descriptions.fabric_link
    mtu, point_to_point = facts.design.mtu.switch, _ospf(facts)
    for port in facts.ports:
        if port.kind in ("uplink", "downlink"):
            yield Interface(
                port.name,
                description=describe.format(peer=port.peer, peer_port=port.peer_port),
                mtu=mtu,
                routed=True,
                ip_address=links[port.name],
                ospf_point_to_point=point_to_point,
                **port_qos(facts, port.speed),
            )


def _management1(facts: DeviceFacts) -> Interface:
    address = facts.management.address if facts.management else None
    description = facts.design.naming.descriptions.management
    return Interface(
        facts.switch.layout.management_port,
        description=description,
        vrf=facts.design.management.vrf,
        ip_address=address,
    )


def _loopback(facts: DeviceFacts) -> Interface:
    description = facts.design.naming.descriptions.loopback
    return Interface(eos.loopback(), description=description, ip_address=f"{facts.loopback}/32")


def _spine(facts: DeviceFacts) -> Iterator[Interface]:
    yield from _routed_links(facts)
    yield _loopback(facts)
    yield _management1(facts)


def _leaf(facts: DeviceFacts) -> Iterator[Interface]:
    design = facts.design
    describe = design.naming.descriptions
    mlag = design.mlag
    spec = design.fabrics[facts.switch.network]  # type: ignore[index]
    mtu = design.mtu.switch
    vlan = design.vlans[spec.vlan]
    peer = facts.switch.mlag_peer
    yield from _routed_links(facts)
    for port in facts.ports:
        if port.kind == "peer-link":
            description = describe.peer_link.format(peer=peer, port=port.name)
            qos = port_qos(facts, port.speed)
            yield Interface(port.name, description=description, channel_group=port.channel, **qos)
        elif port.kind == "server":
            yield from _server_port(facts, port, vlan.id)
    yield Interface(
        eos.port_channel(mlag.peer_link_channel),
        description=describe.peer_link_channel.format(peer=peer, channel=mlag.peer_link_channel),
        mtu=mtu,
        switchport_mode="trunk",
        switchport_trunk_groups=(mlag.trunk_group,),
    )
    yield _loopback(facts)
    addresses = facts.leaf
    assert addresses is not None
    yield Interface(
        eos.vlan_interface(vlan.id),
        description=describe.gateway.format(vlan=vlan.name),
        mtu=mtu,
        ip_address=addresses.svi,
        virtual_ip=addresses.gateway,
    )
    for extra in facts.vlans:
        svi = facts.vlan_svis.get(extra.id)
        if svi is not None:
            yield Interface(
                eos.vlan_interface(extra.id),
                description=describe.gateway.format(vlan=extra.name),
                mtu=mtu,
                ip_address=svi.address,
                virtual_ip=svi.gateway,
            )
    yield Interface(
        eos.vlan_interface(mlag.l3_vlan),
        description=mlag.l3_vlan_name,
        mtu=mtu,
        ip_address=addresses.mlag_l3,
        ospf_point_to_point=_ospf(facts),
    )
    yield Interface(
        eos.vlan_interface(mlag.peer_vlan),
        description=mlag.peer_vlan_name,
        mtu=mtu,
        no_autostate=True,
        ip_address=addresses.mlag_peer,
    )
    yield _management1(facts)


def storm_control(facts: DeviceFacts) -> tuple[tuple[str, str], ...]:
    """The storm-control levels of every server-facing port (``storm_control`` of the intent)."""
    return _storm_levels(facts.design.storm_control)


@same_as_last
def _storm_levels(levels: StormControl) -> tuple[tuple[str, str], ...]:
    # Its fields as they are: model_dump would build the model's serializer for three floats.
    return eos.storm_control(dict(levels))


def _server_port(facts: DeviceFacts, port: UsedPort, vlan: int) -> Iterator[Interface]:
    """A server NIC's port: an access port, or a member of the server's MLAG port-channel (LACP);
    with tagged VLANs of ``vlans.yaml`` a trunk whose native VLAN is its untagged one."""
    design = facts.design
    qos = port_qos(facts, port.speed)
    describe = design.naming.descriptions
    mtu = design.mtu.switch
    description = describe.server_port.format(server=port.peer, nic=port.peer_port)
    if port.retired:
        yield retired_port(facts, port)
        return
    edge = _edge_vlans(facts, port, vlan)
    if port.channel is None:
        yield Interface(
            port.name,
            description=description,
            mtu=mtu,
            **edge,
            storm_control=storm_control(facts),
            portfast=True,
            bpduguard=True,
            **qos,
        )
        return
    yield Interface(port.name, description=description, channel_group=port.channel, **qos)
    yield Interface(
        eos.port_channel(port.channel),
        description=describe.server_channel.format(server=port.peer, bond=BOND_NAMES[port.network]),  # type: ignore[index]
        mtu=mtu,
        **edge,
        mlag=port.channel,
        lacp_fallback_timeout=design.fabrics[facts.switch.network].lacp_fallback_timeout,  # type: ignore[index]
        storm_control=storm_control(facts),
        portfast=True,
        bpduguard=True,
    )


def _edge_vlans(facts: DeviceFacts, port: UsedPort, fabric_vlan: int) -> dict[str, Any]:
    """The VLAN lines of a server port: its untagged VLAN as an access port, or a trunk of its
    untagged VLAN (native) and its tagged ones."""
    carried = facts.port_vlans.get(port.name)
    untagged = carried.access.id if carried is not None and carried.access is not None else fabric_vlan
    if carried is None or not carried.tagged:
        return {"switchport_access_vlan": untagged}
    return {
        "switchport_trunk_native_vlan": untagged,
        "switchport_trunk_allowed_vlan": eos.vlan_list([untagged, *(v.id for v in carried.tagged)]),
        "switchport_mode": "trunk",
    }


def retired_port(facts: DeviceFacts, port: UsedPort) -> Interface:
    """The port of a decommissioned server: shut, and described as held for it."""
    describe = facts.design.naming.descriptions.decommissioned_port
    return Interface(port.name, description=describe.format(server=port.peer, nic=port.peer_port), shutdown=True)


def _access(name: str, description: str, vlan: int, storm: tuple[tuple[str, str], ...] = ()) -> Interface:
    return Interface(
        name, description=description, switchport_access_vlan=vlan, storm_control=storm, portfast=True, bpduguard=True
    )


def _trunk(name: str, description: str, mtu: int, rack: RackManagement) -> Interface:
    """A trunk carrying a rack's two management VLANs (switches', servers')."""
    allowed = eos.vlan_list((rack.vlan, rack.server_vlan))
    return Interface(
        name, description=description, mtu=mtu, switchport_mode="trunk", switchport_trunk_allowed_vlan=allowed
    )


def _rack_switch(facts: DeviceFacts) -> Iterator[Interface]:
    (rack,) = facts.racks
    describe = facts.design.naming.descriptions
    for port in facts.ports:
        if port.kind == "server" and port.retired:
            yield retired_port(facts, port)
        elif port.kind == "server":
            description = describe.server_port.format(server=port.peer, nic=port.peer_port)
            yield _access(port.name, description, rack.server_vlan, storm_control(facts))
        elif port.kind == "management":
            description = describe.management_port.format(peer=port.peer, peer_port=port.peer_port)
            yield _access(port.name, description, rack.vlan)
        elif port.kind == "rack-uplink":
            description = describe.rack_uplink.format(peer=port.peer, peer_port=port.peer_port)
            yield _trunk(port.name, description, facts.design.mtu.switch, rack)
    yield Interface(eos.vlan_interface(rack.vlan), description=rack.vlan_name, ip_address=rack.switch_address)


def _core(facts: DeviceFacts) -> Iterator[Interface]:
    describe = facts.design.naming.descriptions
    rack_of = {r.switch: r for r in facts.racks}
    for port in facts.ports:
        if port.kind == "rack-downlink":
            description = describe.rack_downlink.format(peer=port.peer, peer_port=port.peer_port)
            yield _trunk(port.name, description, facts.design.mtu.switch, rack_of[port.peer])
        elif port.kind == "upstream" and facts.upstream is not None:
            address = facts.upstream.address
            yield Interface(port.name, description=describe.upstream, routed=True, ip_address=address)
    for rack in facts.racks:
        for vlan, name, gateway in (
            (rack.vlan, rack.vlan_name, rack.gateway),
            (rack.server_vlan, rack.server_vlan_name, rack.server_gateway),
        ):
            yield Interface(
                eos.vlan_interface(vlan), description=describe.rack_gateway.format(vlan=name), ip_address=gateway
            )
