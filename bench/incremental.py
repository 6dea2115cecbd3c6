"""Incremental recompile: one server row added to the example, then ``fabricops compile``.

The example is compiled once into a scratch root; a row is added to ``servers.csv`` (the
next position in rack 3); the recompile is timed as a whole process and in-process per
stage, and the trees before and after are compared file by file.

    python bench/incremental.py [--runs 3]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

EXAMPLE = Path(__file__).resolve().parent.parent / "intent"
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


def _compile(root: Path, python: str) -> float:
    start = time.perf_counter()
    subprocess.run([python, "-m", "fabricops", "compile", "--root", str(root)], check=True, capture_output=True)
    return time.perf_counter() - start


def measure(runs: int, python: str = sys.executable) -> dict[str, Any]:
    """Median whole-process and in-process recompile seconds after adding one row; files touched."""
    from compiler.pipeline import compile_intent, write_generated

    process: list[float] = []
    switches: set[str] = set()
    stages: list[dict[str, float]] = []
    diff: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):
            root = Path(tmp) / f"run{run}"
            shutil.copytree(EXAMPLE, root / "intent")
            _compile(root, python)
            before = tree(root / "generated")
            servers = root / "intent" / "servers.csv"
            rows = servers.read_text().splitlines()
            at = max(i for i, row in enumerate(rows) if row.startswith("rack03-gpu")) + 1
            servers.write_text("\n".join([*rows[:at], NEW_ROW, *rows[at:]]) + "\n")
            process.append(_compile(root, python))
            diff = compare(before, tree(root / "generated"))
            switches = _switches_of(root / "generated" / "inventory" / "cabling.csv", SERVER)
            # The same recompile in-process, per stage (a second write of an identical tree).
            result = compile_intent(root / "intent")
            write_generated(result, root / "generated")
            stages.append(dict(result.timings))
    return {
        "runs": runs,
        "process_seconds": statistics.median(process),
        "stages": {k: statistics.median(s[k] for s in stages) for k in stages[0]},
        "files_total": len(tree_paths := diff["added"] + diff["removed"] + diff["changed"]),
        "added": diff["added"],
        "removed": diff["removed"],
        "changed": diff["changed"],
        "touched": tree_paths,
        "server": SERVER,
        "switches": sorted(switches),
        "foreign": foreign(tree_paths, SERVER, switches),
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
    args = parser.parse_args()
    print(json.dumps(measure(args.runs)))


if __name__ == "__main__":
    main()
