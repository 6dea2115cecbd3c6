"""Fixtures shared by every test package."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from lab import Lab

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_INTENT = REPO / "intent"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A scratch project root holding a copy of the example intent/."""
    shutil.copytree(EXAMPLE_INTENT, tmp_path / "intent")
    return tmp_path


@pytest.fixture
def edit(project: Path) -> Callable[[str, str, str], None]:
    """Replace text in one intent file of the scratch project; fails if the text is absent."""

    def replace(filename: str, old: str, new: str) -> None:
        path = project / "intent" / filename
        text = path.read_text()
        assert old in text, f"{old!r} not in {filename}"
        path.write_text(text.replace(old, new, 1))

    return replace


@pytest.fixture(scope="session")
def compiled_example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example intent and its compiled generated/, built once per test session."""
    from compiler.pipeline import compile_intent, write_generated

    root = tmp_path_factory.mktemp("compiled-example")
    shutil.copytree(EXAMPLE_INTENT, root / "intent")
    write_generated(compile_intent(root / "intent"), root / "generated")
    return root


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` and return its output (tests only)."""
    import subprocess

    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def gitops_repo(tmp_path: Path, compiled_example: Path) -> Path:
    """A git repository on branch main: the example intent and generated/, one commit."""
    root = tmp_path / "repo"
    shutil.copytree(compiled_example, root)
    (root / ".gitignore").write_text(".lab/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@fabricops.invalid")
    git(root, "config", "user.name", "fabricops tests")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "example cluster")
    return root


@pytest.fixture
def lab_running(gitops_repo: Path) -> Iterator[Lab]:
    """The example's switches emulated in-process at factory default, reachable via .lab/lab.json.

    Deploy and drift find it exactly as they find a lab started by ``fabricops lab up``.
    """
    import json
    import os

    from core.generated import open_snapshot
    from lab import Lab, specs_from_snapshot

    specs, links = specs_from_snapshot(open_snapshot(gitops_repo, "HEAD"), empty=True)
    lab = Lab(specs, links, username="admin", password="lab-password")
    lab.start()
    info = {
        "pid": os.getpid(),
        "username": lab.username,
        "password": lab.password,
        "devices": {name: {"host": host, "port": port} for name, (host, port) in lab.endpoints().items()},
    }
    (gitops_repo / ".lab").mkdir(exist_ok=True)
    (gitops_repo / ".lab" / "lab.json").write_text(json.dumps(info))
    try:
        yield lab
    finally:
        lab.stop()
