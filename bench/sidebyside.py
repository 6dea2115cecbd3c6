"""fabricops and pyavd side by side, each as a whole process started cold, on the same design.

For one scaled root (``intent/`` of ``bench/scale.py``, or the example):

* **ours**: ``python -m fabricops compile --full --root ROOT`` in a new process, ``runs`` times
  as a fresh checkout compiles (no ``generated/``, no ``.fabricops-cache/``: templates compiled
  and every intent file validated again, everything written) and ``runs`` times with both in
  place (everything rendered, only what differs written, the compiled templates and the
  validated intent files taken from ``.fabricops-cache/``); ``--full`` ignores the incremental
  record, whose gains ``bench/incremental.py`` measures apart;
* **pyavd**: ``bench/avd_run.py`` in a new process of ``--pyavd-python``, ``runs`` times into an
  empty folder, on the same compute and storage fabrics (``bench/avd_inputs.py``: servers
  scoped per leaf pair, as an AVD inventory keeps them). Building its inputs is not timed.

Each run goes through ``bench/launch.py`` (wall and CPU seconds, peak RSS of that process
alone); figures are medians. Lines are counted on configured stanzas only
(:mod:`bench.lines`), for pyavd's switches and ours; pyavd has no management network, so the
ratios are per switch and per configured line, each compiler over its own output.

    python bench/sidebyside.py ROOT [--runs 5] [--pyavd-python PATH]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.launch import measured
from bench.lines import count_files

BENCH = Path(__file__).resolve().parent


def _median_runs(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The medians of wall, CPU and peak RSS over ``runs``, and the wall samples."""
    return {
        "seconds": statistics.median(r["seconds"] for r in runs),
        "cpu": statistics.median(r["cpu"] for r in runs),
        "peak_rss_mib": statistics.median(r["peak_rss_mib"] for r in runs),
        "samples": [round(r["seconds"], 3) for r in runs],
        "runs": len(runs),
    }


def ours(root: Path, runs: int, python: str = sys.executable) -> dict[str, Any]:
    """``fabricops compile`` as a whole process: into an empty generated/, then with it in place."""
    logs = root / "bench-logs"
    logs.mkdir(exist_ok=True)
    # --full: every switch rendered, the record in .fabricops-cache/ ignored.
    cmd = [python, "-m", "fabricops", "compile", "--full", "--root", str(root)]
    cold, current = [], []
    for run in range(runs):
        # Cold: a fresh checkout's compile, nothing kept by an earlier one.
        shutil.rmtree(root / "generated", ignore_errors=True)
        shutil.rmtree(root / ".fabricops-cache", ignore_errors=True)
        cold.append(measured(cmd, root, logs / f"compile-cold-{run}.log"))
        current.append(measured(cmd, root, logs / f"compile-current-{run}.log"))
    failed = [r for r in cold + current if r["rc"] != 0]
    if failed:
        raise RuntimeError(f"fabricops compile of {root} failed: see {failed[0]['log']}")
    configs = sorted((root / "generated" / "configs").glob("*.cfg"))
    files = sum(1 for p in (root / "generated").rglob("*") if p.is_file())
    return {
        "switches": len(configs),
        "lines": count_files(configs),
        "files": files,
        "cold": _median_runs(cold),
        "current": _median_runs(current),
    }


def pyavd(root: Path, runs: int, python: str) -> dict[str, Any]:
    """``bench/avd_run.py`` as a whole process into an empty folder, on the fabrics of ``root/intent``."""
    from bench.avd_inputs import avd_inputs

    inputs = root / "avd-inputs.json"
    inputs.write_text(json.dumps(avd_inputs(root / "intent")))
    out, logs = root / "avd-configs", root / "bench-logs"
    logs.mkdir(exist_ok=True)
    samples, stages = [], []
    for run in range(runs):
        shutil.rmtree(out, ignore_errors=True)
        log = logs / f"pyavd-{run}.log"
        result = measured([python, str(BENCH / "avd_run.py"), str(inputs), "--out", str(out)], root, log)
        if result["rc"] != 0:
            return {"error": log.read_text().strip().splitlines()[-1:]}
        samples.append(result)
        stages.append(json.loads(log.read_text().strip().splitlines()[-1])["timings"])
    configs = sorted(out.glob("*.cfg"))
    return {
        "switches": len(configs),
        "names": [p.stem for p in configs],
        "lines": count_files(configs),
        "stages": {k: statistics.median(s[k] for s in stages) for k in stages[0]},
        **_median_runs(samples),
    }


def compare(root: Path, runs: int, pyavd_python: str | None, python: str = sys.executable) -> dict[str, Any]:
    """Both compilers on ``root``, and pyavd's time over ours per switch and per configured line."""
    entry: dict[str, Any] = {"ours": ours(root, runs, python)}
    if pyavd_python is None:
        return entry
    theirs = pyavd(root, runs, pyavd_python)
    entry["pyavd"] = theirs
    if "error" in theirs:
        return entry
    mine = entry["ours"]
    same = [root / "generated" / "configs" / f"{name}.cfg" for name in theirs["names"]]
    mine["lines_pyavd_switches"] = count_files(p for p in same if p.exists())
    for kind in ("cold", "current"):
        seconds = mine[kind]["seconds"]
        entry[f"ratio_{kind}"] = {
            "per_switch": (theirs["seconds"] / theirs["switches"]) / (seconds / mine["switches"]),
            "per_line": (theirs["seconds"] / theirs["lines"]) / (seconds / mine["lines"]),
            "total": theirs["seconds"] / seconds,
        }
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description="fabricops and pyavd side by side as whole processes; JSON.")
    parser.add_argument("root", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pyavd-python", default=sys.executable)
    args = parser.parse_args()
    print(json.dumps(compare(args.root.resolve(), args.runs, args.pyavd_python)))


if __name__ == "__main__":
    main()
