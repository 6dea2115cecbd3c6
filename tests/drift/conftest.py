"""A lab that runs what git says: every generated config pushed through NAPALM, then tagged.

The push is the stock driver's load_replace + commit (nornir_napalm's ``napalm_configure`` with
``replace=True``), with secrets resolved the way deploy resolves them for the lab. The commit
is tagged ``deploy/20260101T000000Z``, as a deploy would tag it.
"""

from __future__ import annotations

from collections.abc import Iterator
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


@pytest.fixture
def deployed(gitops_repo: Path, lab_running: Lab) -> Iterator[Lab]:
    """The example lab running generated/ at HEAD, HEAD tagged as the last deploy."""
    push_generated(gitops_repo, lab_running)
    git(gitops_repo, "tag", "-a", DEPLOY_TAG, "-m", "deploy of the example cluster")
    yield lab_running
