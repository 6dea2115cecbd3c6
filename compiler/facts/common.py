"""What every fact builder shares: roles, networks and the problems resolution reports."""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

import functools
from collections.abc import Callable
from typing import Literal, NamedTuple, TypeVar

A = TypeVar("A")
R = TypeVar("R")

Role = Literal["leaf", "spine", "super-spine", "mgmt", "core"]
Network = Literal["compute", "storage", "management"]
FabricNetwork = Literal["compute", "storage"]


class Problem(NamedTuple):
    """Something resolution could not place; the checks turn it into a finding.

    Example:
        >>> Problem("PRT002", "rack01-leaf-a", "rack01-gpu013: position 13 exceeds ports_per_rack 12")
        Problem(rule='PRT002', subject='rack01-leaf-a', message='rack01-gpu013: position 13 exceeds ports_per_rack 12')
    """

    rule: str
    subject: str
    message: str


def same_as_last(derive: Callable[[A], R]) -> Callable[[A], R]:
    """``derive`` of one frozen value, computed again only when handed another object than last time.

    A switch's structured config asks for fleet-wide values (the ACL sources, the storm-control
    levels) of the one design object every switch shares: once per port or per service, tens of
    thousands of times at 16x, for one answer. The answer is shared: callers only read it.

    Example:
        >>> calls = []
        >>> @same_as_last
        ... def double(value: tuple[int, ...]) -> tuple[int, ...]:
        ...     calls.append(value)
        ...     return value * 2
        >>> design = (1, 2)
        >>> double(design), double(design), double((3,)), len(calls)
        ((1, 2, 1, 2), (1, 2, 1, 2), (3, 3), 2)
    """
    last: list[tuple[A, R]] = []

    @functools.wraps(derive)
    def run(value: A) -> R:
        if last and last[0][0] is value:
            return last[0][1]
        result = derive(value)
        last[:] = [(value, result)]
        return result

    return run
