"""The design rules one by one, at two sizes: seconds per rule and how each grows.

For each scaled intent, in a new process: load, resolve, run every rule once untimed (imports,
the switch models' port indexes), then time from cold (what the rules memoise forgotten) and
with the cycle collector paused, as the compile runs them, ``runs`` times each, the median of:

* *shared*: the look-ups several rules share (``compiler.checks.rules._common.Fleet``: interfaces
  by name, parsed addresses, links by kind), built once per check run and charged to no rule;
* each rule alone, the shared look-ups already built;
* all rules as the compile runs them (``run_checks``: the shared look-ups, every rule, the sort).

Times are this process's CPU seconds: on a shared machine, wall time would charge a rule for the
moments other processes ran. The growth of a rule is its time at the larger size over the
smaller; each rule is also set against the growth of what it walks (:data:`INPUTS`: devices,
links, servers, interfaces or allocations), so a linear rule reads about 1.0 there. The overall
growth is the sum of the medians (shared + every rule) at the larger size over the smaller.

    python bench/checks.py INTENT_SMALL INTENT_LARGE [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SIZES = ("devices", "links", "servers", "interfaces", "allocations")
"""What the fleet is counted in; each rule walks one of them (most of its time)."""

INPUTS: dict[str, str] = {
    **dict.fromkeys(("CAB001", "LNK001", "LNK002", "HOP001", "RTE002", "RTE003", "QOS001", "PRT006"), "links"),
    **dict.fromkeys(("REF001", "QOS006", "VLN001", "MLG001"), "interfaces"),
    **dict.fromkeys(("ADR002", "ADR003", "ADR004"), "allocations"),
    **dict.fromkeys(("STC001", "MGT002", "PWR001", "PWR002", "PWR003", "PWR004", "RCK001"), "servers"),
}
"""The input each rule's time follows (RTE002: a BGP session per fabric link; STC001: the server
ports); the others walk the devices. TEL002 reads one switch per network and role: it grows with
the largest switch's ports, not the fleet."""


def _timed(setup: Callable[[], object], work: Callable[[], object], runs: int) -> float:
    """The median CPU seconds of ``work``, each run after ``setup``, with the collector paused as
    the compile's checks run (``compiler.collection.paused``): no collection lands on a rule, and
    none walks the whole heap between two rules (which the compile never does either)."""
    samples = []
    for _ in range(runs):
        setup()
        gc.disable()
        start = time.process_time()
        work()
        samples.append(time.process_time() - start)
        gc.enable()
    return statistics.median(samples)


def per_rule(intent_dir: Path, runs: int) -> dict[str, Any]:
    """Median seconds of each rule over ``intent_dir`` (in this process), and the fleet's size."""
    from compiler.checks.base import RULES, Check, run_checks
    from compiler.checks.rules._common import fleet
    from compiler.fabric import resolve
    from compiler.intent import load_intent

    intent = load_intent(intent_dir)
    fabric = resolve(intent)
    run_checks(intent, fabric)

    def shared() -> None:
        _cold()
        fleet(fabric).build()

    def alone(check: Check) -> Callable[[], object]:
        return lambda: sum(1 for _ in check(intent, fabric))

    gc.collect()
    rules = {rule.id: _timed(shared, alone(rule.check), runs) for rule in RULES.values()}
    return {
        "devices": len(fabric.devices),
        "links": len(fabric.links),
        "servers": len(fabric.servers),
        "interfaces": sum(len(d.config.interfaces) for d in fabric.devices.values()),
        "allocations": len(fabric.allocations),
        "shared": _timed(_cold, lambda: fleet(fabric).build(), runs),
        "all_rules": _timed(_cold, lambda: run_checks(intent, fabric), runs),
        "rules": rules,
    }


def _cold() -> None:
    """Forget what the rules memoise (the shared look-ups, parsed addresses, the cable runs): each
    run pays for them."""
    from compiler.artifacts import physical
    from compiler.checks.rules import _common
    from compiler.platforms import eos

    _common._LAST_FLEET.clear()
    _common.address.cache_clear()
    eos.acl_source_prefix.cache_clear()
    physical._LAST_RUNS.clear()


def total(size: dict[str, Any]) -> float:
    """The checks of one size: the shared look-ups and every rule (medians)."""
    return float(size.get("shared", 0.0)) + float(sum(size["rules"].values()))


def growth(small: dict[str, Any], large: dict[str, Any]) -> dict[str, Any]:
    """Each rule's time at ``large`` over ``small``, against its input's growth, and the fleet's."""
    sizes = {k: large[k] / small[k] for k in SIZES if k in small and k in large}
    rules = {rid: large["rules"][rid] / max(small["rules"][rid], 1e-6) for rid in small["rules"]}
    return {
        **sizes,
        "sum": total(large) / total(small),
        "all_rules": large["all_rules"] / small["all_rules"],
        "rules": rules,
        "per_input": {rid: g / sizes.get(INPUTS.get(rid, "devices"), sizes["devices"]) for rid, g in rules.items()},
    }


def measure(intents: dict[int, Path], runs: int, python: str = sys.executable) -> dict[str, Any]:
    """Per-rule seconds at each size (each in its own process)."""
    sizes: dict[int, Any] = {}
    for factor, intent_dir in sorted(intents.items()):
        cmd = [python, __file__, "--one", str(intent_dir), "--runs", str(runs)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=True)
        sizes[factor] = json.loads(done.stdout)
    return {"runs": runs, "sizes": sizes}


def table(report: dict[str, Any]) -> str:
    """The report as text: each size, then every rule by its time at the larger size."""
    (_, a), (_, b) = sorted(report["sizes"].items())[:2]
    g = growth(a, b)
    fleet = ", ".join(f"{k} {a[k]:,} -> {b[k]:,} ({g[k]:.2f}x)" for k in SIZES if k in g)
    lines = [
        f"fleet: {fleet}",
        f"checks (shared + every rule, medians of {report['runs']}): {1000 * total(a):.1f} -> "
        f"{1000 * total(b):.1f} ms, {g['sum']:.2f}x; run_checks as compiled: {1000 * a['all_rules']:.1f} -> "
        f"{1000 * b['all_rules']:.1f} ms, {g['all_rules']:.2f}x; shared look-ups {1000 * a['shared']:.1f} -> "
        f"{1000 * b['shared']:.1f} ms",
        f"{'rule':8} {'small ms':>9} {'large ms':>9} {'growth':>7}  {'input':12} {'per input':>9}",
    ]
    for rid, seconds in sorted(b["rules"].items(), key=lambda kv: -kv[1]):
        lines.append(
            f"{rid:8} {1000 * a['rules'][rid]:9.2f} {1000 * seconds:9.2f} {g['rules'][rid]:6.2f}x"
            f"  {INPUTS.get(rid, 'devices'):12} {g['per_input'][rid]:8.2f}x"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description="Seconds per design rule at two sizes, and how each grows.")
    parser.add_argument("intents", nargs="*", type=Path, help="two intent/ directories, the smaller first")
    parser.add_argument("--one", type=Path, help="one intent, in this process (JSON)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure (the median is kept)")
    parser.add_argument("--json", action="store_true", help="the raw figures as JSON, not a table")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(per_rule(args.one, args.runs)))
        return
    if len(args.intents) != 2:
        parser.error("give two intent directories (or --one)")
    report = measure(dict(enumerate(args.intents)), args.runs)
    report["load_at_start"] = os.getloadavg()[0]
    print(json.dumps(report) if args.json else table(report))


if __name__ == "__main__":
    main()
