"""The same compute and storage fabrics as pyavd (AVD ``eos_designs``) inputs.

Built from our resolved fabric, so both compilers get the same spines, MLAG leaf pairs,
uplink ports, pools, VLANs, server subnets and server ports:

* ``spine`` and ``l3leaf`` node types, one node group per leaf pair (its own BGP ASN);
* eBGP underlay over /31 uplinks from the fabric's ``p2p`` pool, jumbo MTU on the uplinks;
* MLAG on the peer-link ports, the peer and L3 peer /31s from the same pools;
* per pair, an SVI for the servers' VLAN with the leaf addresses and the virtual gateway;
* every server as a ``servers`` connected endpoint with one adapter per network, both
  NICs on the two leaves of its pair, access mode on the server VLAN.

The management network (rack switches and core) has no counterpart in an AVD L3 leaf-spine
design and is left out: ratios are quoted per device as well as in total.

Servers are scoped per leaf pair, as an AVD inventory keeps them (the connected endpoints of
a pod in that pod's group vars): each leaf's inputs hold only the servers cabled to its pair,
a spine's none. Handing every device the whole server list makes ``eos_designs`` walk every
server on every leaf, which grows with the square of the fabric.

The output is JSON-safe: ``{"shared": <inputs common to every device>, "hosts": {name: type},
"groups": {name: pair}, "servers": {pair: [server, ...]}}``. ``bench/avd_run.py`` gives each
device ``shared``, its ``type`` and the servers of its pair, as an AVD inventory would.

    python bench/avd_inputs.py intent/ > /tmp/avd-inputs.json
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from ipaddress import IPv4Interface
from pathlib import Path
from typing import Any

from compiler.fabric import Device, ResolvedFabric, resolve
from compiler.intent import Intent, load_intent

FABRIC_NAME = "FABRICOPS"
PLATFORMS = {"spine": "7800R3", "leaf": "7050X3"}
"""Platforms only tune AVD's defaults (TCAM profile, reload delays); both are valid EOS platforms."""


def avd_inputs(intent_dir: Path) -> dict[str, Any]:
    """pyavd inputs for the compute and storage fabrics of ``intent_dir``."""
    intent = load_intent(intent_dir)
    fabric = resolve(intent)
    hosts: dict[str, str] = {}
    groups: dict[str, str] = {}
    spine_nodes: list[dict[str, Any]] = []
    node_groups: list[dict[str, Any]] = []
    tenants: list[dict[str, Any]] = []
    spine_ports = _spine_ports(fabric)  # the spine port of each leaf uplink: the same cabling as ours
    for network, spec in sorted(intent.fabric.fabrics.items()):
        spines = _switches(fabric, "spine", network)
        leaves = _switches(fabric, "leaf", network)
        bgp = intent.fabric.routing_profiles[spec.routing].bgp
        # An OSPF fabric of ours (the example's compute) still gets an eBGP underlay here, as
        # the comparison asks: spines in one private ASN, each pair in the next ones.
        spine_asn = bgp.spine_asn if bgp else 65000 + len(tenants) * 100
        leaf_asn_base = bgp.leaf_asn_base if bgp else spine_asn
        for index, spine in enumerate(spines, start=1):
            hosts[spine.name] = "spine"
            spine_nodes.append(
                {
                    "name": spine.name,
                    "id": index,
                    "mgmt_ip": _mgmt_ip(spine),
                    "bgp_as": str(spine_asn),
                    "loopback_ipv4_pool": str(spec.pools.loopbacks),
                    "platform": PLATFORMS["spine"],
                }
            )
        svi_nodes: list[dict[str, Any]] = []
        for pair, (leaf_a, leaf_b) in enumerate(_pairs(leaves), start=1):
            # In a three-stage fabric a pair's uplinks go to its pod's spines (pyavd gets no super-spines).
            own = [s for s in spines if s.name in _pod_spines(fabric, network, leaf_a.name)] or spines
            group = _node_group(intent, spine_ports, network, pair, (leaf_a, leaf_b), own, leaf_asn_base)
            node_groups.append(group)
            for leaf in (leaf_a, leaf_b):
                hosts[leaf.name] = "l3leaf"
                groups[leaf.name] = group["group"]
                svi = next(i for i in leaf.config.interfaces if i.virtual_ip and i.name.startswith("Vlan"))
                svi_nodes.append(
                    {"node": leaf.name, "ip_address": svi.ip_address, "ip_virtual_router_addresses": [svi.virtual_ip]}
                )
        vlan = intent.fabric.vlans[spec.vlan]
        tenants.append(
            {
                "name": network.upper(),
                "vrfs": [
                    {
                        "name": "default",
                        "svis": [
                            {
                                "id": vlan.id,
                                "name": vlan.name,
                                "enabled": True,
                                "mtu": intent.fabric.mtu.switch,
                                "tags": [network],
                                "nodes": svi_nodes,
                            }
                        ],
                    }
                ],
            }
        )
    shared = {
        "fabric_name": FABRIC_NAME,
        "underlay_routing_protocol": "ebgp",
        "overlay_routing_protocol": "none",
        "p2p_uplinks_mtu": intent.fabric.mtu.switch,
        "mgmt_interface": "Management1",
        "mgmt_interface_vrf": "MGMT",
        "mgmt_gateway": _mgmt_gateway(fabric),
        "dns_settings": {"servers": [{"ip_address": str(a), "vrf": "MGMT"} for a in intent.fabric.services.dns]},
        "ntp_settings": {"server_vrf": "MGMT", "servers": [{"name": str(a)} for a in intent.fabric.services.ntp]},
        "spine": {"defaults": {"mlag": False}, "nodes": spine_nodes},
        "l3leaf": {
            "defaults": {
                "platform": PLATFORMS["leaf"],
                "vtep": False,
                "evpn_role": "none",
                "spanning_tree_mode": "mstp",
                "spanning_tree_priority": 16384,
                "loopback_ipv4_offset": 64,
            },
            "node_groups": node_groups,
        },
        "tenants": tenants,
    }
    return {
        "shared": shared,
        "hosts": dict(sorted(hosts.items())),
        "groups": dict(sorted(groups.items())),
        "servers": _servers_by_pair(_servers(intent, fabric), groups),
    }


def _servers_by_pair(servers: list[dict[str, Any]], groups: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    """Each leaf pair's servers: every server whose adapters reach one of its leaves."""
    by_pair: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for server in servers:
        pairs = {groups[s] for adapter in server["adapters"] for s in adapter["switches"] if s in groups}
        for pair in sorted(pairs):
            by_pair[pair].append(server)
    return dict(sorted(by_pair.items()))


def _switches(fabric: ResolvedFabric, role: str, network: str) -> list[Device]:
    return [d for _, d in sorted(fabric.devices.items()) if d.role == role and d.network == network]


def _pairs(leaves: list[Device]) -> list[tuple[Device, Device]]:
    """The MLAG pairs, each once, side A first, in leaf-name order."""
    by_name = {leaf.name: leaf for leaf in leaves}
    seen: set[str] = set()
    pairs = []
    for leaf in leaves:
        if leaf.name in seen or leaf.mlag_peer is None:
            continue
        peer = by_name[leaf.mlag_peer]
        seen.update({leaf.name, peer.name})
        pairs.append((leaf, peer))
    return pairs


def _node_group(
    intent: Intent,
    spine_ports: dict[str, list[str]],
    network: str,
    pair: int,
    leaves: tuple[Device, Device],
    spines: list[Device],
    leaf_asn_base: int,
) -> dict[str, Any]:
    """One leaf pair: its ASN, uplinks to every spine from the same ports, MLAG pools and ports."""
    spec = intent.fabric.fabrics[network]  # type: ignore[index]
    uplinks = list(spec.leaves.uplink_ports[: len(spines)])
    first_id = 2 * (pair - 1) + 1
    return {
        "group": f"{network.upper()}_PAIR{pair:04d}",
        "bgp_as": str(leaf_asn_base + pair),
        "filter": {"tags": [network]},
        "loopback_ipv4_pool": str(spec.pools.loopbacks),
        "uplink_ipv4_pool": str(spec.pools.p2p),
        "uplink_interfaces": uplinks,
        "uplink_switches": [s.name for s in spines],
        "mlag_interfaces": list(spec.leaves.peer_link_ports),
        "mlag_peer_ipv4_pool": str(spec.pools.mlag_peer),
        "mlag_peer_l3_ipv4_pool": str(spec.pools.mlag_l3),
        "virtual_router_mac_address": spec.virtual_router_mac,
        "nodes": [
            {
                "name": leaf.name,
                "id": first_id + side,
                "mgmt_ip": _mgmt_ip(leaf),
                "uplink_switch_interfaces": spine_ports.get(leaf.name, []),
            }
            for side, leaf in enumerate(leaves)
        ],
    }


def _pod_spines(fabric: ResolvedFabric, network: str, leaf: str) -> set[str]:
    """The spines of the pod of ``leaf`` (every spine of a two-stage fabric)."""
    spine_leaf = fabric.facts.topology.fabrics[network]  # type: ignore[index]
    pod = fabric.facts.topology.switches[leaf].pod or 1
    return {name for p in spine_leaf.pods if p.id == pod for name in p.spines}


def _spine_ports(fabric: ResolvedFabric) -> dict[str, list[str]]:
    """Each leaf's uplinks as the spine ports they land on, in cabling order."""
    ports: dict[str, list[str]] = defaultdict(list)
    for link in fabric.links:
        if link.kind == "fabric":
            ports[link.a.device].append(link.b.port)
    return ports


def _servers(intent: Intent, fabric: ResolvedFabric) -> list[dict[str, Any]]:
    """Every server with one adapter per fabric network: its NICs on both leaves of its pair."""
    vlans = {net: intent.fabric.vlans[spec.vlan].id for net, spec in intent.fabric.fabrics.items()}
    out = []
    for name, server in sorted(fabric.servers.items()):
        adapters = []
        for network in sorted(vlans):
            nics = [nic for nic in server.nics if nic.network == network]
            if not nics:
                continue
            adapters.append(
                {
                    "endpoint_ports": [nic.name for nic in nics],
                    "switches": [nic.switch for nic in nics],
                    "switch_ports": [nic.switch_port for nic in nics],
                    "mode": "access",
                    "vlans": str(vlans[network]),
                    "spanning_tree_portfast": "edge",
                }
            )
        if adapters:
            out.append({"name": name, "adapters": adapters})
    return out


def _mgmt_ip(device: Device) -> str:
    """The Management1 address with its prefix, as AVD's ``mgmt_ip`` wants it."""
    return next(i.ip_address for i in device.config.interfaces if i.name == "Management1" and i.ip_address)


def _mgmt_gateway(fabric: ResolvedFabric) -> str:
    """A management gateway for the MGMT VRF default route (AVD takes one for the fabric)."""
    leaf = next(d for _, d in sorted(fabric.devices.items()) if d.role in {"leaf", "spine"})
    return str(IPv4Interface(_mgmt_ip(leaf)).network.network_address + 1)


if __name__ == "__main__":
    json.dump(avd_inputs(Path(sys.argv[1])), sys.stdout)
