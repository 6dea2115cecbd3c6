"""``fabricops validate nccl``: real-format nccl-tests output, pass/fail at 70%, exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from core.errors import FabricopsError
from fabricops.commands.validate import parse_nccl, validate

SAMPLES = Path(__file__).resolve().parent.parent / "compiler" / "artifacts" / "fixtures" / "nccl"


def run(*args: str) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(validate, ["nccl", *args])
    return result.exit_code, result.output, result.exception


def test_parses_the_table_and_summary_lines() -> None:
    parsed = parse_nccl((SAMPLES / "pass-100g-2nodes.txt").read_text())
    assert (parsed.rows, parsed.largest_bytes, parsed.out_of_bounds) == (7, 8589934592, 0)
    assert parsed.avg_busbw == pytest.approx(10.9786) and parsed.peak_busbw == pytest.approx(11.16)


def test_a_good_run_passes() -> None:
    """10.98 GB/s of 12.5 (one 100G NIC) is 88%: above 70%."""
    code, output, _ = run(str(SAMPLES / "pass-100g-2nodes.txt"))
    assert code == 0, output
    assert "= 88% of 12.5 GB/s" in output and "PASS" in output


def test_the_same_run_fails_against_a_faster_link() -> None:
    """Against 400G the same numbers are 22%: exit 3 with what to check."""
    code, output, _ = run(str(SAMPLES / "pass-100g-2nodes.txt"), "--link-speed", "400g")
    assert code == 3
    assert "FAIL: below 70% (35 GB/s)" in output and "nvidia-smi topo -m" in output


def test_below_threshold_exits_3() -> None:
    code, output, _ = run(str(SAMPLES / "below-threshold-100g-10nodes.txt"))
    assert code == 3 and "FAIL: below 70% (8.75 GB/s)" in output


def test_out_of_bounds_values_fail_even_when_fast() -> None:
    code, output, _ = run(str(SAMPLES / "out-of-bounds-100g-2nodes.txt"))
    assert code == 3 and "FAIL: 12 out-of-bounds values" in output


def test_truncated_output_is_unparsable() -> None:
    """A run that crashed has no summary: one clear error, exit 1 (the CLI's error family)."""
    code, _, exception = run(str(SAMPLES / "truncated.txt"))
    assert code == 1 and isinstance(exception, FabricopsError)
    assert "Avg bus bandwidth" in str(exception)
