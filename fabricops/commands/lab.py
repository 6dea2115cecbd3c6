"""``fabricops lab up|down|status|tamper|fault``: the emulated switches of ``generated/``."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import click

from core.errors import FabricopsError
from lab.faults import FAULT_KINDS

FAULTS = click.Choice(list(FAULT_KINDS))


def repo_root() -> Path:
    """The git work tree holding the current directory, else the current directory."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return Path.cwd()
    return Path(out) if out else Path.cwd()


root_option = click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Repository root (default: the git work tree of the current directory).",
)


@click.group("lab")
def lab_group() -> None:
    """Emulated EOS switches on 127.0.0.1 that the stock NAPALM driver drives.

    \b
    Examples:
      fabricops lab up                 # every switch of generated/, preloaded
      fabricops lab up --empty         # factory default: hostname, user, eAPI
      fabricops lab replace spine01 --serial JPE24170XYZ --base-mac 00:1c:73:12:34:56
      fabricops lab status --format json
      fabricops lab tamper rack01-leaf-a --line "interface Ethernet1" --line "shutdown"
      fabricops lab fault spine01 unreachable
      fabricops lab down
    """


def _eos_version(value: str | None) -> str | None:
    """An EOS release as ``show version`` gives it (NAPALM refuses other forms)."""
    if value is not None and not re.fullmatch(r"\d+\.\d+\.\d+[A-Z]*", value):
        raise click.BadParameter(f"{value!r}: give a release such as 4.33.0F")
    return value


@lab_group.command("up")
@root_option
@click.option("--ref", default=None, help="Git ref of generated/ to serve (default: the work tree).")
@click.option("--empty", is_flag=True, help="Start every switch at factory default.")
@click.option("--devices", "devices", multiple=True, help="Only these devices (repeat or comma-separate).")
@click.option("--fresh", is_flag=True, help="Ignore the state saved in .lab/state by an earlier lab.")
@click.option(
    "--model",
    "models",
    multiple=True,
    metavar="DEVICE=MODEL",
    help="Start DEVICE as this model (catalog or intent/hardware/) instead of the one generated/ names (repeat).",
)
@click.option(
    "--eos-version",
    default=None,
    callback=lambda _ctx, _param, value: _eos_version(value),
    help="Run every switch as this EOS release (e.g. 4.33.0F): show version and its default lines.",
)
def up_cmd(
    root: Path | None,
    ref: str | None,
    empty: bool,
    devices: tuple[str, ...],
    fresh: bool,
    models: tuple[str, ...],
    eos_version: str | None,
) -> None:
    """Start one background process serving every switch; writes .lab/lab.json.

    Each switch is the model generated/inventory/hosts.yaml names: a catalog model
    (docs/hardware.md), or one of intent/hardware/, has exactly that model's ports and refuses
    a port it lacks. Each runs an EOS release (default 4.31.2F) and prints what that release
    prints by itself.

    With a lab running, adds the switches of generated/ it lacks (a new rack), with their
    cables, and touches none it has: their configs, state and the lab's credentials stay.

    \b
    Examples:
      fabricops lab up --empty
      fabricops lab up --model rack01-leaf-a=DCS-7050SX3-48YC8   # the wrong switch in the rack
      fabricops lab up --eos-version 4.33.0F    # switches print what 4.33 prints by itself
      fabricops compile && fabricops lab up --empty   # a lab running: the new rack's switches join it
    """
    from lab import process

    root = root or repo_root()
    names = [n for d in devices for n in d.split(",") if n]
    info = process.up(
        root, ref=ref, empty=empty, devices=names or None, fresh=fresh, models=_models(models), eos_version=eos_version
    )
    if "joined" in info:
        joined = info["joined"]
        added = f"{len(joined)} new device(s) joined ({', '.join(joined)})" if joined else "no new device"
        kept = len(info["devices"]) - len(joined)
        click.echo(f"lab up: {added}; {kept} running device(s) untouched (pid {info['pid']})")
        return
    click.echo(
        f"lab up: {len(info['devices'])} devices on 127.0.0.1 (pid {info['pid']}); "
        f"endpoints in {process.info_path(root)}"
    )


@lab_group.command("replace")
@root_option
@click.argument("device")
@click.option("--serial", required=True, help="The new unit's serial number, as show version reports it.")
@click.option("--base-mac", required=True, help="The new unit's base (system) MAC, e.g. 00:1c:73:aa:bb:cc.")
def replace_cmd(root: Path | None, device: str, serial: str, base_mac: str) -> None:
    """Swap a switch of the running lab for a new unit at factory default (an RMA).

    The new unit answers on the same endpoints with the lab's credentials, its cables as they
    were, and nothing of the old unit's config; show version reports its serial and MAC.
    Then 'fabricops deploy' gives it its full config, once intent/devices.yaml names it.

    \b
    Examples:
      fabricops lab replace rack03-leaf-a --serial JPE24170XYZ --base-mac 00:1c:73:12:34:56
    """
    from lab import process

    if not re.fullmatch(r"[A-Za-z0-9]{4,32}", serial):
        raise click.BadParameter(f"{serial!r}: 4 to 32 letters and digits, as intent/devices.yaml takes it")
    digits = re.sub(r"[.:-]", "", base_mac).lower()
    if not re.fullmatch(r"[0-9a-f]{12}", digits):
        raise click.BadParameter(f"{base_mac!r}: a MAC address, e.g. 00:1c:73:aa:bb:cc", param_hint="--base-mac")
    mac = ":".join(digits[i : i + 2] for i in range(0, 12, 2))
    root = root or repo_root()
    process.replace(root, device, serial, mac)
    click.echo(f"{device}: replaced by unit {serial} ({mac}) at factory default")


def _models(values: tuple[str, ...]) -> dict[str, str]:
    """``DEVICE=MODEL`` options; the lab checks each model against the catalog with the
    repository's own models (``intent/hardware/``) at the ref it serves."""
    chosen = {}
    for value in values:
        device, sep, name = value.partition("=")
        if not sep or not device or not name:
            example = "e.g. rack01-mgmt=DCS-7010TX-48"
            raise click.BadParameter(f"{value!r}: expected DEVICE=MODEL, {example}", param_hint="--model")
        chosen[device] = name
    return chosen


@lab_group.command("down")
@root_option
def down_cmd(root: Path | None) -> None:
    """Stop this repository's lab process (state stays in .lab/state)."""
    from lab import process

    root = root or repo_root()
    click.echo("lab stopped" if process.down(root) else "no lab was running")


@lab_group.command("status")
@root_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--show-credentials", is_flag=True, help="Include the lab's username and password.")
def status_cmd(root: Path | None, fmt: str, show_credentials: bool) -> None:
    """Every device with its host, port, pending sessions and faults."""
    from lab import process

    root = root or repo_root()
    data = process.status(root)
    if show_credentials:
        data["password"] = process.require_running(root)["password"]
    if fmt == "json":
        click.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    click.echo(f"lab pid {data['pid']} serving generated/ at {data['ref']}, user {data['username']}")
    if show_credentials:
        click.echo(f"password: {data['password']}")
    for name, dev in sorted(data["devices"].items()):
        sessions = ",".join(f"{k}:{v}" for k, v in dev["sessions"].items()) or "-"
        faults = ",".join(dev["faults"]) or "-"
        refused = f" refused-lines={len(dev['load_errors'])}" if dev.get("load_errors") else ""
        click.echo(
            f"{name:24} {dev['host']}:{dev['port']:<6} lines={dev['running_lines']:<5} "
            f"sessions={sessions} faults={faults}{refused}"
        )


@lab_group.command("tamper")
@root_option
@click.argument("device")
@click.option("--line", "lines", multiple=True, help="A config line (repeat, in order).")
@click.option("--file", "file", type=click.File("r"), default=None, help="Config lines from a file.")
def tamper_cmd(root: Path | None, device: str, lines: tuple[str, ...], file: Any) -> None:
    """Change a running config out of band, as an engineer on the console would.

    The lines go through a plain 'configure' (not a session): lines before a
    failing one stay applied, and startup-config is not written.
    """
    from lab import process

    root = root or repo_root()
    body = list(lines)
    if file is not None:
        body += [ln.strip() for ln in file.read().splitlines() if ln.strip() and not ln.strip().startswith("!")]
    if not body:
        raise FabricopsError(f"tamper {device}: give --line LINE (repeatable) or --file FILE")
    answer = process.ask(root, {"action": "tamper", "device": device, "lines": body})
    if answer.get("errors"):
        raise FabricopsError(f"{device} rejected a tamper line", answer["errors"])
    click.echo(f"{device}: {len(body)} lines applied to running-config")


@lab_group.command("fault")
@root_option
@click.argument("device")
@click.argument("kind", type=FAULTS)
@click.option("--seconds", type=float, default=2.0, show_default=True, help="slow: delay per request.")
@click.option("--pattern", default="", help="reject: regex of config lines to refuse.")
@click.option("--times", type=int, default=1, show_default=True, help="drop-after-commit: how many.")
@click.option("--port", default=None, help="flap / link-down / miscable: the port, e.g. Ethernet49.")
@click.option("--other-port", default=None, help="miscable: the port whose cable swaps with --port.")
@click.option("--off", is_flag=True, help="unreachable / link-down: undo instead of set.")
@click.option("--session", default="console_abandoned", show_default=True, help="pending-session name.")
def fault_cmd(
    root: Path | None,
    device: str,
    kind: str,
    seconds: float,
    pattern: str,
    times: int,
    port: str | None,
    other_port: str | None,
    off: bool,
    session: str,
) -> None:
    """Inject a fault into one device (clear removes every standing fault)."""
    from lab import process

    root = root or repo_root()
    options: dict[str, Any] = {
        "seconds": seconds,
        "pattern": pattern,
        "times": times,
        "port": port,
        "other_port": other_port,
        "on": not off,
        "session": session,
    }
    if kind == "reject" and not pattern:
        raise FabricopsError(f"fault reject on {device}: give --pattern REGEX")
    if kind == "miscable" and not (port and other_port):
        raise FabricopsError(f"fault miscable on {device}: give --port and --other-port")
    if kind in ("flap", "link-down") and not port:
        raise FabricopsError(f"fault {kind} on {device}: give --port (e.g. Ethernet1)")
    answer = process.ask(root, {"action": "fault", "device": device, "kind": kind, "options": options})
    click.echo(f"{device}: {kind} done; standing faults: {', '.join(answer['faults']) or 'none'}")
