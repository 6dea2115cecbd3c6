"""Where a compile's time goes: cProfile of one in-process compile and write, top functions."""

from __future__ import annotations

import cProfile
import pstats
from pathlib import Path
from typing import Any


def top(intent_dir: Path, generated: Path, limit: int = 15) -> dict[str, Any]:
    """The functions with the most own time (and their cumulative time) in one compile + write."""
    from compiler.pipeline import compile_intent, write_generated

    profiler = cProfile.Profile()
    profiler.enable()
    result = compile_intent(intent_dir, fork=False)  # the checks in this process, counted in it
    write_generated(result, generated)
    profiler.disable()
    stats = pstats.Stats(profiler)
    rows = []
    entries: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    for (filename, line, name), (_, calls, own, cumulative, _) in entries.items():
        rows.append(
            {"function": f"{_short(filename)}:{line}({name})", "calls": calls, "own": own, "cumulative": cumulative}
        )
    rows.sort(key=lambda r: r["own"], reverse=True)
    total = sum(r["own"] for r in rows)
    return {"intent": str(intent_dir), "timings": result.timings, "total_own": total, "top": rows[:limit]}


def _short(filename: str) -> str:
    """A path from the package root (compiler/..., jinja2/...) or the builtin marker."""
    parts = Path(filename).parts
    for anchor in ("compiler", "jinja2", "yaml", "pydantic", "ipaddress.py", "json", "pathlib.py"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor) :])
    return Path(filename).name if filename != "~" else "builtin"
