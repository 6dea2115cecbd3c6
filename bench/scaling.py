"""Linear to 64x: the whole compile and the checks, per switch, at 16x and at 64x.

In a scratch root per size (``bench/scale.py``'s design: 768 and 3,040 switches), compiled once
into an empty ``generated/`` (timed too: that run writes every file), then ``runs`` rounds
taking turns, one ``fabricops compile --full`` of each size per round as a whole process with
``generated/`` current (every switch and server rendered again, only what differs written; the
same work as the full compile of ``bench/incremental.py``), so a slower phase of the machine
falls on both sizes alike. Reported per size: wall and CPU seconds, peak memory, the seconds
per stage (``--timings``), medians; then the growth of each from the smaller size to the larger
against the growth of the switches (1.0: linear). The checks are timed rule by rule at both
sizes in one process (``bench/checks.py``), and their growth set against the switches' too.

    python bench/scaling.py [--runs 3] [--sizes 16,64] [--check-runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import checks as checks_bench
from bench.incremental import _compile, _stages
from bench.scale import write_intent


def measure(runs: int, sizes: tuple[int, int] = (16, 64), check_runs: int = 3) -> dict[str, Any]:
    """Whole-process compile figures at both ``sizes`` (medians of ``runs`` rounds taking turns),
    the checks' per-rule seconds at both, and the growth of each over the switches'."""
    python = sys.executable
    found: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="fabricops-scaling-") as tmp:
        roots = {factor: Path(tmp) / f"x{factor}" / "root" for factor in sizes}
        for factor, root in roots.items():
            write_intent(factor, root / "intent")
            first, _ = _compile(root, python)
            first.pop("log")
            switches = len(list((root / "generated" / "configs").glob("*.cfg")))
            found[factor] = {"switches": switches, "empty": first, "rounds": [], "stages": []}
        for _ in range(runs):
            for factor, root in roots.items():
                run, stdout = _compile(root, python, "--full", "--timings")
                found[factor]["rounds"].append(run)
                found[factor]["stages"].append(_stages(stdout))
        checks = checks_bench.measure({f: roots[f] / "intent" for f in sizes}, check_runs)
    for entry in found.values():
        rounds, stages = entry.pop("rounds"), entry.pop("stages")
        entry.update(_medians(rounds))
        entry["samples"] = [round(r["seconds"], 2) for r in rounds]
        entry["stages"] = {name: round(statistics.median(s.get(name, 0.0) for s in stages), 3) for name in stages[0]}
    small, large = (found[f] for f in sizes)
    return {
        "runs": runs,
        "sizes": found,
        "growth": growth(small, large),
        "checks": checks,
        "checks_growth": checks_bench.growth(*(checks["sizes"][f] for f in sizes)),
        "load_average": os.getloadavg()[0],
    }


def _medians(rounds: list[dict[str, Any]]) -> dict[str, float]:
    """Median wall and CPU seconds and peak memory of whole-process runs."""
    return {key: statistics.median(r[key] for r in rounds) for key in ("seconds", "cpu", "peak_rss_mib")}


def growth(small: dict[str, Any], large: dict[str, Any]) -> dict[str, Any]:
    """Each figure at ``large`` over ``small``, and that over the switches' growth (1.0: linear).

    Example:
        >>> a = {"switches": 10, "seconds": 1.0, "cpu": 1.0, "peak_rss_mib": 50.0, "stages": {"render": 0.5}}
        >>> b = {"switches": 40, "seconds": 4.4, "cpu": 4.0, "peak_rss_mib": 150.0, "stages": {"render": 2.0}}
        >>> g = growth(a, b)
        >>> g["switches"], round(g["per_switch"]["seconds"], 2), g["per_switch"]["stages"]["render"]
        (4.0, 1.1, 1.0)
    """
    switches = large["switches"] / small["switches"]
    figures = {key: large[key] / small[key] for key in ("seconds", "cpu", "peak_rss_mib")}
    stages = {name: large["stages"][name] / small["stages"][name] for name in small["stages"] if small["stages"][name]}
    return {
        "switches": switches,
        **figures,
        "stages": stages,
        "per_switch": {
            **{key: value / switches for key, value in figures.items()},
            "stages": {name: value / switches for name, value in stages.items()},
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="Compile and checks at two sizes, and their growth; prints JSON.")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--check-runs", type=int, default=3)
    parser.add_argument("--sizes", default="16,64", help="two scale factors, the smaller first")
    args = parser.parse_args()
    small, large = (int(s) for s in args.sizes.split(","))
    print(json.dumps(measure(args.runs, (small, large), args.check_runs)))


if __name__ == "__main__":
    main()
