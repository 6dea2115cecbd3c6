"""The view after real deploys to the lab: each switch's diff against what it last verifiably ran
(its state of record), and no secret value anywhere in the site (the lab resolves
``<secret:...>`` on every deploy)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from core import gitstate
from core.deployed import DeviceRecord, record_files
from core.secrets import lab_secret, placeholders
from lab import Lab
from tests.conftest import git
from view.site import build_site

# A deploy to the session lab, then the site against it: the lab tier.
pytestmark = pytest.mark.e2e

DEPLOYED = ("rack01-leaf-a", "rack01-leaf-b")
FAST = ("--lab", "--revert-in", "15", "--settle", "0", "--batch", "20", "--workers", "20")


def _fabricops(repo: Path, *args: str) -> tuple[int, str]:
    from fabricops.cli import main

    out = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main([*args, "--root", str(repo)])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue()


def _files(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): p.read_text() for p in sorted(site.rglob("*")) if p.is_file()}


def test_diff_against_the_last_deploy_and_no_secret_in_the_site(
    gitops_repo: Path, lab_running: Lab, tmp_path: Path
) -> None:
    """Deploy two leaves, then change one's config in a new commit: its page shows exactly that
    change, its peer is the same as deployed, a switch never deployed says so."""
    code, output = _fabricops(gitops_repo, "deploy", *FAST, "--devices", ",".join(DEPLOYED))
    assert code == 0, output
    config = gitops_repo / "generated" / "configs" / "rack01-leaf-a.cfg"
    config.write_text(config.read_text().replace("description SERVER_rack01-gpu003_enp65s0f0", "description moved"))
    git(gitops_repo, "commit", "-qam", "a change not deployed yet")

    site = tmp_path / "site"
    built = build_site(gitops_repo, "HEAD", site)
    assert built.deployed
    changed = (site / "switches" / "rack01-leaf-a.html").read_text()
    diff = re.findall(r'<span class="(add|del)">(.*?)</span>', changed)
    assert diff == [("del", "-   description SERVER_rack01-gpu003_enp65s0f0"), ("add", "+   description moved")]
    assert "This version is the same." in (site / "switches" / "rack01-leaf-b.html").read_text()
    assert "Never deployed" in (site / "switches" / "rack02-leaf-a.html").read_text()
    index = (site / "index.html").read_text()
    assert "1 switch(es) differ from what was last deployed" in index and "rack01-leaf-a.html#deployed" in index

    # the deploy resolved every <secret:NAME> with the lab's values: none may reach the site
    names = {
        name
        for path in (gitops_repo / "generated" / "configs").glob("*.cfg")
        for name in placeholders(path.read_text())
    }
    assert names
    values = {lab_secret(name, lab_running.password) for name in names} | {lab_running.password}
    files = _files(site)
    for path, text in files.items():
        for value in values:
            assert value not in text, f"{path} holds a secret value"
        assert not re.search(r"\$6\$[./0-9A-Za-z]+\$", text), f"{path} holds a sha512-crypt hash"
    assert all(f"&lt;secret:{name}&gt;" in changed for name in names)  # the reference, not the value


def test_the_diff_is_against_the_state_of_record(gitops_repo: Path, tmp_path: Path) -> None:
    """What each switch last verifiably ran (devices/<switch>.json on the state branch), whatever
    run wrote it: a commit gives the diff from its config, a restored backup says so, no diff."""
    first = git(gitops_repo, "rev-parse", "HEAD").strip()
    config = gitops_repo / "generated" / "configs" / "rack01-leaf-a.cfg"
    config.write_text(config.read_text().replace("description SERVER_rack01-gpu003_enp65s0f0", "description moved"))
    git(gitops_repo, "commit", "-qam", "a change not deployed yet")
    records = {
        "rack01-leaf-a": DeviceRecord(
            "rack01-leaf-a", first, verified="2026-01-02T03:04:05Z", run="adopt 20260102T030405Z"
        ),
        "rack01-leaf-b": DeviceRecord(
            "rack01-leaf-b", "", backup="backups/rack01-leaf-b/20260101T000000Z.cfg", run="restore 20260103T000000Z"
        ),
    }
    gitstate.write_files(gitops_repo, record_files(records), "state of record")

    build_site(gitops_repo, "HEAD", tmp_path / "site")
    page = (tmp_path / "site" / "switches" / "rack01-leaf-a.html").read_text()
    assert f"Last verified running commit <code>{first[:12]}</code>: adopt 20260102T030405Z" in page
    assert re.findall(r'<span class="(add|del)">(.*?)</span>', page) == [
        ("del", "-   description SERVER_rack01-gpu003_enp65s0f0"),
        ("add", "+   description moved"),
    ]
    restored = (tmp_path / "site" / "switches" / "rack01-leaf-b.html").read_text()
    assert "Restored to backup <code>backups/rack01-leaf-b/20260101T000000Z.cfg</code>" in restored
    assert 'class="diff"' not in restored
    assert "Never deployed" in (tmp_path / "site" / "switches" / "rack02-leaf-a.html").read_text()
