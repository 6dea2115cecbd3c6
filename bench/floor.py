"""The floor: a bare Jinja2 render + write of the same lines from ready dicts.

No loading, no resolution, no checks, no allocation: each file is cut into sections
beforehand (untimed; a config at its ``!`` lines), handed to one compiled template that
only loops and prints, and the text is written to its own file. What is timed is the least
any Jinja2-based compiler producing the same text must spend. Two floors:

* ``configs``: the switch configs only (``generated/configs/*.cfg``);
* ``all``: every file of ``generated/`` (configs, structured data, inventory, monitoring,
  server files, docs), in the same directory layout.

    python bench/floor.py GENERATED_DIR [--runs 3]
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


def ready_dicts(generated: Path, pattern: str) -> dict[str, dict[str, Any]]:
    """Each file matching ``pattern`` as ``{"sections": [{"lines": [...]}, ...]}``, built untimed."""
    files: dict[str, dict[str, Any]] = {}
    for path in sorted(generated.glob(pattern)):
        if not path.is_file():
            continue
        sections: list[dict[str, list[str]]] = [{"lines": []}]
        for line in path.read_text().splitlines():
            sections[-1]["lines"].append(line)
            if line == "!":
                sections.append({"lines": []})
        files[path.relative_to(generated).as_posix()] = {"sections": sections}
    return files


def measure(generated: Path, runs: int, pattern: str = "configs/*.cfg") -> dict[str, Any]:
    """Median seconds to render and write every file of ``generated`` matching ``pattern`` from ready dicts."""
    files = ready_dicts(generated, pattern)
    folders = sorted({str(Path(name).parent) for name in files})
    template = jinja2.Environment(autoescape=False, keep_trailing_newline=True).from_string(TEMPLATE)
    samples: list[float] = []
    lines = 0
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(runs):
            out = Path(tmp) / f"run{run}"
            start = time.perf_counter()
            for folder in folders:
                (out / folder).mkdir(parents=True, exist_ok=True)
            lines = 0
            for name, data in files.items():
                text = template.render(data)
                lines += text.count("\n")
                (out / name).write_text(text)
            samples.append(time.perf_counter() - start)
    return {"files": len(files), "lines": lines, "seconds": statistics.median(samples), "runs": runs}


def both(generated: Path, runs: int) -> dict[str, Any]:
    """The configs-only floor and the every-file floor."""
    return {"configs": measure(generated, runs), "all": measure(generated, runs, "**/*")}


def main() -> None:
    parser = argparse.ArgumentParser(description="Bare Jinja2 render + write of ready dicts; prints JSON.")
    parser.add_argument("generated", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(both(args.generated, args.runs)))


if __name__ == "__main__":
    main()
