"""``generated/validation/``: link tests and the staged NCCL rollout (V1, V2).

* ``link-tests.csv`` -- per GPU server two test pairs over its compute address: one inside its
  rack (through one leaf) against the rack's anchor, one across the spines against the
  anchor of the next rack. The anchor of a rack is its lowest-position server (it tests
  against the next one). Each row has the iperf3 (``-P 8``), ``ib_write_bw`` and
  ``ib_write_lat`` commands with bandwidth and latency bounds. Pairs depend only on the
  server and its rack's anchor, so a new server adds its own rows only; the table comes in
  sections per rack (:func:`link_test_units`), and only that rack's is built again.
* ``nccl/hosts-<stage>.txt`` -- MPI hostfiles for the rollout 2 -> 10 -> 50 -> all nodes:
  stage 2 is the two lowest-position servers of the first rack (one leaf pair, no spines); the larger
  stages take servers position-major (position 1 of every rack, then position 2, ...), so
  every stage crosses the spines early and a new highest-position server only joins ``all``.
* ``nccl/run.sh`` -- the exact ``all_reduce_perf`` command per stage, one rank per node, each
  stage judged by ``fabricops validate nccl``; every step is named and the first that fails
  stops the rollout and is named with its exit code.
* ``runbook.md`` -- the order of work and what to do when a bound is missed.

The judge of an NCCL run lives here too, beside the rollout it judges: :func:`parse_nccl`
reads what ``all_reduce_perf`` printed and :func:`judge_nccl` holds it to the bar (70% of the
theoretical bus bandwidth, no out-of-bounds values); ``fabricops validate nccl`` only calls them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from itertools import chain, repeat

from compiler.artifacts.servers import link_devices
from compiler.artifacts.tables import csv_rows, header_unit, markdown_table
from compiler.artifacts.units import Unit, built, section_path
from compiler.fabric import ResolvedFabric
from compiler.facts import ResolvedServer
from compiler.intent import SPEEDS_GBPS, Intent
from compiler.memo import same_as_last
from compiler.render import render_template
from core.errors import FabricopsError

STAGES = (2, 10, 50)
"""NCCL rollout stages before the whole cluster (V2)."""

NCCL_COMMAND = "all_reduce_perf -b 128M -e 8G -f 2 -g 8"
BANDWIDTH_SHARE = 0.9
"""Link tests must reach 90% of line rate (TCP with 8 streams, RDMA write)."""

LATENCY_US = {"in-rack": 2.0, "cross-spine": 5.0}
"""ib_write_lat upper bounds: 1-2 us through one leaf, < 5 us leaf-spine-leaf (V1)."""

COLUMNS = (
    "test",
    "path",
    "client",
    "server",
    "client_ip",
    "server_ip",
    "speed",
    "min_gbps",
    "max_latency_us",
    "iperf3_server",
    "iperf3_client",
    "ib_write_bw_server",
    "ib_write_bw_client",
    "ib_write_lat_client",
)


End = tuple[str, str, str]
"""A server of a test pair: its name, compute address (no prefix) and compute NIC speed."""

Pair = tuple[str, End, End]
"""One link test: its path (``in-rack``, ``cross-spine``), the client and the server."""


def _ip(address: str | None) -> str:
    return (address or "").split("/", 1)[0]


@same_as_last
def compute_servers(fabric: ResolvedFabric) -> list[ResolvedServer]:
    """Servers with a compute address, by rack and position (sorted once per fabric for the
    link tests, each stage's hosts and the NCCL script: callers only read it)."""
    return sorted(
        (s for s in fabric.servers.values() if s.compute_address and s.active), key=lambda s: (s.rack, s.position)
    )


def rack_pairs(fabric: ResolvedFabric) -> Iterator[tuple[int, tuple[Pair, ...]]]:
    """Per rack, its compute servers' in-rack and cross-spine pairs (see the module docstring),
    each server's in that order, as the names, addresses and speeds of the two ends.

    The ends of a rack's pairs are laid out by C iterators (zips over its servers), not a step
    in Python per pair: a fleet has thousands, and every compile keys them all.

    Example:
        >>> from pathlib import Path
        >>> from compiler.fabric import resolve
        >>> from compiler.intent import load_intent
        >>> rack, pairs = next(rack_pairs(resolve(load_intent(Path("intent")))))
        >>> for path, client, server in pairs[:3]:
        ...     print(path, client[0], server[0])
        in-rack rack01-gpu001 rack01-gpu002
        cross-spine rack01-gpu001 rack02-gpu001
        in-rack rack01-gpu002 rack01-gpu001
    """
    by_rack: dict[int, list[End]] = {}
    for server in compute_servers(fabric):  # by rack, then position: a rack's anchor first
        by_rack.setdefault(server.rack, []).append(_end(server))
    racks = list(by_rack)
    for index, rack in enumerate(racks):
        anchor, *rest = by_rack[rack]
        pairs: list[Pair] = [("in-rack", anchor, rest[0])] if rest else []
        in_rack = zip(repeat("in-rack"), rest, repeat(anchor))
        if len(racks) > 1:  # the next rack's anchor, across the spines
            far = by_rack[racks[(index + 1) % len(racks)]][0]
            pairs.append(("cross-spine", anchor, far))
            cross = zip(repeat("cross-spine"), rest, repeat(far))
            pairs += chain.from_iterable(zip(in_rack, cross, strict=True))
        else:
            pairs += in_rack
        yield rack, tuple(pairs)


def _speed(server: ResolvedServer) -> str:
    return next((n.speed for n in server.nics if n.network == "compute"), "")


def _end(server: ResolvedServer) -> End:
    return server.name, _ip(server.compute_address), _speed(server)


def _row(tos: int, path: str, client: End, server: End) -> tuple[object, ...]:
    speed = client[2]
    min_gbps = round(SPEEDS_GBPS.get(speed, 0) * BANDWIDTH_SHARE)
    server_ip = server[1]
    rdma = f"ib_write_bw -d $IBDEV -x 3 -F --report_gbits -q 8 -D 10 --tclass={tos}"
    return (
        f"{client[0]}>{server[0]}",
        path,
        client[0],
        server[0],
        client[1],
        server_ip,
        speed,
        min_gbps,
        LATENCY_US[path],
        "iperf3 -s -1",
        f"iperf3 -c {server_ip} -P 8 -t 30 -M 8960",
        rdma,
        f"{rdma} {server_ip}",
        f"ib_write_lat -d $IBDEV -x 3 -F --tclass={tos} {server_ip}",
    )


LINK_TESTS = "validation/link-tests.csv"


def link_test_units(fabric: ResolvedFabric) -> Iterator[Unit]:
    """``link-tests.csv`` in sections: the header, then per rack its servers' pairs, from each
    pair's path, names, addresses and speed and the RoCE traffic class."""
    tos = _roce_tclass(fabric)
    yield header_unit("link-tests", LINK_TESTS, COLUMNS)
    for rack, pairs in rack_pairs(fabric):
        yield Unit(f"link-tests/rack{rack}", (tos, pairs), partial(_link_tests, str(rack), tos, pairs))


def _link_tests(name: str, tos: int, pairs: tuple[Pair, ...]) -> dict[str, str]:
    return {section_path(LINK_TESTS, name): csv_rows(_row(tos, *pair) for pair in pairs)}


def _roce_tclass(fabric: ResolvedFabric) -> int:
    """The ToS byte RoCE leaves hosts with (the RoCE DSCP and ECT), 0 without a compute QoS profile."""
    roce = fabric.facts.qos.fabrics.get("compute")
    return roce.host_tos if roce is not None else 0


def stage_hosts(fabric: ResolvedFabric, size: int | None) -> list[str]:
    """The hosts of a rollout stage (``None``: every compute server)."""
    servers = compute_servers(fabric)
    if size is None:
        return [s.name for s in servers]
    if size == 2:
        return [s.name for s in servers if s.rack == servers[0].rack][:2] if servers else []
    position_major = sorted(servers, key=lambda s: (s.position, s.rack))
    return sorted(s.name for s in position_major[:size])


def _stage_name(size: int | None) -> str:
    """A hostfile's stage name.

    Examples:
        >>> _stage_name(2), _stage_name(None)
        ('002', 'all')
    """
    return "all" if size is None else f"{size:03d}"


def validation_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """Link tests, NCCL hostfiles and command script, and the runbook."""
    return {**built(link_test_units(fabric)), **validation_tables(intent, fabric)}


def validation_tables(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """NCCL hostfiles and command script, and the runbook (the link tests come in sections
    from :func:`link_test_units`)."""
    files: dict[str, str] = {}
    stages = [_stage_name(size) for size in [*STAGES, None]]
    servers = compute_servers(fabric)
    for size, name in zip([*STAGES, None], stages, strict=True):
        files[f"validation/nccl/hosts-{name}.txt"] = "".join(f"{h} slots=1\n" for h in stage_hosts(fabric, size))
    files["validation/nccl/run.sh"] = render_template(
        "linux/nccl-run.sh.j2",
        {
            "stages": stages,
            "tclass": _roce_tclass(fabric),
            "socket_ifname": ",".join(link_devices(servers[0], "compute")) if servers else "bond0",
            "command": NCCL_COMMAND,
            "link_speed": _speed(servers[0]) if servers else "100g",
        },
    )
    files["validation/runbook.md"] = _runbook(intent)
    return files


def _runbook(intent: Intent) -> str:
    bounds = markdown_table(
        ["path", "switches", "iperf3 -P 8 / ib_write_bw", "ib_write_lat"],
        [
            ("in-rack", "leaf", f">= {BANDWIDTH_SHARE:.0%} of line rate", f"<= {LATENCY_US['in-rack']:g} us"),
            (
                "cross-spine",
                "leaf, spine, leaf",
                f">= {BANDWIDTH_SHARE:.0%} of line rate",
                f"< {LATENCY_US['cross-spine']:g} us",
            ),
        ],
    )
    mtu = intent.fabric.mtu.host
    return (
        "# Validation runbook\n\n"
        "1. On every server: `setup-host.sh`, then `verify.sh` (from `generated/servers/<name>/`): "
        f"RDMA links up, MTU {mtu}, DSCP trust, jumbo ping to the gateways.\n"
        "2. Link tests, `link-tests.csv`: start the server side, run the client side; set `IBDEV` to the RDMA "
        "device of the client address's NIC (the active port of a bond; `rdma link show`). Every row must meet "
        "its bounds:\n\n" + bounds + "\n3. NCCL, `nccl/run.sh`: stages 2 -> 10 -> 50 -> all nodes, each checked with "
        "`fabricops validate nccl` (pass: bus bandwidth >= 70% of theoretical for the link speed).\n\n"
        "## When a bound is missed\n\n"
        "* Ping works but RDMA fails: RoCE off (`rdma link show`), UDP 4791 filtered, MTU mismatch "
        f"(`ping -M do -s {mtu - 28}`).\n"
        "* Bus bandwidth below 70%: IRQ balance and NUMA pinning (`setup-host.sh`), PCIe topology "
        "(`nvidia-smi topo -m`), PFC/ECN counters on the leaves (alerts in `generated/monitoring/`).\n"
        "* Intermittent NCCL timeouts: PFC or ECN storms, CRC errors, flapping optics "
        "(alerts `PfcPauseFramesHigh`, `CrcErrors`, `InterfaceFlapping`).\n"
    )


# --------------------------------------------------------------------------- judging a run (V2)

PASS_SHARE = 0.70
"""V2: a bus bandwidth below 70% of theoretical means IRQ, PCIe or PFC/ECN trouble."""

_AVG = re.compile(r"^#\s*Avg bus bandwidth\s*:\s*([0-9.]+)", re.MULTILINE)
_OOB = re.compile(r"^#\s*Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)?", re.MULTILINE)
_ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+\S+\s+\S+\s+-?\d+\s+([0-9.]+)\s+([0-9.]+)\s+([0-9.]+)\s+(\S+)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class NcclResult:
    """What one nccl-tests run reported."""

    avg_busbw: float
    out_of_bounds: int
    rows: int
    peak_busbw: float
    largest_bytes: int


def parse_nccl(text: str) -> NcclResult:
    """Parse the text ``all_reduce_perf`` (nccl-tests) prints: the table rows, the
    ``# Out of bounds values`` line and the ``# Avg bus bandwidth`` line; raise
    :class:`FabricopsError` when it is not one finished run.

    Examples:
        >>> row = "     8388608       2097152     float     sum      -1    95.6   87.73  153.53      0\\n"
        >>> parse_nccl(row + "# Out of bounds values : 0 OK\\n# Avg bus bandwidth    : 153.53\\n")
        NcclResult(avg_busbw=153.53, out_of_bounds=0, rows=1, peak_busbw=153.53, largest_bytes=8388608)
        >>> parse_nccl(row)
        Traceback (most recent call last):
        ...
        core.errors.FabricopsError: no '# Avg bus bandwidth' line: not nccl-tests output, or the run did not finish
    """
    avg = _AVG.search(text)
    if avg is None:
        raise FabricopsError("no '# Avg bus bandwidth' line: not nccl-tests output, or the run did not finish")
    oob = _OOB.search(text)
    rows = _ROW.findall(text)
    peak = max((float(r[4]) for r in rows), default=0.0)
    largest = max((int(r[0]) for r in rows), default=0)
    return NcclResult(float(avg.group(1)), int(oob.group(1)) if oob else 0, len(rows), peak, largest)


def theoretical_busbw(link_speed: str, nics: int) -> float:
    """A node's line rate in GB/s, as nccl-tests counts bus bandwidth.

    Examples:
        >>> theoretical_busbw("100g", 1), theoretical_busbw("400g", 8)
        (12.5, 400.0)
    """
    return SPEEDS_GBPS[link_speed] * nics / 8


@dataclass(frozen=True, slots=True)
class NcclVerdict:
    """A run held to the bar: ``failures`` is empty when it passes."""

    result: NcclResult
    theory: float
    threshold: float
    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def share(self) -> float:
        """The average bus bandwidth as a share of the theoretical one."""
        return self.result.avg_busbw / self.theory


def judge_nccl(result: NcclResult, link_speed: str, nics: int) -> NcclVerdict:
    """Pass at :data:`PASS_SHARE` of the theoretical bus bandwidth or more, with no out-of-bounds values.

    Examples:
        >>> run = NcclResult(avg_busbw=6.0, out_of_bounds=0, rows=7, peak_busbw=6.1, largest_bytes=2**33)
        >>> [failure.split(":")[0] for failure in judge_nccl(run, "100g", 1).failures]
        ['below 70% (8.75 GB/s)']
        >>> judge_nccl(run, "50g", 1).passed
        True
    """
    theory = theoretical_busbw(link_speed, nics)
    threshold = theory * PASS_SHARE
    failures = []
    if result.out_of_bounds:
        failures.append(
            f"{result.out_of_bounds} out-of-bounds values: results are corrupted (check CRC errors, GPU memory)"
        )
    if result.avg_busbw < threshold:
        failures.append(
            f"below {PASS_SHARE:.0%} ({threshold:g} GB/s): check IRQ balance and NUMA pinning, "
            "PCIe topology (nvidia-smi topo -m), PFC/ECN counters"
        )
    return NcclVerdict(result, theory, threshold, tuple(failures))
