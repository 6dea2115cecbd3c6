"""Every benchmark in one run, and ``bench/RESULTS.md`` written from it (``make bench``).

1. compile: the example and the scaled intents, each size in a fresh process (stages, RSS);
   ``fabricops compile`` of the example as a whole process;
2. floor: a bare Jinja2 render + write of each size's config lines from ready dicts;
3. pyavd side by side: the same compute and storage fabrics through pyavd, in a subprocess
   of ``--pyavd-python`` (any interpreter with pyavd), right after ours at the same size;
4. incremental: one server row added to the example;
5. fleet: plan, deploy and drift over the lab of the chosen sizes;
6. a cProfile of the largest compile, for where the time goes.

    python bench/run.py [--sizes 1,4,16,64] [--avd-sizes 1,4,16] [--fleet-sizes 1,16]
                        [--runs 3] [--pyavd-python PATH] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import compile as compile_bench
from bench import fleet, floor, hotspots, incremental, machine, results
from bench.avd_inputs import avd_inputs
from bench.scale import scaled_intent

BENCH = Path(__file__).resolve().parent
EXAMPLE = BENCH.parent / "intent"


def _sizes(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s.strip()]


def _prepare(root: Path, factor: int) -> None:
    """``root/intent``: the example itself at 1x, else the scaled design."""
    if factor == 1:
        shutil.copytree(EXAMPLE, root / "intent")
    else:
        scaled_intent(factor, root / "intent")


def _has_pyavd(python: str) -> str | None:
    """pyavd's version under ``python``, or None when it cannot be imported there."""
    probe = subprocess.run(
        [python, "-c", "import pyavd; print(pyavd.__version__)"], check=False, capture_output=True, text=True
    )
    return probe.stdout.strip() if probe.returncode == 0 else None


def _pyavd(root: Path, python: str, runs: int) -> dict[str, Any]:
    """pyavd over the fabrics of ``root/intent``: the median run by total seconds, and its samples."""
    inputs = root / "avd-inputs.json"
    inputs.write_text(json.dumps(avd_inputs(root / "intent")))
    samples = []
    for _ in range(runs):
        out = subprocess.run(
            [python, str(BENCH / "avd_run.py"), str(inputs), "--out", str(root / "avd-configs")],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:]}
        samples.append(json.loads(out.stdout))
    samples.sort(key=lambda s: s["timings"]["total"])
    median = samples[len(samples) // 2]
    return {**median, "runs": runs, "samples": [s["timings"]["total"] for s in samples]}


def _size(root: Path, factor: int, runs: int, pyavd_python: str | None) -> dict[str, Any]:
    """One size: our compile in a fresh process, the floor, and pyavd right after when asked."""
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    _prepare(root, factor)
    compile_runs = runs if factor < 16 else max(1, runs - 1) if factor < 64 else 1
    entry: dict[str, Any] = {"factor": factor}
    print(f"[bench] {factor}x: compile ({compile_runs} runs)", file=sys.stderr, flush=True)
    entry["compile"] = compile_bench.in_fresh_process(root / "intent", root / "generated", compile_runs)
    entry["floor"] = floor.both(root / "generated", compile_runs)
    if factor == 1:
        entry["process_seconds"] = compile_bench.process_seconds(root, max(5, runs))
    if pyavd_python:
        avd_runs = runs if factor == 1 else 1
        print(f"[bench] {factor}x: pyavd ({avd_runs} runs)", file=sys.stderr, flush=True)
        entry["pyavd"] = _pyavd(root, pyavd_python, avd_runs)
    return entry


def _sections(report: dict[str, Any]) -> set[str]:
    """The measured sections of a report, by name (for telling which ones a resume added)."""
    names = {f"{f}x compile" for f in report["sizes"]}
    names |= {f"{f}x pyavd" for f, e in report["sizes"].items() if "pyavd" in e}
    names |= {f"{f}x fleet" for f in report.get("fleet", {})}
    names |= {k for k in ("incremental", "profile") if k in report}
    names |= {"startup" for e in report["sizes"].values() if "startup" in e}
    return names


def _load(path: Path) -> dict[str, Any]:
    """A saved report, its size keys back to numbers."""
    report: dict[str, Any] = json.loads(path.read_text())
    report["sizes"] = {int(k): v for k, v in report["sizes"].items()}
    report["fleet"] = {int(k): v for k, v in report.get("fleet", {}).items()}
    return report


def _run(args: argparse.Namespace, report: dict[str, Any], scratch: Path, raw: Path | None) -> None:
    """Every section the report lacks, saving after each one."""
    sizes, avd_sizes, fleet_sizes = _sizes(args.sizes), _sizes(args.avd_sizes), _sizes(args.fleet_sizes)
    pyavd_version = report["pyavd"]["version"]
    for factor in sorted(set(sizes) | set(avd_sizes) | set(fleet_sizes)):
        if factor in report["sizes"]:
            continue
        avd = args.pyavd_python if factor in avd_sizes and pyavd_version else None
        report["sizes"][factor] = _size(scratch / f"x{factor}", factor, args.runs, avd)
        _save(report, args.out, raw)
    for factor in avd_sizes:
        entry = report["sizes"][factor]
        if pyavd_version and "pyavd" not in entry:
            # A size whose own compile was measured before: pyavd now, marked as such.
            print(f"[bench] {factor}x: pyavd (resumed)", file=sys.stderr, flush=True)
            entry["pyavd"] = {**_pyavd(scratch / f"x{factor}", args.pyavd_python, 1), "resumed": True}
            _save(report, args.out, raw)
    one = report["sizes"].get(1)
    if one is not None and "startup" not in one:
        one["startup"] = compile_bench.startup_seconds(max(5, args.runs))
    if "incremental" not in report:
        print("[bench] incremental", file=sys.stderr, flush=True)
        report["incremental"] = incremental.measure(args.runs)
    if "profile" not in report:
        profiled = args.profile_size if args.profile_size in report["sizes"] else max(sizes)
        print(f"[bench] profile {profiled}x", file=sys.stderr, flush=True)
        report["profile"] = hotspots.top(scratch / f"x{profiled}" / "intent", scratch / "profile-generated")
    _save(report, args.out, raw)
    for factor in fleet_sizes:
        if factor in report["fleet"]:
            continue
        print(f"[bench] fleet {factor}x", file=sys.stderr, flush=True)
        try:
            report["fleet"][factor] = fleet.run(scratch / f"x{factor}", args.workers)
        except (subprocess.CalledProcessError, OSError) as exc:
            report["fleet"][factor] = {"error": str(exc)}
        _save(report, args.out, raw)


def _save(report: dict[str, Any], out: Path, raw: Path | None) -> None:
    """Write RESULTS.md (and the raw JSON) from what is measured so far: a long run that is cut
    short still leaves its finished sections."""
    report["seconds"] = time.time() - report["started"]
    if raw:
        raw.write_text(json.dumps(report, indent=1, default=str))
    out.write_text(results.markdown(report))


def main() -> None:
    parser = argparse.ArgumentParser(description="Run every benchmark and write RESULTS.md.")
    parser.add_argument("--sizes", default="1,4,16,64", help="compile sizes (scale factors)")
    parser.add_argument("--avd-sizes", default="1,4", help="pyavd sizes (empty: skip pyavd)")
    parser.add_argument("--fleet-sizes", default="1,16", help="lab sizes for plan/deploy/drift (empty: skip)")
    parser.add_argument("--runs", type=int, default=3, help="runs per measurement (16x: one less; 64x, pyavd > 1x: 1)")
    parser.add_argument("--pyavd-python", default=sys.executable, help="an interpreter that has pyavd")
    parser.add_argument("--workers", type=int, default=20, help="fleet workers")
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw results here")
    parser.add_argument("--keep", type=Path, default=None, help="keep the scratch roots here")
    parser.add_argument("--profile-size", type=int, default=16, help="the size profiled for where the time goes")
    parser.add_argument("--resume", type=Path, default=None, help="a --json of a cut-short run: do only what it lacks")
    args = parser.parse_args()
    report = _load(args.resume) if args.resume else None
    before = _sections(report) if report else set()
    if report is None:
        report = {"machine": machine.describe(), "sizes": {}, "fleet": {}, "started": time.time()}
        report["pyavd"] = {"python": args.pyavd_python, "version": None}
        if _sizes(args.avd_sizes):
            report["pyavd"]["version"] = _has_pyavd(args.pyavd_python)
    raw = args.json or args.resume
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="fabricops-bench-"))
    try:
        _run(args, report, scratch, raw)
    finally:
        if args.resume:
            report["resumed"] = sorted(set(report.get("resumed", [])) | (_sections(report) - before))
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    _save(report, args.out, raw)
    print(results.headline(report))
    print(f"[bench] wrote {args.out} in {report['seconds']:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
