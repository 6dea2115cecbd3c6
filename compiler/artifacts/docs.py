"""``generated/docs/fabric.md``: the design at a glance, from the resolved fabric.

Networks, devices, pools with utilisation, oversubscription per fabric, the QoS profile and
the power budget; details live in the tables under ``inventory/`` it links to.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from operator import attrgetter
from typing import NamedTuple

from compiler.artifacts.diagram import cables_by_kind
from compiler.artifacts.physical import rack_loads, row_loads
from compiler.artifacts.tables import markdown_table, percent
from compiler.fabric import ResolvedFabric
from compiler.intent import SPEEDS_GBPS, Intent
from compiler.memo import same_as_last


def ratio(down: float, up: float) -> str:
    """An oversubscription ratio, downlink : uplink bandwidth.

    Examples:
        >>> ratio(900, 1600), ratio(1200, 800), ratio(5, 0)
        ('0.56:1', '1.5:1', '-')
    """
    return f"{down / up:.2g}:1" if up else "-"


class Oversubscription(NamedTuple):
    """A fabric's leaf oversubscription: every server port of the design against the uplinks."""

    network: str
    down_gbps: int
    up_gbps: int
    worst_leaf: str
    worst_down_gbps: int
    worst_up_gbps: int

    @property
    def design(self) -> float:
        """Downlink over uplink bandwidth of the design (infinite without uplinks)."""
        return self.down_gbps / self.up_gbps if self.up_gbps else float("inf")


def oversubscription(intent: Intent, fabric: ResolvedFabric) -> list[Oversubscription]:
    """Per fabric: the design's server-facing bandwidth per leaf against its uplinks, and the most
    loaded leaf today."""
    down, up = _bandwidth(fabric)
    out = []
    for net, spec in sorted(intent.fabric.fabrics.items()):
        layout = fabric.facts.topology.layouts.leaf[net]
        ports = layout.sets["downlinks"][: spec.leaves.ports_per_rack * spec.leaves.racks_per_pair]
        design_down = sum(SPEEDS_GBPS.get(layout.speed(p) or "", 0) for p in ports)
        leaves = [n for n, d in fabric.devices.items() if d.network == net and d.role == "leaf"]
        design_up = max((up[n] for n in leaves), default=0)
        worst = max(leaves, key=lambda n: (down[n] / up[n] if up[n] else 0, n), default="")
        out.append(Oversubscription(net, design_down, design_up, worst, down[worst], up[worst]))
    return out


@same_as_last
def _bandwidth(fabric: ResolvedFabric) -> tuple[dict[str, int], dict[str, int]]:
    """Per switch, its server-facing and its uplink bandwidth today (Gb/s), from the cables of
    which it is the A end: one pass over the fleet's cables for every reader of the docs."""
    down: dict[str, int] = defaultdict(int)
    up: dict[str, int] = defaultdict(int)
    devices, gbps = fabric.devices, SPEEDS_GBPS.get
    # The pictures' cables by kind, each kind's A ends and speeds counted at C speed: the cables
    # to servers are most of the fleet's, and a loop in Python over them cost the docs a pass.
    for (_, kind), cables in cables_by_kind(fabric).items():
        if kind == "server":
            for (device, speed), count in Counter(map(_A_END, cables)).items():
                if device in devices:
                    down[device] += gbps(speed or "", 0) * count
        elif kind == "fabric":
            for (device, speed), count in Counter(map(_A_END, cables)).items():
                up[device] += gbps(speed or "", 0) * count
    return down, up


_A_END = attrgetter("a.device", "a_speed")


@same_as_last
def roce_speeds(fabric: ResolvedFabric) -> dict[str, set[str]]:
    """Per fabric with a RoCE QoS profile, the speeds of its RoCE ports
    (:meth:`~compiler.fabric.ResolvedFabric.roce_speeds`, a pass over every port of its
    switches): once per fabric for the doc's QoS tables and its hardening defaults alike."""
    return {net: fabric.roce_speeds(net) for net in fabric.facts.qos.fabrics}


def _oversubscription(intent: Intent, fabric: ResolvedFabric) -> list[tuple[object, ...]]:
    return [
        (
            o.network,
            f"{o.down_gbps} G",
            f"{o.up_gbps} G",
            ratio(o.down_gbps, o.up_gbps),
            f"{intent.fabric.fabrics[o.network].oversubscription_limit:g}:1",  # type: ignore[index]
            f"{o.worst_leaf} {ratio(o.worst_down_gbps, o.worst_up_gbps)}" if o.worst_leaf else "-",
        )
        for o in oversubscription(intent, fabric)
    ]


def fabric_doc(intent: Intent, fabric: ResolvedFabric) -> str:
    """The markdown text of ``docs/fabric.md``."""
    spec = intent.fabric
    gpus = sum(spec.server_models[s.model].gpus for s in intent.servers)
    networks: list[tuple[object, ...]] = [
        (net, spec.vlans[f.vlan].id, str(f.pools.hosts), f.routing, f.bonding, f.qos or "-", f.spines.count)
        for net, f in sorted(spec.fabrics.items())
    ]
    networks.append(
        ("management", f"{spec.management.vlan_base}+rack", str(spec.management.pool), "static", "-", "-", 0)
    )
    roles = Counter((d.network, d.role, d.model) for d in fabric.devices.values())
    pools = sorted(fabric.pools, key=lambda p: (p.network, p.name))
    racks = rack_loads(intent, fabric)
    rows = row_loads(intent, racks)
    parts = [
        f"# {spec.site.name}: the design at a glance\n",
        f"{len(fabric.servers)} servers ({gpus} GPUs), {len(fabric.devices)} switches, {len(fabric.links)} cables. "
        "Generated from `intent/`; the tables are in `../inventory/`, the picture in `compute-fabric.svg`.\n",
        "![compute fabric](compute-fabric.svg)\n",
        "## Networks\n",
        markdown_table(["network", "VLAN", "host pool", "routing", "bonding", "QoS", "spines"], networks),
        "## Devices\n",
        markdown_table(["network", "role", "model", "count"], [(*k, n) for k, n in sorted(roles.items())]),
        "## Pools\n",
        markdown_table(
            ["network", "pool", "cidr", "unit", "used", "capacity", "utilisation"],
            [(p.network, p.name, p.cidr, p.unit, p.used, p.capacity, percent(p.used, p.capacity)) for p in pools],
        ),
        "## Oversubscription\n",
        "Per leaf: server-facing bandwidth (every server port of the design) against uplink bandwidth, "
        "and the most loaded leaf today.\n",
        markdown_table(
            ["fabric", "downlinks", "uplinks", "design", "at most", "worst leaf today"],
            _oversubscription(intent, fabric),
        ),
    ]
    for net, roce in sorted(fabric.facts.qos.fabrics.items()):
        q = spec.qos_profiles[roce.profile]
        used = roce_speeds(fabric)[net]
        bands = ", ".join(f"{speed} {b.min_kbytes}-{b.max_kbytes} KB" for speed, b in roce.ecn_bands if speed in used)
        watchdog = f"{q.watchdog.action} after {q.watchdog.timeout:g} s"
        parts += [
            f"## QoS profile `{roce.profile}` ({net})\n",
            markdown_table(
                ["setting", "value"],
                [
                    ("DSCP -> traffic class", ", ".join(f"{d} -> {tc}" for d, tc in sorted(q.dscp_to_tc.items()))),
                    ("every other DSCP", f"-> {q.default_tc} (mapped explicitly)"),
                    ("PFC (no-drop) priority", q.pfc_priority),
                    ("CNP", f"DSCP {q.cnp.dscp}, TC {q.cnp.tc}{', strict' if q.cnp.tc in q.strict_queues else ''}"),
                    ("ECN on queue", f"{q.ecn.queue}: {bands}, {q.ecn.max_mark_probability}%"),
                    ("host RoCE ToS", f"{roce.host_tos} (DSCP {roce.host_tos >> 2}, ECN {q.ecn.host_codepoint})"),
                    ("queue bandwidth", ", ".join(f"q{k} {v}%" for k, v in sorted(q.queue_bandwidth.items()))),
                    ("PFC watchdog", f"every lossless port, {watchdog}" if q.watchdog.enabled else f"off ({watchdog})"),
                ],
            ),
        ]
    from compiler.artifacts.why import why_these_defaults  # it reads oversubscription() from here

    parts.append(why_these_defaults(intent, fabric))
    total = sum(r.watts for r in racks)
    parts += [
        "## Power\n",
        f"{total / 1000:g} kW in total; per rack in `../inventory/power.md`.\n",
        markdown_table(
            ["row", "racks", "kW", "cooling", "UPS"],
            [
                (r.row, len(r.racks), f"{r.watts / 1000:g}", percent(r.watts, r.cooling_w), percent(r.watts, r.ups_w))
                for r in rows
            ],
        ),
    ]
    return "\n".join(parts)


def docs_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """``docs/fabric.md``."""
    return {"docs/fabric.md": fabric_doc(intent, fabric)}
