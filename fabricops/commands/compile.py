"""``fabricops compile`` and ``fabricops check``."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from core.errors import DifferencesFound
from core.generated import GENERATED, INTENT

FORMATS = click.Choice(["text", "json"])


def _paths(root: Path) -> tuple[Path, Path]:
    return root / INTENT, root / GENERATED


root_option = click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Repository root holding intent/ and generated/.",
)


@click.command("compile")
@root_option
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 3 naming the stale files.")
@click.option("--timings", is_flag=True, help="Print seconds per stage.")
def compile_cmd(root: Path, check_only: bool, timings: bool) -> None:
    """Compile intent/ into generated/ (configs, structured data, inventory, manifest).

    \b
    Examples:
      fabricops compile
      fabricops compile --check      # in CI: fails when generated/ is stale
    """
    from compiler.pipeline import compile_intent, refuse_errors, staleness, write_generated

    intent_dir, generated_dir = _paths(root)
    result = compile_intent(intent_dir)
    # Warnings here; errors once, in the error that refuses to write.
    for finding in result.findings:
        if finding.severity == "warning":
            click.echo(finding.line(), err=True)
    if check_only:
        refuse_errors(result)
        stale = staleness(result, generated_dir)
        if stale.stale:
            raise DifferencesFound(
                f"generated/ is stale ({len(stale.lines())} file(s)): run 'fabricops compile' and commit",
                stale.lines(),
            )
        click.echo(f"generated/ is up to date ({len(result.files)} files)")
        return
    written = write_generated(result, generated_dir)
    fabric = result.fabric
    roles: dict[str, int] = {}
    for device in fabric.devices.values():
        key = f"{device.network} {device.role}"
        roles[key] = roles.get(key, 0) + 1
    summary = ", ".join(f"{count} {key}" for key, count in sorted(roles.items()))
    gpus = sum(result.intent.fabric.server_models[s.model].gpus for s in result.intent.servers)
    click.echo(f"compiled {len(fabric.devices)} switches ({summary})")
    click.echo(
        f"         {len(fabric.servers)} servers, {gpus} GPUs, {len(fabric.links)} cables, "
        f"{result.config_lines} config lines"
    )
    changed = len(written.changed) + len(written.missing) + len(written.extra)
    click.echo(f"wrote generated/: {len(result.files)} files, {changed} changed")
    warnings = sum(1 for f in result.findings if f.severity == "warning")
    click.echo(f"checks: 0 errors, {warnings} warnings")
    if timings:
        click.echo("seconds: " + ", ".join(f"{k} {v:.3f}" for k, v in result.timings.items()))


@click.command("check")
@root_option
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True)
def check_cmd(root: Path, fmt: str) -> None:
    """Run the design rules over the intent and print every finding.

    Exits 1 when any rule reports an error.

    \b
    Examples:
      fabricops check
      fabricops check --format json | jq '.[] | select(.severity == "error")'
    """
    from compiler.checks import run_checks
    from compiler.fabric import resolve
    from compiler.intent import load_intent
    from core.errors import CompileError

    intent_dir, _ = _paths(root)
    intent = load_intent(intent_dir)
    findings = run_checks(intent, resolve(intent))
    if fmt == "json":
        click.echo(json.dumps([asdict(f) for f in findings], indent=2))
    else:
        for finding in findings:
            click.echo(finding.line())
        counts = {s: sum(1 for f in findings if f.severity == s) for s in ("error", "warning", "info")}
        click.echo(f"{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info")
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise CompileError(f"{len(errors)} check error(s)")
