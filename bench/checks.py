"""The design rules one by one, at two sizes: seconds per rule and how each grows.

In one new process: load and resolve each scaled intent, run every rule once untimed (imports,
the switch models' port indexes), then time from cold (what the rules memoise forgotten) and
with the cycle collector paused, as the compile runs them, ``runs`` rounds over every figure of
every size (so a while of load from other processes falls on all alike), the median of:

* *shared*: the look-ups several rules share (``compiler.checks.rules._common.Fleet``: interfaces
  by name, parsed addresses, links by kind), built once per check run and charged to no rule;
* each rule alone, the shared look-ups already built;
* all rules as the compile runs them (``run_checks``: the shared look-ups, every rule, the sort).

Times are this process's CPU seconds: on a shared machine, wall time would charge a rule for the
moments other processes ran. The growth of a rule is its time at the larger size over the
smaller; each rule is also set against the growth of what it walks (:data:`INPUTS`: devices,
links, servers, interfaces or allocations), so a linear rule reads about 1.0 there. The overall
growth is the sum of the medians (shared + every rule) at the larger size over the smaller.
The fastest run of each figure is kept too: on a busy machine a longer run more often shares
the core with another process, which inflates its CPU time, so the medians of the larger size
carry more of the load than the smaller's; the fastest runs carry the least of it.

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
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

if TYPE_CHECKING:
    from compiler.checks.base import Check
    from compiler.fabric import ResolvedFabric
    from compiler.intent import Intent

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


def _sample(setup: Callable[[], object], work: Callable[[], object]) -> float:
    """CPU seconds of ``work`` after ``setup``, with the collector paused as the compile's checks run
    (``compiler.collection.paused``): no collection lands on a rule, and none walks the whole heap
    between two rules (which the compile never does either)."""
    setup()
    gc.disable()
    start = time.process_time()
    work()
    spent = time.process_time() - start
    gc.enable()
    return spent


def per_rule(intent_dirs: list[Path], runs: int) -> list[dict[str, Any]]:
    """Median seconds of each rule over each of ``intent_dirs`` (all in this process), and each
    fleet's size.

    The runs are rounds: each round times every figure of every size once, so a while of load
    from other processes falls on all rules and both sizes alike rather than on the few figures
    timed meanwhile (the growth is a ratio of two sizes: timed minutes apart, it was the load's).
    """
    from compiler.checks.base import RULES, run_checks
    from compiler.fabric import resolve
    from compiler.intent import load_intent

    sizes = []
    for intent_dir in intent_dirs:
        intent = load_intent(intent_dir)
        fabric = resolve(intent)
        run_checks(intent, fabric)  # imports, the models' port indexes
        sizes.append((intent, fabric))
    samples: list[dict[str, list[float]]] = [defaultdict(list) for _ in sizes]
    gc.collect()
    for _ in range(runs):
        for (intent, fabric), times in zip(sizes, samples, strict=True):
            shared = _shared(fabric)
            times["shared"].append(_sample(_cold, shared))
            times["all_rules"].append(_sample(_cold, _call(run_checks, intent, fabric)))
            for rule in RULES.values():
                times[rule.id].append(_sample(shared, _call(_drain, rule.check, intent, fabric)))
    out = []
    for (_, fabric), times in zip(sizes, samples, strict=True):
        median = {key: statistics.median(values) for key, values in times.items()}
        fastest = {key: min(values) for key, values in times.items()}
        out.append(
            {
                "devices": len(fabric.devices),
                "links": len(fabric.links),
                "servers": len(fabric.servers),
                "interfaces": sum(len(d.config.interfaces) for d in fabric.devices.values()),
                "allocations": len(fabric.allocations),
                "shared": median.pop("shared"),
                "all_rules": median.pop("all_rules"),
                "rules": median,
                # The least disturbed run of each figure: on a busy machine a longer run more often
                # shares the core with another process, which the median of the larger size keeps.
                "fastest": {"all_rules": fastest.pop("all_rules"), "sum": sum(fastest.values())},
            }
        )
    return out


def _shared(fabric: ResolvedFabric) -> Callable[[], object]:
    """From cold, the look-ups the rules share built (what ``run_checks`` does first)."""
    from compiler.checks.rules._common import fleet

    def build() -> object:
        _cold()
        return fleet(fabric).build()

    return build


def _call(function: Callable[..., object], *args: object) -> Callable[[], object]:
    return lambda: function(*args)


def _drain(check: Check, intent: Intent, fabric: ResolvedFabric) -> int:
    """Every finding of ``check``: a rule yields them lazily."""
    return sum(1 for _ in check(intent, fabric))


def _cold() -> None:
    """Forget what the rules memoise (the shared look-ups, parsed ACL sources): each run pays
    for them."""
    from compiler.checks.rules import _common
    from compiler.platforms import eos

    _common._LAST_FLEET.clear()
    eos.acl_source_prefix.cache_clear()


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
    """Per-rule seconds at each size (all sizes in one new process, their runs interleaved)."""
    factors = sorted(intents)
    cmd = [python, __file__, "--one", *(str(intents[f]) for f in factors), "--runs", str(runs)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return {"runs": runs, "sizes": dict(zip(factors, json.loads(done.stdout), strict=True))}


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
        *_fastest(a, b),
        f"{'rule':8} {'small ms':>9} {'large ms':>9} {'growth':>7}  {'input':12} {'per input':>9}",
    ]
    for rid, seconds in sorted(b["rules"].items(), key=lambda kv: -kv[1]):
        lines.append(
            f"{rid:8} {1000 * a['rules'][rid]:9.2f} {1000 * seconds:9.2f} {g['rules'][rid]:6.2f}x"
            f"  {INPUTS.get(rid, 'devices'):12} {g['per_input'][rid]:8.2f}x"
        )
    return "\n".join(lines)


def _fastest(small: dict[str, Any], large: dict[str, Any]) -> list[str]:
    """The line of the least disturbed runs, when the report has them."""
    if "fastest" not in small or "fastest" not in large:
        return []
    a, b = small["fastest"], large["fastest"]
    return [
        f"fastest runs: shared + every rule {1000 * a['sum']:.1f} -> {1000 * b['sum']:.1f} ms,"
        f" {b['sum'] / a['sum']:.2f}x; run_checks {1000 * a['all_rules']:.1f} -> {1000 * b['all_rules']:.1f} ms,"
        f" {b['all_rules'] / a['all_rules']:.2f}x"
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description="Seconds per design rule at two sizes, and how each grows.")
    parser.add_argument("intents", nargs="*", type=Path, help="two intent/ directories, the smaller first")
    parser.add_argument("--one", action="store_true", help="time the intents in this process (JSON)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per figure (the median is kept)")
    parser.add_argument("--json", action="store_true", help="the raw figures as JSON, not a table")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(per_rule(args.intents, args.runs)))
        return
    if len(args.intents) != 2:
        parser.error("give two intent directories (or --one)")
    report = measure(dict(enumerate(args.intents)), args.runs)
    report["load_at_start"] = os.getloadavg()[0]
    print(json.dumps(report) if args.json else table(report))


if __name__ == "__main__":
    main()
