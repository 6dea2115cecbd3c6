"""Fixtures for the deploy tests: one git repo per module and the session lab, driven through the real CLI.

``deployed`` starts each test with the session lab running generated/ at HEAD (restored in
milliseconds, see ``tests/conftest.py``); the test changes a device or two and may leave the
lab as it likes. ``full_deploy`` deploys all 55 switches from factory default once per module:
the tests that need it are in the e2e tier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lab import Lab
from tests.conftest import Ran, SessionLab, clone_repo, git, run_fabricops, seal

Fabricops = Callable[..., Ran]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, example_repo: Path) -> Path:
    """A git repository on ``main``: the example intent and generated/, one commit."""
    return clone_repo(example_repo, tmp_path_factory.mktemp("deploy") / "repo")


@pytest.fixture
def lab(session_lab: SessionLab) -> Lab:
    """The session lab, in the state ``full_deploy`` or ``deployed`` put it in."""
    return session_lab.lab


@pytest.fixture(scope="module")
def cli(repo: Path) -> Fabricops:
    """``fabricops ARGS --root REPO`` through ``fabricops.cli.main``, in process.

    In process because the lab lives in this process; the CLI still reaches it only over HTTP
    on 127.0.0.1, through Nornir and the stock NAPALM driver.
    """
    return lambda *args: run_fabricops(repo, *args)


#: Fast settings for the lab: no post-check retries, big waves, and a commit timer long enough
#: for a wave of 20 emulated switches served by one process (a shorter one expires mid-wave).
FAST = ("--lab", "--revert-in", "15", "--settle", "0", "--batch", "20", "--workers", "20")


@pytest.fixture(scope="module")
def full_deploy(repo: Path, session_lab: SessionLab, cli: Fabricops) -> Ran:
    """The whole example deployed once from factory default (seconds: for e2e tests)."""
    session_lab.factory(repo)
    result = cli("deploy", *FAST, "--format", "json")
    assert result.code == 0, result.err
    return result


@pytest.fixture
def deployed(repo: Path, session_lab: SessionLab) -> Iterator[Lab]:
    """The lab in sync with HEAD; afterwards generated/ is put back as it was (a new commit, as
    a revert would be), so that the next test starts from the same HEAD."""
    start = git(repo, "rev-parse", "HEAD").strip()
    yield session_lab.synced(repo)
    git(repo, "checkout", start, "--", "generated")
    if git(repo, "status", "--porcelain", "--", "generated").strip():
        git(repo, "commit", "-q", "-m", "back to the state before the test")


def commit_change(repo: Path, device: str, old: str, new: str, message: str) -> str:
    """Edit one generated config on main and commit it, as a merged pull request would; the sha."""
    path = repo / "generated" / "configs" / f"{device}.cfg"
    text = path.read_text()
    assert old in text, f"{old!r} not in {device}.cfg"
    path.write_text(text.replace(old, new, 1))
    seal(repo)
    git(repo, "commit", "-q", "-am", message)
    return git(repo, "rev-parse", "HEAD").strip()
