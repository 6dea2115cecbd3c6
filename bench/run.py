"""Every benchmark in one run, and ``bench/RESULTS.md`` written from it (``make bench``).

1. start: ``fabricops --help``, ``check`` and ``compile`` of the example as whole processes
   (medians of many runs), and where a compile's start goes (``bench/startup.py``);
2. per size (the example, and the design scaled 4x, 16x, 64x by ``bench/scale.py``):
   fabricops and pyavd side by side, each as a whole process started cold, medians of
   ``--runs`` (``bench/sidebyside.py``); the bare Jinja2 floor of the same files
   (``bench/floor.py``); and the in-process compile per stage (a warm interpreter: the figure
   earlier runs reported, kept under its own name);
3. incremental: one server row added to the example;
4. fleet: plan, deploy and drift over the lab of the chosen sizes, with the lab's share;
5. a cProfile of the largest compile, for where the time goes;
6. scaling: the whole compile and the checks at 16x and 64x, per switch (``bench/scaling.py``).

    python bench/run.py [--sizes 1,4,16] [--avd-sizes 1,4,16] [--fleet-sizes 1,16]
                        [--runs 5] [--pyavd-python PATH] [--out bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import checks as checks_bench
from bench import compare, fleet, floor, hotspots, incremental, machine, results, scaling, sidebyside
from bench import compile as compile_bench
from bench.scale import write_intent

BENCH = Path(__file__).resolve().parent


def _sizes(text: str) -> list[int]:
    return [int(s) for s in text.split(",") if s.strip()]


def _has_pyavd(python: str) -> str | None:
    """pyavd's version under ``python``, or None when it cannot be imported there."""
    probe = subprocess.run(
        [python, "-c", "import pyavd; print(pyavd.__version__)"], check=False, capture_output=True, text=True
    )
    return probe.stdout.strip() if probe.returncode == 0 else None


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _size(root: Path, factor: int, runs: int, pyavd_python: str | None) -> dict[str, Any]:
    """One size: both compilers as whole processes, the floor, and our compile in-process per stage."""
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    write_intent(factor, root / "intent")
    entry: dict[str, Any] = {"factor": factor, "load_at_start": _load()}
    print(f"[bench] {factor}x: side by side ({runs} runs each{'' if pyavd_python else ', no pyavd'})", file=sys.stderr)
    entry["sidebyside"] = sidebyside.compare(root, runs, pyavd_python)
    entry["floor"] = floor.both(root / "generated", runs)
    inprocess_runs = runs if factor < 64 else 1
    print(f"[bench] {factor}x: in-process compile ({inprocess_runs} runs)", file=sys.stderr, flush=True)
    entry["inprocess"] = compile_bench.in_fresh_process(root / "intent", root / "inprocess-generated", inprocess_runs)
    shutil.rmtree(root / "inprocess-generated", ignore_errors=True)
    entry["load_at_end"] = _load()
    return entry


def _sections(report: dict[str, Any]) -> set[str]:
    """The measured sections of a report, by name (for telling which ones a resume added)."""
    names = {f"{f}x" for f in report["sizes"]}
    names |= {f"{f}x fleet" for f in report.get("fleet", {})}
    names |= {k for k in ("startup", "incremental", "checks", "profile", "scaling") if k in report}
    return names


def _intent_at(scratch: Path, factor: int) -> Path:
    """The intent of ``factor`` in the scratch root (written when no size section made it)."""
    intent = scratch / f"x{factor}" / "intent"
    if not intent.is_dir():
        shutil.rmtree(intent.parent, ignore_errors=True)
        intent.parent.mkdir(parents=True)
        write_intent(factor, intent)
    return intent


def _load_report(path: Path) -> dict[str, Any]:
    """A saved report, its size keys back to numbers."""
    report: dict[str, Any] = json.loads(path.read_text())
    report["sizes"] = {int(k): v for k, v in report["sizes"].items()}
    report["fleet"] = {int(k): v for k, v in report.get("fleet", {}).items()}
    return report


def _run(args: argparse.Namespace, report: dict[str, Any], scratch: Path, raw: Path | None) -> None:
    """Every section the report lacks, saving after each one."""
    sizes, avd_sizes = _sizes(args.sizes), _sizes(args.avd_sizes)
    pyavd_version = report["pyavd"]["version"]
    if "startup" not in report:
        print("[bench] start-up", file=sys.stderr, flush=True)
        out = subprocess.run(
            [sys.executable, str(BENCH / "startup.py"), "--runs", str(args.startup_runs)],
            capture_output=True,
            text=True,
            check=True,
        )
        report["startup"] = {**json.loads(out.stdout), "load_at_start": _load()}
        _save(report, args.out, raw)
    for factor in sorted(sizes):
        if factor in report["sizes"]:
            continue
        avd = args.pyavd_python if factor in avd_sizes and pyavd_version else None
        report["sizes"][factor] = _size(scratch / f"x{factor}", factor, args.runs, avd)
        _save(report, args.out, raw)
    if "checks" not in report and _sizes(args.check_sizes):
        print(f"[bench] checks per rule at {args.check_sizes}", file=sys.stderr, flush=True)
        intents = {f: _intent_at(scratch, f) for f in _sizes(args.check_sizes)}
        report["checks"] = {**checks_bench.measure(intents, args.runs), "load_at_start": _load()}
        _save(report, args.out, raw)
        if len(intents) >= 2:
            print(checks_bench.table(report["checks"]), file=sys.stderr, flush=True)
    if "incremental" not in report:
        report["incremental"] = {}
        for factor in _sizes(args.incremental_sizes):
            print(f"[bench] incremental {factor}x", file=sys.stderr, flush=True)
            load = _load()
            report["incremental"][factor] = {**incremental.measure(args.runs, factor), "load_at_start": load}
            _save(report, args.out, raw)
    if "profile" not in report:
        profiled = args.profile_size if args.profile_size in report["sizes"] else max(sizes)
        print(f"[bench] profile {profiled}x", file=sys.stderr, flush=True)
        report["profile"] = hotspots.top(_intent_at(scratch, profiled), scratch / "profile-generated")
        shutil.rmtree(scratch / "profile-generated", ignore_errors=True)
    _save(report, args.out, raw)
    _scaling(args, report, raw)
    _fleet(args, report, scratch, raw)


def _scaling(args: argparse.Namespace, report: dict[str, Any], raw: Path | None) -> None:
    """The compile and the checks at two sizes (``--scaling-sizes``), unless the report has them."""
    if "scaling" in report or not _sizes(args.scaling_sizes):
        return
    small, large = _sizes(args.scaling_sizes)
    print(f"[bench] scaling {small}x to {large}x", file=sys.stderr, flush=True)
    load = _load()
    report["scaling"] = {**scaling.measure(args.big_runs, (small, large), args.big_runs), "load_at_start": load}
    _save(report, args.out, raw)


def _fleet(args: argparse.Namespace, report: dict[str, Any], scratch: Path, raw: Path | None) -> None:
    """Plan, deploy and drift over the lab at each of ``--fleet-sizes`` the report lacks."""
    for factor in _sizes(args.fleet_sizes):
        if factor in report["fleet"]:
            continue
        print(f"[bench] fleet {factor}x", file=sys.stderr, flush=True)
        root = _intent_at(scratch, factor).parent
        if not (root / "generated").is_dir():
            compile_cmd = [sys.executable, "-m", "fabricops", "compile", "--root", str(root)]
            subprocess.run(compile_cmd, check=True, capture_output=True)
        try:
            report["fleet"][factor] = fleet.run(root, args.workers, args.fleet_runs)
            report["fleet"][factor]["compare"] = compare.measure(root / "generated")
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
    parser.add_argument("--sizes", default="1,4,16", help="compile sizes (scale factors); 64 runs long")
    parser.add_argument("--avd-sizes", default="1,4,16", help="sizes pyavd compiles too (empty: skip pyavd)")
    parser.add_argument("--fleet-sizes", default=None, help="lab sizes for plan/deploy/drift (default 1,16; quick: 1)")
    parser.add_argument("--runs", type=int, default=5, help="whole-process runs per compiler and size (medians)")
    parser.add_argument("--fleet-runs", type=int, default=5, help="plan and drift runs over a fleet in sync")
    parser.add_argument("--startup-runs", type=int, default=20, help="runs of each start-up command")
    parser.add_argument("--pyavd-python", default=sys.executable, help="an interpreter that has pyavd")
    parser.add_argument("--workers", type=int, default=20, help="fleet workers")
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw results here")
    parser.add_argument("--keep", type=Path, default=None, help="keep the scratch roots here")
    parser.add_argument("--profile-size", type=int, default=16, help="the size profiled for where the time goes")
    parser.add_argument("--resume", type=Path, default=None, help="a --json of a cut-short run: do only what it lacks")
    parser.add_argument("--check-sizes", default="4,16", help="sizes whose checks are timed rule by rule")
    parser.add_argument("--incremental-sizes", default="1,16", help="sizes of the one-row incremental recompile")
    parser.add_argument("--big-runs", type=int, default=3, help="runs of the compile at the scaling sizes")
    parser.add_argument("--scaling-sizes", default="16,64", help="two sizes the compile is timed at per switch")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a run that fits a shared machine: sizes 1,4 side by side (pyavd too), 3 runs, the lab at 1x;"
        " checks at 4x and 16x, incremental at 1x and 16x, no scaling to 64x",
    )
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.avd_sizes = "1,4", "1,4"
        args.fleet_sizes = "1" if args.fleet_sizes is None else args.fleet_sizes
        args.runs, args.startup_runs, args.big_runs = 3, 10, 2
        args.profile_size = 4
        args.scaling_sizes = ""
    args.fleet_sizes = "1,16" if args.fleet_sizes is None else args.fleet_sizes
    report = _load_report(args.resume) if args.resume else None
    before = _sections(report) if report else set()
    if report is None:
        report = {"machine": machine.describe(), "sizes": {}, "fleet": {}, "started": time.time()}
        report["pyavd"] = {"python": args.pyavd_python, "version": None}
        report["mode"] = "quick" if args.quick else "full"
        if _sizes(args.avd_sizes):
            report["pyavd"]["version"] = _has_pyavd(args.pyavd_python)
    raw = args.json or args.resume
    _compile_bytecode()
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


PACKAGES = ("compiler", "core", "deploy", "drift", "fabricops", "lab", "review", "view")


def _compile_bytecode() -> None:
    """Byte-compile fabricops' own packages once, as an install does (pip compiled pyavd's).

    Where ``PYTHONDONTWRITEBYTECODE`` is set, an editable checkout never caches its bytecode:
    every whole-process run would compile fabricops' sources again and pyavd's not.
    """
    root = BENCH.parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", *PACKAGES], cwd=root, check=True)


if __name__ == "__main__":
    main()
