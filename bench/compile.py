"""Compile benchmark: the example and the same design scaled 4x and 16x (64x with --big).

Prints per size: devices, config lines, median seconds per stage over several runs, peak RSS,
and seconds per device. Wall time of the whole ``fabricops compile`` process is measured too.

    python bench/compile.py [--runs 5] [--big]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.scale import scaled_intent
from compiler.pipeline import compile_intent, write_generated

STAGES = ("load", "resolve", "checks", "render", "write")


def measure(intent_dir: Path, runs: int) -> dict[str, float]:
    """Median seconds per stage (and total) over ``runs`` full compiles with a write."""
    samples: dict[str, list[float]] = {s: [] for s in (*STAGES, "total")}
    devices = lines = 0
    with tempfile.TemporaryDirectory() as out:
        for _ in range(runs):
            start = time.perf_counter()
            result = compile_intent(intent_dir)
            write_generated(result, Path(out) / "generated")
            samples["total"].append(time.perf_counter() - start)
            for stage in STAGES:
                samples[stage].append(result.timings.get(stage, 0.0))
            devices, lines = len(result.fabric.devices), result.config_lines
    medians = {k: statistics.median(v) for k, v in samples.items()}
    medians["devices"], medians["lines"] = devices, lines
    return medians


def process_seconds(root: Path, runs: int) -> float:
    """Median wall time of ``fabricops compile`` as a whole process (imports included)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "fabricops", "compile", "--root", str(root)], check=True, capture_output=True
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--big", action="store_true", help="also 64x")
    args = parser.parse_args()
    factors = [1, 4, 16, *([64] if args.big else [])]
    print(
        f"{'size':>5} {'devices':>7} {'lines':>9} "
        + " ".join(f"{s:>8}" for s in (*STAGES, "total"))
        + f" {'s/device':>9} {'process':>8}"
    )
    base_total = None
    with tempfile.TemporaryDirectory() as tmp:
        for factor in factors:
            root = Path(tmp) / f"x{factor}"
            scaled_intent(factor, root / "intent") if factor > 1 else _copy_example(root)
            m = measure(root / "intent", args.runs if factor < 16 else max(1, args.runs // 2))
            proc = process_seconds(root, 3 if factor < 16 else 1)
            base_total = base_total or m["total"]
            print(
                f"{factor:>4}x {int(m['devices']):>7} {int(m['lines']):>9} "
                + " ".join(f"{m[s]:>8.3f}" for s in (*STAGES, "total"))
                + f" {m['total'] / m['devices']:>9.5f} {proc:>8.3f}"
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MiB (medians of {args.runs} runs; 16x and up: half as many)")


def _copy_example(root: Path) -> None:
    import shutil

    shutil.copytree(Path(__file__).resolve().parent.parent / "intent", root / "intent")


if __name__ == "__main__":
    main()
