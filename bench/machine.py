"""What machine a benchmark ran on: CPU, cores, memory, Python, date, load."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return 0.0


def _commit() -> str:
    """The checkout's commit: what was measured (the compiler changes between commits)."""
    root = Path(__file__).resolve().parent.parent
    cmd = ["git", "rev-parse", "--short", "HEAD"]
    probe = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=False)
    return probe.stdout.strip() or "unknown"


def describe() -> dict[str, Any]:
    """The facts RESULTS.md prints about the machine."""
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count() or 0,
        "memory_gib": round(_memory_gib(), 1),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load_at_start": [round(x, 2) for x in load],
        "commit": _commit(),
    }
