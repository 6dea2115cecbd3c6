"""``fabricops diff``: what a change does to the network, for the reviewer of a pull request."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import click

from core.errors import DifferencesFound


@click.command("diff")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."), show_default=True)
@click.option(
    "--base",
    "base_ref",
    required=True,
    help="The branch the change goes into, e.g. main: compared from its merge-base with the head.",
)
@click.option("--head", "head_ref", default=None, help="Ref to review (default: generated/ in the work tree).")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True)
def diff_cmd(root: Path, base_ref: str, head_ref: str | None, fmt: str) -> None:
    """Explain what generated/ changes against BASE: each intent change and its lines, blast radius, risks.

    The config lines are grouped by the intent edit that caused them (a VLAN, a port, a switch's
    setting, a server added, moved or retired), with the devices, ports and servers each touches
    and what makes it risky; then the checks and the full diff, folded per device.

    The comparison starts at the merge-base of BASE and the head (HEAD for the work tree), as a
    pull request is reviewed: what main gained since the branch left it is not the change.
    Exits 0 when nothing changes and 3 when the change touches the network.

    \b
    Examples:
      fabricops diff --base main
      fabricops diff --base origin/main --format markdown > review.md
    """
    from compiler.checks import run_checks
    from compiler.fabric import resolve
    from compiler.intent import load_intent
    from core.generated import merge_base, open_snapshot
    from core.topology import Topology
    from review.diff import review
    from review.report import as_json, as_markdown, as_text

    base_commit, note = merge_base(root, base_ref, head_ref or "HEAD")
    base, head = open_snapshot(root, base_commit), open_snapshot(root, head_ref)
    result = review(base, head, note)
    intent = load_intent(root / "intent")
    findings = [asdict(f) for f in run_checks(intent, resolve(intent))]
    if fmt == "markdown":  # the blast radius drawn over the cabling of both refs (a removed device too)
        text = as_markdown(result, findings, Topology.read(head).merged(Topology.read(base)))
    else:
        text = {"text": as_text, "json": as_json}[fmt](result, findings)
    click.echo(text, nl=False)
    if result.changed:
        raise DifferencesFound(f"{len(result.devices)} device(s) change: {result.summary}")
