"""The stages that build the fleet's data run with Python's cycle collector paused.

Loading, resolving and checking allocate hundreds of thousands of small objects (models, facts,
structured configs, findings) that all live until the compile ends, and make next to no
reference cycles. The collector walks them again and again as they pile up: at 4x its passes
were about a quarter of resolve, for nothing to collect. Reference counting still frees
what a stage drops; the collector resumes when the outermost paused stage returns, and collects
whatever cycles were left then.

Example:
    >>> import gc
    >>> @paused
    ... def stage() -> bool:
    ...     return gc.isenabled()
    >>> stage(), gc.isenabled()
    (False, True)
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


def paused(stage: Callable[P, R]) -> Callable[P, R]:
    """``stage`` runs with the cycle collector off (nested stages: the outermost turns it back on)."""

    @functools.wraps(stage)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        if not gc.isenabled():
            return stage(*args, **kwargs)
        gc.disable()
        try:
            return stage(*args, **kwargs)
        finally:
            gc.enable()

    return run
