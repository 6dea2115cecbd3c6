"""Physical ports and cables: every port a switch uses, by device and port name, and both ends
of every cable.

Each switch takes its ports in a fixed order (a leaf: uplinks, peer-link, then servers in
rack and position order; a management switch: servers, the fabric switches' Management1,
its uplink; the core: a downlink per rack, then the upstream). A port is taken once: a
later claim on it is a problem (PRT007), and a port the model lacks is one too (PRT001).

* leaf ``L`` to spine ``s``: leaf port ``uplink_ports[s - 1]``, spine port ``L``;
* peer-link: ``peer_link_ports`` on both leaves of a pair, in port-channel ``mlag.peer_link_channel``;
* rack ``R``'s management switch: uplink ``switch_uplink_port`` to core port ``R``.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> from compiler.facts.topology import build_topology
    >>> from compiler.facts.servers import build_attachments
    >>> from compiler.facts.addressing import build_addressing
    >>> intent = load_intent(Path("intent"))
    >>> topology = build_topology(intent)
    >>> attachments = build_attachments(intent, topology)
    >>> cabling = build_cabling(intent, topology, attachments, build_addressing(intent, topology, attachments))
    >>> port = cabling.port("rack03-leaf-b", "Ethernet50")
    >>> port.kind, port.peer, port.peer_port, port.speed
    ('uplink', 'spine02', 'Ethernet6', '400g')
    >>> len(cabling.cables), cabling.cables[0].a, cabling.cables[0].b
    (766, Endpoint(device='rack01-leaf-a', port='Ethernet1'), Endpoint(device='rack01-gpu001', port='enp65s0f0'))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NamedTuple

from compiler.facts.addressing import Addressing
from compiler.facts.common import Network, Problem
from compiler.facts.servers import Attachments
from compiler.facts.topology import SpineLeaf, Topology
from compiler.intent import Intent, Speed, SwitchModel
from compiler.platforms import eos

PortUse = Literal["uplink", "downlink", "peer-link", "server", "management", "rack-uplink", "rack-downlink", "upstream"]
CableKind = Literal["fabric", "peer-link", "server", "mgmt", "mgmt-uplink"]


class UsedPort(NamedTuple):
    """A front-panel port a switch uses, and what is at its far end."""

    device: str
    name: str
    kind: PortUse
    network: Network
    peer: str
    """The device or server at the far end ('' for the site upstream)."""
    peer_port: str
    """The far end's port or NIC."""
    speed: Speed | None
    """The speed of the port on the switch's model (None: the model has no such port)."""
    channel: int | None = None
    """The port-channel this port is a member of."""

    @property
    def purpose(self) -> str:
        """What the port is used for, in words.

        Example:
            >>> UsedPort("rack01-leaf-a", "Ethernet49", "uplink", "compute", "spine01", "Ethernet1", "400g").purpose
            'uplink to spine01'
        """
        if self.kind == "server":
            return f"server {self.peer} {self.peer_port}"
        if self.kind == "management":
            return f"{self.peer} {self.peer_port}"
        if self.kind == "upstream":
            return "upstream"
        return f"{self.kind.replace('rack-', '')} to {self.peer}"


class Endpoint(NamedTuple):
    """One end of a cable: a device (switch or server) and its port."""

    device: str
    port: str


class Cable(NamedTuple):
    """A cable, both ends, with what each end is configured for."""

    network: Network
    kind: CableKind
    a: Endpoint
    b: Endpoint
    a_speed: str | None
    b_speed: str | None
    a_mtu: int
    b_mtu: int
    subnet: str | None = None


class Cabling(NamedTuple):
    """Every used port by device and port name, and every cable."""

    ports: Mapping[str, Mapping[str, UsedPort]]
    """By device, then port name, in EOS interface order."""
    cables: tuple[Cable, ...]
    problems: tuple[Problem, ...]

    def port(self, device: str, name: str) -> UsedPort | None:
        """The port ``name`` of ``device``, when it is used."""
        return self.ports.get(device, {}).get(name)

    def of(self, device: str) -> tuple[UsedPort, ...]:
        """The used ports of ``device``, in EOS interface order."""
        return tuple(self.ports.get(device, {}).values())


class _Plan:
    """The ports being taken and the cables being laid; a claim on a taken port is refused."""

    def __init__(self, intent: Intent, topology: Topology) -> None:
        self.intent = intent
        self.topology = topology
        self.ports: dict[str, dict[str, UsedPort]] = {}
        self.cables: list[Cable] = []
        self.problems: list[Problem] = []

    def model(self, device: str) -> SwitchModel:
        return self.intent.fabric.switch_models[self.topology.switches[device].model]

    def end(self, device: str, number: int) -> tuple[str, Speed | None]:
        """The name and speed of port ``number`` of ``device``."""
        return eos.front_panel_port(number), self.model(device).speed_of(number)

    def take(
        self,
        device: str,
        number: int,
        kind: PortUse,
        network: Network,
        peer: str,
        peer_port: str,
        claimer: str,
        channel: int | None = None,
    ) -> UsedPort | None:
        """Take port ``number`` of ``device``; None (and a problem) when it is taken already."""
        name, speed = self.end(device, number)
        taken = self.ports.setdefault(device, {})
        if name in taken:
            message = f"{claimer}: {name} is already used ({taken[name].purpose})"
            self.problems.append(Problem("PRT007", device, message))
            return None
        port = UsedPort(device, name, kind, network, peer, peer_port, speed, channel)
        taken[name] = port
        if speed is None:
            model = self.model(device)
            message = f"{device}: port {number} is used ({port.purpose}) but its model has ports 1-{model.port_count}"
            self.problems.append(Problem("PRT001", device, message))
        return port

    def cable(
        self,
        network: Network,
        kind: CableKind,
        a: UsedPort,
        b: tuple[str, str, str | None],
        mtus: tuple[int, int],
        subnet: str | None = None,
    ) -> None:
        far_device, far_port, far_speed = b
        self.cables.append(
            Cable(
                network,
                kind,
                Endpoint(a.device, a.name),
                Endpoint(far_device, far_port),
                a.speed,
                far_speed,
                *mtus,
                subnet,
            )
        )


def build_cabling(intent: Intent, topology: Topology, attachments: Attachments, addressing: Addressing) -> Cabling:
    """Take every port and lay every cable of the design."""
    plan = _Plan(intent, topology)
    _management(plan, attachments)
    for fabric in topology.fabrics.values():
        _spine_leaf(plan, fabric, attachments, addressing)
    ports = {
        device: dict(sorted(taken.items(), key=lambda item: eos.interface_key(item[0])))
        for device, taken in plan.ports.items()
    }
    cables = sorted(plan.cables, key=lambda c: (c.a.device, eos.interface_key(c.a.port), c.b.device))
    return Cabling(ports, tuple(cables), tuple(plan.problems))


def _management(plan: _Plan, attachments: Attachments) -> None:
    intent, topology = plan.intent, plan.topology
    mgmt = intent.fabric.management
    switch_mtu = intent.fabric.mtu.switch
    access_mtu = eos.data().access_mtu
    management_port = eos.management_port()
    by_switch: dict[str, list[tuple[int, str, str, str | None]]] = {}
    for nic in attachments.nics:
        if nic.network == "management":
            by_switch.setdefault(nic.switch, []).append((nic.port, nic.server, nic.nic, nic.speed))
    for rack, switch in topology.rack_switches.items():
        for number, server, nic_name, speed in by_switch.get(switch, []):
            port = plan.take(switch, number, "server", "management", server, nic_name, server)
            if port is not None:
                plan.cable("management", "server", port, (server, nic_name, speed), (access_mtu, access_mtu))
        for device in topology.in_rack(rack):
            if device.mgmt_port is None:
                continue
            port = plan.take(
                switch, device.mgmt_port, "management", "management", device.name, management_port, device.name
            )
            if port is not None:
                far = (device.name, management_port, eos.data().management_port_speed)
                plan.cable("management", "mgmt", port, far, (access_mtu, access_mtu))
        core_port, core_speed = plan.end(topology.core, rack)
        uplink = plan.take(
            switch, mgmt.switch_uplink_port, "rack-uplink", "management", topology.core, core_port, switch
        )
        uplink_name = eos.front_panel_port(mgmt.switch_uplink_port)
        down = plan.take(topology.core, rack, "rack-downlink", "management", switch, uplink_name, topology.core)
        if uplink is not None and down is not None:
            plan.cable(
                "management", "mgmt-uplink", uplink, (topology.core, core_port, core_speed), (switch_mtu, switch_mtu)
            )
    plan.take(topology.core, mgmt.core.upstream_port, "upstream", "management", "", "", topology.core)


def _spine_leaf(plan: _Plan, fabric: SpineLeaf, attachments: Attachments, addressing: Addressing) -> None:
    intent, net = plan.intent, fabric.network
    spec = intent.fabric.fabrics[net]
    mtu, host_mtu = intent.fabric.mtu.switch, intent.fabric.mtu.host
    lacp = spec.bonding == "lacp"
    by_leaf: dict[str, list[tuple[int, str, str, str]]] = {}
    for nic in attachments.nics:
        if nic.network == net:
            by_leaf.setdefault(nic.switch, []).append((nic.port, nic.server, nic.nic, nic.speed))
    for pair in fabric.pairs:
        for side, leaf in enumerate(pair.leaves):
            index = pair.leaf_index(side)
            for number, spine in enumerate(fabric.spines[: fabric.uplinks], start=1):
                leaf_number = spec.leaves.uplink_ports[number - 1]
                leaf_port_name, _ = plan.end(leaf, leaf_number)
                spine_port_name, spine_speed = plan.end(spine, index)
                up = plan.take(leaf, leaf_number, "uplink", net, spine, spine_port_name, leaf)
                down = plan.take(spine, index, "downlink", net, leaf, leaf_port_name, spine)
                if up is not None and down is not None:
                    subnet = addressing.fabric_links[leaf, spine].subnet
                    plan.cable(net, "fabric", up, (spine, spine_port_name, spine_speed), (mtu, mtu), subnet)
            peer = pair.leaves[1 - side]
            for number in spec.leaves.peer_link_ports:
                name, speed = plan.end(leaf, number)
                member = plan.take(
                    leaf, number, "peer-link", net, peer, name, leaf, intent.fabric.mlag.peer_link_channel
                )
                if member is not None and side == 0:
                    plan.cable(net, "peer-link", member, (peer, name, speed), (mtu, mtu))
            for number, server, nic_name, nic_speed in by_leaf.get(leaf, []):
                channel = number if lacp else None
                port = plan.take(leaf, number, "server", net, server, nic_name, server, channel)
                if port is not None:
                    plan.cable(net, "server", port, (server, nic_name, nic_speed), (mtu, host_mtu))
