"""Answers kept for frozen values that many callers ask about: by identity, never by equality
(hashing or comparing a large frozen model costs more than the answer).

The values must not change while kept: intent models are frozen, facts are immutable records.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

A = TypeVar("A")
R = TypeVar("R")


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


def per_object(derive: Callable[[A], R]) -> Callable[[A], R]:
    """``derive`` of one frozen value, kept per object (by identity) for the last few objects.

    Like :func:`same_as_last` for values that alternate: the switches of a fabric take turns
    among a handful of role layouts, each asked for the same answer hundreds of times at 16x.
    The object is held with its answer, so its identity cannot be reused while it is kept.

    Example:
        >>> calls = []
        >>> @per_object
        ... def double(value: tuple[int, ...]) -> tuple[int, ...]:
        ...     calls.append(value)
        ...     return value * 2
        >>> a, b = (1,), (2,)
        >>> double(a), double(b), double(a), len(calls)
        ((1, 1), (2, 2), (1, 1), 2)
    """
    kept: dict[int, tuple[A, R]] = {}

    @functools.wraps(derive)
    def run(value: A) -> R:
        found = kept.get(id(value))
        if found is not None and found[0] is value:
            return found[1]
        result = derive(value)
        if len(kept) >= _KEPT_OBJECTS:
            del kept[next(iter(kept))]
        kept[id(value)] = (value, result)
        return result

    return run


_KEPT_OBJECTS = 32
"""Enough for the objects that take turns (a fabric's role layouts, its server models); an
object asked about in one run of calls (one switch's facts) is kept until 32 others came."""
