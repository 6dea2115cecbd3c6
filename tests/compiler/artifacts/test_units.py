"""A switch's unit is keyed by its facts: complete (every fact its structured config reads
changes the key of the switches it changes), cheap (no config is built for the key), and a
one-row recompile builds the structured configs of the switches it renders, no other."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from compiler.artifacts.units import digest_of, facts_digests
from compiler.cache import CompileCache, Reuse, code_digest, fingerprint
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import load_intent
from compiler.output import read_tree
from compiler.pipeline import CompileResult, compile_intent, write_generated
from tests.conftest import EXAMPLE_INTENT

EXTRA = "extra_config:\n  spine02: |\n    interface Ethernet1/1\n       load-interval 5\n"
EDITS = {
    "port-described": (
        "ports.yaml",
        "ports: {}",
        "ports:\n  rack01-leaf-a:\n    Ethernet1/3:\n      description: burn-in\n",
        {"rack01-leaf-a"},
    ),
    "port-shut": (
        "ports.yaml",
        "ports: {}",
        "ports:\n  rack02-leaf-b:\n    Ethernet1/3:\n      shutdown: NIC failed, RMA 4411\n",
        {"rack02-leaf-b"},
    ),
    "vlan-added": (
        "vlans.yaml",
        "vlans: {}",
        "vlans:\n  inference:\n    id: 300\n    network: compute\n    pool: 10.32.0.0/16\n"
        "    tagged:\n      - {rack: 6}\n",
        {"rack06-leaf-a", "rack06-leaf-b"},
    ),
    "extra-config": ("fabric.yaml", "extra_config: {}\n", EXTRA, {"spine02"}),
    "device-settings": (
        "devices.yaml",
        "devices: {}",
        "devices:\n  spine01:\n    ntp: [172.20.0.12]\n",
        {"spine01"},
    ),
    "design": ("fabric.yaml", "  switch: 9214", "  switch: 9100", None),
}
"""Per edit: the intent file, the text replaced and its replacement, and the switches whose
config it changes (None: every switch)."""


@pytest.fixture(scope="module")
def example() -> ResolvedFabric:
    return resolve(load_intent(EXAMPLE_INTENT, budgets=False))


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_switch_key_changes_exactly_when_its_config_does(tmp_path: Path, example: ResolvedFabric, edit: str) -> None:
    """Every fact a structured config reads is in its switch's key: after an edit, the switches
    whose config changed have another key (so they are rendered again), and a switch whose key
    is unchanged has the very config it had (so keeping its files is right)."""
    filename, old, new, changed = EDITS[edit]
    shutil.copytree(EXAMPLE_INTENT, tmp_path / "intent")
    path = tmp_path / "intent" / filename
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new, 1))
    edited = resolve(load_intent(tmp_path / "intent", budgets=False))
    before, after = facts_digests(example), facts_digests(edited)
    rekeyed = {name for name in after if before.get(name) != after[name]}
    reconfigured = {name for name, d in edited.devices.items() if d.config != example.devices[name].config}
    assert reconfigured == (changed if changed is not None else set(edited.devices))
    assert rekeyed == reconfigured


def test_the_key_builds_no_config(example_compile: CompileResult) -> None:
    """A switch's key is taken from its facts alone: keying every switch builds no config."""
    fabric = resolve(example_compile.intent)
    for name, digest in facts_digests(fabric).items():
        assert fingerprint(digest, code_digest()) == example_compile.renders[f"switch/{name}"].key
    assert not any(device.config_built for device in fabric.devices.values())


def test_shared_digests_do_not_depend_on_set_order() -> None:
    """A set pickles in the order of its members' hashes (the hash seed's): its digest does
    not, nor does a pydantic model's (whose pickle holds a set)."""
    members = [f"Ethernet{n}" for n in range(50)]
    assert digest_of(frozenset(members)) == digest_of(frozenset(reversed(members)))
    assert digest_of(frozenset(members)) != digest_of(frozenset(members[1:]))
    design = load_intent(EXAMPLE_INTENT, budgets=False).fabric
    assert digest_of(design) == digest_of(design.model_copy()) != digest_of(design.model_copy(update={"mtu": None}))


def test_a_one_row_recompile_builds_only_the_configs_it_renders(
    tmp_path: Path, compiled_example: Path, example_compile: CompileResult
) -> None:
    """A server row added: the render builds the structured configs of the switches it renders
    again and of none other (the checks, which read every config, run in their forked process),
    and the files are those of a full compile."""
    root = tmp_path / "repo"
    shutil.copytree(compiled_example, root)
    servers = root / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack03-gpu010,gpu-8x-h100,GPU-0310\n")

    generated = root / "generated"  # as the example's compile wrote it: its files' digests hold
    cache = CompileCache(root, code_digest(), units=example_compile.renders, sections=example_compile.layouts)
    reuse = Reuse(cache, example_compile.files.digests, read_tree(generated))
    result = compile_intent(root / "intent", reuse, fork=True)
    rendered = {
        name.split("/", 1)[1]
        for name, record in result.renders.items()
        if name.startswith("switch/") and example_compile.renders.get(name, record).key != record.key
    }
    built = {name for name, device in result.fabric.devices.items() if device.config_built}
    assert rendered and len(rendered) <= 5
    assert built == rendered
    write_generated(result, generated)
    assert read_tree(generated) == dict(compile_intent(root / "intent").files)
