"""Server-facing edge rules: storm-control on the ports servers plug into, leaf oversubscription.

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
STC001    error     C2           every server-facing port (access port or a server's
                                 port-channel) caps broadcast and multicast at or below
                                 10% of its speed: a looping or babbling host cannot
                                 flood its VLAN
OVS001    error     C1/N7        each fabric's leaf oversubscription (every server port
                                 of the design against the uplinks) stays within
                                 ``max_oversubscription`` (default 1 on a lossless RDMA
                                 fabric, 3 otherwise)
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections.abc import Iterator

from compiler.artifacts.docs import oversubscription, ratio
from compiler.checks.base import device_rule, rule
from compiler.checks.rules._common import join, links_of, memo
from compiler.fabric import Device, ResolvedFabric
from compiler.intent import Intent
from compiler.platforms import eos
from compiler.structured import Interface

STORM_LIMIT_PERCENT = 10.0
"""Above this, storm-control no longer protects the VLAN: 10% of 100G is 10 Gbit/s of broadcast."""

CAPPED_KINDS = ("broadcast", "multicast")


def server_facing(device: Device) -> list[Interface]:
    """The interfaces that carry a server's traffic: its access port, or its port-channel (a port
    shut on purpose, a decommissioned server's or one ``ports.yaml`` shuts, carries none), in
    EOS's interface order."""
    return sorted(_server_facing(device), key=lambda iface: eos.interface_key(iface.name))


def _server_facing(device: Device) -> list[Interface]:
    """:func:`server_facing` unsorted: a rule sorts only the ports it names (the sort was most of
    STC001, which names none on a sound fabric). Sorting a part of this list gives that part in
    the order :func:`server_facing` gives it (the sort is stable, the list in one order).

    The used ports are the switch's facts' (``ResolvedFabric.ports`` gives the same: the facts of
    a switch are made with them), so the rule reads the switch alone."""
    ifaces = {iface.name: iface for iface in device.config.interfaces}
    names = {
        port.name if port.channel is None else eos.port_channel(port.channel)
        for port in device.facts.ports
        if port.kind == "server"
    }
    return [ifaces[n] for n in names if n in ifaces and not ifaces[n].shutdown]


def _uncapped(iface: Interface) -> list[str]:
    levels = {kind: float(level) for kind, level in iface.storm_control}
    return [k for k in CAPPED_KINDS if levels.get(k, 100.0) > STORM_LIMIT_PERCENT]


_UNCAPPED: dict[object, list[str]] = {}
"""The kinds each storm-control setting leaves uncapped (the ports share a few settings; the
answer is a function of the setting alone, held for the process)."""


@device_rule("STC001", "error", "C2", "Storm-control on every server-facing port")
def storm_control(device: Device) -> Iterator[str]:
    """Yield each switch with server-facing ports that do not cap broadcast and multicast."""
    uncapped = _UNCAPPED
    bad: dict[str, list[str]] = {}
    for iface in _server_facing(device):
        try:  # the settings judged already, most often: a look-up, not a call
            kinds = uncapped[iface.storm_control]
        except (KeyError, TypeError):
            kinds = memo(uncapped, iface.storm_control, lambda: _uncapped(iface))  # noqa: B023
        for kind in kinds:
            bad.setdefault(kind, []).append(iface.name)
    for kind, names in sorted(bad.items()):
        names.sort(key=eos.interface_key)
        yield (
            f"{len(names)} server-facing port(s) without {kind} storm-control at or below "
            f"{STORM_LIMIT_PERCENT:g}% ({join(names, 4)}): set storm_control.{kind} in fabric.yaml"
        )


def _uplinks_as_designed(fabric: ResolvedFabric, network: str) -> bool:
    """Whether every leaf of ``network`` reaches every spine, at one speed on both ends."""
    spine_leaf = fabric.facts.topology.fabrics.get(network)  # type: ignore[call-overload]
    if spine_leaf is None or spine_leaf.uplinks < len(spine_leaf.spines):
        return False
    return all(link.a_speed == link.b_speed for link in links_of(fabric, ["fabric"], network))


@rule("OVS001", "error", "C1/N7", "Leaf oversubscription within the fabric's stated limit")
def oversubscribed(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each fabric whose leaves' server-facing bandwidth exceeds ``max_oversubscription`` x uplinks."""
    for o in oversubscription(intent, fabric):
        if not _uplinks_as_designed(fabric, o.network):
            continue  # FAB002 and LNK001 name the root cause
        spec = intent.fabric.fabrics[o.network]  # type: ignore[index]
        limit = spec.oversubscription_limit
        if o.up_gbps and o.design > limit + 1e-9:
            yield (
                f"fabrics.{o.network}",
                f"leaves oversubscribed {ratio(o.down_gbps, o.up_gbps)} ({o.down_gbps}G of server ports, "
                f"{o.up_gbps}G up), above the {limit:g}:1 the fabric allows: add uplinks, serve fewer racks per "
                "leaf pair, or raise max_oversubscription if that is the intent",
            )
