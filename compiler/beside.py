"""A stage run beside the rest of the compile, in a forked process: on two cores the compile
waits for the longer of the two instead of their sum.

The checks read the whole resolved fabric and give back a short list of findings; the render
stage reads the same fabric and gives back files. Neither needs the other, so once the fabric is
resolved a child process made by ``fork`` (it inherits the fabric as it is, nothing is copied
or sent) runs the checks while the parent renders, and sends back only its answer, pickled.

The answer is written whole into a file in memory (``memfd``) and read whole once the child is
done, which it tells by closing a pipe: through the pipe itself, a walk's 2.7 MB went 64 KB at a
time, the child woken for each (40 turns of the scheduler: 15-60 ms on a busy machine) and held
until the parent asked.

Only where it is safe: on Linux (macOS frameworks may abort a child forked without ``exec``),
and while the process runs no other thread (a child forked beside a running thread may inherit
a lock held by it and wait for ever). Elsewhere, and when asked not to, the stage runs in the
calling process as it is made: same answer, one after the other. An exception in the child
comes back and is raised by :meth:`Beside.result`.

Example:
    >>> checks = Beside(lambda: sorted(["b", "a"]))
    >>> checks.result()
    ['a', 'b']
    >>> Beside(lambda: 1 // 0, fork=True).result()
    Traceback (most recent call last):
    ZeroDivisionError: integer division or modulo by zero
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


def can_fork() -> bool:
    """Whether a stage may run in a forked child here: Linux, and no other thread running."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


class Beside(Generic[T]):
    """``stage()`` running in a forked child (or, where it cannot, already run here).

    ``fork``: None decides by :func:`can_fork`; True forks anyway (tests); False never forks.
    """

    def __init__(self, stage: Callable[[], T], fork: bool | None = None) -> None:
        self._done: tuple[bool, object] | None = None
        self._child: tuple[int, int, int] | None = None
        """The child's process id, the pipe it closes once its answer is written, the answer's file."""
        self.forked = can_fork() if fork is None else fork
        """Whether the stage runs in a child process."""
        if not self.forked:
            self._done = _outcome(stage)
            return
        read, write = os.pipe()
        answer = os.memfd_create("beside", os.MFD_CLOEXEC)
        pid = os.fork()
        if pid == 0:  # the child: the stage, its outcome written, the pipe closed, out without cleanup
            os.close(read)
            try:
                data = _pickled(_outcome(stage))
                with open(answer, "wb", closefd=False) as out:
                    out.write(data)
                os.close(write)
            finally:
                os._exit(0)
        os.close(write)
        self._child = (pid, read, answer)

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs (None once its answer is in, or never forked)."""
        return self._child[0] if self._child is not None else None

    def __enter__(self) -> Beside[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        """A child still running (the caller failed before asking for its answer) is stopped."""
        if self._child is not None:
            import signal  # here: only a compile that failed stops a child

            pid, done, answer = self._child
            self._child = None
            os.close(done)
            os.close(answer)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)

    def result(self) -> T:
        """The stage's answer, waiting for the child if it runs; its exception raised here."""
        if self._child is not None:
            pid, done, answer = self._child
            os.read(done, 1)  # nothing comes: it returns once the child closed the pipe (or ended)
            os.close(done)
            with open(answer, "rb") as out:
                out.seek(0)  # one offset for both processes: the child's write left it at the end
                data = out.read()
            os.waitpid(pid, 0)
            self._child = None
            self._done = pickle.loads(data) if data else (False, RuntimeError("a forked stage ended without an answer"))
        assert self._done is not None
        ok, value = self._done
        if ok is False:
            assert isinstance(value, BaseException)
            raise value
        return value  # type: ignore[return-value]


def _outcome(stage: Callable[[], T]) -> tuple[bool, object]:
    try:
        return True, stage()
    except Exception as exc:  # raised again by the parent
        return False, exc


def _pickled(outcome: tuple[bool, object]) -> bytes:
    """``outcome`` pickled; an exception that does not pickle comes back as its traceback's text."""
    try:
        return pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        import traceback  # here: only a failure that does not pickle needs it

        _, value = outcome
        text = "".join(traceback.format_exception(value)) if isinstance(value, BaseException) else repr(value)
        return pickle.dumps((False, RuntimeError(f"a forked stage failed:\n{text}")))
