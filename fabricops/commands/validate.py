"""``fabricops validate nccl RESULT.txt``: judge an nccl-tests run against the link speed (V2).

The parser and the bar live in :mod:`compiler.artifacts.validation`, beside the ``run.sh``
that calls this verb after every stage; this verb reads the file and reports.

Exit codes: 0 pass, 3 below the threshold or corrupted results, 1 unparsable output.
"""

from __future__ import annotations

from pathlib import Path

import click

from compiler.artifacts.validation import PASS_SHARE, judge_nccl, parse_nccl
from compiler.intent import SPEEDS_GBPS
from core.errors import DifferencesFound


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
def nccl(result: Path, link_speed: str, nics: int) -> None:
    """Pass/fail an all_reduce_perf run: 70% of the theoretical bus bandwidth or better.

    Exit 0 pass, 3 below the bar (or out-of-bounds values), 1 not nccl-tests output.

    \b
    Examples:
      fabricops validate nccl result-010.txt
      fabricops validate nccl result-all.txt --link-speed 400g --nics 8
    """
    verdict = judge_nccl(parse_nccl(result.read_text(errors="replace")), link_speed, nics)
    parsed = verdict.result
    click.echo(
        f"{result}: avg bus bandwidth {parsed.avg_busbw:g} GB/s = {verdict.share:.0%} of {verdict.theory:g} GB/s "
        f"({nics} x {link_speed}); peak {parsed.peak_busbw:g} GB/s over {parsed.rows} sizes"
    )
    for failure in verdict.failures:
        click.echo(f"FAIL: {failure}")
    if not verdict.passed:
        raise DifferencesFound(f"{result} does not pass for {nics} x {link_speed}")
    click.echo(f"PASS: at or above {PASS_SHARE:.0%} ({verdict.threshold:g} GB/s)")
