"""A lab that runs what git says: every generated config pushed through NAPALM, then tagged.

The push is the stock driver's load_replace + commit (nornir_napalm's ``napalm_configure`` with
``replace=True``), with secrets resolved the way deploy resolves them for the lab
(``load_values(..., lab_password=lab.password)``). The commit is tagged
``deploy/20260101T000000Z``, as a deploy would tag it.

``fleet`` builds what the shared ``gitops_repo`` and ``lab_running`` fixtures build (a git repo
of the compiled example, its 53 switches at factory default, ``.lab/lab.json``), once per
session rather than per test: pushing 53 configs takes seconds. Each test tampers with its own
devices and ``restore`` puts git's config back afterwards, which keeps the drift tests near a
minute.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import git

if TYPE_CHECKING:
    from lab import Lab

DEPLOY_TAG = "deploy/20260101T000000Z"


def push_generated(root: Path, lab: Lab, devices: list[str] | None = None) -> None:
    """Replace the running config of ``devices`` (default: all) with generated/ at HEAD."""
    from nornir.core.task import Result, Task
    from nornir_napalm.plugins.tasks import napalm_configure

    from core.fleet import LabTarget, open_fleet
    from core.generated import open_snapshot
    from core.secrets import load_values, placeholders, resolve

    snapshot = open_snapshot(root, "HEAD")
    configs = snapshot.configs()
    values = load_values(sorted({p for t in configs.values() for p in placeholders(t)}), lab_password=lab.password)

    def push(task: Task) -> Result:
        text = resolve(configs[task.host.name], values)
        task.run(task=napalm_configure, configuration=text, replace=True)
        return Result(host=task.host)

    nornir = open_fleet(snapshot, lab=LabTarget.load(root), devices=devices or [], workers=20)
    result = nornir.run(task=push)
    nornir.close_connections()
    assert not result.failed_hosts, {h: str(r.exception) for h, r in result.failed_hosts.items()}


def write_lab_json(root: Path, lab: Lab, extra: dict[str, tuple[str, int]] | None = None) -> None:
    """``.lab/lab.json`` as ``fabricops lab up`` writes it (``extra``: devices git does not know)."""
    endpoints = {**lab.endpoints(), **(extra or {})}
    info = {
        "pid": os.getpid(),
        "username": lab.username,
        "password": lab.password,
        "devices": {name: {"host": host, "port": port} for name, (host, port) in endpoints.items()},
    }
    (root / ".lab").mkdir(exist_ok=True)
    (root / ".lab" / "lab.json").write_text(json.dumps(info))


@pytest.fixture(scope="session")
def fleet(tmp_path_factory: pytest.TempPathFactory, compiled_example: Path) -> Iterator[tuple[Path, Lab]]:
    """(repository, lab): the example lab running generated/ at HEAD, HEAD tagged as the last deploy."""
    from core.generated import open_snapshot
    from lab import Lab, specs_from_snapshot

    root = tmp_path_factory.mktemp("drift") / "repo"
    shutil.copytree(compiled_example, root)
    (root / ".gitignore").write_text(".lab/\ndrift/reports/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@fabricops.invalid")
    git(root, "config", "user.name", "fabricops tests")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "example cluster")
    specs, links = specs_from_snapshot(open_snapshot(root, "HEAD"), empty=True)
    lab = Lab(specs, links, username="admin", password="lab-password")
    lab.start()
    try:
        write_lab_json(root, lab)
        push_generated(root, lab)
        git(root, "tag", "-a", DEPLOY_TAG, "-m", "deploy of the example cluster")
        yield root, lab
    finally:
        lab.stop()


@pytest.fixture
def restore(fleet: tuple[Path, Lab]) -> Iterator[Callable[[str], None]]:
    """``restore(device)``: after the test the device is cleared, rebooted and given git's config again."""
    root, lab = fleet
    touched: list[str] = []
    yield touched.append
    for name in touched:
        lab.clear_faults(name)
        lab.fault(name, "reboot")  # counters back to zero
    write_lab_json(root, lab)
    if touched:
        push_generated(root, lab, sorted(set(touched)))
