"""The state branch, backups lookup and the deploy lock, without devices."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest

from core import gitstate
from core.errors import FabricopsError
from deploy.backups import find_backup, list_backups, write_backups
from deploy.lock import deploy_lock, lock_path
from tests.conftest import git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@fabricops.invalid")
    git(root, "config", "user.name", "t")
    (root / "README").write_text("x\n")
    git(root, "add", "README")
    git(root, "commit", "-q", "-m", "first")
    return root


def test_state_branch_leaves_work_tree_index_and_main_alone(repo: Path) -> None:
    """Uncommitted and staged edits survive a state write byte for byte; main does not move."""
    (repo / "README").write_text("edited, not committed\n")
    (repo / "staged").write_text("staged\n")
    git(repo, "add", "staged")
    status, head = git(repo, "status", "--porcelain"), git(repo, "rev-parse", "HEAD")
    first = gitstate.write_files(repo, {"backups/a/1.cfg": b"one\n"}, "one")
    second = gitstate.write_files(repo, {"deploys/2.json": b"{}\n"}, "two")
    assert git(repo, "status", "--porcelain") == status and git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "rev-parse", gitstate.BRANCH).strip() == second
    assert git(repo, "rev-parse", f"{second}^").strip() == first, "each write is a child of the last"
    assert gitstate.list_files(repo) == ["backups/a/1.cfg", "deploys/2.json"]
    assert gitstate.read_file(repo, "backups/a/1.cfg", at=first) == b"one\n"
    assert gitstate.read_file(repo, "deploys/2.json", at=first) is None


def test_unchanged_config_keeps_its_backup(repo: Path) -> None:
    first = write_backups(repo, {"leaf1": "a\n", "leaf2": "b\n"}, "20250101T000000Z", "first")
    second = write_backups(repo, {"leaf1": "a\n", "leaf2": "c\n"}, "20250102T000000Z", "second")
    assert second["leaf1"] == first["leaf1"]
    assert second["leaf2"].stamp == "20250102T000000Z"
    assert [b.stamp for b in list_backups(repo, "leaf2")] == ["20250101T000000Z", "20250102T000000Z"]
    assert find_backup(repo, "leaf2", "2025-01-01T23:59").stamp == "20250101T000000Z"
    assert find_backup(repo, "leaf2").stamp == "20250102T000000Z"
    with pytest.raises(FabricopsError, match="no backup at or before"):
        find_backup(repo, "leaf2", "2024")
    with pytest.raises(FabricopsError, match="leaf9: no backup"):
        find_backup(repo, "leaf9")


def test_lock_is_exclusive_and_released(repo: Path) -> None:
    with deploy_lock(repo) as mine:
        data = json.loads(lock_path(repo).read_text())
        assert (data["pid"], data["host"]) == (os.getpid(), socket.gethostname()) and data["owner"]
        with pytest.raises(FabricopsError, match="deploy lock held"), deploy_lock(repo):
            pass
        assert mine.age() < 60
    assert not lock_path(repo).exists()


def test_unreadable_lock_is_still_a_lock(repo: Path) -> None:
    lock_path(repo).write_text("garbage")
    with pytest.raises(FabricopsError, match=r"deploy lock held: unknown@unknown"), deploy_lock(repo):
        pass
    with deploy_lock(repo, break_lock=True):
        assert json.loads(lock_path(repo).read_text())["pid"] == os.getpid()


def test_lock_of_another_host_is_never_called_stale(repo: Path) -> None:
    lock_path(repo).write_text(json.dumps({"owner": "bob", "host": "elsewhere", "pid": 1, "started": time.time()}))
    with pytest.raises(FabricopsError, match="deploy lock held: bob@elsewhere"), deploy_lock(repo):
        pass
