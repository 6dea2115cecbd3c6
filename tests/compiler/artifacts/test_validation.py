"""The NCCL judge and the generated run.sh: parsed results, and a rollout that stops at its first failure."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from compiler.artifacts.validation import judge_nccl, parse_nccl

SAMPLES = Path(__file__).parent / "fixtures" / "nccl"

#: Stands in for ``mpirun``: runs the command after the options, with NP set to ``-np``.
FAKE_MPIRUN = """#!/bin/bash
while [ "$1" != all_reduce_perf ]; do
    if [ "$1" = -np ]; then export NP=$2; fi
    shift
done
exec "$@"
"""

#: Stands in for ``all_reduce_perf``: prints the canned output for NP ranks.
FAKE_ALL_REDUCE = """#!/bin/bash
cat "$FAKE_RESULTS/$NP.txt"
"""


def test_parses_the_table_and_summary_lines() -> None:
    parsed = parse_nccl((SAMPLES / "pass-100g-2nodes.txt").read_text())
    assert (parsed.rows, parsed.largest_bytes, parsed.out_of_bounds) == (7, 8589934592, 0)
    assert parsed.avg_busbw == pytest.approx(10.9786) and parsed.peak_busbw == pytest.approx(11.16)


def test_judge_names_every_failure() -> None:
    corrupted = parse_nccl((SAMPLES / "out-of-bounds-100g-2nodes.txt").read_text())
    verdict = judge_nccl(corrupted, "400g", 1)
    assert not verdict.passed and verdict.theory == 50.0 and verdict.threshold == pytest.approx(35.0)
    assert [f.split(":")[0] for f in verdict.failures] == ["12 out-of-bounds values", "below 70% (35 GB/s)"]
    assert judge_nccl(parse_nccl((SAMPLES / "pass-100g-2nodes.txt").read_text()), "100g", 1).passed


def rollout(compiled_example: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """generated/validation/nccl/ copied to a scratch directory, and a PATH whose mpirun and
    all_reduce_perf are fakes; ``fabricops`` is the installed console script."""
    work = tmp_path / "nccl"
    shutil.copytree(compiled_example / "generated" / "validation" / "nccl", work)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("mpirun", FAKE_MPIRUN), ("all_reduce_perf", FAKE_ALL_REDUCE)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    results = tmp_path / "results"
    results.mkdir()
    path = os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return work, {**os.environ, "PATH": path, "FAKE_RESULTS": str(results)}


def test_run_sh_stops_at_the_first_failing_stage_and_names_it(compiled_example: Path, tmp_path: Path) -> None:
    """Stage 002 passes, stage 010 is below the bar: the script stops there with validate's exit 3."""
    work, env = rollout(compiled_example, tmp_path)
    results = Path(env["FAKE_RESULTS"])
    shutil.copy(SAMPLES / "pass-100g-2nodes.txt", results / "2.txt")
    shutil.copy(SAMPLES / "below-threshold-100g-10nodes.txt", results / "10.txt")

    proc = subprocess.run(["bash", "run.sh"], cwd=work, env=env, capture_output=True, text=True, check=False)

    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "PASS" in proc.stdout.split("== stage 010")[0], "stage 002 ran and passed"
    assert "FAIL: below 70% (8.75 GB/s)" in proc.stdout
    assert proc.stderr.splitlines()[-1] == (
        "run.sh: step 'stage 010: fabricops validate nccl' failed (exit 3); the later stages did not run"
    )
    assert "stage 050" not in proc.stdout and not (work / "result-050.txt").exists()
    assert (work / "result-010.txt").read_text() == (results / "10.txt").read_text()


def test_run_sh_names_a_step_that_cannot_run(compiled_example: Path, tmp_path: Path) -> None:
    """all_reduce_perf crashing mid-run (no output for 10 ranks) is caught despite the pipe into tee."""
    work, env = rollout(compiled_example, tmp_path)
    shutil.copy(SAMPLES / "pass-100g-2nodes.txt", Path(env["FAKE_RESULTS"]) / "2.txt")

    proc = subprocess.run(["bash", "run.sh"], cwd=work, env=env, capture_output=True, text=True, check=False)

    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "run.sh: step 'stage 010: all_reduce_perf' failed (exit 1)" in proc.stderr
    assert "stage 010: fabricops validate nccl" not in proc.stdout
