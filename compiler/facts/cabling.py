"""Physical ports and cables: every port a switch uses, by device and port name, and both ends
of every cable.

Each switch takes its ports in a fixed order (a leaf: uplinks, peer-link, then servers in
rack and position order; a management switch: servers, the fabric switches' management
ports, its uplink; the core: a downlink per rack, then the upstream). A port is taken once: a
later claim on it is a problem (PRT007); a port the model lacks is one too (PRT001), and so is
one its breakouts make inactive or absent (BRK001).

* fabric links (leaf-spine, pod spine-super-spine): both ends as :mod:`.addressing` decides;
* peer-link: ``peer_link_ports`` on both leaves of a pair, in port-channel ``mlag.peer_link_channel``;
* rack ``R``'s management switch: uplink ``switch_uplink_port`` to the ``R``-th port of the
  core's ``downlinks``.

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
    >>> port = cabling.port("rack03-leaf-b", "Ethernet26/1")
    >>> port.kind, port.peer, port.peer_port, port.speed
    ('uplink', 'spine02', 'Ethernet6/1', '400g')
    >>> len(cabling.cables), cabling.cables[0].a, cabling.cables[0].b
    (766, Endpoint(device='rack01-leaf-a', port='Ethernet1/1'), Endpoint(device='rack01-gpu001', port='enp65s0f0'))
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections.abc import Mapping
from itertools import groupby
from operator import attrgetter
from typing import Literal, NamedTuple

from compiler.facts.addressing import Addressing
from compiler.facts.common import Network, Problem, record
from compiler.facts.servers import Attachment, Attachments
from compiler.facts.topology import SpineLeaf, Topology
from compiler.intent import Intent
from compiler.platforms import eos

PortUse = Literal["uplink", "downlink", "peer-link", "server", "management", "rack-uplink", "rack-downlink", "upstream"]
CableKind = Literal["fabric", "peer-link", "server", "mgmt", "mgmt-uplink"]


_NETWORK_SWITCH = attrgetter("network", "switch")


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
    speed: str | None
    """The speed of the port under its switch's breakouts (None: no such interface there)."""
    channel: int | None = None
    """The port-channel this port is a member of."""
    retired: bool = False
    """Its far end is a decommissioned server: the port is held, shut and described."""

    @property
    def purpose(self) -> str:
        """What the port is used for, in words.

        Example:
            >>> UsedPort("rack01-leaf-a", "Ethernet25/1", "uplink", "compute", "spine01", "Ethernet1/1", "400g").purpose
            'uplink to spine01'
        """
        if self.kind == "server" and self.retired:
            return f"held for decommissioned server {self.peer} {self.peer_port} until its row is removed"
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
        self.cables: dict[str, dict[str, Cable]] = {}
        """By the device and port of their a-end: a port is taken once, so each holds one."""
        self.problems: list[Problem] = []

    def speed(self, device: str, name: str) -> str | None:
        """The speed of interface ``name`` of switch ``device`` (None when it does not exist)."""
        return self.topology.switches[device].layout.speed(name)

    def take(
        self,
        device: str,
        name: str,
        kind: PortUse,
        network: Network,
        peer: str,
        peer_port: str,
        claimer: str,
        channel: int | None = None,
        retired: bool = False,
    ) -> UsedPort | None:
        """Take interface ``name`` of ``device``; None (and a problem) when it is taken already."""
        layout = self.topology.switches[device].layout
        lane = layout.lanes.get(name)  # Layout.speed, inline: a call per port (17,581 at 16x)
        speed = lane[0] if lane else None
        taken = self.ports.setdefault(device, {})
        if name in taken:
            message = f"{claimer}: {name} is already used ({taken[name].purpose})"
            self.problems.append(Problem("PRT007", device, message))
            return None
        port = record(UsedPort, (device, name, kind, network, peer, peer_port, speed, channel, retired))
        taken[name] = port
        if speed is None:
            rule = "PRT001" if layout.model.missing(name) else "BRK001"
            self.problems.append(Problem(rule, device, f"{port.purpose}: {layout.why_absent(name)}"))
        return port

    def servers(
        self, device: str, network: Network, nics: list[Attachment], mtus: tuple[int, int], lacp: bool = False
    ) -> None:
        """:meth:`take` and :meth:`cable` for each server NIC on ``device`` (in a port-channel, its
        host index, when ``lacp``): inline for a free port that exists, the bulk of the ports (a
        method call or two per port was a third of the cabling at 16x)."""
        if not nics:
            return  # no port taken: the switch is not among the ports yet
        lanes = self.topology.switches[device].layout.lanes
        taken = self.ports.setdefault(device, {})
        laid = self.cables.setdefault(device, {})
        a_mtu, b_mtu = mtus
        for server, _, nic, far_speed, _, _, name, host, _, retired in nics:
            channel = host if lacp else None
            lane = lanes.get(name)
            if lane is None or name in taken:
                port = self.take(device, name, "server", network, server, nic, server, channel, retired)
                if port is not None:
                    self.cable(network, "server", port, (server, nic, far_speed), mtus)
                continue
            speed = lane[0]
            taken[name] = record(UsedPort, (device, name, "server", network, server, nic, speed, channel, retired))
            ends = (record(Endpoint, (device, name)), record(Endpoint, (server, nic)))
            laid[name] = record(Cable, (network, "server", *ends, speed, far_speed, a_mtu, b_mtu, None))

    def uplinks(self, device: str, network: Network, links: list[tuple[str, str, str, str]], mtu: int) -> None:
        """The routed links of ``device`` towards the tier above (its port, the far switch and
        port, the /31): both ends taken and the cable laid, as :meth:`servers` does."""
        if not links:
            return
        switches = self.topology.switches
        lanes = switches[device].layout.lanes
        taken = self.ports.setdefault(device, {})
        laid = self.cables.setdefault(device, {})
        for name, upper, upper_port, subnet in links:
            lane = lanes.get(name)
            above = self.ports.setdefault(upper, {})
            far = switches[upper].layout.lanes.get(upper_port)
            if lane is None or far is None or name in taken or upper_port in above:
                up = self.take(device, name, "uplink", network, upper, upper_port, device)
                down = self.take(upper, upper_port, "downlink", network, device, name, upper)
                if up is not None and down is not None:
                    self.cable(network, "fabric", up, (upper, upper_port, down.speed), (mtu, mtu), subnet)
                continue
            speed, far_speed = lane[0], far[0]
            taken[name] = record(UsedPort, (device, name, "uplink", network, upper, upper_port, speed, None, False))
            down_values = (upper, upper_port, "downlink", network, device, name, far_speed, None, False)
            above[upper_port] = record(UsedPort, down_values)
            ends = (record(Endpoint, (device, name)), record(Endpoint, (upper, upper_port)))
            laid[name] = record(Cable, (network, "fabric", *ends, speed, far_speed, mtu, mtu, subnet))

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
        a_mtu, b_mtu = mtus
        ends = (record(Endpoint, (a.device, a.name)), record(Endpoint, (far_device, far_port)))
        cable = record(Cable, (network, kind, *ends, a.speed, far_speed, a_mtu, b_mtu, subnet))
        self.cables.setdefault(a.device, {})[a.name] = cable


def build_cabling(intent: Intent, topology: Topology, attachments: Attachments, addressing: Addressing) -> Cabling:
    """Take every port and lay every cable of the design."""
    plan = _Plan(intent, topology)
    # Each switch's server NICs by (network, switch): a switch's come in runs, each taken
    # whole (a step per NIC was a tenth of the cabling at 16x).
    nics: dict[tuple[str, str], list[Attachment]] = {}
    for key, run in groupby(attachments.nics, _NETWORK_SWITCH):
        nics.setdefault(key, []).extend(run)
    _management(plan, nics)
    for fabric in topology.fabrics.values():
        _spine_leaf(plan, fabric, nics, addressing)
    # Switches of a role take their ports in the same order: each order is sorted once.
    orders: dict[tuple[str, ...], list[str]] = {}
    ports = {}
    for device, taken in plan.ports.items():
        names = tuple(taken)
        order = orders.get(names)
        if order is None:
            order = orders[names] = sorted(names, key=eos.interface_key)
        ports[device] = {name: taken[name] for name in order}
    # By a-end device, then a-end port in interface order: the order of the sorted ports, so
    # no sort of the cables (an a-end is a taken port: one cable each, no ties).
    cables: list[Cable] = []
    for device in sorted(plan.cables):
        laid = plan.cables[device]
        cables += [laid[name] for name in ports[device] if name in laid]
    return Cabling(ports, tuple(cables), tuple(plan.problems))


def _management(plan: _Plan, nics: Mapping[tuple[str, str], list[Attachment]]) -> None:
    intent, topology = plan.intent, plan.topology
    mgmt = intent.fabric.management
    switch_mtu = intent.fabric.mtu.switch
    access_mtu = eos.data().access_mtu
    core_ports = topology.layouts.core.sets["downlinks"]
    short = [rack for rack in topology.rack_switches if rack > len(core_ports)]
    if short:
        message = (
            f"racks {', '.join(str(r) for r in short)}: no port for them among the {len(core_ports)} of "
            "management.core.downlinks (rack R takes the R-th): list more cages"
        )
        plan.problems.append(Problem("PRT004", topology.core, message))
    in_rack = topology.by_rack()
    for rack, switch in topology.rack_switches.items():
        plan.servers(switch, "management", nics.get(("management", switch), []), (access_mtu, access_mtu))
        for device in in_rack.get(rack, []):
            if device.mgmt_port is None:
                continue
            management_port = device.layout.management_port
            port = plan.take(
                switch, device.mgmt_port, "management", "management", device.name, management_port, device.name
            )
            if port is not None:
                far = (device.name, management_port, eos.data().management_port_speed)
                plan.cable("management", "mgmt", port, far, (access_mtu, access_mtu))
        if rack > len(core_ports):
            continue
        core_port = core_ports[rack - 1]
        uplink = plan.take(
            switch, mgmt.switch_uplink_port, "rack-uplink", "management", topology.core, core_port, switch
        )
        down = plan.take(
            topology.core, core_port, "rack-downlink", "management", switch, mgmt.switch_uplink_port, topology.core
        )
        if uplink is not None and down is not None:
            core_speed = plan.speed(topology.core, core_port)
            plan.cable(
                "management", "mgmt-uplink", uplink, (topology.core, core_port, core_speed), (switch_mtu, switch_mtu)
            )
    plan.take(topology.core, mgmt.core.upstream_port, "upstream", "management", "", "", topology.core)


def _spine_leaf(
    plan: _Plan, fabric: SpineLeaf, nics: Mapping[tuple[str, str], list[Attachment]], addressing: Addressing
) -> None:
    intent, net = plan.intent, fabric.network
    spec = intent.fabric.fabrics[net]
    lacp = spec.bonding == "lacp"
    mtu, host_mtu = intent.fabric.mtu.switch, intent.fabric.mtu.host
    links: dict[str, list[tuple[str, str, str, str]]] = {}
    for link in addressing.fabric_links.values():
        if link.network == net:
            links.setdefault(link.lower, []).append((link.lower_port, link.upper, link.upper_port, link.subnet))
    for pair in fabric.pairs:
        for side, leaf in enumerate(pair.leaves):
            plan.uplinks(leaf, net, links.get(leaf, []), mtu)
            peer = pair.leaves[1 - side]
            for name in spec.leaves.peer_link_ports:
                member = plan.take(leaf, name, "peer-link", net, peer, name, leaf, intent.fabric.mlag.peer_link_channel)
                if member is not None and side == 0:
                    plan.cable(net, "peer-link", member, (peer, name, plan.speed(peer, name)), (mtu, mtu))
            plan.servers(leaf, net, nics.get((net, leaf), []), (mtu, host_mtu), lacp)
    for pod in fabric.pods:
        for spine in pod.spines:
            plan.uplinks(spine, net, links.get(spine, []), mtu)
