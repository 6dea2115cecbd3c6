"""Fleet state (backups, run records, the state of record, the lock) on a branch of its own.

The branch ``fabricops-state`` holds files only fabricops writes. It is written through a
temporary index (``GIT_INDEX_FILE``), ``commit-tree`` and a compare-and-swap ``update-ref``, so
neither the work tree, the real index nor the checked-out branch is ever touched: a deploy can
run from a checkout with uncommitted edits and still leave them exactly as they were.

The fleet is shared by every clone, so its state lives on the **shared remote** (``origin``,
or the remote named by ``FABRICOPS_REMOTE`` or ``git config fabricops.remote``; ``none`` keeps
it in this repository). :func:`pull` fast-forwards the local branch to the remote's and
:func:`push` publishes it; a push is refused unless it is a fast-forward of what the remote
holds, which makes it a compare-and-swap across clones. Without a remote the repository itself
is the shared place (every worktree of it sees the same branch).

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
    >>> _ = write_files(root, {}, "forget leaf1", remove=["backups/leaf1/20250101T000000Z.cfg"])
    >>> list_files(root)
    []
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import FabricopsError
from core.generated import DEPLOY_TAG_PREFIX, STATE_BRANCH, open_repo

if TYPE_CHECKING:
    from git import Repo

BRANCH = STATE_BRANCH
REF = f"refs/heads/{BRANCH}"
ENV_REMOTE = "FABRICOPS_REMOTE"
NO_REMOTE = "none"
_ZERO = "0" * 40
# Identity used only when the repository has none configured (CI runners often have none).
_FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "fabricops",
    "GIT_AUTHOR_EMAIL": "fabricops@localhost",
    "GIT_COMMITTER_NAME": "fabricops",
    "GIT_COMMITTER_EMAIL": "fabricops@localhost",
}
# Never wait for a password prompt: a remote that needs credentials it lacks fails at once.
_NETWORK_ENV = {"GIT_TERMINAL_PROMPT": "0"}
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
    return open_repo(repo_root)


def head(repo_root: Path) -> str | None:
    """The commit the state branch points at, or None before the first write."""
    return _rev(_repo(repo_root), REF)


def _rev(repo: Repo, ref: str) -> str | None:
    import git

    try:
        return str(repo.git.rev_parse("--verify", "--quiet", ref)) or None
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


def write_files(repo_root: Path, files: Mapping[str, bytes], message: str, remove: Iterable[str] = ()) -> str:
    """Commit ``files`` (path -> content) and drop ``remove`` on the state branch; the new commit sha.

    Existing files of the branch are kept; a path given here replaces its old content.
    """
    with _WRITE_LOCK:
        for _attempt in range(_CAS_ATTEMPTS):
            commit = _commit_on(repo_root, head(repo_root), files, message, remove)
            if commit is not None:
                return commit
    raise FabricopsError(f"could not update {BRANCH} after {_CAS_ATTEMPTS} attempts: another writer keeps racing")


def write_if_unmoved(
    repo_root: Path, parent: str | None, files: Mapping[str, bytes], message: str, remove: Iterable[str] = ()
) -> str | None:
    """Like :func:`write_files`, but only on top of ``parent``: None when the branch has moved from it."""
    with _WRITE_LOCK:
        return _commit_on(repo_root, parent, files, message, remove)


def _commit_on(
    repo_root: Path, parent: str | None, files: Mapping[str, bytes], message: str, remove: Iterable[str]
) -> str | None:
    """One commit on ``parent`` moved into place by compare-and-swap; None when the branch is elsewhere."""
    import git

    removed = sorted(set(remove))
    if not files and not removed:
        raise ValueError("a state write needs at least one file to write or remove")
    repo = _repo(repo_root)
    blobs = {path: _store(repo, data) for path, data in files.items()}
    with tempfile.TemporaryDirectory(prefix="fabricops-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index"), **_identity_env(repo)}
        if parent is not None:
            repo.git.read_tree(parent, env=env)
        if blobs:  # every path in one git call (one per path took seconds for a fleet's backups)
            entries = "".join(f"100644 {sha}\t{path}\0" for path, sha in sorted(blobs.items()))
            subprocess.run(
                ["git", "update-index", "--add", "-z", "--index-info"],
                cwd=repo_root,
                env={**os.environ, **env},
                input=entries.encode(),
                capture_output=True,
                check=True,
            )
        if removed:
            repo.git.update_index("--force-remove", "--", *removed, env=env)
        tree = repo.git.write_tree(env=env)
        parents = ["-p", parent] if parent is not None else []
        commit = str(repo.git.commit_tree(tree, *parents, "-m", message, env={**os.environ, **env}))
    try:
        repo.git.update_ref(REF, commit, parent or _ZERO, "-m", f"fabricops: {message}")
    except git.exc.GitCommandError:
        return None  # another process moved the branch since it was read
    return commit


def reset_to(repo_root: Path, expected: str, commit: str | None) -> bool:
    """Move the state branch from ``expected`` back to ``commit`` (None: delete it); False if it moved."""
    import git

    repo = _repo(repo_root)
    try:
        if commit is None:
            repo.git.update_ref("-d", REF, expected)
        else:
            repo.git.update_ref(REF, commit, expected, "-m", "fabricops: undo an unpublished write")
    except git.exc.GitCommandError:
        return False
    return True


def read_file(repo_root: Path, path: str, at: str | None = None) -> bytes | None:
    """Content of ``path`` on the state branch (or at commit ``at``), None when absent."""
    return read_files(repo_root, [path], at).get(path)


def read_files(repo_root: Path, paths: Iterable[str], at: str | None = None) -> dict[str, bytes]:
    """Contents of several paths from one commit of the state branch (one git call); absent paths are left out."""
    from core.gitobjects import read_blobs

    ref = at or head(repo_root)
    if ref is None:
        return {}
    wanted = list(paths)
    texts = read_blobs(repo_root, [f"{ref}:{path}" for path in wanted])
    return {path: data for path, data in zip(wanted, texts, strict=True) if data is not None}


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


# ------------------------------------------------------------------------ the shared remote
def remote(repo_root: Path) -> str | None:
    """The remote that holds the fleet's state: ``FABRICOPS_REMOTE``, ``fabricops.remote``, else ``origin``.

    None when there is none (``none`` says so explicitly): the state stays in this repository.
    """
    import git

    repo = _repo(repo_root)
    name = os.environ.get(ENV_REMOTE)
    if name is None:
        try:
            name = str(repo.git.config("--get", "fabricops.remote"))
        except git.exc.GitCommandError:
            name = "origin"
        if name == "origin" and "origin" not in [r.name for r in repo.remotes]:
            return None
    if name == NO_REMOTE:
        return None
    if name not in [r.name for r in repo.remotes]:
        raise FabricopsError(f"remote {name!r} (the fleet's shared state) does not exist: see 'git remote -v'")
    return name


def _tracking(name: str) -> str:
    return f"refs/remotes/{name}/{BRANCH}"


def pull(repo_root: Path) -> str | None:
    """Fetch the remote's state branch (and fleet-version tags) and fast-forward ours; the remote's tip.

    None when the remote has no state yet. A local branch ahead of the remote is kept (its
    writes get pushed next); one that has diverged from it is an error: two clones wrote
    without the lock.
    """
    import git

    name = remote(repo_root)
    if name is None:
        return None
    repo = _repo(repo_root)
    tags = f"refs/tags/{DEPLOY_TAG_PREFIX}*"
    try:
        repo.git.fetch("--quiet", "--no-tags", name, f"{tags}:{tags}", env=_NETWORK_ENV)
        repo.git.fetch("--quiet", "--no-tags", name, f"+{REF}:{_tracking(name)}", env=_NETWORK_ENV)
    except git.exc.GitCommandError as exc:
        if "couldn't find remote ref" not in exc.stderr:
            raise FabricopsError(f"cannot fetch {BRANCH} from {name}: {_last_line(exc.stderr)}") from None
        with _WRITE_LOCK:  # the remote has no state yet: forget a stale tracking ref
            repo.git.update_ref("-d", _tracking(name))
        return None
    theirs = _rev(repo, _tracking(name))
    _fast_forward(repo, theirs, name)
    return theirs


def adopt_tracking(repo_root: Path) -> None:
    """Fast-forward the local state branch to the remote-tracking one, without the network.

    A CI checkout (``fetch-depth: 0``) has ``refs/remotes/origin/fabricops-state`` but no local
    branch; readers call this so they see what the last ``git fetch`` brought.
    """
    name = remote(repo_root)
    if name is not None:
        repo = _repo(repo_root)
        _fast_forward(repo, _rev(repo, _tracking(name)), name, quiet=True)


def _fast_forward(repo: Repo, theirs: str | None, name: str, quiet: bool = False) -> None:
    import git

    if theirs is None:
        return
    with _WRITE_LOCK:
        ours = _rev(repo, REF)
        if ours == theirs or (ours is not None and repo.is_ancestor(repo.commit(theirs), repo.commit(ours))):
            return
        if ours is not None and not repo.is_ancestor(repo.commit(ours), repo.commit(theirs)):
            if quiet:
                return
            raise FabricopsError(
                f"{BRANCH} here and on {name} have diverged (records written without the fleet lock)",
                [f"keep {name}'s: git branch -f {BRANCH} {name}/{BRANCH}  (this clone's extra records are dropped)"],
            )
        # a writer of this repository may have moved it meanwhile: then it is newer than what we fetched
        with contextlib.suppress(git.exc.GitCommandError):
            repo.git.update_ref(REF, theirs, ours or _ZERO, "-m", f"fabricops: fast-forward to {name}")


def push(repo_root: Path, expected: str | None) -> bool:
    """Publish the state branch; True when done, False when the remote no longer holds ``expected``.

    The push is accepted only as a fast-forward of the remote's branch and only while the
    remote still points at ``expected`` (None: has no such branch): a compare-and-swap, so a
    writer in another clone is never overwritten. Without a remote there is nothing to do.
    """
    import git

    name = remote(repo_root)
    if name is None:
        return True
    repo = _repo(repo_root)
    lease = f"--force-with-lease={REF}:{expected or ''}"
    try:
        repo.git.push("--quiet", "--porcelain", lease, name, f"{REF}:{REF}", env=_NETWORK_ENV)
    except git.exc.GitCommandError as exc:
        # porcelain: "!<TAB>src:dst<TAB>[rejected] (stale info)"; "[remote rejected]" is a refusal, not a race
        refused = [line for line in str(exc.stdout).splitlines() if line.lstrip(" '\"").startswith("!")]
        if any("[rejected]" in line for line in refused):
            return False
        why = refused[0].split("\t")[-1].strip(" '\"") if refused else _last_line(exc.stderr or exc.stdout)
        raise FabricopsError(f"cannot push {BRANCH} to {name}: {why}") from None
    repo.git.update_ref(_tracking(name), REF)
    return True


def push_tag(repo_root: Path, tag: str) -> None:
    """Publish one tag to the shared remote (nothing to do without one)."""
    import git

    name = remote(repo_root)
    if name is None:
        return
    try:
        _repo(repo_root).git.push("--quiet", name, f"refs/tags/{tag}:refs/tags/{tag}", env=_NETWORK_ENV)
    except git.exc.GitCommandError as exc:
        raise FabricopsError(f"cannot push tag {tag} to {name}: {_last_line(exc.stderr)}") from None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return lines[-1] if lines else "git failed"


def refresh(repo_root: Path) -> str:
    """Bring the state branch up to date for a reader: fetch when possible, else what the last fetch brought.

    Never fails for want of the network or credentials (a read-only CI job may have neither);
    returns a note when the remote could not be read, else "".
    """
    try:
        pull(repo_root)
    except FabricopsError as exc:
        adopt_tracking(repo_root)
        return f"state of record read without fetching it: {exc.message}"
    return ""
