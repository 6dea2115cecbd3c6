"""One lock per fleet: ``lock.json`` on the state branch of the shared remote, taken by compare-and-swap.

Every clone that deploys the same fleet shares one remote (``origin`` by default, see
:func:`core.gitstate.remote`), so the lock lives there, not in a clone's ``.git``:

1. fetch the remote's ``fabricops-state``; if it holds ``lock.json``, refuse and name the holder;
2. commit ``lock.json`` (owner, host, pid, command, start time, CI run) on top of that tip and
   push it. The push is accepted only while the remote still points at the tip we fetched, so
   of two clones racing for a free lock exactly one wins; the other fetches again and is
   refused with the winner's name;
3. on release, commit the removal of ``lock.json`` (with the run's backups and records before
   it) and push it the same way.

A lock is never broken implicitly: a holder whose process is gone (same host) is reported as
stale, anyone else as holding it, with its age; only ``fabricops lock break`` removes it.
Without a remote the repository itself is the shared place, with the same compare-and-swap on
its branch (every worktree of a repository sees one lock).

Examples:
    >>> describe_age(3725)
    '1h02m'
    >>> describe_age(42)
    '42s'
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from core import gitstate
from core.actor import Actor
from core.errors import FabricopsError

LOCK_FILE = "lock.json"
_ATTEMPTS = 5


@dataclass(frozen=True)
class LockInfo:
    """What ``lock.json`` says: who holds the fleet, from where, doing what, since when."""

    owner: str
    host: str
    pid: int
    started: float
    command: str = "deploy"
    ci_run: str = ""

    def age(self, now: float | None = None) -> float:
        return max(0.0, (now or time.time()) - self.started)

    def same_holder(self, other: LockInfo) -> bool:
        return (self.owner, self.host, self.pid, self.started) == (other.owner, other.host, other.pid, other.started)

    def describe(self) -> str:
        ci = f", {self.ci_run}" if self.ci_run else ""
        since = "of unknown age"
        if self.started > 0:
            started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.started))
            since = f"since {started}, {describe_age(self.age())} ago"
        return f"{self.owner}@{self.host} pid {self.pid} ({self.command}{ci}) {since}"

    def alive(self) -> bool:
        """Whether the holder still runs; unknowable for another host, so assume it does."""
        if self.host != socket.gethostname():
            return True
        if self.pid <= 0:
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def describe_age(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


def _parse(data: bytes) -> LockInfo:
    try:
        raw = json.loads(data)
        return LockInfo(
            str(raw["owner"]),
            str(raw["host"]),
            int(raw["pid"]),
            float(raw["started"]),
            str(raw.get("command", "deploy")),
            str(raw.get("ci_run", "")),
        )
    except (ValueError, KeyError, TypeError):
        return LockInfo("unknown", "unknown", 0, 0.0, "unreadable lock")  # still a lock, of unknown owner


def _held(root: Path) -> LockInfo | None:
    data = gitstate.read_file(root, LOCK_FILE)
    return None if data is None else _parse(data)


def read_lock(root: Path) -> LockInfo | None:
    """Who holds the fleet lock now (fetched from the shared remote), or None."""
    gitstate.pull(root)
    return _held(root)


def _where(root: Path) -> str:
    name = gitstate.remote(root)
    return f"branch {gitstate.BRANCH} on {name}" if name else f"branch {gitstate.BRANCH} of {root}"


def _refusal(root: Path, held: LockInfo) -> FabricopsError:
    state = "held" if held.alive() else "stale (its process is gone)"
    return FabricopsError(
        f"fleet lock {state}: {held.describe()}",
        [f"lock: {LOCK_FILE} on {_where(root)}", "wait for that run; if it is dead, 'fabricops lock break'"],
    )


class FleetLock:
    """The fleet lock of one run: :meth:`acquire`, then :meth:`release` (which publishes the run's state)."""

    def __init__(self, root: Path, command: str) -> None:
        actor = Actor.current()
        self.root = root
        self.info = LockInfo(actor.user, actor.host, actor.pid, time.time(), command, actor.ci_run)
        self._published: str | None = None
        self.held = False

    def acquire(self) -> LockInfo:
        body = (json.dumps(asdict(self.info), indent=2, sort_keys=True) + "\n").encode()
        message = f"lock: {self.info.command} by {self.info.owner}@{self.info.host}"
        for _attempt in range(_ATTEMPTS):
            published = gitstate.pull(self.root)
            held = _held(self.root)
            if held is not None:
                raise _refusal(self.root, held)
            before = gitstate.head(self.root)
            commit = gitstate.write_if_unmoved(self.root, before, {LOCK_FILE: body}, message)
            if commit is None:
                continue  # a writer of this repository took it meanwhile: look again
            try:
                pushed = gitstate.push(self.root, published)
            except FabricopsError:
                gitstate.reset_to(self.root, commit, before)  # never leave an unpublished lock behind
                raise
            if pushed:
                self._published, self.held = commit, True
                return self.info
            gitstate.reset_to(self.root, commit, before)  # another clone moved the remote first: look again
        raise FabricopsError(f"could not take the fleet lock: {_where(self.root)} keeps moving; try again")

    def release(self) -> str | None:
        """Remove the lock and publish the state branch; a problem line when that could not be done."""
        if not self.held:
            return None
        self.held = False
        held = _held(self.root)
        if held is None or not held.same_holder(self.info):
            return f"the fleet lock was broken while this run held it ({_where(self.root)}); check 'fabricops history'"
        gitstate.write_files(self.root, {}, f"unlock: {self.info.command} by {self.info.owner}", remove=[LOCK_FILE])
        try:
            pushed = gitstate.push(self.root, self._published)
        except FabricopsError as exc:
            return (
                f"{exc.message}: the lock and this run's records stay unpublished until this clone's next "
                "deploy pushes them (or 'fabricops lock break' from another clone)"
            )
        if not pushed:
            return (
                f"the fleet lock was broken while this run held it: {_where(self.root)} moved, "
                f"so this run's records stay in this clone's {gitstate.BRANCH}"
            )
        return None


@contextmanager
def fleet_lock(root: Path, command: str = "deploy") -> Iterator[FleetLock]:
    """Hold the fleet lock for the ``with`` block (released even when the block raises)."""
    lock = FleetLock(root, command)
    lock.acquire()
    try:
        yield lock
    finally:
        lock.release()


def break_lock(root: Path) -> LockInfo | None:
    """Remove the fleet lock whoever holds it (``fabricops lock break``); the lock that was broken, or None."""
    me = Actor.current()
    for _attempt in range(_ATTEMPTS):
        published = gitstate.pull(root)
        held = _held(root)
        if held is None:
            return None
        before = gitstate.head(root)
        message = f"lock broken by {me.who}: was held by {held.owner}@{held.host} ({held.command})"
        commit = gitstate.write_if_unmoved(root, before, {}, message, remove=[LOCK_FILE])
        if commit is None:
            continue
        if gitstate.push(root, published):
            return held
        gitstate.reset_to(root, commit, before)
    raise FabricopsError(f"could not break the fleet lock: {_where(root)} keeps moving; try again")
