"""Compile pyavd inputs (from ``bench/avd_inputs.py``) with pyavd, timed per stage.

Runs under any interpreter that has pyavd (``--pyavd-python`` of ``bench/run.py``) and needs
nothing but pyavd and the standard library. The stages are pyavd's public API, as its
documentation chains them:

1. ``validate_inputs``: once per distinct set of inputs (node type and leaf pair: both leaves
   of a pair have the same inputs here; an AVD inventory validates per device, so this is the
   cheaper reading);
2. ``get_avd_facts`` over all devices;
3. ``get_device_structured_config`` per device;
4. ``get_device_config`` per device, and the text written to ``--out`` when given.

Prints one JSON object: devices, config lines, seconds per stage, peak RSS.

    python bench/avd_run.py inputs.json [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any


def run(inputs: dict[str, Any], out: Path | None) -> dict[str, Any]:
    """Compile every host of ``inputs``; return the counts and the seconds per stage."""
    start = time.perf_counter()
    import pyavd  # type: ignore[import-not-found]  # imported here so its import time is reported apart

    timings: dict[str, float] = {"import": time.perf_counter() - start}
    shared, hosts = inputs["shared"], inputs["hosts"]
    groups, servers = inputs.get("groups", {}), inputs.get("servers", {})

    start = time.perf_counter()
    validated: dict[tuple[str, str], dict[str, Any]] = {}
    all_inputs = {}
    for host, node_type in hosts.items():
        key = (node_type, groups.get(host, ""))
        if key not in validated:
            host_inputs = {**shared, "type": node_type, "servers": servers.get(key[1], [])}
            result = pyavd.validate_inputs(host_inputs)
            violations = result.validation_result.violations
            if violations or result.validated_data is None:
                errors = [f"{getattr(v, 'path', '')}: {getattr(v, 'message', v)}" for v in violations][:10]
                raise SystemExit(f"pyavd rejected the inputs ({node_type}): {errors}")
            validated[key] = result.validated_data
        all_inputs[host] = validated[key]
    timings["validate"] = time.perf_counter() - start

    start = time.perf_counter()
    facts = pyavd.get_avd_facts(all_inputs)
    timings["facts"] = time.perf_counter() - start

    start = time.perf_counter()
    structured = {host: pyavd.get_device_structured_config(host, all_inputs[host], facts) for host in hosts}
    timings["structured"] = time.perf_counter() - start

    start = time.perf_counter()
    lines = 0
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    configs = 0
    for host, config in structured.items():
        text = pyavd.get_device_config(config)
        lines += text.count("\n")
        configs += 1 if text.strip() else 0
        if out is not None:
            (out / f"{host}.cfg").write_text(text)
    timings["config"] = time.perf_counter() - start
    timings["total"] = sum(v for k, v in timings.items() if k != "import")
    return {
        "devices": len(hosts),
        "configs": configs,
        "lines": lines,
        "timings": timings,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "pyavd": pyavd.__version__,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", type=Path)
    parser.add_argument("--out", type=Path, default=None, help="write each device's config here")
    args = parser.parse_args()
    result = run(json.loads(args.inputs.read_text()), args.out)
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
