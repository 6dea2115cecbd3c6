"""The resolved fabric: the facts of the whole fabric and one structured config per switch.

``resolve`` runs the stage that decides everything, :func:`compiler.facts.build_facts`
(fabric-wide, once), and gives each switch the facts that name it. Its structured config
(:func:`compiler.structured.structured_config`, a pure function of those facts) is built when
first read, then kept: a compile that keeps a switch's files from the last one never builds it.
The checks and the artifact writers read the result.

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
from dataclasses import dataclass, field, replace
from itertools import compress
from operator import attrgetter

from compiler.collection import paused
from compiler.facts import (
    Allocation,
    Cable,
    DeviceFacts,
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
from compiler.structured.qos import ROCE_PORT_KINDS


class _Built:
    """Where a frozen :class:`Device` keeps its structured config once built."""

    __slots__ = ("config",)

    def __init__(self) -> None:
        self.config: DeviceConfig | None = None


@dataclass(frozen=True, slots=True)
class Device:
    """A switch: identity, where it is, how to reach it, the facts that name it and its
    structured config.

    The identity fields and ``config`` are those of ``generated/structured/<device>.yaml``, in
    its order. ``config`` is built from ``facts`` on first read and then kept.
    """

    name: str
    role: Role
    network: Network
    model: str
    rack: int
    mgmt_address: str
    redundancy_group: str
    mlag_peer: str | None
    facts: DeviceFacts = field(repr=False, compare=False)
    """What its structured config is made of (:meth:`compiler.facts.Facts.device`)."""
    _built: _Built = field(default_factory=_Built, init=False, repr=False, compare=False)

    @property
    def config(self) -> DeviceConfig:
        """Its structured config: built from its facts on first read, then kept."""
        config = self._built.config
        if config is None:
            config = self._built.config = structured_config(self.facts)
        return config

    @property
    def config_built(self) -> bool:
        """Whether its structured config was built (read) yet."""
        return self._built.config is not None

    def with_config(self, config: DeviceConfig) -> Device:
        """This device with another structured config (a check's or a test's altered copy; its
        units stay keyed by its facts, so it is not one to render).

        Example:
            >>> from pathlib import Path
            >>> from compiler.intent import load_intent
            >>> device = resolve(load_intent(Path("intent"))).devices["spine01"]
            >>> device.config_built, device.with_config(device.config._replace(hostname="x")).config.hostname
            (False, 'x')
        """
        copy = replace(self)
        copy._built.config = config
        return copy


@dataclass(frozen=True, slots=True)
class ResolvedFabric:
    """Every switch with its facts and structured config, every server, cable, address and pool."""

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

    def roce_speeds(self, network: Network) -> set[str]:
        """The speeds of the RoCE-carrying ports of ``network``'s switches: each speed is a QoS
        profile of their configs (from the facts: no config is built; each switch's ports read
        at C speed, getters and ``compress``: a loop in Python over them was a third of the
        docs at 16x).

        Example:
            >>> from pathlib import Path
            >>> from compiler.intent import load_intent
            >>> sorted(resolve(load_intent(Path("intent"))).roce_speeds("compute"))
            ['100g', '400g']
        """
        speeds: set[str | None] = set()
        for device in self.devices.values():
            if device.network == network and device.facts.qos is not None:
                ports = device.facts.ports
                speeds.update(compress(map(_SPEED, ports), map(_ROCE_KINDS.__contains__, map(_KIND, ports))))
        speeds.discard(None)
        return speeds  # type: ignore[return-value]  # None discarded


_SPEED, _KIND, _ROCE_KINDS = attrgetter("speed"), attrgetter("kind"), frozenset(ROCE_PORT_KINDS)


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
            facts.device(name),
        )
    return ResolvedFabric(
        facts, devices, facts.servers, facts.cabling.cables, facts.allocations, facts.pools, facts.problems
    )
