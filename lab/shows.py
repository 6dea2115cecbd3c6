"""``show`` commands: the JSON shapes NAPALM, ANTA and health checks read.

Shapes follow EOS 4.31 (see ``docs/lab.md``). The counter commands health
checks read:

* ``show interfaces counters errors``:
  ``{"interfaceErrorCounters": {IF: {"fcsErrors", "alignmentErrors",
  "symbolErrors", "inErrors", "frameTooShorts", "frameTooLongs", "outErrors"}}}``
* ``show priority-flow-control counters``:
  ``{"interfaceCounters": {IF: {"rxFrames", "txFrames"}}}`` (pause frames)
* ``show qos interfaces ecn counters queue``:
  ``{"intfQueueCounters": {IF: {"queueCounters": {"0".."7": N or "-"}}}}`` ("-": no ECN on
  that queue)

The last two follow what ANTA's ``VerifyInterfacesPFCCounters`` and
``VerifyInterfacesECNCounters`` read.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from core.hardware import optics
from lab.topology import (
    admin_up,
    bgp_peers,
    bgp_process,
    hostname,
    interface_addresses,
    interface_blocks,
    line_value,
    mlag_state,
    ospf_neighbors,
    router_id,
    sorted_ports,
    speed_bps,
)

if TYPE_CHECKING:
    from lab.device import EmulatedDevice

Json = dict[str, Any]


class ShowError(Exception):
    """A show command EOS would refuse; ``code`` is the eAPI error code."""

    def __init__(self, message: str, code: int = 1002) -> None:
        super().__init__(message)
        self.code = code


def _hardware(name: str) -> str:
    if "." in name:
        return "subinterface"
    for prefix, hw in (
        ("Ethernet", "ethernet"),
        ("Management", "ethernet"),
        ("Port-Channel", "portChannel"),
        ("Loopback", "loopback"),
        ("Vlan", "vlan"),
        ("Vxlan", "vxlan"),
        ("Tunnel", "tunnel"),
    ):
        if name.startswith(prefix):
            return hw
    return "ethernet"


def all_interfaces(dev: EmulatedDevice) -> list[str]:
    """Physical ports plus every configured interface, in EOS order."""
    return sorted_ports(dev.physical_ports() + list(interface_blocks(dev.running)))


def _status(dev: EmulatedDevice, name: str) -> tuple[str, str, str]:
    """(show interfaces status, show interfaces description status, line protocol)."""
    block = interface_blocks(dev.running).get(name)
    if not admin_up(block):
        return "disabled", "adminDown", "down"
    if dev.fabric().oper_up(dev, name):
        return "connected", "up", "up"
    return "notconnect", "down", "down"


def _mac(dev: EmulatedDevice, offset: int) -> str:
    base = int(dev.system_mac.replace(":", ""), 16) + offset
    raw = f"{base:012x}"
    return ":".join(raw[i : i + 2] for i in range(0, 12, 2))


def show_version(dev: EmulatedDevice) -> Json:
    return {
        "mfgName": "Arista",
        "modelName": dev.model,
        "hardwareRevision": "",
        "serialNumber": dev.serial,
        "systemMacAddress": dev.system_mac,
        "hwMacAddress": dev.system_mac,
        "configMacAddress": "00:00:00:00:00:00",
        "version": dev.version,
        "architecture": "x86_64",
        "internalVersion": f"{dev.version}-{dev.build}",
        "internalBuildId": "0b2f1f4c-2d1f-4b8a-9b3a-6a1f0c6e2a11",
        "imageFormatVersion": "1.0",
        "imageOptimization": "None",
        "bootupTimestamp": dev.boot_time,
        "uptime": time.time() - dev.boot_time,
        "memTotal": 8099732,
        "memFree": 5197364,
        "isIntlVersion": False,
    }


def show_hostname(dev: EmulatedDevice) -> Json:
    name = hostname(dev.running)
    domain = dev.running.value(None, "dns domain ")
    return {"hostname": name, "fqdn": f"{name}.{domain}" if domain else name}


def show_interfaces(dev: EmulatedDevice) -> Json:
    out: Json = {}
    blocks = interface_blocks(dev.running)
    for i, name in enumerate(all_interfaces(dev)):
        block = blocks.get(name)
        status, _, proto = _status(dev, name)
        hw = _hardware(name)
        default_mtu = 65535 if hw == "loopback" else 1500
        counters = dev.counters.get(name, {})
        if hw in ("loopback", "vlan"):
            bandwidth = 0
        elif hw == "portChannel":
            number = name.removeprefix("Port-Channel")
            members = [
                m
                for m, b in blocks.items()
                if (line_value(b, "channel-group ") or "").split(" ")[0] == number and dev.fabric().link_up(dev, m)
            ]
            bandwidth = sum(speed_bps(blocks.get(m), dev.default_bandwidth(m)) for m in members)
        elif name.startswith("Management"):
            bandwidth = speed_bps(block, 1_000_000_000)
        else:
            bandwidth = speed_bps(block, dev.default_bandwidth(name))
        entry: Json = {
            "name": name,
            "forwardingModel": "routed" if interface_addresses(block) else "bridged",
            "lineProtocolStatus": proto,
            "interfaceStatus": status,
            "hardware": hw,
            "interfaceAddress": [],
            "physicalAddress": _mac(dev, i + 1),
            "burnedInAddress": _mac(dev, i + 1),
            "description": line_value(block, "description ") or "",
            "bandwidth": bandwidth,
            "mtu": int(line_value(block, "mtu ") or default_mtu),
            "l3MtuConfigured": line_value(block, "mtu ") is not None,
            "l2Mru": 0,
            "lastStatusChangeTimestamp": dev.last_change.get(name, dev.boot_time),
            "interfaceCounters": {
                "inOctets": counters.get("inOctets", 0),
                "inUcastPkts": counters.get("inUcastPkts", 0),
                "inMulticastPkts": counters.get("inMulticastPkts", 0),
                "inBroadcastPkts": counters.get("inBroadcastPkts", 0),
                "inDiscards": counters.get("inDiscards", 0),
                "inTotalPkts": counters.get("inUcastPkts", 0),
                "outOctets": counters.get("outOctets", 0),
                "outUcastPkts": counters.get("outUcastPkts", 0),
                "outMulticastPkts": counters.get("outMulticastPkts", 0),
                "outBroadcastPkts": counters.get("outBroadcastPkts", 0),
                "outDiscards": counters.get("outDiscards", 0),
                "totalInErrors": counters.get("inErrors", 0) + counters.get("fcsErrors", 0),
                "totalOutErrors": counters.get("outErrors", 0),
                "linkStatusChanges": counters.get("linkStatusChanges", 1),
                "counterRefreshTime": time.time(),
                "inputErrorsDetail": {
                    "runtFrames": 0,
                    "giantFrames": 0,
                    "fcsErrors": counters.get("fcsErrors", 0),
                    "alignmentErrors": 0,
                    "symbolErrors": counters.get("symbolErrors", 0),
                    "rxPause": counters.get("pfcRx", 0),
                },
                "outputErrorsDetail": {
                    "collisions": 0,
                    "lateCollisions": 0,
                    "deferredTransmissions": 0,
                    "txPause": counters.get("pfcTx", 0),
                },
            },
        }
        if addrs := interface_addresses(block):
            entry["interfaceAddress"] = [
                {
                    "primaryIp": {"address": str(addrs[0].ip), "maskLen": addrs[0].network.prefixlen},
                    "secondaryIpsOrderedList": [
                        {"address": str(a.ip), "maskLen": a.network.prefixlen} for a in addrs[1:]
                    ],
                }
            ]
        out[name] = entry
    return {"interfaces": out}


def show_interfaces_description(dev: EmulatedDevice) -> Json:
    blocks = interface_blocks(dev.running)
    out = {}
    for name in all_interfaces(dev):
        _, status, proto = _status(dev, name)
        out[name] = {
            "description": line_value(blocks.get(name), "description ") or "",
            "interfaceStatus": status,
            "lineProtocolStatus": proto,
        }
    return {"interfaceDescriptions": out}


def show_interfaces_status(dev: EmulatedDevice) -> Json:
    blocks = interface_blocks(dev.running)
    out = {}
    for name in all_interfaces(dev):
        status, _, proto = _status(dev, name)
        block = blocks.get(name)
        out[name] = {
            "description": line_value(block, "description ") or "",
            "linkStatus": status,
            "lineProtocolStatus": proto,
            "bandwidth": speed_bps(block, dev.default_bandwidth(name)),
            "interfaceType": _interface_type(dev, name),
            "vlanInformation": {"interfaceMode": "routed" if interface_addresses(block) else "bridged"},
        }
    return {"interfaceStatuses": out}


def _interface_type(dev: EmulatedDevice, name: str) -> str:
    """``interfaceType`` of ``show interfaces status``: the optic a cabled port holds.

    A catalog model's cabled cage holds the catalog's shortest-reach optic for the cage's speed
    and form factor (its breakout lanes share it); an empty cage is ``Not Present``. Other
    models keep a generic 400G optic.
    """
    if not name.startswith("Ethernet"):
        return ""
    if dev.hardware is None or dev.hardware.locate(name) is None:
        return "400GBASE-SR8"
    if dev.fabric().peer_of(dev.name, name) is None:
        return "Not Present"
    port = dev.hardware.interface(name).port
    fitting = [o for o in optics(port.default_mode.speed) if port.form_factor in o.form_factors]
    return fitting[0].name if fitting else port.form_factor


def show_ip_interface(dev: EmulatedDevice) -> Json:
    out = {}
    for name, block in interface_blocks(dev.running).items():
        addrs = interface_addresses(block)
        if not addrs:
            continue
        status, _, proto = _status(dev, name)
        out[name] = {
            "name": name,
            "lineProtocolStatus": proto,
            "interfaceStatus": status,
            "mtu": int(line_value(block, "mtu ") or 1500),
            "description": line_value(block, "description ") or "",
            "interfaceAddress": {
                "primaryIp": {"address": str(addrs[0].ip), "maskLen": addrs[0].network.prefixlen},
                "secondaryIpsOrderedList": [{"address": str(a.ip), "maskLen": a.network.prefixlen} for a in addrs[1:]],
                "secondaryIps": {},
                "virtualIp": {"address": "0.0.0.0", "maskLen": 0},
            },
            "vrf": line_value(block, "vrf ") or "default",
        }
    return {"interfaces": out}


def show_ipv6_interface(dev: EmulatedDevice) -> Json:
    out: Json = {}
    for name, block in interface_blocks(dev.running).items():
        addrs = [c.text.split()[2] for c in block.children if c.text.startswith("ipv6 address ")]
        if not addrs:
            continue
        out[name] = {
            "linkLocal": {"address": f"fe80::1c:73ff:fe00:{len(out) + 1:x}", "subnet": "fe80::/64"},
            "addresses": [{"address": a.split("/")[0], "subnet": a} for a in addrs],
        }
    if not out:
        raise ShowError("No IPv6 configured interfaces", code=1000)
    return {"interfaces": out}


def show_lldp_neighbors(dev: EmulatedDevice) -> Json:
    return {
        "tablesLastChangeTime": dev.boot_time,
        "tablesAgeouts": 0,
        "tablesInserts": 0,
        "tablesDeletes": 0,
        "tablesDrops": 0,
        "lldpNeighbors": [
            {"port": port, "neighborDevice": name, "neighborPort": nport, "ttl": 120}
            for port, name, nport, _ in dev.fabric().lldp_neighbors(dev)
        ],
    }


def _dotted_mac(mac: str) -> str:
    raw = mac.replace(":", "")
    return f"{raw[:4]}.{raw[4:8]}.{raw[8:]}"


def _switch_named(dev: EmulatedDevice, name: str) -> EmulatedDevice | None:
    """The lab device whose hostname is ``name`` (None for a server)."""
    from lab.device import EmulatedDevice as Device

    for other in dev.fabric().devices.values():
        if isinstance(other, Device) and hostname(other.running) == name:
            return other
    return None


def show_lldp_detail(dev: EmulatedDevice, only: str | None) -> Json:
    if only and only not in all_interfaces(dev):
        raise ShowError(f"Invalid input (at token 3: '{only}')")
    out: Json = {}
    for port, name, nport, ndesc in dev.fabric().lldp_neighbors(dev):
        if only and port != only:
            continue
        other = _switch_named(dev, name)
        if other is not None:
            description = f"Arista Networks EOS version {other.version} running on an Arista {other.model}"
            chassis = _dotted_mac(other.system_mac)
            caps = {"bridge": True, "router": True}
        else:
            description, chassis, caps = "Linux server", "0000.5e00.5301", {"station": True}
        out[port] = {
            "lldpNeighborInfo": [
                {
                    "systemName": name,
                    "systemDescription": description,
                    "chassisId": chassis,
                    "chassisIdType": "macAddress",
                    "systemCapabilities": caps,
                    "neighborInterfaceInfo": {
                        "interfaceId": f'"{nport}"',
                        "interfaceId_v2": nport,
                        "interfaceIdType": "interfaceName",
                        "interfaceDescription": ndesc,
                    },
                    "ttl": 120,
                }
            ],
        }
    if only and only not in out:
        out[only] = {"lldpNeighborInfo": []}
    return {"lldpNeighbors": out}


def _bgp_vrfs(dev: EmulatedDevice) -> dict[str, list[Any]]:
    vrfs: dict[str, list[Any]] = {}
    proc = bgp_process(dev.running)
    if proc is not None:
        vrfs["default"] = []
        for child in proc[1].children:
            if child.text.startswith("vrf "):
                vrfs[child.text.split()[1]] = []
    for peer in bgp_peers(dev.fabric(), dev):
        vrfs.setdefault(peer.vrf, []).append(peer)
    return vrfs


def _rid(dev: EmulatedDevice) -> str:
    proc = bgp_process(dev.running)
    return router_id(dev.running, proc[1] if proc else None)


def show_bgp_summary(dev: EmulatedDevice, v6: bool) -> Json:
    out: Json = {}
    proc = bgp_process(dev.running)
    for vrf, peers in _bgp_vrfs(dev).items():
        out[vrf] = {
            "routerId": _rid(dev),
            "asn": proc[0] if proc else "",
            "vrf": vrf,
            "peers": {
                p.address: {
                    "description": p.description,
                    "peerState": p.state,
                    "asn": p.remote_asn,
                    "prefixReceived": 0,
                    "prefixAccepted": 0,
                    "upDownTime": dev.boot_time,
                    "underMaintenance": False,
                }
                for p in peers
                if (":" in p.address) == v6
            },
        }
    return {"vrfs": out}


def _peer_entry(dev: EmulatedDevice, p: Any) -> Json:
    established = p.state == "Established"
    caps = {
        {"ipv4": "ipv4Unicast", "ipv6": "ipv6Unicast", "evpn": "l2VpnEvpn"}.get(af, af): {
            "advertised": True,
            "received": established,
            "enabled": established,
        }
        for af in p.address_families
    }
    return {
        "peerAddress": p.address,
        "localAsn": p.local_asn,
        "asn": p.remote_asn,
        "routerId": p.remote_router_id,
        "state": p.state,
        "idleReason": p.idle_reason,
        "description": p.description,
        "establishedTime": int(time.time() - dev.boot_time) if established else 0,
        "establishedTransitions": 1 if established else 0,
        "prefixesReceived": 0,
        "prefixesSent": 0,
        "v6PrefixesReceived": 0,
        "v6PrefixesSent": 0,
        "vrf": p.vrf,
        "updateGroupIndex": 0,
        "neighborCapabilities": {"multiprotocolCaps": caps},
        "peerTcpInfo": {
            "state": "ESTABLISHED" if established else "CLOSED",
            "inputQueueLength": 0,
            "outputQueueLength": 0,
        },
        "maxTtlHops": 1,
        "bfdState": 2 if established else 0,
    }


def show_bgp_neighbors(dev: EmulatedDevice, family: str) -> Json:
    out: Json = {}
    for vrf, peers in _bgp_vrfs(dev).items():
        chosen = [p for p in peers if family == "all" or (family == "v6") == (":" in p.address)]
        out[vrf] = {"peerList": [_peer_entry(dev, p) for p in chosen]}
    return {"vrfs": out}


def show_mlag(dev: EmulatedDevice) -> Json:
    state = mlag_state(dev.fabric(), dev)
    if state["state"] == "disabled":
        return {"state": "disabled", "negStatus": "", "localIntfStatus": "", "peerLinkStatus": ""}
    blocks = interface_blocks(dev.running)
    ports = [b for b in blocks.values() if line_value(b, "mlag ") is not None]
    active = sum(1 for b in ports if admin_up(b))
    return {
        **state,
        "configSanity": "consistent",
        "systemId": _mac(dev, 0x100),
        "dualPrimaryDetectionState": "disabled",
        "detail": {"mlagState": state["state"], "peerMlagState": state["state"]},
        "mlagPorts": {
            "Disabled": 0,
            "Configured": 0,
            "Inactive": 0,
            "Active-partial": 0 if state["state"] == "active" else active,
            "Active-full": active if state["state"] == "active" else 0,
        },
        "portsErrdisabled": False,
        "reloadDelay": 300,
        "reloadDelayNonMlag": 300,
    }


def show_ospf_neighbor(dev: EmulatedDevice) -> Json:
    vrfs: Json = {}
    # Every configured process is listed, with or without neighbours.
    for node in dev.running.top("router ospf "):
        words = node.text.split()
        vrf = words[4] if len(words) > 4 else "default"
        vrfs.setdefault(vrf, {"instList": {}})["instList"].setdefault(words[2], {"ospfNeighborEntries": []})
    for n in ospf_neighbors(dev.fabric(), dev):
        inst = vrfs.setdefault(n.vrf, {"instList": {}})["instList"].setdefault(n.instance, {"ospfNeighborEntries": []})
        inst["ospfNeighborEntries"].append(
            {
                "routerId": n.neighbor_router_id,
                "priority": 1,
                "drState": "P2P",
                "interfaceName": n.interface,
                "adjacencyState": n.state,
                "interfaceAddress": n.neighbor_address,
                "inactivity": time.time() + 40,
                "options": {"multitopologyCapability": False, "externalRoutingCapability": True},
                "details": {"areaId": n.area, "stateTime": dev.boot_time},
            }
        )
    return {"vrfs": vrfs}


def _phys(dev: EmulatedDevice) -> list[str]:
    return [n for n in all_interfaces(dev) if n.startswith("Ethernet")]


def show_counters_errors(dev: EmulatedDevice) -> Json:
    out = {}
    for name in _phys(dev):
        c = dev.counters.get(name, {})
        out[name] = {
            "fcsErrors": c.get("fcsErrors", 0),
            "alignmentErrors": c.get("alignmentErrors", 0),
            "symbolErrors": c.get("symbolErrors", 0),
            "inErrors": c.get("inErrors", 0) + c.get("fcsErrors", 0),
            "frameTooShorts": 0,
            "frameTooLongs": 0,
            "outErrors": c.get("outErrors", 0),
        }
    return {"interfaceErrorCounters": out}


def show_pfc_counters(dev: EmulatedDevice) -> Json:
    out = {}
    for name in _phys(dev):
        c = dev.counters.get(name, {})
        out[name] = {"rxFrames": c.get("pfcRx", 0), "txFrames": c.get("pfcTx", 0)}
    return {"interfaceCounters": out}


def _ecn_queues(dev: EmulatedDevice, name: str) -> list[str]:
    """Queues with ECN marking on a port: its own tx-queue blocks, then its service-profile's."""
    blocks = interface_blocks(dev.running)
    sources = [blocks.get(name)]
    profile = line_value(blocks.get(name), "service-profile ")
    if profile:
        sources.append(dev.running.block(f"qos profile {profile}"))
    queues = set()
    for source in sources:
        for child in source.children if source is not None else ():
            if child.mode == "txq" and any(
                c.text.startswith("random-detect ecn minimum-threshold") for c in child.children
            ):
                queues.add(child.text.split()[-1])
    return sorted(queues, key=int)


def show_ecn_counters(dev: EmulatedDevice) -> Json:
    """``show qos interfaces ecn counters queue``: ECN-marked packets per queue, ``-`` if off."""
    out: Json = {}
    for name in _phys(dev):
        queues = _ecn_queues(dev, name)
        marked = dev.counters.get(name, {}).get("ecnMarked", 0)
        counters: dict[str, int | str] = {str(q): "-" for q in range(8)}
        for i, q in enumerate(queues):
            counters[q] = marked if i == 0 else 0
        out[name] = {"queueCounters": counters}
    return {"intfQueueCounters": out}


OPTIC_NOMINAL_C = 35.0  # a healthy optic's case temperature; add_counters(port, opticTemperature=N) adds N degrees


def show_transceivers(dev: EmulatedDevice) -> Json:
    """``show interfaces transceiver``: DOM readings of the optics in cabled, up ports."""
    out: Json = {}
    for port, _, _, _ in dev.fabric().lldp_neighbors(dev):
        if not port.startswith("Ethernet"):
            continue
        extra = dev.counters.get(port, {}).get("opticTemperature", 0)
        out[port] = {
            "updateTime": dev.boot_time,
            "temperature": OPTIC_NOMINAL_C + extra,
            "voltage": 3.29,
            "txBias": 6.5,
            "txPower": -1.2,
            "rxPower": -2.1,
        }
    return {"interfaces": {port: out[port] for port in sorted_ports(out)}}


def show_counters_discards(dev: EmulatedDevice) -> Json:
    out = {}
    for name in all_interfaces(dev):
        c = dev.counters.get(name, {})
        out[name] = {"inDiscards": c.get("inDiscards", 0), "outDiscards": c.get("outDiscards", 0)}
    return {
        "interfaces": out,
        "inDiscardsTotal": sum(v["inDiscards"] for v in out.values()),
        "outDiscardsTotal": sum(v["outDiscards"] for v in out.values()),
    }


def show_vlan(dev: EmulatedDevice) -> Json:
    """VLANs with their names and the up ports that carry them (access or trunk)."""
    blocks = interface_blocks(dev.running)
    vlans: Json = {}
    for node in dev.running.top("vlan "):
        if not node.text.split()[1].isdigit():
            continue
        vid = node.text.split()[1]
        name = next((c.text[5:] for c in node.children if c.text.startswith("name ")), f"VLAN{int(vid):04d}")
        groups = {c.text.split()[-1] for c in node.children if c.text.startswith("trunk group ")}
        members = {}
        for ifname, block in blocks.items():
            if ifname.startswith("Vlan") or interface_addresses(block) or has_no_switchport(block):
                continue
            access = line_value(block, "switchport access vlan ")
            trunk = line_value(block, "switchport mode ") == "trunk"
            allowed = line_value(block, "switchport trunk allowed vlan ")
            tgroups = {c.text.split()[-1] for c in block.children if c.text.startswith("switchport trunk group ")}
            carried = (
                access == vid
                if not trunk
                else (bool(groups & tgroups) if groups else allowed in (None, "all") or _in_vlans(vid, allowed))
            )
            if carried and dev.fabric().oper_up(dev, ifname):
                members[ifname] = {"privatePromoted": False, "blocked": None}
        vlans[vid] = {"name": name, "status": "active", "interfaces": members, "dynamic": False}
    return {"vlans": vlans, "sourceDetail": ""}


def has_no_switchport(block: Any) -> bool:
    return block is not None and any(c.text == "no switchport" for c in block.children)


def _in_vlans(vid: str, spec: str | None) -> bool:
    for part in (spec or "").split(","):
        low, _, high = part.partition("-")
        if low.isdigit() and int(low) <= int(vid) <= int(high or low):
            return True
    return False


def running_config_json(dev: EmulatedDevice) -> Json:
    def cmds(node: Any) -> Json:
        return {c.text: ({"cmds": cmds(c)} if c.children else None) for c in node.children}

    return {"cmds": cmds(dev.running.root), "header": [f"! device: {dev.name}"]}


# --------------------------------------------------------------------------- dispatch

Handler = Callable[["EmulatedDevice", "re.Match[str]"], Json]

#: (regex on the normalised command, handler). Matched in order.
JSON_SHOWS: list[tuple[re.Pattern[str], Handler]] = [
    (re.compile(p), h)
    for p, h in (
        (r"show version( detail)?$", lambda d, m: show_version(d)),
        (r"show hostname$", lambda d, m: show_hostname(d)),
        (r"show interfaces$", lambda d, m: show_interfaces(d)),
        (r"show interfaces description$", lambda d, m: show_interfaces_description(d)),
        (r"show interfaces status$", lambda d, m: show_interfaces_status(d)),
        (r"show interfaces counters errors$", lambda d, m: show_counters_errors(d)),
        (r"show qos interfaces ecn counters queue$", lambda d, m: show_ecn_counters(d)),
        (r"show interfaces counters discards$", lambda d, m: show_counters_discards(d)),
        (r"show interfaces transceiver$", lambda d, m: show_transceivers(d)),
        (r"show priority-flow-control counters$", lambda d, m: show_pfc_counters(d)),
        (r"show ip interface$", lambda d, m: show_ip_interface(d)),
        (r"show ipv6 interface$", lambda d, m: show_ipv6_interface(d)),
        (r"show lldp neighbors$", lambda d, m: show_lldp_neighbors(d)),
        (r"show lldp neighbors( (\S+))? detail$", lambda d, m: show_lldp_detail(d, m.group(2))),
        (r"show ip bgp summary vrf all$", lambda d, m: show_bgp_summary(d, v6=False)),
        (r"show ipv6 bgp summary vrf all$", lambda d, m: show_bgp_summary(d, v6=True)),
        (r"show ip bgp summary$", lambda d, m: show_bgp_summary(d, v6=False)),
        (r"show ip bgp neighbors vrf all$", lambda d, m: show_bgp_neighbors(d, "v4")),
        (r"show ipv6 bgp peers vrf all$", lambda d, m: show_bgp_neighbors(d, "v6")),
        (r"show bgp neighbors vrf all$", lambda d, m: show_bgp_neighbors(d, "all")),
        (r"show mlag( detail)?$", lambda d, m: show_mlag(d)),
        (r"show vlan$", lambda d, m: show_vlan(d)),
        (r"show ip ospf neighbor$", lambda d, m: show_ospf_neighbor(d)),
        (r"show running-config$", lambda d, m: running_config_json(d)),
        (r"show configuration sessions( detail)?$", lambda d, m: d.sessions_json()),
    )
]


def run_show(dev: EmulatedDevice, cmd: str, fmt: str) -> Json:
    """Answer one ``show`` command in ``json`` or ``text``; raises :class:`ShowError`."""
    if " | " in cmd:
        base, *pipes = cmd.split(" | ")
        if fmt == "json":
            raise ShowError("Output filters are only supported in text format", code=1003)
        output = str(run_show(dev, base, "text")["output"])
        for pipe in pipes:
            output = apply_filter(output, pipe, len(base.split()) + 1)
        return {"output": output}
    text = dev.show_text(cmd)
    if text is not None:
        if fmt == "json":
            if cmd.startswith("show running-config") and cmd == "show running-config":
                return running_config_json(dev)
            raise ShowError("Command cannot be used in JSON format (use text)", code=1003)
        return {"output": text}
    for rx, handler in JSON_SHOWS:
        m = rx.match(cmd)
        if m:
            data = handler(dev, m)
            return data if fmt == "json" else {"output": _as_text(data)}
    raise ShowError(parse_error(cmd.split()))


#: Every show command the lab answers, for EOS-style parser errors on the others.
KNOWN_SHOWS = (
    "show version detail",
    "show hostname",
    "show interfaces description",
    "show interfaces status",
    "show interfaces counters errors",
    "show interfaces counters discards",
    "show priority-flow-control counters",
    "show qos interfaces ecn counters queue",
    "show ip interface",
    "show ipv6 interface",
    "show lldp neighbors detail",
    "show ip bgp summary vrf all",
    "show ipv6 bgp summary vrf all",
    "show ip bgp neighbors vrf all",
    "show ipv6 bgp peers vrf all",
    "show bgp neighbors vrf all",
    "show mlag detail",
    "show vlan",
    "show ip ospf neighbor",
    "show running-config all sanitized",
    "show startup-config",
    "show configuration sessions detail",
    "show session-config named",
)


def parse_error(words: list[str]) -> str:
    """``Invalid input (at token N: 'w')`` at the first word no known command has there.

    Examples:
        >>> parse_error(["show", "bogus"])
        "Invalid input (at token 1: 'bogus')"
        >>> parse_error(["show", "ip", "bgp", "bogus"])
        "Invalid input (at token 3: 'bogus')"
        >>> parse_error(["show", "ip"])
        'Incomplete command'
    """
    best = 0
    for known in KNOWN_SHOWS:
        kw = known.split()
        n = 0
        while n < min(len(kw), len(words)) and kw[n].startswith(words[n].lower()):
            n += 1
        best = max(best, n)
    if best >= len(words):
        return "Incomplete command"
    return f"Invalid input (at token {best}: '{words[best]}')"


def apply_filter(text: str, pipe: str, token: int = 0) -> str:
    """EOS output filters: ``include``, ``exclude``, ``begin``, ``section`` (regex).

    Examples:
        >>> cfg = "hostname a\\n!\\nrouter bgp 1\\n   router-id 1.1.1.1\\n!\\nend\\n"
        >>> apply_filter(cfg, "section router bgp")
        'router bgp 1\\n   router-id 1.1.1.1\\n'
        >>> apply_filter(cfg, "include host")
        'hostname a\\n'
    """
    verb, _, pattern = pipe.strip().partition(" ")
    try:
        rx = re.compile(pattern)
    except re.error:
        raise ShowError(f"Invalid input (at token {token + 1}: '{pattern}')") from None
    lines = text.splitlines()
    if "include".startswith(verb) and verb:
        kept = [line for line in lines if rx.search(line)]
    elif "exclude".startswith(verb) and verb:
        kept = [line for line in lines if not rx.search(line)]
    elif "begin".startswith(verb) and verb:
        start = next((i for i, line in enumerate(lines) if rx.search(line)), len(lines))
        kept = lines[start:]
    elif "section".startswith(verb) and len(verb) > 1:
        kept, block = [], []
        for line in [*lines, ""]:
            if line.startswith(" "):
                block.append(line)
                continue
            if block and any(rx.search(b) for b in block):
                kept += block
            block = [line] if line and line != "!" else []
    else:
        raise ShowError(f"Invalid input (at token {token}: '{verb}')")
    return "".join(line + "\n" for line in kept)


def _as_text(data: Json) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"
