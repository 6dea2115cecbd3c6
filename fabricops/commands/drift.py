"""``fabricops drift`` and ``fabricops health``: audit the fleet against git, read its counters."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from compiler.collection import paused
from core.errors import DifferencesFound, FabricopsError
from fabricops.commands.compile import frozen_on_return

root_option = click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Repository root holding generated/ (and .lab/ for --lab).",
)
lab_option = click.option("--lab", is_flag=True, help="Talk to the running lab (.lab/lab.json), not the switches.")
devices_option = click.option(
    "--devices", "devices", multiple=True, help="Only these devices (comma-separated or repeated)."
)


def _device_list(values: tuple[str, ...]) -> list[str]:
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


@contextmanager
def _progress(enabled: bool, label: str) -> Iterator[Callable[[int], Callable[[str], None]]]:
    """A rich progress bar on stderr (a terminal only); ``start(total)`` gives the per-device callback."""
    if not enabled or not sys.stderr.isatty():
        yield lambda _total: lambda _name: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console, transient=True
    ) as bar:

        def start(total: int) -> Callable[[str], None]:
            task = bar.add_task(label, total=total)
            return lambda _name: bar.advance(task)

        yield start


@click.command("drift")
@root_option
@click.option("--ref", default=None, help="Git ref of the intended generated/ (default: HEAD).")
@devices_option
@lab_option
@click.option("--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True)
@click.option(
    "--report-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where report.md and report.json go (default: reports/drift/<UTC timestamp>/).",
)
@click.option(
    "--allow-unreachable", is_flag=True, help="An unreachable device is a finding (exit 3), not a failure (exit 1)."
)
@click.option("--shard", default=None, metavar="i/N", help="Audit only shard i of N (stable split by device name).")
@click.option(
    "--merge",
    "merge",
    default=None,
    type=click.Path(exists=True, path_type=Path),
    metavar="DIR...",
    help="Merge the report directories of shard runs (DIR and the arguments after it); no device is contacted.",
)
@click.option("--workers", default=20, show_default=True, help="Devices read at the same time.")
@click.option(
    "--compare",
    "compare",
    nargs=2,
    default=None,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    metavar="INTENDED LIVE",
    help="Compare two config files offline, as the audit does (no device, no git).",
)
@click.option(
    "--eos-version", default=None, metavar="V", help="With --compare: the EOS release of LIVE (default: its header)."
)
@click.argument("more", nargs=-1, type=click.Path(exists=True, path_type=Path), metavar="")
@frozen_on_return
@paused
def drift_cmd(
    root: Path,
    ref: str | None,
    devices: tuple[str, ...],
    lab: bool,
    fmt: str,
    report_dir: Path | None,
    allow_unreachable: bool,
    shard: str | None,
    merge: Path | None,
    workers: int,
    compare: tuple[Path, Path] | None,
    eos_version: str | None,
    more: tuple[Path, ...],
) -> None:
    """Compare every device's running config, by meaning, with what it was last deployed with and with the intent.

    Each device ends in-sync, pending (merged, not deployed: no revert), drift (changed since
    its last deploy: the revert restores that deploy), drift+pending, unreachable (with the
    reason) or unmanaged (an LLDP neighbour or inventory entry without a generated config).
    Exit 0 when all are in sync, 3 on any finding, 1 when a device is unreachable (unless
    --allow-unreachable). The report (markdown, JSON, issues.json) gives per device the
    differing lines, its last deploy, and the commands to revert, apply or keep the change.

    \b
    Examples:
      fabricops drift --lab
      fabricops drift --ref origin/main --devices rack01-leaf-a,rack01-leaf-b
      fabricops drift --format markdown --report-dir out/drift
      fabricops drift --shard 1/4 --report-dir out/shard1 --format json   # one CI matrix job
      fabricops drift --merge out/shard1 out/shard2 out/shard3 out/shard4 --report-dir out/all
      fabricops drift --compare generated/configs/rack01-leaf-a.cfg live.cfg --eos-version 4.33.0F
    """
    if compare is not None:
        _compare_files(root, compare, eos_version, fmt, bool(ref or devices or lab or shard or merge or more))
        return
    if eos_version is not None:
        raise click.UsageError("--eos-version goes with --compare (an audit reads each device's release)")
    from drift.audit import load_report, merge_audits, parse_shard, run_audit
    from drift.report import audit_topology, render_text, write_reports

    if more and merge is None:
        raise click.UsageError(f"unexpected argument(s) {' '.join(map(str, more))}: only --merge takes several")
    if merge is not None:
        if shard or devices or ref:
            raise FabricopsError("--merge reads reports only: drop --shard, --devices and --ref")
        audit = merge_audits(load_report(path) for path in (merge, *more))
    else:
        with _progress(fmt != "json", "drift") as start:
            audit = run_audit(
                root,
                ref=ref,
                devices=_device_list(devices),
                lab=lab,
                shard=parse_shard(shard) if shard else None,
                allow_unreachable=allow_unreachable,
                workers=workers,
                progress=start,
            )
    topology = audit_topology(audit, root) if audit.count("in-sync") < len(audit.devices) else None
    written = write_reports(audit, report_dir, root, topology)
    # report.json or report.md itself: the audit rendered once (thousands of devices at scale)
    if fmt == "json":
        click.echo((written / "report.json").read_text(), nl=False)
    elif fmt == "markdown":
        click.echo((written / "report.md").read_text(), nl=False)
    else:
        click.echo(render_text(audit), nl=False)
    click.echo(f"report: {written / 'report.md'}", err=True)
    code = audit.exit_code(allow_unreachable or None)
    if code == 1:
        down = audit.count("unreachable")
        click.echo(f"{down} device(s) unreachable (--allow-unreachable reports them as findings, exit 3)", err=True)
    if code:
        raise click.exceptions.Exit(code)


def _compare_files(root: Path, files: tuple[Path, Path], version: str | None, fmt: str, other: bool) -> None:
    """``drift --compare INTENDED LIVE``: exit 0 in sync, 3 differences."""
    from core.platforms.versions import USER_TABLE
    from drift.compare import compare_files

    if other:
        raise click.UsageError("--compare compares two files: drop --ref, --devices, --lab, --shard and --merge")
    result = compare_files(*files, version=version, table=root / USER_TABLE)
    click.echo(json.dumps(result.to_json(), indent=2) if fmt == "json" else result.text(), nl=fmt == "json")
    if result.comparison.changes:
        raise SystemExit(DifferencesFound.exit_code)  # a finding, printed above: not an error


@click.command("health")
@root_option
@click.option(
    "--ref",
    default=None,
    help="Judge every device against this git ref of generated/ (default: each device against the commit "
    "of its state of record, else the latest deploy/* tag, else HEAD).",
)
@devices_option
@lab_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--workers", default=20, show_default=True, help="Devices read at the same time.")
def health_cmd(root: Path, ref: str | None, devices: tuple[str, ...], lab: bool, fmt: str, workers: int) -> None:
    """Read interface counters through NAPALM and report them against the thresholds.

    PFC pause frames and ECN marks per minute, CRC and symbol errors, link flaps per hour
    and optic temperature. Thresholds come from generated/monitoring/ when the compiler
    wrote them, else from the documented defaults (docs/drift.md), at the commit each
    device runs (its state of record) unless --ref is given. Exit 0 healthy,
    3 thresholds exceeded, 1 error (an unreachable device).

    \b
    Examples:
      fabricops health --lab
      fabricops health --devices spine01,spine02 --format json
    """
    from drift.health import render_health_json, render_health_text, run_health

    with _progress(fmt != "json", "health") as start:
        report = run_health(root, ref=ref, devices=_device_list(devices), lab=lab, workers=workers, progress=start)
    if fmt == "json":
        click.echo(json.dumps(render_health_json(report), indent=2))
    else:
        click.echo(render_health_text(report), nl=False)
    if report.unreachable:
        raise FabricopsError(f"{len(report.unreachable)} device(s) unreachable: {', '.join(report.unreachable)}")
    if report.findings:
        devices_over = sorted({f.device for f in report.findings})
        raise DifferencesFound(f"thresholds exceeded on {len(devices_over)} device(s): {', '.join(devices_over)}")


@click.command("adopt")
@root_option
@click.argument("device")
@click.option("--ref", default=None, help="Git ref of the intended generated/ (default: HEAD).")
@lab_option
@click.option("--write", is_flag=True, help="Write the edits into intent/ (default: print them as a patch).")
@click.option(
    "--reason",
    default=None,
    help="Why a port the device shut is shut, when its description does not say (default: 'shut on the switch').",
)
def adopt_cmd(root: Path, device: str, ref: str | None, lab: bool, write: bool, reason: str | None) -> None:
    """Keep a device's drift: the intent edits that make the compile print what it runs.

    Audits DEVICE as drift does; each changed line the schema can say (description, shutdown,
    an access VLAN, speed, FEC, LLDP, storm-control, a static route, an NTP server, a syslog
    host) becomes an edit of intent/ports.yaml, vlans.yaml or devices.yaml, comments and order
    kept. Without --write the edits are printed as a patch of intent/. What the schema cannot
    say is printed as extra_config lines; a secret is never adopted. Then: fabricops compile,
    commit, review, merge, deploy (which records the device). Exit 0, 1 on error.

    \b
    Examples:
      fabricops adopt rack03-leaf-a --lab            # the patch
      fabricops adopt rack03-leaf-a --lab --write    # into intent/, then: fabricops compile
    """
    from compiler.adoption import apply_edits, context_for, describe, plan_adoption
    from core.generated import open_snapshot
    from drift.audit import DRIFTED, DeviceResult, run_audit
    from drift.report import adoption

    audit = run_audit(root, ref=ref, devices=[device], lab=lab)
    result = next(r for r in audit.devices if r.device == device)
    if result.status == "unreachable":
        raise FabricopsError(f"{device} is unreachable ({result.error}): nothing to adopt")
    changes = result.changes if result.status in DRIFTED else ()
    context = context_for(root, open_snapshot(root, audit.commit), device)
    plan = plan_adoption(device, changes, context, **({"reason": reason} if reason else {}))
    files = apply_edits(root / "intent", plan.edits) if plan.edits else {}
    if write:  # each file whole, replaced in one step: an editor or a reader never sees half of it
        for name, (_before, after) in files.items():
            target = root / "intent" / name
            staged = target.with_name(f".{name}.adopt")
            staged.write_text(after)
            os.replace(staged, target)
    # A line the schema says but adopt cannot write (a trunk's VLANs: a VLAN's members are
    # servers) is named with its entry, by hand; only the rest is offered as extra_config.
    raw = adoption(DeviceResult(device, result.status, tuple(plan.raw)), structured=True)
    by_hand = tuple(f"{field} (write it by hand)" for field in raw.fields)
    click.echo(f"{device}: {result.status}, {len(result.changes)} change(s) against its last deploy")
    click.echo(describe(device, plan, files, raw.extra_config, (*by_hand, *raw.not_adoptable), write), nl=False)
