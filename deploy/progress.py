"""A rich progress bar over devices, on stderr, one task per phase (reading, diffing, deploying)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class RichProgress:
    """Implements :class:`deploy.run.Progress` on a started ``rich.progress.Progress``."""

    def __init__(self, bar: Any) -> None:
        self._bar = bar
        self._task: Any = None
        self._name = ""

    def phase(self, name: str, total: int) -> None:
        if self._task is not None:
            self._bar.update(self._task, completed=self._bar.tasks[-1].total)
        self._name = name
        self._task = self._bar.add_task(name, total=max(total, 0))

    def advance(self, device: str, status: str) -> None:
        if self._task is not None:
            self._bar.update(self._task, advance=1, description=f"{self._name} {device}: {status}")


@contextmanager
def device_progress(enabled: bool) -> Iterator[RichProgress | None]:
    """A progress bar on stderr while the block runs, or None when disabled (JSON output, no tty)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    columns = (TextColumn("{task.description:<40}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        yield RichProgress(bar)
