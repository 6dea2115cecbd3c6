"""``fabricops validate nccl RESULT.txt``: judge an nccl-tests run against the link speed (V2).

Reads the text ``all_reduce_perf`` (nccl-tests) prints: the table rows, the
``# Out of bounds values`` line and the ``# Avg bus bandwidth`` line. The theoretical bus
bandwidth of a node is its NICs' line rate (``--link-speed`` x ``--nics``) in GB/s; a run
passes at 70% of it or more, with no out-of-bounds (corrupted) values.

Exit codes: 0 pass, 3 below the threshold or corrupted results, 1 unparsable output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import click

from compiler.intent import SPEEDS_GBPS
from core.errors import FabricopsError

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
    """Parse nccl-tests output; raise :class:`FabricopsError` when it is not one.

    Example:
        >>> out = "     8388608       2097152     float     sum      -1    95.6   87.73  153.53      0\\n"
        >>> parse_nccl(out + "# Out of bounds values : 0 OK\\n# Avg bus bandwidth    : 153.53\\n").avg_busbw
        153.53
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

    Example:
        >>> theoretical_busbw("100g", 1), theoretical_busbw("400g", 8)
        (12.5, 400.0)
    """
    return SPEEDS_GBPS[link_speed] * nics / 8


@click.group("validate")
def validate() -> None:
    """Judge validation results against the design (V1, V2)."""


@validate.command("nccl")
@click.argument("result", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--link-speed",
    type=click.Choice(sorted(SPEEDS_GBPS, key=SPEEDS_GBPS.__getitem__)),
    default="100g",
    show_default=True,
    help="Speed of each compute NIC.",
)
@click.option(
    "--nics",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Compute NICs carrying traffic per node (1 with an active-backup bond).",
)
@click.pass_context
def nccl(ctx: click.Context, result: Path, link_speed: str, nics: int) -> None:
    """Pass/fail an all_reduce_perf run: 70% of the theoretical bus bandwidth or better.

    \b
    Examples:
      fabricops validate nccl result-010.txt
      fabricops validate nccl result-all.txt --link-speed 400g --nics 8
    """
    parsed = parse_nccl(result.read_text(errors="replace"))
    theory = theoretical_busbw(link_speed, nics)
    threshold = theory * PASS_SHARE
    share = parsed.avg_busbw / theory
    click.echo(
        f"{result}: avg bus bandwidth {parsed.avg_busbw:g} GB/s = {share:.0%} of {theory:g} GB/s "
        f"({nics} x {link_speed}); peak {parsed.peak_busbw:g} GB/s over {parsed.rows} sizes"
    )
    if parsed.out_of_bounds:
        click.echo(
            f"FAIL: {parsed.out_of_bounds} out-of-bounds values: results are corrupted (check CRC errors, GPU memory)"
        )
        ctx.exit(3)
    if parsed.avg_busbw < threshold:
        click.echo(
            f"FAIL: below {PASS_SHARE:.0%} ({threshold:g} GB/s): check IRQ balance and NUMA pinning, "
            "PCIe topology (nvidia-smi topo -m), PFC/ECN counters"
        )
        ctx.exit(3)
    click.echo(f"PASS: at or above {PASS_SHARE:.0%} ({threshold:g} GB/s)")
