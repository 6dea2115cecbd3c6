"""``fabricops drift --compare INTENDED LIVE``: the audit's comparison, offline, on two files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.secrets import lab_secret, placeholders
from lab import DeviceSpec, Lab
from tests.captures import CAPTURES_DIR
from tests.drift.test_drift_lab import fabricops

REPO = Path(__file__).resolve().parents[2]
CAPTURE = CAPTURES_DIR / "4.33.0F_cEOSLab_leaf-mlag-evpn_11.cfg"
DEVICE = "rack01-leaf-a"


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """git's config of a leaf, and what a 4.33.0F switch running it prints (its secrets resolved)."""
    intended = REPO / "generated" / "configs" / f"{DEVICE}.cfg"
    config = intended.read_text()
    for name in placeholders(config):
        value = lab_secret(name, "pw")
        monkeypatch.setenv(f"FABRICOPS_SECRET_{name.upper()}", value)
        config = config.replace(f"<secret:{name}>", value)
    live = tmp_path / "live.cfg"
    live.write_text(Lab([DeviceSpec(DEVICE, config, eos_version="4.33.0F")]).device(DEVICE).running_config())
    return intended, live


def test_a_switch_of_another_release_is_in_sync_by_its_header(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = fabricops(capsys, "drift", "--compare", *map(str, files))
    assert (code, out.splitlines()[-1]) == (0, "in sync"), out
    assert "as EOS 4.33.0F" in out


def test_a_named_release_decides_which_lines_are_defaults(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Told the switch runs 4.27, the three blocks 4.33 prints by itself are differences."""
    code, out, _ = fabricops(capsys, "drift", "--compare", *map(str, files), "--eos-version", "4.27.1F")
    assert code == 3
    assert sorted(line.strip() for line in out.splitlines() if "added" in line) == [
        "(top level): added 'no service interface inactive port-id allocation disabled'",
        "(top level): added 'router multicast'",
        "(top level): added 'system l1'",
    ]


def test_an_edit_is_found_and_no_secret_is_printed(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    intended, live = files
    text = live.read_text()
    live.write_text(text.replace("secret sha512 $6$", "secret sha512 $6$other").replace("\nhostname ", "\nhostname x"))
    code, out, _ = fabricops(capsys, "drift", "--compare", str(intended), str(live), "--format", "json")
    report = json.loads(out)
    assert code == 3
    assert sorted(c["kind"] for c in report["changes"]) == ["changed", "secret"]
    assert "$6$" not in out


def test_a_capture_compared_with_itself_as_the_installed_command_exits_0() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fabricops", "drift", "--compare", str(CAPTURE), str(CAPTURE)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout.splitlines()[-1]) == (0, "in sync"), result.stderr
    assert "$1$" not in result.stdout


@pytest.mark.parametrize(
    "extra",
    [["--lab"], ["--ref", "HEAD"], ["--devices", DEVICE]],
)
def test_compare_with_audit_options_is_a_usage_error(extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = fabricops(capsys, "drift", "--compare", str(CAPTURE), str(CAPTURE), *extra)
    assert code == 2
    assert "--compare compares two files" in err


def test_a_release_without_compare_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = fabricops(capsys, "drift", "--eos-version", "4.33.0F")
    assert code == 2
    assert "--eos-version goes with --compare" in err
