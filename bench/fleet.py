"""Fleet operations on the lab: ``plan``, ``deploy`` (all devices, then one changed) and ``drift``.

For one compiled root (``intent/`` + ``generated/``), the root is made a git repository with
``generated/`` committed, the lab is started at factory default (``fabricops lab up
--empty``), and each verb runs as its own process against it with ``--lab``:

1. ``plan``: every device differs from generated/;
2. ``deploy``: every device, in waves, with commit-confirm and post-checks;
3. one device changed: a line of ``extra_config`` on one leaf, recompiled and committed,
   then ``deploy`` again (only that device differs);
4. ``drift``: every device read back and compared with generated/ by meaning.

Each step reports wall seconds, devices per second, the peak RSS of the CLI process (its
own: see ``bench/launch.py``) and the worker count. The lab is stopped at the end (``fabricops lab down``).

    python bench/fleet.py ROOT [--workers 20]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.launch import measured

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


def run(root: Path, workers: int, python: str = sys.executable) -> dict[str, Any]:
    """Every fleet step over the lab of ``root``; the lab is always stopped at the end."""
    logs = root / "bench-logs"
    logs.mkdir(exist_ok=True)
    if not (root / ".git").exists():
        _git(root, "init", "-q", "-b", "main")
        (root / ".gitignore").write_text(".lab/\nbench-logs/\nplan.json\ndrift-report/\n")
        _git(root, "add", "-A", ".gitignore", "intent", "generated")
        _git(root, "commit", "-qm", "bench: compiled fabric")
    devices = _device_count(root)
    cli = [python, "-m", "fabricops"]
    steps: dict[str, Any] = {}
    lab = measured([*cli, "lab", "up", "--root", str(root), "--empty", "--fresh"], root, logs / "lab-up.log")
    steps["lab up"] = {**lab, "devices": devices}
    try:
        if lab["rc"] != 0:
            return {"devices": devices, "workers": workers, "steps": steps, "error": "lab up failed"}
        common = ["--root", str(root), "--lab", "--workers", str(workers)]
        steps["plan"] = {
            **measured([*cli, "plan", *common, "--format", "json", "--summary"], root, logs / "plan.log"),
            "devices": devices,
        }
        deploy = [*cli, "deploy", *common, "--format", "json", "--revert-in", "600", "--batch", "50"]
        steps["deploy (all)"] = {**measured(deploy, root, logs / "deploy-all.log"), "devices": devices}
        changed = _change_one_device(root, python)
        steps["deploy (one changed)"] = {
            **measured(deploy, root, logs / "deploy-one.log"),
            "devices": devices,
            "changed": changed,
        }
        drift = [*cli, "drift", *common, "--format", "json", "--report-dir", str(root / "drift-report")]
        steps["drift"] = {**measured(drift, root, logs / "drift.log"), "devices": devices}
    finally:
        measured([*cli, "lab", "down", "--root", str(root)], root, logs / "lab-down.log")
    for step in steps.values():
        step["devices_per_s"] = step["devices"] / step["seconds"] if step["seconds"] else 0.0
    return {"devices": devices, "workers": workers, "steps": steps}


def main() -> None:
    parser = argparse.ArgumentParser(description="plan / deploy / drift over the lab of a compiled root; JSON.")
    parser.add_argument("root", type=Path)
    parser.add_argument("--workers", type=int, default=20)
    args = parser.parse_args()
    print(json.dumps(run(args.root.resolve(), args.workers)))


if __name__ == "__main__":
    main()
