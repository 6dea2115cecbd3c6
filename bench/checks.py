"""The design rules one by one, at two sizes: seconds per rule and how each grows.

For each scaled intent, in a new process: load, resolve, run every rule once untimed (imports),
then each rule ``runs`` times from cold (what the rules memoise forgotten, the garbage
collector paused: its pauses are in the all-rules figure), its median. Times are this
process's CPU seconds: on a shared machine, wall time would charge a rule for the moments
other processes ran. The growth of a rule is its
time at the larger size over the smaller; devices and links grow by about the same factor, so a
linear rule grows by about that much and a quadratic one by its square.

    python bench/checks.py INTENT_SMALL INTENT_LARGE [--runs 5]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def per_rule(intent_dir: Path, runs: int) -> dict[str, Any]:
    """Median seconds of each rule over ``intent_dir`` (in this process), and the fleet's size."""
    from compiler.checks.base import RULES, run_checks
    from compiler.fabric import resolve
    from compiler.intent import load_intent

    intent = load_intent(intent_dir)
    fabric = resolve(intent)
    run_checks(intent, fabric)
    rules: dict[str, float] = {}
    for rule in RULES.values():
        samples = []
        for _ in range(runs):
            _cold()
            gc.collect()
            gc.disable()  # a collection would land on whichever rule runs then; the total below keeps it
            start = time.process_time()
            for _finding in rule.check(intent, fabric):
                pass
            samples.append(time.process_time() - start)
            gc.enable()
        rules[rule.id] = statistics.median(samples)
    _cold()
    start = time.process_time()
    run_checks(intent, fabric)
    return {
        "devices": len(fabric.devices),
        "links": len(fabric.links),
        "servers": len(fabric.servers),
        "all_rules": time.process_time() - start,
        "rules": rules,
    }


def _cold() -> None:
    """Forget what the rules memoise (parsed addresses, the cable runs): each run pays for them."""
    from compiler.artifacts import physical
    from compiler.checks.rules import _common
    from compiler.platforms import eos

    _common.address.cache_clear()
    eos.acl_source_prefix.cache_clear()
    physical._LAST_RUNS.clear()


def growth(small: dict[str, Any], large: dict[str, Any]) -> dict[str, Any]:
    """Each rule's time at ``large`` over ``small``, and the fleet's growth."""
    return {
        "devices": large["devices"] / small["devices"],
        "links": large["links"] / small["links"],
        "sum": sum(large["rules"].values()) / sum(small["rules"].values()),
        "rules": {rid: large["rules"][rid] / max(small["rules"][rid], 1e-6) for rid in small["rules"]},
    }


def measure(intents: dict[int, Path], runs: int, python: str = sys.executable) -> dict[str, Any]:
    """Per-rule seconds at each size (each in its own process)."""
    sizes: dict[int, Any] = {}
    for factor, intent_dir in sorted(intents.items()):
        cmd = [python, __file__, "--one", str(intent_dir), "--runs", str(runs)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        sizes[factor] = json.loads(done.stdout)
    return {"runs": runs, "sizes": sizes}


def main() -> None:
    parser = argparse.ArgumentParser(description="Seconds per design rule at each size; JSON.")
    parser.add_argument("intents", nargs="*", type=Path)
    parser.add_argument("--one", type=Path, help="one intent, in this process")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(per_rule(args.one, args.runs)))
        return
    print(json.dumps(measure(dict(enumerate(args.intents)), args.runs)))


if __name__ == "__main__":
    main()
