"""``fabricops validate nccl``: real-format nccl-tests output, pass/fail at 70%, exit codes."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from fabricops.cli import main

SAMPLES = Path(__file__).resolve().parent.parent / "compiler" / "artifacts" / "fixtures" / "nccl"


def run(*args: str) -> tuple[int, str, str]:
    """``fabricops validate nccl ARGS`` through the CLI's entry point, in process: code, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["validate", "nccl", *args])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def test_a_good_run_passes() -> None:
    """10.98 GB/s of 12.5 (one 100G NIC) is 88%: above 70%."""
    code, output, _ = run(str(SAMPLES / "pass-100g-2nodes.txt"))
    assert code == 0, output
    assert "= 88% of 12.5 GB/s" in output and "PASS" in output


def test_the_same_run_fails_against_a_faster_link() -> None:
    """Against 400G the same numbers are 22%: exit 3 with what to check."""
    code, output, error = run(str(SAMPLES / "pass-100g-2nodes.txt"), "--link-speed", "400g")
    assert code == 3 and "does not pass for 1 x 400g" in error
    assert "FAIL: below 70% (35 GB/s)" in output and "nvidia-smi topo -m" in output


def test_below_threshold_exits_3() -> None:
    code, output, _ = run(str(SAMPLES / "below-threshold-100g-10nodes.txt"))
    assert code == 3 and "FAIL: below 70% (8.75 GB/s)" in output


def test_out_of_bounds_values_fail_even_when_fast() -> None:
    code, output, _ = run(str(SAMPLES / "out-of-bounds-100g-2nodes.txt"))
    assert code == 3 and "FAIL: 12 out-of-bounds values" in output


def test_truncated_output_is_unparsable() -> None:
    """A run that crashed has no summary: one clear error, exit 1 (the CLI's error family)."""
    code, _, error = run(str(SAMPLES / "truncated.txt"))
    assert code == 1 and error.startswith("Error: no '# Avg bus bandwidth' line")
    assert "Avg bus bandwidth" in error and "Traceback" not in error


@pytest.mark.parametrize(
    ("sample", "code", "verdict"),
    [
        ("pass-100g-2nodes.txt", 0, "PASS: at or above 70% (8.75 GB/s)"),
        ("below-threshold-100g-10nodes.txt", 3, "FAIL: below 70% (8.75 GB/s)"),
        ("truncated.txt", 1, ""),
    ],
)
def test_the_installed_command_exits_with_the_verdict(sample: str, code: int, verdict: str) -> None:
    """The console script as run.sh and CI run it: 0 pass, 3 below the bar, 1 unparsable."""
    fabricops = Path(sys.executable).with_name("fabricops")
    proc = subprocess.run(
        [str(fabricops), "validate", "nccl", str(SAMPLES / sample)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert verdict in proc.stdout
    assert "Traceback" not in proc.stderr
    if code:  # an unparsable file is an error; a result below the bar is a result (exit 3)
        assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("Error: ") == (code == 1)
