"""Whole-process start: ``fabricops --help``, ``check`` and ``compile`` of the example, and where it goes.

Each command runs ``runs`` times as a new process (medians): the interpreter alone, ``--help``,
``check``, ``compile`` with nothing changed since the last one (the record in
``.fabricops-cache/`` recognises it), ``compile --full`` (every switch rendered) over a
``generated/`` already current and into an empty one. Then ``python -X importtime`` of
``compile --full`` names the modules whose import costs the most, and ``--timings`` the
compile's own stages in that process.

Python's bytecode is cached, as on any installed copy (pip compiles it; a checkout writes
``__pycache__`` on its first run), in a scratch ``PYTHONPYCACHEPREFIX``, even where the
environment sets ``PYTHONDONTWRITEBYTECODE``; one more row, ``compile --full`` with
``PYTHONDONTWRITEBYTECODE=1`` and no cache, shows what compiling fabricops' own sources on every
run costs (about 0.2 s).

    python bench/startup.py [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

EXAMPLE = Path(__file__).resolve().parent.parent / "intent"


def _seconds(
    cmd: list[str], cwd: Path, runs: int, before: list[str] | None = None, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Median wall seconds of ``cmd`` over ``runs`` new processes (``before`` runs untimed first each time)."""
    samples = []
    for _ in range(runs):
        if before:
            subprocess.run(before, cwd=cwd, check=True, capture_output=True, env=env)
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, env=env)
        samples.append(time.perf_counter() - start)
    return {"median": statistics.median(samples), "min": min(samples), "runs": runs}


def cached_bytecode(cache: Path) -> dict[str, str]:
    """This environment with Python's bytecode written to, and read from, ``cache``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def imports(cmd: list[str], cwd: Path, top: int = 12, env: dict[str, str] | None = None) -> dict[str, Any]:
    """``-X importtime`` of one run: total import seconds and the costliest modules (with what they import)."""
    done = subprocess.run(
        [cmd[0], "-X", "importtime", *cmd[1:]], cwd=cwd, capture_output=True, text=True, check=True, env=env
    )
    rows = []
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if match:
            rows.append((int(match.group(2)) / 1e6, int(match.group(1)) / 1e6, len(match.group(3)), match.group(4)))
    total = sum(cumulative for cumulative, _own, depth, _name in rows if depth == 1)
    packages: dict[str, float] = {}
    for _cumulative, own, _depth, name in rows:
        packages[name.split(".")[0]] = packages.get(name.split(".")[0], 0.0) + own
    ranked = sorted(packages.items(), key=lambda item: item[1], reverse=True)[:top]
    return {"total": total, "by_package": ranked}


def measure(runs: int, python: str = sys.executable) -> dict[str, Any]:
    """Every start-up figure, in a scratch copy of the example."""
    cli = [python, "-m", "fabricops"]
    with tempfile.TemporaryDirectory(prefix="fabricops-startup-") as tmp:
        root = Path(tmp)
        shutil.copytree(EXAMPLE, root / "intent")
        env = cached_bytecode(root / "pycache")
        subprocess.run([*cli, "compile"], cwd=root, check=True, capture_output=True, env=env)
        subprocess.run([*cli, "compile", "--full"], cwd=root, check=True, capture_output=True, env=env)
        uncached = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        uncached.pop("PYTHONPYCACHEPREFIX", None)
        clear = [python, "-c", "import shutil; shutil.rmtree('generated')"]
        out: dict[str, Any] = {
            "python -c pass": _seconds([python, "-c", "pass"], root, runs, env=env),
            "fabricops --help": _seconds([*cli, "--help"], root, runs, env=env),
            "fabricops check": _seconds([*cli, "check"], root, runs, env=env),
            "fabricops compile (nothing changed)": _seconds([*cli, "compile"], root, runs, env=env),
            "fabricops compile --full (generated/ current)": _seconds([*cli, "compile", "--full"], root, runs, env=env),
            "fabricops compile --full (empty generated/)": _seconds(
                [*cli, "compile", "--full"], root, max(3, runs // 4), clear, env=env
            ),
            "fabricops compile --full (generated/ current, bytecode not cached)": _seconds(
                [*cli, "compile", "--full"], root, max(3, runs // 4), env=uncached
            ),
        }
        timings = subprocess.run(
            [*cli, "compile", "--full", "--timings"], cwd=root, capture_output=True, text=True, check=True, env=env
        )
        found = re.search(r"seconds: (.*)", timings.stdout)
        stages = (
            {name: float(value) for name, value in (p.split() for p in found.group(1).split(", "))} if found else {}
        )
        return {
            "seconds": out,
            "stages": stages,
            "imports": {
                "fabricops --help": imports([*cli, "--help"], root, env=env),
                "fabricops compile --full": imports([*cli, "compile", "--full"], root, env=env),
            },
        }


def main() -> None:
    parser = argparse.ArgumentParser(description="Whole-process start-up of fabricops; JSON.")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print(json.dumps(measure(args.runs)))


if __name__ == "__main__":
    main()
