"""The checks' process after a one-row change: every structured config built, or the unchanged
switches' configs lent from ``.fabricops-cache/configs.marshal`` (:mod:`compiler.configcache`).

The intent scaled ``--factor`` times (:mod:`bench.scale`) is resolved once and its configs kept
as a compile leaves them; then a server row is added to rack 3 (its leaves and management switch
change) and, in a new process for each figure, the intent is loaded and resolved, the facts
digests taken (the compile's parent does that before it forks), and the checks timed in a
process forked then, as the compile runs them (its allocations cost more there than in a fresh
process: the pages it writes are copied from its parent's first):

* *built*: ``run_checks`` over the fabric, each config built as the rules read it (before);
* *kept*: the configs lent (:meth:`~compiler.configcache.ConfigCache.lend`), the checks, the
  file written again with the configs built (:meth:`~compiler.configcache.ConfigCache.save`),
  each run from a copy of the kept file.

The forked process's CPU seconds (user and system), the cycle collector paused as in the
compile; ``runs`` rounds of both (a while of load from other processes falls on both alike), medians and fastest runs.

    python bench/checkscache.py [--factor 16] [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROW = ("rack03-gpu009,", "rack03-gpu010,gpu-8x-h100,GPU-0310\n")
"""The server row added: after rack 3's ninth server."""


def one(variant: str, intent_dir: Path, kept: Path) -> float:
    """CPU seconds (user and system) of the checks of ``intent_dir`` in a process forked from
    this one once it resolved the fabric, as the compile runs them (``variant``: built or kept)."""
    from compiler.artifacts.units import facts_digests
    from compiler.beside import Beside
    from compiler.checks import run_checks
    from compiler.checks.rules import _common  # noqa: F401  (the rules imported untimed: counted alike)
    from compiler.configcache import ConfigCache
    from compiler.fabric import resolve
    from compiler.intent import load_intent

    gc.disable()
    intent = load_intent(intent_dir)
    fabric = resolve(intent)
    digests = facts_digests(fabric)

    def kept_configs() -> int:
        configs = ConfigCache(kept)
        lent = configs.lend(fabric, digests)
        run_checks(intent, lent)
        configs.save(lent, digests)
        return configs.kept

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    if variant == "built":
        Beside(lambda: run_checks(intent, fabric), fork=True).result()
    else:
        lent = Beside(kept_configs, fork=True).result()
        assert 0 < lent < len(fabric.devices), lent
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def prepare(factor: int, root: Path) -> tuple[Path, Path]:
    """The scaled intent with the row added, and a cache directory holding the configs of the
    intent without it."""
    from bench.scale import write_intent
    from compiler.artifacts.units import facts_digests
    from compiler.configcache import ConfigCache
    from compiler.fabric import resolve
    from compiler.intent import load_intent

    intent_dir = root / "intent"
    write_intent(factor, intent_dir)
    fabric = resolve(load_intent(intent_dir))
    for device in fabric.devices.values():
        device.config  # noqa: B018  (built, as the checks build them)
    saved = ConfigCache(root / "saved")
    saved.save(saved.lend(fabric, facts_digests(fabric)), facts_digests(fabric))
    servers = intent_dir / "servers.csv"
    lines = servers.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(ROW[0]))
    servers.write_text("".join([*lines[: at + 1], ROW[1], *lines[at + 1 :]]))
    return intent_dir, root / "saved"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--factor", type=int, default=16)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", nargs=3, metavar=("VARIANT", "INTENT", "CACHE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(one(args.one[0], Path(args.one[1]), Path(args.one[2])))
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        intent_dir, saved = prepare(args.factor, root)
        times: dict[str, list[float]] = {"built": [], "kept": []}
        for _ in range(args.runs):
            for variant, spent in times.items():
                copy = root / "kept"
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(saved, copy)
                command = [sys.executable, __file__, "--one", variant, str(intent_dir), str(copy)]
                out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
                spent.append(float(out))
    figures = {variant: {"median": statistics.median(spent), "fastest": min(spent)} for variant, spent in times.items()}
    if args.json:
        print(json.dumps({"factor": args.factor, "runs": args.runs, **figures}, indent=2))
        return
    built, kept = figures["built"], figures["kept"]
    print(
        f"checks after a one-row change at {args.factor}x, CPU s (median / fastest of {args.runs}): "
        f"configs built {built['median']:.3f} / {built['fastest']:.3f}, "
        f"unchanged ones lent {kept['median']:.3f} / {kept['fastest']:.3f} "
        f"({built['median'] / kept['median']:.2f}x)"
    )


if __name__ == "__main__":
    main()
