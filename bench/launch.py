"""Run a command and report its own wall time, CPU time and peak RSS.

Linux keeps a process's peak RSS across ``exec``, so a command forked straight from a large
benchmark process would report at least that process's size. Measured commands are started
from this small launcher instead (a fresh interpreter), and ``os.wait4`` gives the rusage of
the command alone.

    python bench/launch.py RESULT.json -- CMD...
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def measured(cmd: list[str], cwd: Path, log: Path) -> dict[str, Any]:
    """Run ``cmd`` through the launcher; its exit code, wall seconds, CPU seconds and peak RSS (MiB)."""
    result = log.with_suffix(".rusage.json")
    with log.open("w") as out:
        subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), str(result), "--", *cmd],
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=True,
        )
    return {**json.loads(result.read_text()), "log": str(log)}


def main() -> None:
    result, cmd = Path(sys.argv[1]), sys.argv[sys.argv.index("--") + 1 :]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    rc = proc.returncode
    cpu = usage.ru_utime + usage.ru_stime
    result.write_text(json.dumps({"rc": rc, "seconds": seconds, "cpu": cpu, "peak_rss_mib": usage.ru_maxrss / 1024}))


if __name__ == "__main__":
    main()
