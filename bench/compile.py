"""Compile benchmark of one intent, meant to run in a fresh process per size.

A fresh process per size keeps the peak RSS that size's own. Prints one JSON object:
devices, servers, config lines, files written, median seconds per stage over ``--runs``
full compiles with a write (load, resolve, checks, render, write, total), seconds per
device and the peak RSS of the process.

    python bench/compile.py --intent DIR --out DIR [--runs 3]

``process_seconds`` times ``fabricops compile`` as a whole process (imports included).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

STAGES = ("load", "resolve", "checks", "render", "write")


def measure(intent_dir: Path, generated: Path, runs: int) -> dict[str, Any]:
    """Median seconds per stage (and total) over ``runs`` full compiles, each written to ``generated``."""
    from compiler.pipeline import compile_intent, write_generated

    samples: dict[str, list[float]] = {s: [] for s in (*STAGES, "total", "cpu")}
    facts: dict[str, Any] = {}
    for _ in range(runs):
        start, cpu = time.perf_counter(), time.process_time()
        result = compile_intent(intent_dir, fork=False)  # the checks in this process, counted in it
        write_generated(result, generated)
        samples["total"].append(time.perf_counter() - start)
        # CPU seconds beside the wall seconds: on a shared machine the gap is time spent waiting.
        samples["cpu"].append(time.process_time() - cpu)
        for stage in STAGES:
            samples[stage].append(result.timings.get(stage, 0.0))
        facts = {
            "devices": len(result.fabric.devices),
            "servers": len(result.fabric.servers),
            "lines": result.config_lines,
            "files": len(result.files),
            "configs": sum(1 for path in result.files if path.startswith("configs/")),
        }
        del result  # the next run must not hold two fabrics at once
    seconds = {k: statistics.median(v) for k, v in samples.items()}
    return {
        **facts,
        # The first run writes into an empty directory; later ones find the same tree in place.
        "first": {k: v[0] for k, v in samples.items()},
        "runs": runs,
        "seconds": seconds,
        "samples": samples["total"],
        "per_device": seconds["total"] / facts["devices"],
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def process_seconds(root: Path, runs: int, python: str = sys.executable) -> float:
    """Median wall time of ``fabricops compile --root ROOT`` as a whole process (imports included)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([python, "-m", "fabricops", "compile", "--root", str(root)], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


STARTUP = {
    "interpreter (python -c pass)": "pass",
    "import compiler.pipeline": "import compiler.pipeline",
    "import fabricops.cli (verbs load lazily)": "import fabricops.cli",
}
"""What a whole-process compile pays before its first stage: the interpreter, then the imports."""


def startup_seconds(runs: int, python: str = sys.executable) -> dict[str, float]:
    """Median wall seconds of each :data:`STARTUP` snippet as a whole process."""
    out = {}
    for name, code in STARTUP.items():
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            subprocess.run([python, "-c", code], check=True, capture_output=True)
            times.append(time.perf_counter() - start)
        out[name] = statistics.median(times)
    return out


def in_fresh_process(intent_dir: Path, generated: Path, runs: int, python: str = sys.executable) -> dict[str, Any]:
    """Run :func:`measure` in a new interpreter started by ``bench/launch.py`` and return its JSON.

    The peak RSS is the one the launcher reads for that process alone (see ``bench/launch.py``).
    """
    from bench.launch import measured

    script = str(Path(__file__).resolve())
    log = generated.parent / f"compile-{generated.name}.log"
    cmd = [python, script, "--intent", str(intent_dir), "--out", str(generated), "--runs", str(runs)]
    run = measured(cmd, generated.parent, log)
    if run["rc"] != 0:
        raise RuntimeError(f"compile of {intent_dir} failed: see {log}")
    result: dict[str, Any] = json.loads(log.read_text().strip().splitlines()[-1])
    result["peak_rss_mib"] = run["peak_rss_mib"]
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description="Compile one intent, timed per stage; prints JSON.")
    parser.add_argument("--intent", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True, help="the generated/ directory to write")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(measure(args.intent, args.out, args.runs)))


if __name__ == "__main__":
    main()
