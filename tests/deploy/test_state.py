"""The state branch, backups lookup and the deploy lock, without devices."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from core import gitstate
from core.errors import FabricopsError
from deploy.backups import find_backup, list_backups, write_backups
from deploy.lock import LOCK_FILE, FleetLock, break_lock, fleet_lock, read_lock
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


# ------------------------------------------------------------------------- the fleet lock
@pytest.fixture
def clones(tmp_path: Path, repo: Path) -> tuple[Path, Path]:
    """Two clones of one bare origin: two operators (or CI runners) deploying the same fleet."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(origin))
    pair = []
    for name in ("alice", "bob"):
        clone = tmp_path / name
        git(tmp_path, "clone", "-q", str(origin), str(clone))
        git(clone, "config", "user.email", f"{name}@fabricops.invalid")
        git(clone, "config", "user.name", name)
        pair.append(clone)
    return pair[0], pair[1]


def test_the_lock_is_one_per_fleet_not_per_clone(clones: tuple[Path, Path]) -> None:
    """Held from one clone, refused from the other with the holder named; free again after release."""
    alice, bob = clones
    with fleet_lock(alice, "deploy") as held:
        assert held.held and gitstate.read_file(alice, LOCK_FILE) is not None
        with pytest.raises(FabricopsError) as refused, fleet_lock(bob, "rollback"):
            pass
        assert refused.value.message.startswith(f"fleet lock held: {held.info.owner}@{held.info.host} pid ")
        assert "(deploy) since" in refused.value.message
        assert refused.value.problems[0] == f"lock: {LOCK_FILE} on branch {gitstate.BRANCH} on origin"
        gitstate.write_files(alice, {"deploys/1.json": b"{}\n"}, "a record written under the lock")
    assert read_lock(bob) is None, "released on the shared remote"
    assert "deploys/1.json" in gitstate.list_files(bob), "the holder's records were published with the release"
    with fleet_lock(bob, "rollback"):
        assert read_lock(alice) is not None


def test_two_clones_racing_for_a_free_lock_cannot_both_win(clones: tuple[Path, Path]) -> None:
    """Bob fetched the free lock, then Alice took it: Bob's push is refused (compare-and-swap), not merged."""
    alice, bob = clones
    seen_by_bob = gitstate.pull(bob)
    with fleet_lock(alice):
        before = gitstate.head(bob)
        late = gitstate.write_if_unmoved(bob, before, {LOCK_FILE: b"{}"}, "bob's late lock")
        assert late is not None
        assert gitstate.push(bob, seen_by_bob) is False, "the remote moved since bob fetched it"
        assert gitstate.reset_to(bob, late, before)
        with pytest.raises(FabricopsError, match="fleet lock held"), fleet_lock(bob):
            pass


def test_a_stale_lock_is_reported_and_broken_only_on_request(clones: tuple[Path, Path]) -> None:
    alice, bob = clones
    dead = {"owner": "carol", "host": socket.gethostname(), "pid": _dead_pid(), "started": time.time() - 3700}
    gitstate.pull(alice)
    gitstate.write_files(alice, {LOCK_FILE: json.dumps(dead).encode()}, "carol's deploy died")
    assert gitstate.push(alice, None)
    with (
        pytest.raises(FabricopsError, match=r"fleet lock stale \(its process is gone\): carol@\S+ pid \d+ .*1h01m ago"),
        fleet_lock(bob),
    ):
        pass
    assert read_lock(bob) is not None, "a stale lock is never broken silently"
    broken = break_lock(bob)
    assert broken is not None and broken.owner == "carol"
    assert read_lock(alice) is None
    assert break_lock(alice) is None, "nothing left to break"


def test_a_lock_of_another_host_is_never_called_stale(clones: tuple[Path, Path]) -> None:
    alice, bob = clones
    other = {"owner": "bob", "host": "elsewhere", "pid": 1, "started": time.time()}
    gitstate.write_files(alice, {LOCK_FILE: json.dumps(other).encode()}, "a lock from another runner")
    assert gitstate.push(alice, None)
    with pytest.raises(FabricopsError, match="fleet lock held: bob@elsewhere"), fleet_lock(bob):
        pass


def test_an_unreadable_lock_is_still_a_lock(repo: Path) -> None:
    gitstate.write_files(repo, {LOCK_FILE: b"garbage"}, "garbage")
    unreadable = r"fleet lock held: unknown@unknown pid 0 \(unreadable lock\) of unknown age"
    with pytest.raises(FabricopsError, match=unreadable), fleet_lock(repo):
        pass


def test_a_lock_broken_while_held_is_reported_at_release(clones: tuple[Path, Path]) -> None:
    alice, bob = clones
    lock = FleetLock(alice, "deploy")
    lock.acquire()
    assert break_lock(bob) is not None
    problem = lock.release()
    assert problem is not None and "the fleet lock was broken while this run held it" in problem


def test_without_a_remote_the_repository_is_the_shared_place(repo: Path) -> None:
    with fleet_lock(repo) as held:
        with pytest.raises(FabricopsError, match="fleet lock held") as refused, fleet_lock(repo):
            pass
        assert refused.value.problems[0] == f"lock: {LOCK_FILE} on branch {gitstate.BRANCH} of {repo}"
        assert held.held
    assert read_lock(repo) is None


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_remote_that_refuses_the_push_leaves_no_lock_behind(clones: tuple[Path, Path], tmp_path: Path) -> None:
    """A push the remote refuses (no permission, a hook) is an error naming why, not a race to retry."""
    alice, _bob = clones
    hook = tmp_path / "origin.git" / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'read-only for this runner' >&2\nexit 1\n")
    hook.chmod(0o755)
    refused = r"cannot push fabricops-state to origin: \[remote rejected\]"
    with pytest.raises(FabricopsError, match=refused), fleet_lock(alice):
        pass
    assert gitstate.read_file(alice, LOCK_FILE) is None, "the local lock commit was undone"
