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


def make_repo(root: Path, compiled_example: Path, ignore: str = ".lab/\n") -> Path:
    """A git repository at ``root`` on branch main: the example intent and generated/, one commit."""
    shutil.copytree(compiled_example, root)
    (root / ".gitignore").write_text(ignore)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@fabricops.invalid")
    git(root, "config", "user.name", "fabricops tests")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "example cluster")
    return root


def seal(root: Path) -> None:
    """Rewrite generated/MANIFEST.json for the files as they are: a hand edit that deploy accepts.

    Deploy refuses a generated/ that its manifest does not describe; tests that change a
    generated config directly (to stage a one-line change fast) seal it as a compile would.
    """
    import json

    from core.generated import MANIFEST, manifest_bytes

    base = root / "generated"
    digest = json.loads((base / MANIFEST).read_text())["intent_digest"]
    files = {p.relative_to(base).as_posix(): p.read_bytes() for p in base.rglob("*") if p.is_file()}
    (base / MANIFEST).write_bytes(manifest_bytes(files, digest))


def write_lab_json(root: Path, lab: Lab, extra: dict[str, tuple[str, int]] | None = None) -> None:
    """``.lab/lab.json`` as ``fabricops lab up`` writes it (``extra``: devices git does not know)."""
    import json
    import os

    endpoints = {**lab.endpoints(), **(extra or {})}
    info = {
        "pid": os.getpid(),
        "username": lab.username,
        "password": lab.password,
        "devices": {name: {"host": host, "port": port} for name, (host, port) in endpoints.items()},
    }
    (root / ".lab").mkdir(exist_ok=True)
    (root / ".lab" / "lab.json").write_text(json.dumps(info))


def start_factory_lab(root: Path) -> Lab:
    """The switches of ``root``'s generated/ at HEAD, started at factory default and listed in .lab/lab.json."""
    from core.generated import open_snapshot
    from lab import Lab, specs_from_snapshot

    specs, links = specs_from_snapshot(open_snapshot(root, "HEAD"), empty=True)
    lab = Lab(specs, links, username="admin", password="lab-password")
    lab.start()
    write_lab_json(root, lab)
    return lab


@pytest.fixture
def gitops_repo(tmp_path: Path, compiled_example: Path) -> Path:
    """A git repository on branch main: the example intent and generated/, one commit."""
    return make_repo(tmp_path / "repo", compiled_example)


@pytest.fixture
def lab_running(gitops_repo: Path) -> Iterator[Lab]:
    """The example's switches emulated in-process at factory default, reachable via .lab/lab.json.

    Deploy and drift find it exactly as they find a lab started by ``fabricops lab up``.
    """
    lab = start_factory_lab(gitops_repo)
    try:
        yield lab
    finally:
        lab.stop()
