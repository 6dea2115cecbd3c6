"""Golden files, the render-back contract of generated/structured/, and templates that compute nothing.

A golden file is ``golden/<device>[.<variant>].cfg`` (one leaf, one spine, one storage leaf, one
management switch, the core); adding a case is adding a file. Regenerate after a deliberate
template change with ``UPDATE_GOLDEN=1 make test``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml

from compiler.fabric import resolve
from compiler.intent import load_intent
from compiler.render import environment, keep_bytecode, render_device

GOLDEN = Path(__file__).parent / "golden"
REPO = Path(__file__).resolve().parents[2]
TEMPLATES = REPO / "compiler" / "templates"
PLATFORM_DATA = REPO / "compiler" / "platforms" / "eos.yaml"
STRUCTURED = sorted((REPO / "generated" / "structured").glob("*.yaml"))
VARIANTS = {
    "": [],
    "ebgp": [("fabric.yaml", "    routing: ospf-underlay", "    routing: ebgp-underlay")],
    "lacp": [("fabric.yaml", "bonding: active-backup\n", "bonding: lacp\n")],
}


def golden_cases() -> list[tuple[str, str]]:
    cases = []
    for path in sorted(GOLDEN.glob("*.cfg")):
        device, _, variant = path.stem.partition(".")
        cases.append((device, variant))
    return cases


@pytest.mark.parametrize(("device", "variant"), golden_cases())
def test_golden(project: Path, device: str, variant: str) -> None:
    """The rendered config equals its golden file, byte for byte."""
    for filename, old, new in VARIANTS[variant]:
        path = project / "intent" / filename
        path.write_text(path.read_text().replace(old, new, 1))
    fabric = resolve(load_intent(project / "intent"))
    text = render_device(fabric.devices[device])
    golden = GOLDEN / (f"{device}.{variant}.cfg" if variant else f"{device}.cfg")
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


def test_golden_cases_cover_every_role() -> None:
    devices = {device for device, _ in golden_cases()}
    assert {"rack01-leaf-a", "spine01", "rack01-stor-leaf-a", "rack01-mgmt", "mgmt-core01"} <= devices


@pytest.mark.parametrize("path", STRUCTURED, ids=[p.stem for p in STRUCTURED])
def test_structured_config_renders_back(path: Path) -> None:
    """The committed structured YAML is the contract: with the platform's templates and data file
    alone (a stock Jinja2 environment, no compiler code) it renders to the committed config, byte
    for byte."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals["eos"] = yaml.safe_load(PLATFORM_DATA.read_text())["templates"]
    document = yaml.safe_load(path.read_text())
    text = env.get_template("eos/device.j2").render(document["config"])
    assert text == (REPO / "generated" / "configs" / f"{path.stem}.cfg").read_text()


def test_every_device_has_a_structured_config() -> None:
    configs = {p.stem for p in (REPO / "generated" / "configs").glob("*.cfg")}
    assert configs and configs == {p.stem for p in STRUCTURED}


# What a template may contain: text, loops, includes, aliases, attribute reads, `not` (a separator
# between loop items) and the tests `is defined` / `is true` (a key is absent when unset). No
# arithmetic, comparison, filter, call, subscript, literal or inline condition: a value a template
# would compute belongs in the structured config.
ALLOWED_NODES = (
    jinja2.nodes.Template,
    jinja2.nodes.Output,
    jinja2.nodes.TemplateData,
    jinja2.nodes.For,
    jinja2.nodes.If,
    jinja2.nodes.Include,
    jinja2.nodes.Assign,
    jinja2.nodes.Name,
    jinja2.nodes.Tuple,
    jinja2.nodes.Getattr,
    jinja2.nodes.Not,
    jinja2.nodes.Test,
    jinja2.nodes.Const,
)
ALLOWED_TESTS = {"defined", "true"}


def template_sources() -> list[tuple[str, str]]:
    return [(str(p.relative_to(TEMPLATES)), p.read_text()) for p in sorted(TEMPLATES.rglob("*.j2"))]


@pytest.mark.parametrize(("name", "source"), template_sources(), ids=[n for n, _ in template_sources()])
def test_templates_compute_nothing(name: str, source: str) -> None:
    """Templates only loop and print: every node of the parsed template is on the allowed list."""
    tree = environment().parse(source)
    for node in tree.find_all(jinja2.nodes.Node):
        assert isinstance(node, ALLOWED_NODES), f"{name}:{node.lineno}: {type(node).__name__} computes"
        if isinstance(node, jinja2.nodes.Test):
            assert node.name in ALLOWED_TESTS, f"{name}:{node.lineno}: test {node.name!r} decides"
        if isinstance(node, jinja2.nodes.Const):
            assert isinstance(node.value, str) and node.value.endswith(".j2"), f"{name}:{node.lineno}: literal"


def test_the_template_scan_catches_logic() -> None:
    """The scan above would fail on arithmetic, a comparison, a filter or a literal."""
    for source in ("{{ a + 1 }}", "{% if a == 3 %}x{% endif %}", "{{ a | int }}", "{{ a.b(1) }}", "{{ a[0] }}"):
        nodes = list(environment().parse(source).find_all(jinja2.nodes.Node))
        assert not all(isinstance(n, ALLOWED_NODES) for n in nodes) or any(
            isinstance(n, jinja2.nodes.Const) and not str(n.value).endswith(".j2") for n in nodes
        ), source


def test_a_vanished_bytecode_folder_costs_a_compile_not_the_render(tmp_path: Path, example_compile: Any) -> None:
    """The process's environment outlives a project's ``.fabricops-cache/``: a render after the
    folder is gone compiles the template again and writes nothing, instead of failing."""
    device = next(iter(example_compile.fabric.devices.values()))
    expected = render_device(device)
    folder = tmp_path / ".fabricops-cache" / "templates"
    keep_bytecode(folder)
    try:
        shutil.rmtree(folder)
        environment().cache.clear()  # type: ignore[union-attr]
        assert render_device(device) == expected
        assert not folder.exists()
    finally:
        environment().bytecode_cache = None


def test_inline_dict_reads_answer_as_jinja_does() -> None:
    """The compiled dict reads (``compiler.render``) print what Jinja's own path prints, for a key
    present, present as None or False, absent, named like a dict method, and on a record."""
    source = (
        "{% for i in items %}[{% if i.a is defined %}a={{ i.a }}{% endif %}"
        "{% if i.f is true %} f{% endif %}{% if i.keys is defined %} keys{% endif %}]{% endfor %}"
    )
    contexts: list[Any] = [
        {"a": 1, "f": True},
        {"a": None, "f": False},
        {},
        {"a": "x", "keys": 1},
        ShapedLikeRecord(a=2, f=True),
    ]
    fast = environment().from_string(source).render(items=contexts)
    plain = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(source).render(items=contexts)
    assert fast == plain == "[a=1 f keys][a=None keys][ keys][a=x keys][a=2 f]"  # `keys`: the dict method


class ShapedLikeRecord:
    """Not a dict: its fields are attributes (Jinja's own path)."""

    def __init__(self, a: int, f: bool) -> None:
        self.a = a
        self.f = f
