"""Who runs a command, from where: named in the fleet lock, run records and the state of record.

In GitHub Actions the person is the actor that started the workflow and the run has a URL;
elsewhere it is the login name on this host.

Example:
    >>> a = Actor("alice", "ops1", 42, "https://github.com/o/r/actions/runs/7")
    >>> a.who, a.describe()
    ('alice@ops1', 'alice@ops1 (https://github.com/o/r/actions/runs/7)')
"""

from __future__ import annotations

import getpass
import os
import socket
from dataclasses import dataclass


@dataclass(frozen=True)
class Actor:
    """A person (or CI actor), the host and process they run on, and the CI run if any."""

    user: str
    host: str
    pid: int
    ci_run: str = ""

    @property
    def who(self) -> str:
        return f"{self.user}@{self.host}"

    def describe(self) -> str:
        return f"{self.who} ({self.ci_run})" if self.ci_run else self.who

    @classmethod
    def current(cls) -> Actor:
        env = os.environ
        run = ""
        if env.get("GITHUB_RUN_ID") and env.get("GITHUB_REPOSITORY"):
            server = env.get("GITHUB_SERVER_URL", "https://github.com")
            run = f"{server}/{env['GITHUB_REPOSITORY']}/actions/runs/{env['GITHUB_RUN_ID']}"
        user = env.get("GITHUB_ACTOR") or _login()
        return cls(user, socket.gethostname(), os.getpid(), run)


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (containers)
        return f"uid{os.getuid()}"
