"""Fleet operations on the lab: ``plan``, ``deploy`` and ``drift``, and how much of it is the lab's.

For one compiled root (``intent/`` + ``generated/``), the root is made a git repository with
``generated/`` committed, the lab is started at factory default (``fabricops lab up
--empty``), and each verb runs as its own process against it with ``--lab``:

1. ``plan`` of the factory-default fleet (every device differs);
2. ``deploy`` of every device, in waves, with backups, commit-confirm and post-checks;
3. ``plan`` and ``drift`` of the fleet in sync: once with nothing remembered (``cold``: the
   in-sync memo of :mod:`drift.memo` removed first, every config compared in full), then
   ``runs`` times each (medians; the memo of the run before is there, as on a fleet audited
   every few minutes);
4. one device changed: a line of ``extra_config`` on one leaf, recompiled and committed,
   then ``deploy`` again (only that device differs).

Each step reports wall seconds, switches per second, the CLI process's CPU seconds and peak
RSS (``bench/launch.py``) and the CPU seconds the lab process spent meanwhile (read from
``/proc``): the lab is part of the measurement (it answers every request) but not of the
product, so its share is named. Per switch: the CLI's and the lab's CPU milliseconds, and the
switches per second one core sustains for the CLI alone (``client_per_core``) and for CLI and
lab together (``both_per_core``). The lab is stopped at the end (``fabricops lab down``).

    python bench/fleet.py ROOT [--workers 20] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.launch import measured
from drift.memo import MEMO_FILE

CHANGED_DEVICE_LINES = ("ip name-server vrf MGMT 172.20.0.54", "ip name-server vrf MGMT 172.20.0.55")
"""The one-device change: another name server on one leaf (a line the lab's grammar knows);
the second one when a repeated run finds the first already committed."""

GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]


def _git(root: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True)


def _device_count(root: Path) -> int:
    return sum(1 for _ in (root / "generated" / "configs").glob("*.cfg"))


def _change_one_device(root: Path, python: str) -> str:
    """Add a line of extra_config to the first compute leaf, recompile, commit; return its name."""
    device = sorted(p.stem for p in (root / "generated" / "configs").glob("rack*-leaf-a.cfg"))[0]
    path = root / "intent" / "fabric.yaml"
    fabric = yaml.safe_load(path.read_text())
    extra = fabric.get("extra_config") or {}
    line = next(line for line in CHANGED_DEVICE_LINES if extra.get(device) != line)
    fabric["extra_config"] = {**extra, device: line}
    path.write_text(yaml.safe_dump(fabric, sort_keys=False))
    subprocess.run([python, "-m", "fabricops", "compile", "--root", str(root)], check=True, capture_output=True)
    _git(root, "add", "-A", "intent", "generated")
    _git(root, "commit", "-qm", f"bench: one device changed ({device})")
    return device


def _forget_in_sync(root: Path) -> None:
    """Remove the in-sync memo: the next run compares every config in full."""
    (root / MEMO_FILE).unlink(missing_ok=True)


def _per_switch(step: dict[str, Any]) -> dict[str, Any]:
    """CPU milliseconds per switch of the CLI and the lab, and what one core sustains."""
    devices, cpu, lab = step["devices"], step["cpu"], step["lab_cpu"]
    return {
        **step,
        "cpu_ms_per_switch": 1000 * cpu / devices,
        "lab_ms_per_switch": 1000 * lab / devices,
        "client_per_core": devices / cpu if cpu else 0.0,
        "both_per_core": devices / (cpu + lab) if cpu + lab else 0.0,
    }


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Step:
    """Runs one verb as a whole process and reads the lab's CPU time around it."""

    def __init__(self, root: Path, lab_pid: int, devices: int) -> None:
        self.root, self.lab_pid, self.devices = root, lab_pid, devices
        self.logs = root / "bench-logs"

    def run(self, cmd: list[str], log: str) -> dict[str, Any]:
        before = _cpu_seconds(self.lab_pid)
        load = os.getloadavg()[0]
        result = measured(cmd, self.root, self.logs / log)
        lab = _cpu_seconds(self.lab_pid) - before
        total = lab + result["cpu"]
        return _per_switch(
            {
                **result,
                "devices": self.devices,
                "lab_cpu": lab,
                "lab_share": lab / total if total else 0.0,
                "switches_per_s": self.devices / result["seconds"] if result["seconds"] else 0.0,
                "load": round(load, 2),
            }
        )

    def repeated(self, cmd: list[str], log: str, runs: int) -> dict[str, Any]:
        """``runs`` runs of ``cmd``: the medians, and every run's wall seconds."""
        samples = [self.run(cmd, f"{log}-{run}.log") for run in range(runs)]
        medians = {k: statistics.median(s[k] for s in samples) for k in ("seconds", "cpu", "lab_cpu", "peak_rss_mib")}
        total = medians["lab_cpu"] + medians["cpu"]
        return _per_switch(
            {
                **samples[-1],
                **medians,
                "lab_share": medians["lab_cpu"] / total if total else 0.0,
                "switches_per_s": self.devices / medians["seconds"],
                "rc": max(s["rc"] for s in samples),
                "samples": [round(s["seconds"], 2) for s in samples],
                "loads": [s["load"] for s in samples],
                "runs": runs,
            }
        )


def run(root: Path, workers: int, runs: int = 5, python: str = sys.executable) -> dict[str, Any]:
    """Every fleet step over the lab of ``root``; the lab is always stopped at the end."""
    logs = root / "bench-logs"
    logs.mkdir(exist_ok=True)
    if not (root / ".git").exists():
        _git(root, "init", "-q", "-b", "main")
        (root / ".gitignore").write_text(".lab/\nbench-logs/\nplan.json\ndrift-report/\navd-*\n.fabricops-cache/\n")
        _git(root, "add", "-A", ".gitignore", "intent", "generated")
        _git(root, "commit", "-qm", "bench: compiled fabric")
    devices = _device_count(root)
    cli = [python, "-m", "fabricops"]
    had_remote = "FABRICOPS_REMOTE" in os.environ
    os.environ.setdefault("FABRICOPS_REMOTE", "none")  # a scratch root has no shared remote
    steps: dict[str, Any] = {}
    lab = measured([*cli, "lab", "up", "--root", str(root), "--empty", "--fresh"], root, logs / "lab-up.log")
    steps["lab up"] = {**lab, "devices": devices, "switches_per_s": devices / lab["seconds"], "lab_cpu": 0.0}
    try:
        if lab["rc"] != 0:
            return {"devices": devices, "workers": workers, "steps": steps, "error": "lab up failed"}
        step = _Step(root, int(json.loads((root / ".lab" / "lab.json").read_text())["pid"]), devices)
        common = ["--root", str(root), "--lab", "--workers", str(workers)]
        plan = [*cli, "plan", *common, "--format", "json", "--summary"]
        deploy = [*cli, "deploy", *common, "--format", "json", "--revert-in", "600", "--batch", "50"]
        drift = [*cli, "drift", *common, "--format", "json", "--report-dir", str(root / "drift-report")]
        steps["plan (factory default)"] = step.run(plan, "plan-default.log")
        steps["deploy (all)"] = step.run(deploy, "deploy-all.log")
        _forget_in_sync(root)
        steps["plan (in sync, cold)"] = step.run(plan, "plan-cold.log")
        steps["plan (in sync)"] = step.repeated(plan, "plan", runs)
        _forget_in_sync(root)
        steps["drift (in sync, cold)"] = step.run(drift, "drift-cold.log")
        steps["drift (in sync)"] = step.repeated(drift, "drift", runs)
        changed = _change_one_device(root, python)
        steps["deploy (one changed)"] = {**step.run(deploy, "deploy-one.log"), "changed": changed}
    finally:
        measured([*cli, "lab", "down", "--root", str(root)], root, logs / "lab-down.log")
        if not had_remote:
            os.environ.pop("FABRICOPS_REMOTE", None)
    return {"devices": devices, "workers": workers, "runs": runs, "steps": steps}


def main() -> None:
    parser = argparse.ArgumentParser(description="plan / deploy / drift over the lab of a compiled root; JSON.")
    parser.add_argument("root", type=Path)
    parser.add_argument("--workers", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps(run(args.root.resolve(), args.workers, args.runs)))


if __name__ == "__main__":
    main()
