"""Incremental recompile: one server row added, then ``fabricops compile``, against a full one.

At each size (the example, or ``bench/scale.py``'s design), in a scratch root compiled once:

* **incremental**: a row is added to ``servers.csv`` (the next position in rack 3) and
  ``fabricops compile`` runs as a whole process (timed); the files the change touched are listed;
* **full**: then ``fabricops compile --full`` as a whole process on the same root with the row in
  place and ``generated/`` current (every switch rendered, only what differs written): the same
  work without the record in ``.fabricops-cache/``; the row is removed and the root compiled
  back (untimed);
* **rounds**: ``runs`` rounds of one incremental and one full compile, taking turns, so a
  while of load or a slower phase of the machine falls on both alike; the ratio of each
  round, and their median, beside the ratio of the medians;
* **byte-identical**: the incremental ``generated/`` against a full compile of the same intent
  into an empty root (every file's sha256);
* **stages**: each run's seconds per stage (``--timings``), medians, and what the process spent
  outside them (start, imports, the record in ``.fabricops-cache/``, the summary, exit).

    python bench/incremental.py [--runs 3] [--factor 1]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.launch import measured
from bench.scale import write_intent

SERVER = "rack03-gpu010"
NEW_ROW = f"{SERVER},gpu-8x-h100,GPU-0310"


def tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` by relative path, with its sha256."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()
    }


def compare(before: dict[str, str], after: dict[str, str]) -> dict[str, list[str]]:
    """Files added, removed and changed between two trees."""
    return {
        "added": sorted(set(after) - set(before)),
        "removed": sorted(set(before) - set(after)),
        "changed": sorted(p for p in set(before) & set(after) if before[p] != after[p]),
    }


def _compile(root: Path, python: str, *options: str) -> tuple[dict[str, Any], str]:
    """Wall and CPU seconds (``bench/launch.py``) and output of ``fabricops compile`` as a whole process."""
    log = root.parent / "compile.log"
    run = measured([python, "-m", "fabricops", "compile", "--root", str(root), *options], root.parent, log)
    if run["rc"] != 0:
        raise RuntimeError(f"fabricops compile failed: {log.read_text()[-500:]}")
    return run, log.read_text()


def _stages(stdout: str) -> dict[str, float]:
    """Seconds per stage from ``--timings`` (``seconds: load 0.080, resolve 0.559, ...``).

    Example:
        >>> _stages("compiled\\nseconds: load 0.080, render 1.771\\n")
        {'load': 0.08, 'render': 1.771}
    """
    found = re.search(r"^seconds: (.*)$", stdout, re.MULTILINE)
    if not found:
        return {}
    return {name: float(value) for name, value in (part.split() for part in found.group(1).split(", "))}


def _medians(samples: list[dict[str, float]], wall: list[float]) -> dict[str, float]:
    """Median seconds per stage, and ``outside``: the median of each run's wall time less its stages."""
    names = list(dict.fromkeys(name for sample in samples for name in sample))
    out = {name: round(statistics.median(s.get(name, 0.0) for s in samples), 3) for name in names}
    out["outside"] = round(statistics.median(w - sum(s.values()) for s, w in zip(samples, wall, strict=True)), 3)
    return out


def _rendered(stdout: str) -> tuple[int, int] | None:
    """Switches and servers the compile rendered (the others were kept)."""
    found = re.search(r"\((\d+) of \d+ switches and (\d+) of \d+ servers rendered\)", stdout)
    return (int(found.group(1)), int(found.group(2))) if found else None


def measure(runs: int, factor: int = 1, python: str = sys.executable) -> dict[str, Any]:
    """Median whole-process incremental and full recompile seconds after adding one row; files touched."""
    incremental: list[dict[str, Any]] = []
    full: list[dict[str, Any]] = []
    stages: list[dict[str, float]] = []
    full_stages: list[dict[str, float]] = []
    rendered: tuple[int, int] | None = None
    switches: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="fabricops-incremental-") as tmp:
        root = Path(tmp) / "root"
        write_intent(factor, root / "intent")
        servers = root / "intent" / "servers.csv"
        base = servers.read_text()
        rows = base.splitlines()
        at = max(i for i, row in enumerate(rows) if row.startswith("rack03-gpu")) + 1
        changed = "\n".join([*rows[:at], NEW_ROW, *rows[at:]]) + "\n"
        _compile(root, python)
        before = tree(root / "generated")
        for _ in range(runs):
            servers.write_text(changed)
            run, stdout = _compile(root, python, "--timings")
            incremental.append(run)
            stages.append(_stages(stdout))
            rendered = _rendered(stdout)
            after = tree(root / "generated")
            switches = _switches_of(root / "generated" / "inventory" / "cabling.csv", SERVER)
            run, stdout = _compile(root, python, "--full", "--timings")
            full.append(run)
            full_stages.append(_stages(stdout))
            servers.write_text(base)
            _compile(root, python)
        servers.write_text(changed)
        diff = compare(before, after)
        fresh = Path(tmp) / "fresh"
        shutil.copytree(root / "intent", fresh / "intent")
        _compile(fresh, python, "--full")
        identical = tree(fresh / "generated") == after
        devices = len(list((root / "generated" / "configs").glob("*.cfg")))
    touched = diff["added"] + diff["removed"] + diff["changed"]
    wall, cpu = (statistics.median(r[k] for r in incremental) for k in ("seconds", "cpu"))
    full_wall, full_cpu = (statistics.median(r[k] for r in full) for k in ("seconds", "cpu"))
    return {
        "factor": factor,
        "runs": runs,
        "switches_total": devices,
        "process_seconds": wall,
        "full_seconds": full_wall,
        "speedup": full_wall / wall,
        "round_speedups": [round(f["seconds"] / i["seconds"], 2) for i, f in zip(incremental, full, strict=True)],
        "round_speedup": statistics.median(f["seconds"] / i["seconds"] for i, f in zip(incremental, full, strict=True)),
        "cpu_seconds": cpu,
        "full_cpu_seconds": full_cpu,
        "cpu_speedup": full_cpu / cpu,
        "samples": [round(r["seconds"], 3) for r in incremental],
        "full_samples": [round(r["seconds"], 3) for r in full],
        "stages": _medians(stages, [r["seconds"] for r in incremental]),
        "full_stages": _medians(full_stages, [r["seconds"] for r in full]),
        "load_average": os.getloadavg()[0],
        "rendered": rendered[0] if rendered else None,
        "servers_rendered": rendered[1] if rendered else None,
        "identical": identical,
        "files_total": len(touched),
        "added": diff["added"],
        "removed": diff["removed"],
        "changed": diff["changed"],
        "touched": touched,
        "server": SERVER,
        "switches": sorted(switches),
        "foreign": foreign(touched, SERVER, switches),
    }


PER_DEVICE = ("configs/", "structured/", "monitoring/rules/", "servers/")
"""Trees with one file (or folder) per switch or server: only the new server's and its switches' may change."""


def _switches_of(cabling: Path, server: str) -> set[str]:
    """The switches cabled to ``server``, from the cable list."""
    with cabling.open() as rows:
        return {row["a_device"] for row in csv.DictReader(rows) if row["b_device"] == server}


def foreign(paths: list[str], server: str, switches: set[str]) -> list[str]:
    """Per-device files touched that belong neither to ``server`` nor to one of its ``switches``.

    Fleet-wide tables (cable list, IP plan, manifest, docs) list every server and change with
    any new row; they are not counted here.
    """
    mine = {server, *switches}
    foreign = []
    for path in paths:
        prefix = next((p for p in PER_DEVICE if path.startswith(p)), None)
        owner = path[len(prefix) :].split("/")[0].split(".")[0] if prefix else None
        if owner is not None and owner not in mine:
            foreign.append(path)
    return foreign


def main() -> None:
    parser = argparse.ArgumentParser(description="One-row incremental recompile; prints JSON.")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--factor", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(measure(args.runs, args.factor)))


if __name__ == "__main__":
    main()
