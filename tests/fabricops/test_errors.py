"""Errors read once: ours in one line each, a bug in one line, tracebacks and library logs only with -v."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from core.masking import MaskingFilter
from fabricops import cli
from tests.conftest import clone_repo, run_cli


def fabricops(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real entry point in a fresh process, as a user or CI runs it."""
    return subprocess.run(
        [sys.executable, "-m", "fabricops", *args], cwd=cwd, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, example_repo: Path) -> Path:
    """A clone of the example, shared by the module: every verb here fails or only reads."""
    return clone_repo(example_repo, tmp_path_factory.mktemp("errors") / "repo")


@pytest.fixture
def in_repo(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The verbs run in the repository's root, as a user runs them (``run_cli``: in process)."""
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize(
    "args",
    [
        ("diff", "--base", "no-such-ref"),
        ("plan", "--ref", "no-such-ref"),
        ("rollback", "--to", "deploy/no-such-tag", "--dry-run"),
        ("drift", "--ref", "no-such-ref"),
    ],
)
def test_a_bad_ref_is_one_line_naming_it_and_what_exists(in_repo: Path, args: tuple[str, ...]) -> None:
    ran = run_cli(*args)
    bad = args[2]
    assert ran.code == 1
    assert ran.err == (
        f"Error: unknown git ref {bad!r}: not a branch, tag or commit here (branches: main; deploy tags: none)\n"
    )


def test_status_and_history_before_any_deploy(in_repo: Path) -> None:
    """status in a fresh process (its exit code and output as a shell sees them), the others in process."""
    status = fabricops("status", "--devices", "spine01", cwd=in_repo)
    assert status.returncode == 3, "never deployed: a difference"
    assert "spine01" in status.stdout and "never deployed" in status.stdout
    assert status.stderr == ""
    history = run_cli("history")
    assert (history.code, history.out) == (0, "no deploys on record (branch fabricops-state)\n")
    assert run_cli("lock", "status").out == "the fleet lock is free\n"


def test_a_bug_is_one_line_and_its_traceback_only_with_v(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Anything that is not a FabricopsError is a bug: said so in one line; -v shows where."""

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli.cli, "main", broken)
    with pytest.raises(SystemExit) as quiet:
        cli.main(["status"])
    err = capsys.readouterr().err
    assert quiet.value.code == 1 and "Traceback" not in err
    assert err == (
        "Error: a bug in fabricops: RuntimeError: a bug (run again with -v for the traceback, and please report it)\n"
    )
    with pytest.raises(SystemExit):
        cli.main(["-v", "status"])
    loud = capsys.readouterr().err
    assert "Traceback (most recent call last)" in loud and "please report it with the traceback above" in loud


def test_library_loggers_are_silent_unless_verbose() -> None:
    """Nornir logs each failed task with its traceback at ERROR: without -v nothing of it is printed."""
    cli.configure_logging(verbose=False)
    for name in ("nornir", "napalm", "pyeapi", "urllib3"):
        assert not logging.getLogger(name).isEnabledFor(logging.ERROR), name
    assert any(isinstance(h, logging.NullHandler) for h in logging.getLogger().handlers)


def test_the_handler_of_v_masks_too() -> None:
    """With -v, library records are printed by the handler it sets up: each is masked by the run's key."""
    root = logging.getLogger()
    before = root.handlers[:]
    try:
        cli.configure_logging(verbose=True, key=b"k")
        assert root.handlers and all(any(isinstance(f, MaskingFilter) for f in h.filters) for h in root.handlers)
    finally:
        root.handlers[:] = before
