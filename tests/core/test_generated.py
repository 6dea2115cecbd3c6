"""The generated/ contract: the manifest is read back, bad refs and names read once."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import FabricopsError
from core.generated import CONFIGS, MANIFEST, STATE_BRANCH, open_snapshot, resolve_commit
from tests.conftest import git, make_repo, seal


@pytest.fixture
def repo(tmp_path: Path, compiled_example: Path) -> Path:
    return make_repo(tmp_path / "repo", compiled_example)


def test_a_compiled_tree_verifies_at_head_and_in_the_work_tree(repo: Path) -> None:
    open_snapshot(repo, "HEAD").verify()
    open_snapshot(repo).verify()


def test_a_hand_edit_is_refused_with_the_file(repo: Path) -> None:
    """A generated config edited without a compile is not what the manifest describes."""
    path = repo / "generated" / CONFIGS / "spine01.cfg"
    path.write_text(path.read_text() + "ip route 0.0.0.0/0 192.0.2.1\n")
    git(repo, "commit", "-qam", "by hand")
    with pytest.raises(FabricopsError) as caught:
        open_snapshot(repo, "HEAD").verify()
    assert "does not match its MANIFEST.json" in caught.value.message
    assert caught.value.problems == ("edited since compiled: generated/configs/spine01.cfg",)


def test_a_tree_without_manifest_is_foreign(repo: Path) -> None:
    (repo / "generated" / MANIFEST).unlink()
    with pytest.raises(FabricopsError, match=r"has no MANIFEST\.json: it was not written by 'fabricops compile'"):
        open_snapshot(repo).verify()


def test_an_intent_changed_without_a_compile_is_stale(repo: Path) -> None:
    fabric = repo / "intent" / "fabric.yaml"
    fabric.write_text(fabric.read_text() + "\n")
    git(repo, "commit", "-qam", "intent only")
    with pytest.raises(FabricopsError, match="is stale: intent/ changed since it was compiled"):
        open_snapshot(repo, "HEAD").verify()


def test_a_sealed_edit_verifies(repo: Path) -> None:
    """The test helper that stages hand edits writes the manifest a compile would."""
    path = repo / "generated" / CONFIGS / "spine01.cfg"
    path.write_text(path.read_text().replace("hostname spine01", "hostname spine01\n!"))
    seal(repo)
    open_snapshot(repo).verify()


@pytest.mark.parametrize("ref", ["no-such-ref", "deploy/no-such-tag", "0" * 40, "HEAD~5"])
def test_a_bad_ref_is_one_line_naming_it_and_what_exists(repo: Path, ref: str) -> None:
    git(repo, "branch", STATE_BRANCH)
    git(repo, "tag", "deploy/20260101T000000Z")
    with pytest.raises(FabricopsError) as caught:
        resolve_commit(repo, ref)
    message = caught.value.message
    assert message == (
        f"unknown git ref {ref!r}: not a branch, tag or commit here "
        "(branches: main; deploy tags: deploy/20260101T000000Z)"
    )


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(FabricopsError, match="is not a git repository"):
        open_snapshot(tmp_path, "HEAD")
