"""The generated/ contract: the manifest is read back, bad refs and names read once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import FabricopsError
from core.generated import CONFIGS, MANIFEST, STATE_BRANCH, manifest_of, open_snapshot, resolve_commit
from tests.conftest import clone_repo, git, seal


@pytest.fixture
def repo(gitops_repo: Path) -> Path:
    """A clone of the example of the test's own, to edit."""
    return gitops_repo


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory, example_repo: Path) -> Path:
    """A clone of the example for the tests that only read it, with a state branch and a deploy tag."""
    root = clone_repo(example_repo, tmp_path_factory.mktemp("generated") / "repo")
    git(root, "branch", STATE_BRANCH)
    git(root, "tag", "deploy/20260101T000000Z")
    return root


def test_a_compiled_tree_verifies_at_head_and_in_the_work_tree(shared: Path) -> None:
    open_snapshot(shared, "HEAD").verify()
    open_snapshot(shared).verify()


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
def test_a_bad_ref_is_one_line_naming_it_and_what_exists(shared: Path, ref: str) -> None:
    with pytest.raises(FabricopsError) as caught:
        resolve_commit(shared, ref)
    message = caught.value.message
    assert message == (
        f"unknown git ref {ref!r}: not a branch, tag or commit here "
        "(branches: main; deploy tags: deploy/20260101T000000Z)"
    )


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(FabricopsError, match="is not a git repository"):
        open_snapshot(tmp_path, "HEAD")


@pytest.mark.parametrize("odd", ["", "é", '"', "\\", "\t", "\x7f", "\x1f", "\u2028", " ", "~"])
def test_the_manifest_is_jsons_text_whatever_a_path_holds(odd: str) -> None:
    """The manifest's text is ``json.dumps``'s, indented and sorted, for plain paths (written at
    C speed) and for a path with any character JSON escapes (or does not)."""
    digests = {f"configs/leaf{odd}1.cfg": "ab", "configs/leaf2.cfg": f"c{odd}d", "a.yaml": "ef"}
    expected = json.dumps({"files": digests, "intent_digest": "x"}, indent=2, sort_keys=True) + "\n"
    assert manifest_of(digests, "x").decode() == expected
