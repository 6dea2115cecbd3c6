"""The "Why these defaults" section of ``docs/fabric.md``: each hardening default as this fabric
sets it, the reason in one line, and the rule that catches the mistake it prevents.

The values are read from the resolved fabric, never restated, so the section cannot disagree with
the configs; ``docs/hardening.md`` gives the longer reasoning and sources under the same
setting names (a test holds the two to one list).

Example:
    >>> from pathlib import Path
    >>> from compiler.fabric import resolve
    >>> from compiler.intent import load_intent
    >>> intent = load_intent(Path("intent"))
    >>> rows = default_rows(intent, resolve(intent))
    >>> [r[0] for r in rows][:3]
    ['DSCP classification', 'host RoCE marking', 'ECN band per port speed']
"""

from __future__ import annotations

from compiler.artifacts.docs import oversubscription, ratio, roce_speeds
from compiler.artifacts.tables import markdown_table
from compiler.fabric import ResolvedFabric
from compiler.facts.management import access_prefixes
from compiler.intent import Intent

HEADER = (
    "## Why these defaults\n\n"
    "What an expert review of a RoCE fabric asks for, as this fabric sets it. Each is an intent default "
    '(`README.md`, "The intent format"), each mistake it prevents has a rule (`docs/checks.md`), and '
    "`docs/hardening.md` (in the repository) says at length why.\n"
)

Row = tuple[str, str, str, str]


def default_rows(intent: Intent, fabric: ResolvedFabric) -> list[Row]:
    """(setting, this fabric's value, why, rule) for every hardening default."""
    spec = intent.fabric
    services = spec.services
    rows: list[Row] = []
    for net, roce in sorted(fabric.facts.qos.fabrics.items()):
        profile = spec.qos_profiles[roce.profile]
        mapped = ", ".join(f"{d}->{tc}" for d, tc in sorted(profile.dscp_to_tc.items()))
        speeds = roce_speeds(fabric)[net]
        bands = ", ".join(f"{s} {b.min_kbytes}-{b.max_kbytes} KB" for s, b in roce.ecn_bands if s in speeds)
        wd = profile.watchdog
        rows += [
            (
                "DSCP classification",
                f"{mapped}; every other DSCP -> {profile.default_tc}, mapped explicitly",
                "EOS's default map puts DSCP 24-31 in class 3 and 48-55 in class 6: stray markings would share the "
                "lossless and the CNP class",
                "QOS003",
            ),
            (
                "host RoCE marking",
                f"ToS {roce.host_tos} (DSCP {roce.host_tos >> 2}, {profile.ecn.host_codepoint})",
                "a switch marks CE only on ECN-capable packets: with ToS 104 DCQCN never slows a sender",
                "QOS005",
            ),
            (
                "ECN band per port speed",
                bands,
                "linear in speed: every port marks at the same queueing delay (a 400G port drains a band 4x faster)",
                "QOS004",
            ),
            (
                "PFC watchdog",
                f"every lossless port; {wd.action} after {wd.timeout:g} s, polled every {wd.polling_interval:g} s"
                if wd.enabled
                else "off",
                "the global timers alone watch no port: a host that stops draining would pause the fabric",
                "QOS006, QOS002",
            ),
        ]
    storm = ", ".join(f"{kind.replace('_', '-')} {level:g}%" for kind, level in spec.storm_control if level)
    rows.append(
        (
            "storm-control",
            f"server-facing ports: {storm}; unknown-unicast uncapped",
            "a looping or babbling host floods one port, not its VLAN; unknown unicast is routed RoCE to a host "
            "whose MAC aged out",
            "STC001",
        )
    )
    for name, routing in sorted(spec.routing_profiles.items()):
        if not any(f.routing == name for f in spec.fabrics.values()):
            continue
        bfd = routing.bfd
        detection = max(bfd.interval_ms, bfd.min_rx_ms) * bfd.multiplier
        rows.append(
            (
                "BFD on the underlay",
                f"{name}: {bfd.interval_ms} ms x {bfd.multiplier} = {detection} ms" if bfd.enabled else f"{name}: off",
                "a dead link leaves ECMP in under a second, not after the OSPF dead or BGP hold timer",
                "RTE004",
            )
        )
    prefixes = access_prefixes(services)
    rows += [
        (
            "management access",
            f"eAPI, SSH, gNMI: ACLs of {', '.join(str(p) for p in prefixes['ssh']) or 'nothing'}",
            "the switches' management plane answers bastions, runners and collectors only, never a server",
            "MGT001",
        ),
        (
            "server management addresses",
            f"the upper /25 of each rack's /24, VLAN {spec.management.server_vlan_base}+rack",
            "servers never share a subnet or VLAN with the switches' management interfaces",
            "MGT002",
        ),
        (
            "AAA",
            f"{services.aaa.protocol} ({len(services.aaa.servers)} servers), then the local admin"
            if services.aaa
            else "local admin only",
            "per-person accounts and command accounting; keys are `<secret:NAME>` references",
            "MGT003",
        ),
        (
            "SNMP",
            f"v3, {services.snmp.auth}/{services.snmp.priv}" if services.snmp else "none (gNMI streams the counters)",
            "v1/v2c send a community in clear text",
            "MGT004",
        ),
        (
            "telemetry",
            f"gNMI over TLS on port {services.gnmi.port}, certificates verified"
            + (f"; sFlow 1:{services.sflow.sample_rate}" if services.collectors.sflow else ""),
            "every switch the collector targets answers it, and every alert reads what it collects",
            "TEL001, TEL002",
        ),
    ]
    for net, f in sorted(spec.fabrics.items()):
        how = {
            "per-nic": "no bond: each NIC its own address and RoCE GID",
            "active-backup": f"one bond, primaries {'alternating' if f.primary == 'by-server' else 'all on leaf a'}",
            "lacp": "one LACP bond (MLAG port-channel)",
        }[f.bonding]
        rows.append(
            (
                "server bonding",
                f"{net}: {f.bonding} ({how})",
                "RoCE LAG takes two ports of one adapter; a GPU's NIC sits on its NUMA node; both leaves carry traffic",
                "BND001, BND002, BND003",
            )
        )
    for o in oversubscription(intent, fabric):
        limit = spec.fabrics[o.network].oversubscription_limit  # type: ignore[index]
        rows.append(
            (
                "leaf oversubscription",
                f"{o.network}: {ratio(o.down_gbps, o.up_gbps)}, at most {limit:g}:1",
                "lossless RDMA needs non-blocking leaves; storage reads and checkpoints queue at the uplinks "
                "beyond 3:1",
                "OVS001",
            )
        )
    return rows


def why_these_defaults(intent: Intent, fabric: ResolvedFabric) -> str:
    """The markdown section."""
    return HEADER + "\n" + markdown_table(["setting", "this fabric", "why", "rule"], default_rows(intent, fabric))
