"""The workflows that touch the fleet: one concurrency group, secrets per step, drift robust to the fleet.

The drift issue script runs under node against an in-memory repository: it edits and closes only
the issues it opened (a marker in the body), never one people opened with the same label.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from core.configtree import Change
from core.topology import Link, Topology
from drift.audit import Audit, DeviceResult
from drift.report import issue_marker, issue_plan
from tests.mermaid import parsed

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github" / "workflows"
FLEET = ("deploy.yml", "rollback.yml", "drift.yml")
ISSUES_SCRIPT = REPO / ".github" / "scripts" / "drift-issues.js"


def workflow(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((WORKFLOWS / name).read_text())
    return data


def test_drift_deploy_and_rollback_share_one_concurrency_group() -> None:
    groups = {name: workflow(name)["concurrency"] for name in FLEET}
    assert {g["group"] for g in groups.values()} == {"fabricops-fleet"}
    assert not any(g["cancel-in-progress"] for g in groups.values()), "a deploy is never cancelled halfway"


def test_each_secret_reaches_only_the_steps_that_talk_to_devices_or_push() -> None:
    for name in FLEET:
        for job_name, job in workflow(name)["jobs"].items():
            assert not any("secrets." in str(v) for v in (job.get("env") or {}).values()), f"{name}: {job_name} env"
            for step in job["steps"]:
                env = step.get("env") or {}
                secret = [k for k, v in env.items() if "secrets." in str(v) or "github.token" in str(v)]
                if not secret:
                    continue
                run = str(step.get("run", ""))
                assert "fabricops " in run, f"{name}: step {step.get('name')} gets {secret} and runs no fabricops"
                assert "--merge" not in run, f"{name}: merging reports needs no secret"
                if "GH_TOKEN" in secret:
                    assert "deploy " in run or "rollback " in run, f"{name}: only deploy and rollback push"


def test_drift_reports_whatever_the_shards_did() -> None:
    """An unreachable device is a finding, not a failed shard; the merge and the issues always run."""
    jobs = workflow("drift.yml")["jobs"]
    audit = next(s for s in jobs["audit"]["steps"] if s.get("name") == "Audit this shard")
    assert "--allow-unreachable" in audit["run"]
    upload = next(s for s in jobs["audit"]["steps"] if "upload-artifact" in str(s.get("uses")))
    assert upload["if"] == "${{ !cancelled() }}"
    assert jobs["report"]["if"].startswith("${{ !cancelled() }}")
    issues = next(s for s in jobs["report"]["steps"] if "github-script" in str(s.get("uses")))
    assert issues["if"].startswith("${{ !cancelled()")
    assert "drift-issues.js" in issues["with"]["script"]


def _issue(number: int, title: str, body: str, labels: tuple[str, ...] = ("drift",)) -> dict[str, Any]:
    return {"number": number, "title": title, "body": body, "labels": list(labels), "state": "open", "comments": []}


def test_the_issue_script_touches_only_the_issues_it_opened() -> None:
    node = shutil.which("node")
    assert node, "node runs the drift issue script"
    issues = [
        _issue(1, "drift: leaf1", f"{issue_marker('leaf1')}\nold report"),
        _issue(2, "drift: leaf2", f"{issue_marker('leaf2')}\nold report"),
        _issue(3, "drift: leaf2", "opened by a person, with the drift label and the same title"),
        _issue(4, "drift: leaf3", f"{issue_marker('leaf3')}\nold report"),
    ]
    plan = [
        {"device": "leaf1", "status": "drift", "action": "open", "title": "drift: leaf1", "body": "new report"},
        {"device": "leaf2", "status": "in-sync", "action": "close", "title": "drift: leaf2", "body": ""},
        {"device": "leaf3", "status": "unreachable", "action": "keep", "title": "drift: leaf3", "body": ""},
        {"device": "leaf4", "status": "pending", "action": "close", "title": "drift: leaf4", "body": ""},
        {"device": "rogue", "status": "unmanaged", "action": "open", "title": "unmanaged switch: rogue", "body": "x"},
    ]
    proc = subprocess.run(
        [node, str(Path(__file__).with_name("drift_issues.mjs")), str(ISSUES_SCRIPT)],
        input=json.dumps({"issues": issues, "plan": plan}),
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(proc.stdout)
    after = {issue["number"]: issue for issue in result["issues"]}
    assert after[1]["body"] == "new report" and after[1]["state"] == "open"
    assert after[2]["state"] == "closed" and after[2]["comments"], "back in sync: closed with a comment"
    assert after[3]["state"] == "open" and after[3]["body"].startswith("opened by a person"), "never touched"
    assert after[4]["state"] == "open" and after[4]["body"].endswith("old report"), "unreachable keeps its issue"
    assert after[5]["title"] == "unmanaged switch: rogue" and after[5]["labels"] == ["drift"]
    assert result["done"] == {"opened": ["rogue"], "updated": ["leaf1"], "closed": ["leaf2"]}
    assert [c for c in result["calls"] if c[1] == 3] == []


def test_the_issue_the_script_opens_carries_the_map_around_its_device() -> None:
    """From drift's issues.json to the issue on GitHub: the body keeps its marker and its Mermaid map."""
    node = shutil.which("node")
    assert node, "node runs the drift issue script"
    topology = Topology(
        {"leaf1": ("leaf", "compute"), "leaf2": ("leaf", "compute"), "spine1": ("spine", "compute")},
        {},
        [Link("leaf1", "leaf2", "peer-link", "400g"), Link("spine1", "leaf1", "fabric", "400g")],
    )
    audit = Audit(
        "HEAD",
        "c" * 40,
        False,
        "t",
        1.0,
        (
            DeviceResult("leaf1", "drift", (Change((), "added", "ntp server 10.0.0.9"),)),
            DeviceResult("leaf2", "unreachable"),
        ),
    )
    proc = subprocess.run(
        [node, str(Path(__file__).with_name("drift_issues.mjs")), str(ISSUES_SCRIPT)],
        input=json.dumps({"issues": [], "plan": issue_plan(audit, topology)}),
        capture_output=True,
        text=True,
        check=True,
    )
    (issue,) = json.loads(proc.stdout)["issues"]
    assert issue["title"] == "drift: leaf1" and issue["body"].startswith(issue_marker("leaf1"))
    boxes = {v["id"]: v["classes"] for v in parsed(issue["body"])["vertices"]}
    assert boxes == {"n_spine1": ["neighbour"], "n_leaf1": ["drift"], "n_leaf2": ["unreachable"]}
