"""A lab that runs what git says: every generated config pushed through NAPALM, then tagged.

``fleet`` is the session lab (``tests/conftest.py``) running generated/ at HEAD of one git
repository of the compiled example, whose HEAD is tagged ``deploy/20260101T000000Z`` as a
deploy would tag it. The push is the stock driver's load_replace + commit
(:func:`tests.conftest.push_generated`), done once per session; every test starts from that
state again, restored in milliseconds, so a test may tamper with any device.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import SessionLab, clone_repo, git, push_generated, write_lab_json

if TYPE_CHECKING:
    from lab import Lab

__all__ = ["DEPLOY_TAG", "push_generated", "write_lab_json"]

DEPLOY_TAG = "deploy/20260101T000000Z"


@pytest.fixture(scope="session")
def drift_repo(tmp_path_factory: pytest.TempPathFactory, example_repo: Path) -> Path:
    """A git repository of the example whose HEAD is tagged as the last deploy."""
    root = clone_repo(example_repo, tmp_path_factory.mktemp("drift") / "repo")
    git(root, "tag", "-a", DEPLOY_TAG, "-m", "deploy of the example cluster")
    return root


@pytest.fixture
def fleet(drift_repo: Path, session_lab: SessionLab) -> tuple[Path, Lab]:
    """(repository, lab): the example lab running generated/ at HEAD, HEAD tagged as the last deploy."""
    return drift_repo, session_lab.synced(drift_repo)


@pytest.fixture
def restore(fleet: tuple[Path, Lab], session_lab: SessionLab) -> Iterator[Callable[[str], None]]:
    """``restore(device)``: after the test the device runs git's config again, with no faults or
    counters (``fleet`` would restore it before the next test anyway; this keeps it tidy)."""
    root, _ = fleet
    touched: list[str] = []
    yield touched.append
    if touched:
        session_lab.synced(root)
