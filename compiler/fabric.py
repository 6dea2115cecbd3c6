"""The resolved fabric: the facts of the whole fabric and one structured config per switch.

``resolve`` runs the two stages that decide everything: :func:`compiler.facts.build_facts`
(fabric-wide, once) and :func:`compiler.structured.structured_config` (per switch, from the
facts that name it). The checks and the artifact writers read the result.

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> fabric = resolve(load_intent(Path("intent")))
    >>> device = fabric.devices["rack03-leaf-b"]
    >>> device.redundancy_group, device.mgmt_address, device.config.mlag.peer_link
    ('compute-pair03', '172.16.3.4', 'Port-Channel1000')
    >>> len(fabric.devices), len(fabric.links), fabric.problems
    (55, 766, ())
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from compiler.collection import paused
from compiler.facts import (
    Allocation,
    Cable,
    Facts,
    Network,
    PoolUse,
    Problem,
    ResolvedServer,
    Role,
    UsedPort,
    build_facts,
)
from compiler.intent import Intent
from compiler.structured import DeviceConfig, structured_config


@dataclass(frozen=True, slots=True)
class Device:
    """A switch: identity, where it is, how to reach it, and its structured config.

    The same fields, in the same order, as ``generated/structured/<device>.yaml``.
    """

    name: str
    role: Role
    network: Network
    model: str
    rack: int
    mgmt_address: str
    redundancy_group: str
    mlag_peer: str | None
    config: DeviceConfig


@dataclass(frozen=True, slots=True)
class ResolvedFabric:
    """Every switch with its structured config, every server, cable, address and pool."""

    facts: Facts
    devices: Mapping[str, Device]
    """By name, sorted."""
    servers: Mapping[str, ResolvedServer]
    links: tuple[Cable, ...]
    allocations: tuple[Allocation, ...]
    pools: tuple[PoolUse, ...]
    problems: tuple[Problem, ...]

    def ports(self, device: str) -> tuple[UsedPort, ...]:
        """The used front-panel ports of ``device``, in EOS interface order."""
        return self.facts.cabling.of(device)


@paused
def resolve(intent: Intent) -> ResolvedFabric:
    """Decide everything the intent leaves implicit; pure and deterministic."""
    facts = build_facts(intent)
    devices = {}
    for name in sorted(facts.topology.switches):
        switch = facts.topology.switches[name]
        devices[name] = Device(
            name,
            switch.role,
            switch.network,
            switch.model,
            switch.rack,
            facts.mgmt_address(name),
            switch.redundancy_group,
            switch.mlag_peer,
            structured_config(facts.device(name)),
        )
    return ResolvedFabric(
        facts, devices, facts.servers, facts.cabling.cables, facts.allocations, facts.pools, facts.problems
    )
