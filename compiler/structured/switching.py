"""The layer-2 sections: VLANs, spanning tree, MLAG and the virtual-router MAC.

A leaf pair carries its fabric's VLAN (and the pair's extra VLANs), the MLAG L3 peer VLAN and
the MLAG peer VLAN, all in the MLAG trunk group; the leaves are the spanning-tree roots of
their pair, with spanning tree off the two MLAG VLANs. A management switch carries its rack's
VLAN, the core every rack's. Spines route every port and run no spanning tree.

Example:
    >>> from pathlib import Path
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> facts = build_facts(load_intent(Path("intent"))).device("rack07-leaf-b")
    >>> [v.id for v in vlans(facts)], mlag(facts).peer_address, mlag(facts).heartbeat_address
    ([100, 4093, 4094], '10.31.8.12', '172.16.7.3')
"""

from __future__ import annotations

from compiler.facts import DeviceFacts
from compiler.platforms import eos
from compiler.structured.model import Mlag, SpanningTree, VlanDef

NO_HEARTBEAT = "0.0.0.0"
"""The heartbeat address of a leaf whose peer has no management address (a check reports it)."""


def vlans(facts: DeviceFacts) -> tuple[VlanDef, ...]:
    """The VLANs of the switch, by id."""
    role = facts.switch.role
    if role in ("mgmt", "core"):
        defs = [
            VlanDef(v, n) for r in facts.racks for v, n in ((r.vlan, r.vlan_name), (r.server_vlan, r.server_vlan_name))
        ]
        return tuple(sorted(defs, key=lambda v: v.id))
    if role != "leaf":
        return ()
    design = facts.design
    mlag = design.mlag
    spec = design.fabrics[facts.switch.network]  # type: ignore[index]
    carried = [design.vlans[spec.vlan], *(design.vlans[n] for n in spec.pair_vlans.get(facts.switch.pair or 0, ()))]
    group = (mlag.trunk_group,)
    defs = [
        *(VlanDef(v.id, v.name, group) for v in carried),
        VlanDef(mlag.l3_vlan, mlag.l3_vlan_name, group),
        VlanDef(mlag.peer_vlan, mlag.peer_vlan_name, group),
    ]
    return tuple(sorted(defs, key=lambda v: v.id))


def spanning_tree(facts: DeviceFacts) -> SpanningTree:
    """The platform's mode wherever there are layer-2 ports; leaves are roots, off the MLAG VLANs."""
    platform = eos.data()
    if facts.switch.role in ("spine", "super-spine"):
        return SpanningTree(platform.routed_spanning_tree_mode)
    if facts.switch.role == "leaf":
        mlag = facts.design.mlag
        return SpanningTree(
            platform.spanning_tree_mode, mlag.mst_priority, eos.vlan_list((mlag.l3_vlan, mlag.peer_vlan))
        )
    return SpanningTree(platform.spanning_tree_mode)


def mlag(facts: DeviceFacts) -> Mlag | None:
    """The MLAG peering of a leaf: over the peer-link SVI, heartbeat to the peer's Management1."""
    if facts.leaf is None or facts.switch.pair is None:
        return None
    settings = facts.design.mlag
    network = facts.switch.network
    heartbeat = facts.mlag_peer_management
    return Mlag(
        domain_id=settings.domain_id.format(network=network, NETWORK=network.upper(), pair=facts.switch.pair),
        local_interface=eos.vlan_interface(settings.peer_vlan),
        peer_address=facts.leaf.mlag_peer_remote.split("/")[0],
        heartbeat_address=heartbeat.address.split("/")[0] if heartbeat else NO_HEARTBEAT,
        heartbeat_vrf=facts.design.management.vrf,
        peer_link=eos.port_channel(settings.peer_link_channel),
    )


def virtual_router_mac(facts: DeviceFacts) -> str | None:
    """The shared MAC of the leaf pairs' virtual gateways."""
    if facts.switch.role != "leaf":
        return None
    return facts.design.fabrics[facts.switch.network].virtual_router_mac  # type: ignore[index]
