"""The layer-2 sections: VLANs, spanning tree, MLAG and the virtual-router MAC.

A leaf pair carries its fabric's VLAN (and the pair's extra VLANs), the MLAG L3 peer VLAN and
the MLAG peer VLAN, all in trunk group MLAG; spanning tree stays off those two. A management
switch carries its rack's VLAN, the core every rack's.

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
from compiler.facts.addressing import MLAG_L3_VLAN, MLAG_PEER_VLAN
from compiler.facts.cabling import PEER_LINK_CHANNEL
from compiler.facts.management import MGMT_VRF
from compiler.platforms import eos
from compiler.structured.model import Mlag, SpanningTree, VlanDef

MLAG_TRUNK_GROUP = "MLAG"
MLAG_PEER_VLAN_NAME = "MLAG_PEER"
MLAG_L3_VLAN_NAME = "MLAG_L3_PEER"
LEAF_MST0_PRIORITY = 4096
NO_HEARTBEAT = "0.0.0.0"


def vlans(facts: DeviceFacts) -> tuple[VlanDef, ...]:
    """The VLANs of the switch, by id."""
    role = facts.switch.role
    if role in ("mgmt", "core"):
        return tuple(VlanDef(r.vlan, r.vlan_name) for r in facts.racks)
    if role != "leaf":
        return ()
    design = facts.design
    spec = design.fabrics[facts.switch.network]  # type: ignore[index]
    carried = [design.vlans[spec.vlan], *(design.vlans[n] for n in spec.pair_vlans.get(facts.switch.pair or 0, ()))]
    group = (MLAG_TRUNK_GROUP,)
    defs = [
        *(VlanDef(v.id, v.name, group) for v in carried),
        VlanDef(MLAG_L3_VLAN, MLAG_L3_VLAN_NAME, group),
        VlanDef(MLAG_PEER_VLAN, MLAG_PEER_VLAN_NAME, group),
    ]
    return tuple(sorted(defs, key=lambda v: v.id))


def spanning_tree(facts: DeviceFacts) -> SpanningTree:
    """MSTP everywhere but on spines (routed ports only); leaves are roots, off the MLAG VLANs."""
    if facts.switch.role == "spine":
        return SpanningTree("none")
    if facts.switch.role == "leaf":
        return SpanningTree("mstp", LEAF_MST0_PRIORITY, f"{MLAG_L3_VLAN}-{MLAG_PEER_VLAN}")
    return SpanningTree("mstp")


def mlag(facts: DeviceFacts) -> Mlag | None:
    """The MLAG peering of a leaf: over the peer-link SVI, heartbeat to the peer's Management1."""
    if facts.leaf is None or facts.switch.pair is None:
        return None
    heartbeat = facts.mlag_peer_management
    return Mlag(
        domain_id=f"{facts.switch.network.upper()}_PAIR{facts.switch.pair:02d}",
        local_interface=eos.vlan_interface(MLAG_PEER_VLAN),
        peer_address=facts.leaf.mlag_peer_remote.split("/")[0],
        heartbeat_address=heartbeat.address.split("/")[0] if heartbeat else NO_HEARTBEAT,
        heartbeat_vrf=MGMT_VRF,
        peer_link=eos.port_channel(PEER_LINK_CHANNEL),
    )


def virtual_router_mac(facts: DeviceFacts) -> str | None:
    """The shared MAC of the leaf pairs' virtual gateways."""
    if facts.switch.role != "leaf":
        return None
    return facts.design.fabrics[facts.switch.network].virtual_router_mac  # type: ignore[index]
