"""Drift's own CPU per switch, without the lab: the comparison of each config with itself.

``plan`` and ``drift`` over the lab spend CPU in three places: the lab answering (its own
process: ``bench/fleet.py`` reads its CPU from ``/proc``), the CLI's reading and transport, and
the CLI comparing each running config with its generated one (:func:`drift.compare.compare_config`:
parse both into trees, drop defaults, diff). This measures the last alone, in this process,
over every switch config of a compiled ``generated/``: the config compared with itself, the
in-sync case (a device's text adds its release's default lines and every physical port, so
this is a lower bound). The ceiling it implies, switches per second on one core, is what
the comparison leaves possible whatever the network and the lab do. ``memo_ms_per_switch`` is
the same in-sync verdict recognised by :class:`drift.memo.InSyncMemo` (a digest of both texts,
no parsing): what a run costs per switch when the switch printed the same config last time.

    python bench/compare.py GENERATED_DIR [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _median_cpu(compare: Callable[[str], object], configs: list[str], runs: int) -> float:
    """Median CPU seconds of one pass of ``compare`` over every config."""
    samples = []
    for _ in range(runs):
        start = time.process_time()
        for text in configs:
            compare(text)
        samples.append(time.process_time() - start)
    return statistics.median(samples)


def measure(generated: Path, runs: int = 3) -> dict[str, Any]:
    """Median seconds to compare every config with itself, per switch and in all."""
    from drift.compare import compare_config
    from drift.memo import InSyncMemo

    configs = [p.read_text() for p in sorted((generated / "configs").glob("*.cfg"))]
    compare_config(configs[0], configs[0], values={}, key=b"bench")  # rules and caches built
    seconds = _median_cpu(lambda text: compare_config(text, text, values={}, key=b"bench"), configs, runs)
    memo = InSyncMemo(None)  # this process only: the first pass remembers, the next ones recognise
    for text in configs:
        memo(text, text, values={}, key=b"bench")
    recognised = _median_cpu(lambda text: memo(text, text, values={}, key=b"bench"), configs, runs)
    return {
        "memo_ms_per_switch": 1000 * recognised / len(configs),
        "switches": len(configs),
        "lines": sum(text.count("\n") for text in configs),
        "cpu_seconds": seconds,
        "ms_per_switch": 1000 * seconds / len(configs),
        "ceiling_per_core": len(configs) / seconds,
        "runs": runs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="CPU of drift's comparison per switch, no lab; JSON.")
    parser.add_argument("generated", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(measure(args.generated, args.runs)))


if __name__ == "__main__":
    main()
