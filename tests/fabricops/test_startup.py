"""What a verb imports: ``--help`` and ``check`` load only what they use.

Each command runs in a fresh interpreter (this process has imported everything already) and
reports the packages it loaded. What is checked is *which* modules, never how long they took:
speed is measured in ``bench/startup.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

from fabricops.cli import VERBS, cli
from tests.conftest import copy_example

ROOT = Path(__file__).resolve().parents[2]
#: Device access, the lab and the other verbs' packages: no business of a compile-side verb.
DEVICE_SIDE = {"lab", "napalm", "nornir", "nornir_napalm", "pyeapi", "netmiko", "deepdiff", "git", "gitdb", "rich"}
OTHER_VERBS = {"deploy", "drift", "review", "view"}
#: What only an error path, a test or another verb needs: the line finder of a bad intent
#: (ruamel), netutils (its order is core.hardware's sort key), xml.sax (pulls in urllib, http, ssl).
ERROR_PATH_ONLY = {"ruamel", "netutils", "xml"}
#: Set up only for the verbs that may log (fabricops.cli.UNLOGGED_VERBS): no library that logs is
#: loaded by the others, so nothing is there to configure or mask.
LOGGING = {"logging"}

_PROBE = """
import json, sys
from fabricops.cli import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
with open(sys.argv[1], "w") as out:
    json.dump(sorted({name.split(".")[0] for name in sys.modules}), out)
"""


def imported(tmp_path: Path, *args: str) -> set[str]:
    """The top-level packages loaded by ``fabricops ARGS`` run in a new interpreter."""
    report = tmp_path / "modules.json"
    subprocess.run([sys.executable, "-c", _PROBE, str(report), *args], cwd=ROOT, check=True, capture_output=True)
    return set(json.loads(report.read_text()))


def test_help_imports_no_verb(tmp_path: Path) -> None:
    """The verb list comes from a table: no verb's module, no compiler, no intent models."""
    loaded = imported(tmp_path, "--help")
    assert "click" in loaded, "the probe ran the CLI"
    assert not loaded & (DEVICE_SIDE | OTHER_VERBS | {"compiler", "pydantic", "jinja2", "yaml"})


def test_check_imports_the_compiler_only(tmp_path: Path) -> None:
    """``check`` loads the intent and runs the rules: no device access, no templates, no git."""
    loaded = imported(tmp_path, "check")
    assert {"compiler", "pydantic"} <= loaded, "the probe ran the checks"
    assert not loaded & (DEVICE_SIDE | OTHER_VERBS | ERROR_PATH_ONLY | LOGGING | {"jinja2"})


def test_a_full_compile_imports_no_device_side_and_no_error_path(tmp_path: Path) -> None:
    """``compile --full`` of the example renders every switch (jinja2 loaded) and writes nothing
    here (``--check``): still no device access, no other verb, nothing only a bad intent needs."""
    loaded = imported(tmp_path, "compile", "--full", "--check")
    assert {"compiler", "jinja2"} <= loaded, "the probe rendered"
    assert not loaded & (DEVICE_SIDE | OTHER_VERBS | ERROR_PATH_ONLY | LOGGING)
    assert imported(tmp_path, "-v", "compile", "--full", "--check") >= LOGGING, "-v shows library logs"


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_each_summary_is_its_commands_help(verb: str) -> None:
    """``--help`` lists the verbs from :data:`VERBS` without importing them: each summary is the
    first paragraph of the command's own help, so both shorten to the same line."""
    command = cli.get_command(click.Context(cli), verb)
    assert command is not None
    summary = click.Command(verb, help=VERBS[verb][1])
    for limit in (45, 60, 200):
        assert summary.get_short_help_str(limit) == command.get_short_help_str(limit)


def test_a_recompile_of_kept_files_imports_no_yaml(tmp_path: Path, compiled_example: Path) -> None:
    """Once a compile kept the intent files, the hardware catalog and the platform data
    (:mod:`compiler.intentcache`), a one-row change parses no YAML: PyYAML is not even imported."""
    root = copy_example(compiled_example, tmp_path / "project")
    assert "yaml" in imported(tmp_path, "compile", "--root", str(root)), "the first compile parses the intent"
    servers = root / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack02-gpu010,gpu-8x-h100,GPU-0210\n")
    loaded = imported(tmp_path, "compile", "--root", str(root))
    assert {"compiler", "jinja2"} <= loaded, "the probe compiled"
    assert "yaml" not in loaded
