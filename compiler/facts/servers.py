"""Server attachments: which switch port each server NIC plugs into, and the server as resolved.

* fabric networks: the first NIC of a network goes to leaf a, the second to leaf b, both on
  the k-th port of the leaves' ``downlinks``, ``k = (rack - first rack of the pair) *
  ports_per_rack + position`` (a compute ``compute_port`` moves the cable to another port,
  the k-th downlink or a named one, never the address: the host index stays ``k``);
* management: the first management NIC goes to the ``position``-th port of the rack
  management switch's ``servers``, host index = position.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> from compiler.facts.topology import build_topology
    >>> intent = load_intent(Path("intent"))
    >>> nics = build_attachments(intent, build_topology(intent)).of_server["rack03-gpu002"]
    >>> for a in nics:
    ...     print(a.network, a.nic, a.switch, a.port, a.host)
    management eno1 rack03-mgmt Ethernet2 2
    compute enp65s0f0 rack03-leaf-a Ethernet1/3 2
    compute enp193s0f0 rack03-leaf-b Ethernet1/3 2
    storage enp66s0f0 rack01-stor-leaf-a Ethernet24 24
    storage enp66s0f1 rack01-stor-leaf-b Ethernet24 24
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections import defaultdict
from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from compiler.facts.common import Network, Problem, record

if TYPE_CHECKING:
    from compiler.facts.hosts import HostLink
from compiler.facts.topology import Topology
from compiler.intent import Intent, Speed
from compiler.memo import per_object


class Attachment(NamedTuple):
    """Where one server NIC plugs in: a switch port, and the server's host index behind it."""

    server: str
    network: Network
    nic: str
    speed: Speed
    numa: int
    switch: str
    port: str
    """The switch's interface."""
    host: int
    """The host index that sets the server's address on this network."""
    side: int
    """0 for leaf a (and management), 1 for leaf b."""
    retired: bool = False
    """The server is decommissioned: it holds the port and the address, and uses neither."""


class Attachments(NamedTuple):
    """Every server NIC's switch port, in the order each switch takes them."""

    nics: tuple[Attachment, ...]
    problems: tuple[Problem, ...]

    @property
    def of_server(self) -> Mapping[str, tuple[Attachment, ...]]:
        """The attachments of each server (grouped once per set of attachments)."""
        return _by_server(self.nics)


@per_object
def _by_server(nics: tuple[Attachment, ...]) -> dict[str, tuple[Attachment, ...]]:
    out: dict[str, list[Attachment]] = defaultdict(list)
    for nic in nics:
        out[nic.server].append(nic)
    return {name: tuple(found) for name, found in out.items()}


def build_attachments(intent: Intent, topology: Topology) -> Attachments:
    """Place every server NIC on its switch port; report the positions that have no port."""
    spec = intent.fabric
    nics: list[Attachment] = []
    problems: list[Problem] = []
    server_ports = topology.layouts.mgmt.sets["servers"]
    management_nics = {name: model.nics_on("management") for name, model in spec.server_models.items()}
    for server in intent.servers:
        mgmt_nics = management_nics[server.model]
        if not mgmt_nics:
            continue
        switch = topology.rack_switches[server.rack]
        if server.position > len(server_ports):
            message = f"{server.name}: position {server.position} has no server port ({len(server_ports)} in servers)"
            problems.append(Problem("PRT003", switch, message))
            continue
        nic = mgmt_nics[0]
        port = server_ports[server.position - 1]
        values = (
            server.name,
            "management",
            nic.name,
            nic.speed,
            nic.numa,
            switch,
            port,
            server.position,
            0,
            not server.active,
        )
        nics.append(record(Attachment, values))
    for net, fabric in sorted(topology.fabrics.items()):
        per_rack = spec.fabrics[net].leaves.ports_per_rack
        downlinks = topology.layouts.leaf[net].sets["downlinks"]
        nics_of = {name: model.nics_on(net) for name, model in spec.server_models.items()}
        for pair in fabric.pairs:
            for side, leaf in enumerate(pair.leaves):
                for server in pair.servers:
                    net_nics = nics_of[server.model]
                    if side >= len(net_nics):
                        continue
                    if server.position > per_rack:
                        message = (
                            f"{server.name}: position {server.position} exceeds ports_per_rack {per_rack} "
                            f"of fabrics.{net}.leaves"
                        )
                        problems.append(Problem("PRT002", leaf, message))
                        continue
                    host = (server.rack - pair.first_rack) * per_rack + server.position
                    chosen = server.compute_port if net == "compute" and server.compute_port else host
                    if isinstance(chosen, str):
                        port = chosen
                    elif chosen <= len(downlinks):
                        port = downlinks[chosen - 1]
                    else:
                        message = (
                            f"{server.name}: downlink {chosen} is beyond the {len(downlinks)} ports of "
                            f"fabrics.{net}.leaves.downlinks"
                        )
                        problems.append(Problem("PRT002", leaf, message))
                        continue
                    nic = net_nics[side]
                    values = (
                        server.name,
                        net,
                        nic.name,
                        nic.speed,
                        nic.numa,
                        leaf,
                        port,
                        host,
                        side,
                        not server.active,
                    )
                    nics.append(record(Attachment, values))
    return Attachments(tuple(nics), tuple(problems))


class ServerNic(NamedTuple):
    """A server NIC as cabled: its network, speed, NUMA node and the switch port at the far end."""

    name: str
    network: Network
    speed: str
    numa: int
    switch: str
    switch_port: str


class ResolvedServer(NamedTuple):
    """A server with its addresses and cabled NICs: what the server artifacts are written from."""

    name: str
    model: str
    asset_tag: str
    rack: int
    position: int
    mgmt_address: str
    mgmt_gateway: str
    compute_address: str | None
    compute_gateway: str | None
    storage_address: str | None
    storage_gateway: str | None
    nics: tuple[ServerNic, ...]
    links: tuple["HostLink", ...] = ()
    """How it attaches to each fabric network (a bond, or an address per NIC)."""
    active: bool = True
    """False for a decommissioned server: its ports and addresses are held, it has no host files."""


#: What the IP plan says of a decommissioned server's address: still its, not to be reused.
RESERVED = " (reserved: decommissioned)"
