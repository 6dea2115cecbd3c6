"""Deploy state (backups, deploy records) on a branch of its own, written with git plumbing.

The branch ``fabricops-state`` holds files only fabricops writes: ``backups/<device>/<stamp>.cfg``
and ``deploys/<stamp>.json``. It is written through a temporary index (``GIT_INDEX_FILE``),
``commit-tree`` and a compare-and-swap ``update-ref``, so neither the work tree, the real index
nor the checked-out branch is ever touched: a deploy can run from a checkout with uncommitted
edits and still leave them exactly as they were.

Example:
    >>> import subprocess, tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = subprocess.run(["git", "init", "-q", str(root)], check=True)
    >>> sha = write_files(root, {"backups/leaf1/20250101T000000Z.cfg": b"hostname leaf1\\n"}, "backup leaf1")
    >>> read_file(root, "backups/leaf1/20250101T000000Z.cfg")
    b'hostname leaf1\\n'
    >>> list_files(root, "backups/")
    ['backups/leaf1/20250101T000000Z.cfg']
    >>> [entry.message for entry in history(root, "backups/leaf1/20250101T000000Z.cfg")]
    ['backup leaf1']
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import FabricopsError
from core.generated import STATE_BRANCH

if TYPE_CHECKING:
    from git import Repo

BRANCH = STATE_BRANCH
REF = f"refs/heads/{BRANCH}"
_ZERO = "0" * 40
# Identity used only when the repository has none configured (CI runners often have none).
_FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "fabricops",
    "GIT_AUTHOR_EMAIL": "fabricops@localhost",
    "GIT_COMMITTER_NAME": "fabricops",
    "GIT_COMMITTER_EMAIL": "fabricops@localhost",
}
# Threads of one deploy write through the same process: serialise them here; other processes
# are caught by the compare-and-swap on the ref.
_WRITE_LOCK = threading.Lock()
_CAS_ATTEMPTS = 5


@dataclass(frozen=True)
class Entry:
    """One commit of the state branch that touched a path."""

    commit: str
    timestamp: int
    message: str


def _repo(repo_root: Path) -> Repo:
    import git

    try:
        return git.Repo(repo_root)
    except (git.exc.InvalidGitRepositoryError, git.exc.NoSuchPathError) as exc:
        raise FabricopsError(f"{repo_root} is not a git repository: deploy state lives in git") from exc


def head(repo_root: Path) -> str | None:
    """The commit the state branch points at, or None before the first write."""
    import git

    repo = _repo(repo_root)
    try:
        return str(repo.git.rev_parse("--verify", "--quiet", REF))
    except git.exc.GitCommandError:
        return None


def _store(repo: Repo, data: bytes) -> str:
    """Write one blob into the object database; its sha."""
    from gitdb import IStream  # type: ignore[import-untyped]  # gitpython's own object store, untyped

    sha = repo.odb.store(IStream("blob", len(data), BytesIO(data))).hexsha
    return sha.decode() if isinstance(sha, bytes) else str(sha)


def _identity_env(repo: Repo) -> dict[str, str]:
    import git

    try:
        repo.git.config("user.name")
        repo.git.config("user.email")
    except git.exc.GitCommandError:
        return dict(_FALLBACK_IDENTITY)
    return {}


def write_files(repo_root: Path, files: Mapping[str, bytes], message: str) -> str:
    """Commit ``files`` (path -> content) on the state branch; returns the new commit sha.

    Existing files of the branch are kept; a path given here replaces its old content.
    """
    import git

    if not files:
        raise ValueError("write_files needs at least one file")
    repo = _repo(repo_root)
    with _WRITE_LOCK:
        blobs = {path: _store(repo, data) for path, data in files.items()}
        for _attempt in range(_CAS_ATTEMPTS):
            parent = head(repo_root)
            with tempfile.TemporaryDirectory(prefix="fabricops-index-") as tmp:
                env = {"GIT_INDEX_FILE": str(Path(tmp) / "index"), **_identity_env(repo)}
                if parent is not None:
                    repo.git.read_tree(parent, env=env)
                for path, sha in sorted(blobs.items()):
                    repo.git.update_index("--add", "--cacheinfo", f"100644,{sha},{path}", env=env)
                tree = repo.git.write_tree(env=env)
                parents = ["-p", parent] if parent is not None else []
                commit = str(repo.git.commit_tree(tree, *parents, "-m", message, env={**os.environ, **env}))
            try:
                repo.git.update_ref(REF, commit, parent or _ZERO, "-m", f"fabricops: {message}")
            except git.exc.GitCommandError:
                continue  # another process moved the branch since we read it: rebuild on its tip
            return commit
    raise FabricopsError(f"could not update {BRANCH} after {_CAS_ATTEMPTS} attempts: another writer keeps racing")


def read_file(repo_root: Path, path: str, at: str | None = None) -> bytes | None:
    """Content of ``path`` on the state branch (or at commit ``at``), None when absent."""
    import git

    ref = at or head(repo_root)
    if ref is None:
        return None
    repo = _repo(repo_root)
    try:
        blob = repo.commit(ref).tree / path
    except (KeyError, ValueError, git.exc.BadName):
        return None
    data: bytes = blob.data_stream.read()
    return data


def read_files(repo_root: Path, paths: Iterable[str], at: str | None = None) -> dict[str, bytes]:
    """Contents of several paths from one commit of the state branch; absent paths are left out."""
    ref = at or head(repo_root)
    if ref is None:
        return {}
    tree = _repo(repo_root).commit(ref).tree
    out = {}
    for path in paths:
        try:
            out[path] = tree[path].data_stream.read()
        except KeyError:
            continue
    return out


def list_files(repo_root: Path, prefix: str = "") -> list[str]:
    """Paths on the state branch that start with ``prefix``, sorted."""
    ref = head(repo_root)
    if ref is None:
        return []
    repo = _repo(repo_root)
    out = repo.git.ls_tree("-r", "--name-only", ref)
    return sorted(p for p in str(out).splitlines() if p.startswith(prefix))


def history(repo_root: Path, path: str) -> list[Entry]:
    """Commits of the state branch that touched ``path``, newest first."""
    ref = head(repo_root)
    if ref is None:
        return []
    repo = _repo(repo_root)
    out = str(repo.git.log("--format=%H%x00%ct%x00%s", ref, "--", path))
    entries = []
    for line in out.splitlines():
        commit, stamp, message = line.split("\x00", 2)
        entries.append(Entry(commit, int(stamp), message))
    return entries
