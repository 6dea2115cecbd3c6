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

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import git, make_repo, start_factory_lab, write_lab_json

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


@pytest.fixture(scope="session")
def fleet(tmp_path_factory: pytest.TempPathFactory, compiled_example: Path) -> Iterator[tuple[Path, Lab]]:
    """(repository, lab): the example lab running generated/ at HEAD, HEAD tagged as the last deploy."""
    root = make_repo(tmp_path_factory.mktemp("drift") / "repo", compiled_example, ".lab/\nreports/\n")
    lab = start_factory_lab(root)
    try:
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
