"""One deploy at a time: ``.git/fabricops-deploy.lock`` names who holds it, from where and since when.

The file is created atomically (``O_CREAT | O_EXCL``), so two deploys cannot both take it. A lock
that is found is never broken silently: if its process is still alive on this host the deploy
is refused as running; otherwise it is reported as stale with its owner and age, and only
``--break-lock`` takes it over.

Examples:
    >>> describe_age(3725)
    '1h02m'
    >>> describe_age(42)
    '42s'
"""

from __future__ import annotations

import getpass
import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from core.errors import FabricopsError

LOCK_NAME = "fabricops-deploy.lock"


@dataclass(frozen=True)
class LockInfo:
    """What the lock file says."""

    owner: str
    host: str
    pid: int
    started: float
    command: str = "deploy"

    def age(self, now: float | None = None) -> float:
        return max(0.0, (now or time.time()) - self.started)


def describe_age(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def lock_path(root: Path) -> Path:
    """The lock inside the repository's git directory (shared by every worktree of it)."""
    import git

    try:
        common = Path(git.Repo(root).common_dir)
    except (git.exc.InvalidGitRepositoryError, git.exc.NoSuchPathError) as exc:
        raise FabricopsError(f"{root} is not a git repository: deploy needs one for its lock and backups") from exc
    return common / LOCK_NAME


def read_lock(root: Path) -> LockInfo | None:
    path = lock_path(root)
    try:
        data = json.loads(path.read_text())
        return LockInfo(
            str(data["owner"]),
            str(data["host"]),
            int(data["pid"]),
            float(data["started"]),
            str(data.get("command", "deploy")),
        )
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError):
        # Unreadable: still a lock, of unknown owner; its age is the file's.
        return LockInfo("unknown", "unknown", 0, path.stat().st_mtime)


def _alive(info: LockInfo) -> bool:
    """Whether the holder still runs; unknowable for another host, so assume it does."""
    if info.host != socket.gethostname():
        return True
    if info.pid <= 0:
        return False
    try:
        os.kill(info.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _describe(info: LockInfo) -> str:
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(info.started))
    return f"{info.owner}@{info.host} pid {info.pid} ({info.command}) since {started}, {describe_age(info.age())} ago"


@contextmanager
def deploy_lock(root: Path, command: str = "deploy", break_lock: bool = False) -> Iterator[LockInfo]:
    """Hold the deploy lock for the ``with`` block; refuse with who holds it otherwise."""
    path = lock_path(root)
    mine = LockInfo(getpass.getuser(), socket.gethostname(), os.getpid(), time.time(), command)
    body = json.dumps(asdict(mine), indent=2).encode()
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        held = read_lock(root)
        if held is None:  # released between our attempt and the read: try once more
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        elif not break_lock:
            state = "held" if _alive(held) else "stale (its process is gone)"
            raise FabricopsError(
                f"deploy lock {state}: {_describe(held)}",
                [f"lock file: {path}", "wait for that deploy, or if it is dead, rerun with --break-lock"],
            ) from None
        else:
            fd = os.open(path, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o644)
    try:
        os.write(fd, body)
    finally:
        os.close(fd)
    try:
        yield mine
    finally:
        held = read_lock(root)
        if held is not None and (held.pid, held.host, held.started) == (mine.pid, mine.host, mine.started):
            path.unlink(missing_ok=True)
