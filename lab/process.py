"""The background lab process: ``up`` starts it, ``status`` asks it, ``down`` stops it.

``up`` starts one detached process (``python -m lab.serve``) that serves every
device; it writes ``.lab/lab.json`` in the repository root once all devices
listen::

    {"pid": 1234, "username": "admin", "password": "...", "control": {"port": N, "token": "..."},
     "ref": "WORKTREE", "tls_certificate": ".lab/tls-certificate.pem",
     "devices": {"leaf1": {"host": "127.0.0.1", "port": 40001, "https_port": 40002}, ...}}

``port`` serves eAPI over HTTP, ``https_port`` over HTTPS with the lab's self-signed
certificate (EOS's default transport, which deploy and drift use).

Deploy and drift read it to reach the lab. Device state is kept in
``.lab/state/<device>.json``; an ``up`` after a ``down`` resumes from it
(``--fresh`` ignores it). The password is generated at ``up`` and lives only
in ``lab.json`` (``.lab/`` is git-ignored).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from core.errors import FabricopsError
from core.generated import LAB_DIR, LAB_INFO
from lab import control
from lab.state import write_json_atomic

LOG_FILE = "lab.log"
ENV_PASSWORD = "FABRICOPS_LAB_PASSWORD"
ENV_TOKEN = "FABRICOPS_LAB_TOKEN"
SERVE_MODULE = "lab.serve"


def lab_dir(root: Path) -> Path:
    return root / LAB_DIR


def info_path(root: Path) -> Path:
    return root / LAB_INFO


def read_info(root: Path) -> dict[str, Any] | None:
    """The running lab's ``lab.json``, or None when there is none."""
    try:
        data: dict[str, Any] = json.loads(info_path(root).read_text())
    except (OSError, ValueError):
        return None
    return data


def is_lab_process(pid: int) -> bool:
    """True if ``pid`` is alive and is a ``lab.serve`` process (not a recycled pid)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True  # no /proc (macOS): trust the pid
    return SERVE_MODULE.encode() in cmdline


def running_info(root: Path) -> dict[str, Any] | None:
    """``lab.json`` of a lab whose process is still alive."""
    info = read_info(root)
    if info is None or not is_lab_process(int(info.get("pid", 0))):
        return None
    return info


def up(
    root: Path,
    *,
    ref: str | None = None,
    empty: bool = False,
    devices: list[str] | None = None,
    fresh: bool = False,
    models: dict[str, str] | None = None,
    eos_version: str | None = None,
    timeout: float = 180.0,
) -> dict[str, Any]:
    """Start the background lab and wait until every device listens; with a lab running
    already, add the switches of ``generated/`` it lacks (:func:`join`).

    ``models`` (device -> model) starts devices as another model than ``generated/`` says.
    """
    running = running_info(root)
    if running is not None:
        if fresh:
            raise FabricopsError(f"a lab is already running in {root}: run 'fabricops lab down' before --fresh")
        return join(root, running, ref=ref, empty=empty, devices=devices, models=models, eos_version=eos_version)
    base = lab_dir(root)
    base.mkdir(parents=True, exist_ok=True)
    info_path(root).unlink(missing_ok=True)
    state = base / "state"
    if fresh and state.exists():
        for f in state.glob("*.json"):
            f.unlink()
    cmd = [sys.executable, "-m", SERVE_MODULE, "--root", str(root), "--state-dir", str(state)]
    cmd += _serve_options(ref=ref, empty=empty, devices=devices, models=models, eos_version=eos_version)
    env = dict(os.environ)
    env[ENV_PASSWORD] = secrets.token_urlsafe(18)
    env[ENV_TOKEN] = secrets.token_urlsafe(24)
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(Path(__file__).resolve().parent.parent), env.get("PYTHONPATH", "")])
    )
    log = open(base / LOG_FILE, "ab")  # noqa: SIM115 - handed to the child, closed below
    try:
        child = subprocess.Popen(
            cmd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            cwd=str(root),
        )
    finally:
        log.close()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.poll() is not None:
            tail = _log_tail(base / LOG_FILE)
            raise FabricopsError(f"the lab process exited with code {child.returncode}: {tail}")
        info = read_info(root)
        if info is not None and info.get("pid") == child.pid:
            return info
        time.sleep(0.05)
    child.terminate()
    raise FabricopsError(f"the lab did not start within {timeout:.0f} s; see {base / LOG_FILE}")


def _serve_options(
    *, ref: str | None, empty: bool, devices: list[str] | None, models: dict[str, str] | None, eos_version: str | None
) -> list[str]:
    """The options of ``python -m lab.serve`` that choose what it serves."""
    cmd = ["--ref", ref] if ref else []
    if empty:
        cmd.append("--empty")
    for name in devices or []:
        cmd += ["--device", name]
    for name, model in sorted((models or {}).items()):
        cmd += ["--model", f"{name}={model}"]
    return cmd + (["--eos-version", eos_version] if eos_version else [])


def join(
    root: Path,
    info: dict[str, Any],
    *,
    ref: str | None = None,
    empty: bool = False,
    devices: list[str] | None = None,
    models: dict[str, str] | None = None,
    eos_version: str | None = None,
) -> dict[str, Any]:
    """Add the switches of ``generated/`` (work tree or ``ref``) that the running lab lacks, with
    their cables, and list them in ``lab.json``. The lab's devices are not touched: their
    configs, state, endpoints and the lab's credentials stay. ``info["joined"]``: the names added.
    """
    from dataclasses import asdict, fields

    from core.generated import open_snapshot
    from lab.fromgenerated import specs_from_snapshot

    snapshot = open_snapshot(root, ref)
    specs, links = specs_from_snapshot(
        snapshot,
        empty=empty,
        only=set(devices) if devices else None,
        lab_password=str(info["password"]),
        models=models,
        eos_version=eos_version,
    )
    new = [
        {f.name: getattr(spec, f.name) for f in fields(spec) if f.name != "catalog"}
        for spec in specs
        if spec.name not in info["devices"]
    ]
    request = {"action": "join", "root": str(root), "ref": ref, "devices": new, "links": [asdict(c) for c in links]}
    answer = ask(root, request) if new else {}
    info = {**info, "devices": {**info["devices"], **answer.get("endpoints", {})}, "ref": snapshot.ref}
    write_json_atomic(info_path(root), info)
    os.chmod(info_path(root), 0o600)
    return {**info, "joined": answer.get("joined", [])}


def replace(root: Path, device: str, serial: str, base_mac: str) -> None:
    """Swap ``device``'s unit in the running lab for a factory-default one with this serial and base MAC."""
    require_running(root)
    ask(root, {"action": "replace", "device": device, "serial": serial, "base_mac": base_mac})


def _log_tail(path: Path) -> str:
    try:
        lines = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return lines[-1] if lines else "(empty log)"


def down(root: Path, timeout: float = 20.0) -> bool:
    """Stop this repository's lab process; False when none was running."""
    info = read_info(root)
    if info is None:
        return False
    pid = int(info.get("pid", 0))
    stopped = False
    if pid and is_lab_process(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and is_lab_process(pid):
            time.sleep(0.05)
        if is_lab_process(pid):
            os.kill(pid, signal.SIGKILL)
        stopped = True
    info_path(root).unlink(missing_ok=True)
    return stopped


def require_running(root: Path) -> dict[str, Any]:
    info = running_info(root)
    if info is None:
        raise FabricopsError(f"no lab is running in {root}: run 'fabricops lab up'")
    return info


def ask(root: Path, request: dict[str, Any]) -> dict[str, Any]:
    """Send one control request to the running lab."""
    info = require_running(root)
    ctl = info["control"]
    try:
        return control.call(int(ctl["port"]), str(ctl["token"]), request)
    except RuntimeError as exc:
        device = request.get("device", "")
        raise FabricopsError(f"lab refused the request for {device or 'the lab'}: {exc}") from None
    except OSError as exc:
        raise FabricopsError(f"cannot reach the lab control endpoint: {exc}") from None


def status(root: Path) -> dict[str, Any]:
    """Every device with host, port, hostname, pending sessions, faults."""
    info = require_running(root)
    devices = ask(root, {"action": "status"})["devices"]
    return {"pid": info["pid"], "ref": info.get("ref"), "username": info["username"], "devices": devices}
