"""Server-facing edge rules: storm-control on the ports servers plug into.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
STC001    error     C2           every server-facing port (access port or a server's
                                 port-channel) caps broadcast and multicast at or below
                                 10% of its speed: a looping or babbling host cannot
                                 flood its VLAN
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections.abc import Iterator

from compiler.checks.base import rule
from compiler.checks.rules._common import interfaces, join
from compiler.fabric import Device, ResolvedFabric
from compiler.intent import Intent
from compiler.platforms import eos
from compiler.structured import Interface

STORM_LIMIT_PERCENT = 10.0
"""Above this, storm-control no longer protects the VLAN: 10% of 100G is 10 Gbit/s of broadcast."""

CAPPED_KINDS = ("broadcast", "multicast")


def server_facing(fabric: ResolvedFabric, device: Device) -> list[Interface]:
    """The interfaces that carry a server's traffic: its access port, or its port-channel."""
    ifaces = interfaces(device)
    names = {
        port.name if port.channel is None else eos.port_channel(port.channel)
        for port in fabric.ports(device.name)
        if port.kind == "server"
    }
    return [ifaces[n] for n in sorted(names, key=eos.interface_key) if n in ifaces]


def _uncapped(iface: Interface) -> list[str]:
    levels = {kind: float(level) for kind, level in iface.storm_control}
    return [k for k in CAPPED_KINDS if levels.get(k, 100.0) > STORM_LIMIT_PERCENT]


@rule("STC001", "error", "C2", "Storm-control on every server-facing port")
def storm_control(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each switch with server-facing ports that do not cap broadcast and multicast."""
    del intent
    for name, device in sorted(fabric.devices.items()):
        bad: dict[str, list[str]] = {}
        for iface in server_facing(fabric, device):
            for kind in _uncapped(iface):
                bad.setdefault(kind, []).append(iface.name)
        for kind, names in sorted(bad.items()):
            yield (
                name,
                f"{len(names)} server-facing port(s) without {kind} storm-control at or below "
                f"{STORM_LIMIT_PERCENT:g}% ({join(names, 4)}): set storm_control.{kind} in fabric.yaml",
            )
