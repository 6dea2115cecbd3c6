"""A generated/ tree checked once against its manifest is not read whole again; any change is checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import FabricopsError
from core.generated import CONFIGS, open_snapshot
from deploy.verified import VERIFIED_FILE, verify_once
from tests.conftest import git


def test_a_checked_tree_is_remembered_and_an_edit_is_checked_again(gitops_repo: Path) -> None:
    repo = gitops_repo
    verify_once(repo, open_snapshot(repo, "HEAD"))
    remembered = json.loads((repo / VERIFIED_FILE).read_text())
    assert len(remembered) == 1
    verify_once(repo, open_snapshot(repo, "HEAD"))  # the same tree: nothing new remembered
    assert json.loads((repo / VERIFIED_FILE).read_text()) == remembered

    path = repo / "generated" / CONFIGS / "spine01.cfg"
    path.write_text(path.read_text() + "ip route 0.0.0.0/0 192.0.2.1\n")
    git(repo, "commit", "-qam", "by hand")
    for _ in range(2):  # a failed check is never remembered: it fails every time
        with pytest.raises(FabricopsError, match=r"does not match its MANIFEST\.json"):
            verify_once(repo, open_snapshot(repo, "HEAD"))
    assert json.loads((repo / VERIFIED_FILE).read_text()) == remembered


def test_the_work_tree_is_never_remembered(gitops_repo: Path) -> None:
    verify_once(gitops_repo, open_snapshot(gitops_repo))
    assert not (gitops_repo / VERIFIED_FILE).exists()
