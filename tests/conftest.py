"""Fixtures shared by every test package.

Two tiers
---------
``make test`` runs the fast tier (``pytest -m "not e2e and not bench"``), before every commit,
in about a minute. ``make test-e2e`` runs the tests marked ``@pytest.mark.e2e``: the GitOps
loop end to end and the long lab runs (a deploy of all 55 switches from factory default, a
wait for a real commit timer, the browser). ``.ci/run`` runs both in one session
(``make test-all``). ``@pytest.mark.bench`` marks bench-sized checks (the 64x compile): only
``make bench`` runs them. Markers are declared in
``pyproject.toml`` and ``--strict-markers`` refuses any other, so a typo cannot hide a test.
Mark a test, a class or a module (``pytestmark = pytest.mark.e2e``) when it takes seconds
of lab time that a smaller test cannot replace; everything under ``tests/e2e/`` is in that
tier already (``tests/e2e/conftest.py``).

Both targets run test files in parallel (pytest-xdist, ``--dist loadfile``: one worker per
core, each file on one worker, so module fixtures hold; ``PYTEST_WORKERS=0`` runs in one
process). Each worker is a test session of its own, with its own session fixtures. A plain
``pytest tests/...`` runs in one process.

One lab per session
-------------------
``session_lab`` is the example's 55 switches, started once per session (per worker), in
process, on 127.0.0.1. Every test takes it in a known state; switching state resets only the
devices that changed (:meth:`lab.Lab.reset`, milliseconds), so no test starts a 55-switch
lab of its own:

* ``lab_running`` (with ``gitops_repo``): every switch at factory default.
* ``fleet`` (tests/drift) and ``deployed`` (tests/deploy): every switch running HEAD.
* ``session_lab.factory(root)`` / ``session_lab.synced(root)`` for a fixture of your own:
  the lab at factory default, or running ``root``'s generated/ at HEAD as the stock NAPALM
  driver pushes it (pushed once per session and generated/configs tree, then restored from
  memory). Both write ``root/.lab/lab.json``, so the CLI, deploy and drift find the lab as
  they find one started by ``fabricops lab up``. ``root`` is a repository of the example
  (``clone_repo(example_repo, path)``, then commit what the test needs): the lab has the
  example's devices and cables.

A test may change the lab in any way (configs, faults, counters, cables): the next test's
fixture puts it back. For example::

    @pytest.fixture
    def fleet(my_repo: Path, session_lab: SessionLab) -> tuple[Path, Lab]:
        return my_repo, session_lab.synced(my_repo)

A lab of other devices (a three-switch fabric, a model mismatch) is cheap to start per test
or module: ``lab.testing.running_lab``.

Read-only example data
----------------------
``example_compile`` (the compile of the example, in memory) and ``compiled_example`` (the
example intent and its generated/ on disk) are made once per session and must not be written
to: copy them (``project`` copies the intent, ``gitops_repo`` gives a git repository of
both, cloned from one built per session). A test that needs the example's files as compiled
reads ``example_compile.files`` rather than compiling again.

The bench's 16x intent (1,732 servers) is as costly: ``intent_16x`` (its files, read-only),
``fabric_16x`` (loaded and resolved, for facts, checks and pictures) and ``compile_16x``
(the whole compile, in memory) are made once per session (per worker) too.

Scheduling (pytest-xdist)
-------------------------
``make test`` and ``make test-e2e`` run ``--dist loadfile --no-loadscope-reorder``: each test
file is one unit of work (module fixtures hold), handed out in the order
:func:`pytest_collection_modifyitems` sets: tests/e2e/ first, then other files with e2e tests,
then the files with most tests. (``--dist loadgroup`` would put the 16x tests of several files
on one worker, but pytest-xdist 3.8 marks a group in ``item._nodeid``, which pytest 9 no longer
reads: every test would become a unit of its own.) ``make test-all`` (CI) runs both tiers in
one session: one lab, one compile of the example and of the 16x intent per worker, not two.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from compiler.fabric import ResolvedFabric
    from compiler.intent import Intent
    from compiler.pipeline import CompileResult
    from lab import Lab
    from lab.emulator import SavedDevice

REPO = Path(__file__).resolve().parent.parent
EXAMPLE_INTENT = REPO / "intent"
E2E = REPO / "tests" / "e2e"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Files of tests/e2e/ first, then other files with e2e tests, then the files with most tests.

    pytest-xdist (``--dist loadfile --no-loadscope-reorder``) hands out files in this order, so
    the long ones start first rather than last on one worker while the other sits idle. A
    stable sort by file: each file's tests stay together and in their order.
    """
    size = collections.Counter(item.path for item in items)
    e2e = {item.path for item in items if item.get_closest_marker("e2e")}

    def order(item: pytest.Item) -> tuple[bool, bool, int]:
        return E2E not in item.path.parents, item.path not in e2e, -size[item.path]

    items.sort(key=order)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A scratch project root holding a copy of the example intent/."""
    shutil.copytree(EXAMPLE_INTENT, tmp_path / "intent")
    return tmp_path


@pytest.fixture
def edit(project: Path) -> Callable[[str, str, str], None]:
    """Replace text in one intent file of the scratch project; fails if the text is absent."""

    def replace(filename: str, old: str, new: str) -> None:
        path = project / "intent" / filename
        text = path.read_text()
        assert old in text, f"{old!r} not in {filename}"
        path.write_text(text.replace(old, new, 1))

    return replace


@pytest.fixture(scope="session")
def example_compile() -> CompileResult:
    """The compile of the example intent, once per test session, in memory (read-only)."""
    from compiler.pipeline import compile_intent

    return compile_intent(EXAMPLE_INTENT)


@pytest.fixture(scope="session")
def compiled_example(tmp_path_factory: pytest.TempPathFactory, example_compile: CompileResult) -> Path:
    """The example intent and its compiled generated/, built once per test session (read-only)."""
    from compiler.pipeline import write_generated

    root = tmp_path_factory.mktemp("compiled-example")
    shutil.copytree(EXAMPLE_INTENT, root / "intent")
    write_generated(example_compile, root / "generated")
    return root


@pytest.fixture(scope="session")
def intent_16x(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bench's 16x intent (1,732 servers, three-stage), written once per session (read-only)."""
    from bench.scale import scaled_intent

    root = tmp_path_factory.mktemp("intent-16x") / "intent"
    scaled_intent(16, root)
    return root


@pytest.fixture(scope="session")
def fabric_16x(intent_16x: Path) -> tuple[Intent, ResolvedFabric]:
    """The 16x intent loaded and resolved, once per session (read-only): facts, checks, pictures."""
    from compiler.fabric import resolve
    from compiler.intent import load_intent

    intent = load_intent(intent_16x)
    return intent, resolve(intent)


@pytest.fixture(scope="session")
def compile_16x(intent_16x: Path) -> CompileResult:
    """The compile of the 16x intent, once per session, in memory (read-only; e2e: it takes a while)."""
    from compiler.pipeline import compile_intent

    return compile_intent(intent_16x)


@dataclass
class Ran:
    """One CLI invocation: exit code and both streams."""

    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def run_cli(*args: str) -> Ran:
    """``fabricops ARGS`` through ``fabricops.cli.main`` in process (in the current directory).

    No interpreter to start (~1 s of CPU per run): a test takes a subprocess only where the
    installed script itself is what it proves (its exit code, its stderr).
    """
    import contextlib
    import io

    from fabricops.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return Ran(code, out.getvalue(), err.getvalue())


def run_fabricops(repo: Path, *args: str) -> Ran:
    """``fabricops ARGS --root REPO`` in process (:func:`run_cli`): code and streams."""
    return run_cli(*args, "--root", str(repo))


def copy_example(compiled_example: Path, root: Path) -> Path:
    """A scratch copy of ``compiled_example`` at ``root``: intent/ copied, generated/ hard-linked.

    Cheap (no byte of generated/ copied) and safe for a compile: the compiler replaces the files
    of generated/ (``os.replace``), never writes into them, so the shared original stays as it
    is. A test that edits a file of generated/ by hand takes a real copy (``shutil.copytree``).
    """
    shutil.copytree(compiled_example / "intent", root / "intent")
    shutil.copytree(compiled_example / "generated", root / "generated", copy_function=os.link)
    return root


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` and return its output (tests only)."""
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def _identify(root: Path) -> None:
    git(root, "config", "user.email", "test@fabricops.invalid")
    git(root, "config", "user.name", "fabricops tests")


def make_repo(root: Path, compiled_example: Path, ignore: str = ".lab/\n") -> Path:
    """A git repository at ``root`` on branch main: the example intent and generated/, one commit."""
    shutil.copytree(compiled_example, root)
    (root / ".gitignore").write_text(ignore)
    git(root, "init", "-q", "-b", "main")
    _identify(root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "example cluster")
    return root


def clone_repo(source: Path, root: Path) -> Path:
    """A repository of its own at ``root`` with ``source``'s commits, tags and work tree.

    ``git clone --local`` hard-links the objects (they never change), so this costs a checkout
    rather than a copy and a commit; the clone keeps no remote, like a repository made afresh.
    """
    subprocess.run(["git", "clone", "-q", "--local", str(source), str(root)], check=True, capture_output=True)
    git(root, "remote", "remove", "origin")
    _identify(root)
    return root


#: What a repository of the example ignores: the lab's files, deploy's plan, drift's reports.
EXAMPLE_IGNORE = ".lab/\n/plan.json\nreports/\n"


@pytest.fixture(scope="session")
def example_repo(tmp_path_factory: pytest.TempPathFactory, compiled_example: Path) -> Path:
    """The repository of the example that tests clone (``clone_repo``); read-only, like
    ``compiled_example``, except for its git-ignored ``.lab/lab.json``."""
    return make_repo(tmp_path_factory.mktemp("example-repo") / "repo", compiled_example, EXAMPLE_IGNORE)


@pytest.fixture
def gitops_repo(tmp_path: Path, example_repo: Path) -> Path:
    """A git repository on branch main: the example intent and generated/, one commit."""
    return clone_repo(example_repo, tmp_path / "repo")


def seal(root: Path) -> None:
    """Rewrite generated/MANIFEST.json for the files as they are: a hand edit that deploy accepts.

    Deploy refuses a generated/ that its manifest does not describe; tests that change a
    generated config directly (to stage a one-line change fast) seal it as a compile would.
    """
    from core.generated import MANIFEST, manifest_bytes

    base = root / "generated"
    digest = json.loads((base / MANIFEST).read_text())["intent_digest"]
    files = {p.relative_to(base).as_posix(): p.read_bytes() for p in base.rglob("*") if p.is_file()}
    (base / MANIFEST).write_bytes(manifest_bytes(files, digest))


def write_lab_json(root: Path, lab: Lab, extra: dict[str, tuple[str, int]] | None = None) -> None:
    """``.lab/lab.json`` as ``fabricops lab up`` writes it (``extra``: devices git does not know)."""
    endpoints = {**lab.endpoints(), **(extra or {})}
    https = lab.endpoints(https=True)
    info = {
        "pid": os.getpid(),
        "username": lab.username,
        "password": lab.password,
        "devices": {
            name: {"host": host, "port": port, **({"https_port": https[name][1]} if name in https else {})}
            for name, (host, port) in endpoints.items()
        },
    }
    (root / ".lab").mkdir(exist_ok=True)
    (root / ".lab" / "lab.json").write_text(json.dumps(info))


def start_factory_lab(root: Path) -> Lab:
    """The switches of ``root``'s generated/ at HEAD, started at factory default and listed in .lab/lab.json."""
    from core.generated import open_snapshot
    from lab import Lab, specs_from_snapshot

    specs, links = specs_from_snapshot(open_snapshot(root, "HEAD"), empty=True)
    lab = Lab(specs, links, username="admin", password="lab-password")
    lab.start()
    write_lab_json(root, lab)
    return lab


def push_generated(root: Path, lab: Lab, devices: list[str] | None = None) -> None:
    """Replace the running config of ``devices`` (default: all) with generated/ at HEAD.

    The push is the stock driver's load_replace + commit (nornir_napalm's ``napalm_configure``
    with ``replace=True``), with secrets resolved the way deploy resolves them for the lab.
    """
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


class SessionLab:
    """The lab of the session and the states it can be put back into (see the module docstring)."""

    def __init__(self, lab: Lab) -> None:
        self.lab = lab
        self._synced: dict[str, dict[str, SavedDevice]] = {}  # by tree id of generated/configs

    def factory(self, root: Path) -> Lab:
        """Every switch at factory default; the lab listed in ``root/.lab/lab.json``."""
        self.lab.reset()
        write_lab_json(root, self.lab)
        return self.lab

    def synced(self, root: Path) -> Lab:
        """Every switch running ``root``'s generated/ at HEAD; the lab listed in ``root/.lab/lab.json``."""
        key = git(root, "rev-parse", "HEAD:generated/configs").strip()
        saved = self._synced.get(key)
        if saved is None:
            self.factory(root)
            push_generated(root, self.lab)
            saved = self._synced[key] = self.lab.save()
        self.lab.reset(to=saved)
        write_lab_json(root, self.lab)
        return self.lab


@pytest.fixture(scope="session")
def session_lab(example_repo: Path) -> Iterator[SessionLab]:
    """The example's 55 switches, started once per session (take it through ``factory``/``synced``)."""
    lab = start_factory_lab(example_repo)
    try:
        yield SessionLab(lab)
    finally:
        lab.stop()


@pytest.fixture
def lab_running(session_lab: SessionLab, gitops_repo: Path) -> Lab:
    """The example's switches at factory default, reachable via ``gitops_repo``'s .lab/lab.json.

    Deploy and drift find it exactly as they find a lab started by ``fabricops lab up``.
    """
    return session_lab.factory(gitops_repo)
