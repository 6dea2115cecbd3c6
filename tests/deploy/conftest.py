"""Fixtures for the deploy tests: one git repo and one lab per module, driven through the real CLI.

The example's 53 switches start at factory default and are deployed once (the first test of a
module that uses :func:`deployed` pays for it); later tests change one or two devices and put
them back, so the whole module stays well under the time of one full deploy per test.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lab import Lab
from tests.conftest import git, make_repo, seal, start_factory_lab


@dataclass
class Ran:
    """One CLI invocation: exit code and both streams."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


Fabricops = Callable[..., Ran]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, compiled_example: Path) -> Path:
    """A git repository on ``main``: the example intent and generated/, one commit."""
    return make_repo(tmp_path_factory.mktemp("deploy") / "repo", compiled_example, ".lab/\n/plan.json\n")


@pytest.fixture(scope="module")
def lab(repo: Path) -> Iterator[Lab]:
    """The example's switches at factory default, found through ``.lab/lab.json`` like a real lab."""
    emulated = start_factory_lab(repo)
    try:
        yield emulated
    finally:
        emulated.stop()


@pytest.fixture(scope="module")
def cli(repo: Path) -> Fabricops:
    """``fabricops ARGS --root REPO`` through ``fabricops.cli.main``, in process.

    In process because the lab lives in this process; the CLI still reaches it only over HTTP
    on 127.0.0.1, through Nornir and the stock NAPALM driver.
    """
    return lambda *args: run_fabricops(repo, *args)


def run_fabricops(repo: Path, *args: str) -> Ran:
    """``fabricops ARGS --root REPO`` through ``fabricops.cli.main`` in process: code and streams."""
    import contextlib
    import io

    from fabricops.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([*args, "--root", str(repo)])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return Ran(code, out.getvalue(), err.getvalue())


#: Fast settings for the lab: no post-check retries, big waves, and a commit timer long enough
#: for a wave of 20 emulated switches served by one process (a shorter one expires mid-wave).
FAST = ("--lab", "--revert-in", "15", "--settle", "0", "--batch", "20", "--workers", "20")


@pytest.fixture(scope="module")
def full_deploy(repo: Path, lab: Lab, cli: Fabricops) -> Ran:
    """The whole example deployed once from factory default."""
    result = cli("deploy", *FAST, "--format", "json")
    assert result.code == 0, result.err
    return result


@pytest.fixture
def deployed(full_deploy: Ran, repo: Path, lab: Lab, cli: Fabricops) -> Iterator[Lab]:
    """The lab in sync with HEAD; afterwards faults are cleared, generated/ is put back as it
    was (a new commit, as a revert would be) and the devices the test changed are re-deployed."""
    start = git(repo, "rev-parse", "HEAD").strip()
    yield lab
    for name in lab.devices:
        lab.clear_faults(name)
    touched = git(repo, "log", "--name-only", "--format=", f"{start}..HEAD", "--", "generated/configs")
    devices = sorted({Path(line).stem for line in touched.split()})
    git(repo, "checkout", start, "--", "generated")
    if git(repo, "status", "--porcelain", "--", "generated").strip():
        git(repo, "commit", "-q", "-m", "back to the state before the test")
    if devices:
        settle = cli("deploy", *FAST, "--devices", ",".join(devices))
        assert settle.code == 0, settle.out + settle.err


def commit_change(repo: Path, device: str, old: str, new: str, message: str) -> str:
    """Edit one generated config on main and commit it, as a merged pull request would; the sha."""
    path = repo / "generated" / "configs" / f"{device}.cfg"
    text = path.read_text()
    assert old in text, f"{old!r} not in {device}.cfg"
    path.write_text(text.replace(old, new, 1))
    seal(repo)
    git(repo, "commit", "-q", "-am", message)
    return git(repo, "rev-parse", "HEAD").strip()
