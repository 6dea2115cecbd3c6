"""A stage beside the compile: the same answer from a forked child, its failures raised here."""

from __future__ import annotations

import os
import time

import pytest

from compiler.beside import Beside


class Unpicklable(Exception):
    def __reduce__(self) -> str | tuple[object, ...]:
        raise TypeError("not this one")


def _fail() -> None:
    raise Unpicklable("broken")


def test_the_answer_comes_from_another_process() -> None:
    with Beside(os.getpid, fork=True) as child:
        assert child.forked and child.pid is not None
        assert child.result() != os.getpid()
        assert child.pid is None


def test_without_fork_the_stage_runs_here() -> None:
    with Beside(os.getpid, fork=False) as here:
        assert not here.forked and here.pid is None
        assert here.result() == os.getpid()


def test_an_exception_in_the_child_is_raised_here() -> None:
    with Beside(lambda: {}["leaf1"], fork=True) as child, pytest.raises(KeyError, match="leaf1"):
        child.result()


def test_an_exception_that_does_not_pickle_comes_back_as_its_traceback() -> None:
    with Beside(_fail, fork=True) as child, pytest.raises(RuntimeError, match="Unpicklable: broken"):
        child.result()


def test_a_child_left_running_is_stopped_and_reaped() -> None:
    with Beside(lambda: time.sleep(60), fork=True) as child:
        pid = child.pid
    assert pid is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no such child any more
