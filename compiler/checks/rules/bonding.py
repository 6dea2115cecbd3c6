"""Server bonding rules: bonds RDMA can use, NICs beside their GPUs, primaries on both leaves (C7, N7).

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
BND001    error     C7/N7        on a fabric that carries RDMA, an LACP bond takes two
                                 ports of one adapter (RoCE LAG): a bond across two
                                 adapters carries no RoCE
BND002    warning   C7           every NUMA node with GPUs reaches the compute fabric
                                 through a NIC on that node (one active bond NIC serves
                                 one node only)
BND003    warning   C7/N7        active-backup primaries alternate between the leaves
                                 of a pair: neither leaf carries every bond's traffic
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from compiler.checks.base import rule
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent, ServerModel

WORKING_MODES = (
    "bonding: per-nic (no bond: each NIC its own address and RoCE GID), "
    "bonding: active-backup (one active NIC at a time), "
    "or a dual-port adapter whose two ports form the bond"
)


def _models_on(intent: Intent, network: str) -> list[tuple[str, ServerModel]]:
    """The server models with servers on ``network`` (two NICs of it), by name."""
    used = {s.model for s in intent.servers}
    return [
        (name, model)
        for name, model in sorted(intent.fabric.server_models.items())
        if name in used and len(model.nics_on(network)) > 1  # type: ignore[arg-type]
    ]


@rule("BND001", "error", "C7/N7", "RDMA bonds take two ports of one adapter")
def rdma_bonds(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each fabric whose LACP bonds span two adapters while it carries RDMA."""
    del fabric
    for net, spec in sorted(intent.fabric.fabrics.items()):
        if spec.bonding != "lacp" or not spec.carries_rdma:
            continue
        for name, model in _models_on(intent, net):
            nics = model.nics_on(net)
            adapters = {nic.adapter_name for nic in nics}
            if len(adapters) > 1:
                ports = " + ".join(f"{nic.name} (adapter {nic.adapter_name})" for nic in nics)
                yield (
                    f"fabrics.{net}.bonding",
                    f"{name} bonds {ports} with LACP: RoCE LAG needs both ports of one adapter, so this bond "
                    f"carries no RoCE; use {WORKING_MODES}",
                )


@rule("BND002", "warning", "C7", "Every GPU's NUMA node has a compute NIC of its own")
def gpu_nics(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each server model whose GPUs on some NUMA node reach the fabric through another node."""
    del fabric
    spec = intent.fabric.fabrics.get("compute")
    if spec is None or not spec.carries_rdma:
        return
    for name, model in sorted(intent.fabric.server_models.items()):
        nodes = sorted(set(model.gpu_nodes))
        nics = model.nics_on("compute")
        if not nodes or not nics:
            continue
        if spec.bonding == "per-nic" or len(nics) == 1:
            local = {nic.numa for nic in nics}
            missing = [n for n in nodes if n not in local]
            if missing:
                yield (
                    f"server_models.{name}",
                    f"GPUs on NUMA node(s) {missing} have no compute NIC there: their RDMA crosses the "
                    "socket interconnect",
                )
        elif len(nodes) > 1:
            members = ", ".join(f"{nic.name} (NUMA {nic.numa})" for nic in nics)
            yield (
                f"server_models.{name}",
                f"one {spec.bonding} bond of {members} serves GPUs on NUMA nodes {nodes}: its active NIC is "
                "local to one node, the other node's GPUs cross the socket; use bonding: per-nic (a NIC per "
                "NUMA node, each its own address)",
            )


@rule("BND003", "warning", "C7/N7", "Active-backup primaries alternate between the leaves of a pair")
def primaries(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each leaf that is primary for clearly more than half the active-backup bonds of its pair."""
    del intent
    count: Counter[str] = Counter()
    for server in fabric.servers.values():
        for link in server.links:
            if link.mode == "active-backup" and link.primary is not None:
                count.update(p.switch for p in link.ports if p.nic == link.primary)
    for name, device in sorted(fabric.devices.items()):
        peer = device.mlag_peer
        if peer is None or (name not in count and peer not in count):
            continue
        mine, theirs = count[name], count[peer]
        if mine > theirs + 1:
            yield (
                name,
                f"primary for {mine} of the {mine + theirs} active-backup bonds of its pair ({peer}: {theirs}): "
                "its uplinks carry that share of the pair's traffic while its peer's idle; "
                f"alternate the primaries (fabrics.{device.network}.primary: by-server)",
            )
