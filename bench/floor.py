"""The floor: a bare Jinja2 render + write of the same config lines from ready dicts.

No loading, no resolution, no checks, no allocation: each device's config is cut into its
``!``-separated sections beforehand (untimed), handed to one compiled template that only
loops and prints, and the text is written to one file per device. What is timed is the
least any Jinja2-based compiler producing the same text must spend.

    python bench/floor.py GENERATED_CONFIGS_DIR [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import jinja2

TEMPLATE = """\
{% for section in sections %}{% for line in section.lines %}{{ line }}
{% endfor %}{% endfor %}"""


def ready_dicts(configs: Path) -> dict[str, dict[str, Any]]:
    """Each device's config as ``{"sections": [{"lines": [...]}, ...]}``, built outside the timing."""
    devices: dict[str, dict[str, Any]] = {}
    for path in sorted(configs.glob("*.cfg")):
        sections: list[dict[str, list[str]]] = [{"lines": []}]
        for line in path.read_text().splitlines():
            sections[-1]["lines"].append(line)
            if line == "!":
                sections.append({"lines": []})
        devices[path.stem] = {"sections": sections}
    return devices


def measure(configs: Path, runs: int) -> dict[str, Any]:
    """Median seconds to render and write every device of ``configs`` from ready dicts."""
    devices = ready_dicts(configs)
    template = jinja2.Environment(autoescape=False, keep_trailing_newline=True).from_string(TEMPLATE)
    samples: list[float] = []
    lines = 0
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):
            out = Path(tmp) / f"run{run}"
            start = time.perf_counter()
            out.mkdir()
            lines = 0
            for name, data in devices.items():
                text = template.render(data)
                lines += text.count("\n")
                (out / f"{name}.cfg").write_text(text)
            samples.append(time.perf_counter() - start)
    return {"devices": len(devices), "lines": lines, "seconds": statistics.median(samples), "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser(description="Bare Jinja2 render + write of ready dicts; prints JSON.")
    parser.add_argument("configs", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(measure(args.configs, args.runs)))


if __name__ == "__main__":
    main()
