"""The incremental compile: a change rebuilds only the units (switches, servers, alert rules,
provenance) whose inputs changed, and writes the bytes a full compile writes; an untouched
repository is recognised without compiling."""

from __future__ import annotations

import csv
import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from click.testing import CliRunner

from compiler.artifacts.units import Unit
from compiler.cache import (
    FORMAT,
    CompileCache,
    Layout,
    Reuse,
    code_digest,
    fingerprint,
    fingerprinter,
    recorded_stamps,
    restamped,
    sha256,
    stamps,
    walk,
)
from compiler.output import CompiledFiles, read_tree
from compiler.pipeline import Assembly, CompileResult, compile_intent
from compiler.sources import Source
from fabricops.cli import cli
from tests.conftest import EXAMPLE_INTENT

ROW = "rack03-gpu009,gpu-8x-h100,GPU-0309\n"
VLAN = (
    "vlans:\n  inference:\n    id: 300\n    network: compute\n    pool: 10.32.0.0/16\n    tagged:\n      - {rack: 6}\n"
)
CHANGES = {
    "server-added": ("servers.csv", ROW, ROW + "rack03-gpu010,gpu-8x-h100,GPU-0310\n", 5),
    "port-described": (
        "ports.yaml",
        "ports: {}\n",
        "ports:\n  rack01-leaf-a:\n    Ethernet1/3:\n      description: burn-in\n",
        1,
    ),
    "server-removed": ("servers.csv", ROW, "", 5),
    "vlan-added": ("vlans.yaml", "vlans: {}\n", VLAN, 2),
    "switch-model": ("fabric.yaml", "model: DCS-7050CX3-32S, rack: 13", "model: DCS-7060CX-32S, rack: 13", 55),
    "rack-pdu": (
        "racks.yaml",
        "{id: 13, row: C, position: 1, pdu_kw: 20",
        "{id: 13, row: C, position: 1, pdu_kw: 24",
        0,
    ),
    "server-height": ("fabric.yaml", "    rack_units: 4\n", "    rack_units: 3\n", 55),
}
"""Per change: the intent file, the text replaced and its replacement, and at most how many
switches it re-renders. A rack's PDU is a fact only fleet-wide files (power) use. A server
model's height changes only the asset table's sections (every server's rack unit), but it is in
``fabric.yaml``, whose design every switch is keyed by (beside its own ``extra_config``): every
switch is rendered again, to the same bytes."""

TAMPERED = (
    "configs/rack06-leaf-a.cfg",
    "servers/rack07-gpu001/verify.sh",
    "monitoring/rules/spine01.rules.yaml",
    "monitoring/expected-counters.yaml",
    "inventory/cabling.csv",
    "MANIFEST.json",
)
"""Files edited by hand before the compile: each is built again, never kept (the expected
counters are joined from sections: every switch's is built again), or read and written back
(a fleet-wide file, the manifest: the record's digest of them no longer holds)."""


def _compile(root: Path) -> str:
    result = CliRunner().invoke(cli, ["compile", "--root", str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def cached_root(tmp_path: Path, compiled_example: Path, example_compile: CompileResult) -> Path:
    """A copy of the compiled example with the record its compile leaves in .fabricops-cache/."""
    root = tmp_path / "repo"
    shutil.copytree(compiled_example, root)
    CompileCache(
        root,
        code_digest(),
        units=example_compile.renders,
        sections=example_compile.layouts,
        files=example_compile.files.digests,
        walked=walk(root / "generated", None).stamps,
    ).save()
    return root


@pytest.mark.parametrize(
    "change",
    [
        "server-added",
        "port-described",
        *(pytest.param(name, marks=pytest.mark.e2e) for name in list(CHANGES)[2:]),
    ],
)
def test_a_change_recompiles_to_a_full_compiles_bytes(cached_root: Path, change: str) -> None:
    """The change re-renders the few switches it touches and keeps the rest from generated/;
    generated/ ends byte for byte as a compile from nothing would leave it, files edited by hand
    in the meantime included (built again, not kept); a second compile has nothing to do."""
    filename, old, new, most = CHANGES[change]
    intent = cached_root / "intent" / filename
    text = intent.read_text()
    assert old in text
    intent.write_text(text.replace(old, new, 1))
    for path in TAMPERED:
        tampered = cached_root / "generated" / path
        tampered.write_text(tampered.read_text() + "# edited by hand\n")
    output = _compile(cached_root)
    rendered = int(output.split("(")[-1].split(" of ")[0])
    assert rendered <= most + 2, output  # the changed switches, the tampered config's and spine01's
    assert read_tree(cached_root / "generated") == dict(compile_intent(cached_root / "intent").files)
    assert "up to date: intent and compiler unchanged" in _compile(cached_root)


def test_a_moved_rack_rebuilds_the_cable_rows_of_its_switches_only(cached_root: Path) -> None:
    """Cable lengths follow from where the racks stand, a fleet-wide fact: moving rack 6 closer
    to the spines rebuilds the cable list's sections of the switches cabled out of it or into
    it (and the header, whose bill counts lengths), no stale length is kept, and every other
    section is."""
    racks = cached_root / "intent" / "racks.yaml"
    racks.write_text(racks.read_text().replace("{id: 6, row: A, position: 6", "{id: 6, row: A, position: 2", 1))
    before = CompileCache.load(cached_root).units
    cables = cached_root / "generated" / "inventory" / "cabling.csv"

    def uplink() -> list[str]:
        return next(row for row in csv.reader(cables.open()) if row[:3] == ["rack06-leaf-a", "Ethernet25/1", "spine01"])

    assert uplink()[10] == "15"  # 6 m slack + 5 positions x 0.6 m + 2 rows x 3 m (fabric.yaml cabling)
    _compile(cached_root)
    assert uplink()[10] == "12.6"
    after = CompileCache.load(cached_root).units
    rebuilt = {name for name, record in after.items() if name.startswith("cabling/") and before[name].key != record.key}
    rack06 = {f"cabling/rack06-{name}" for name in ("leaf-a", "leaf-b", "mgmt")}
    storage = {"cabling/rack05-stor-leaf-a", "cabling/rack05-stor-leaf-b"}  # rack 6's servers' storage NICs
    assert rebuilt == {"cabling/:head", *rack06, *storage}
    assert read_tree(cached_root / "generated") == dict(compile_intent(cached_root / "intent").files)


def test_a_unit_is_kept_only_with_its_inputs_and_its_files_unchanged(tmp_path: Path) -> None:
    """A unit whose inputs fingerprint as recorded, and whose files are those written, is kept
    (not built); other inputs, or a file of it changed since, and it is built again."""

    def unit(inputs: object) -> Unit:
        return Unit("server/gpu1", inputs, lambda: {"servers/gpu1/verify.sh": f"{inputs}\n"})

    first = Assembly()
    first.add([unit(1)])
    files = first.files("digest")
    cache = CompileCache(tmp_path, code_digest(), units=first.units)

    def assemble(inputs: object, known: dict[str, str]) -> Assembly:
        parts = Assembly(Reuse(cache, known, files))
        parts.add([unit(inputs)])
        return parts

    assert assemble(1, files.digests).kept == {"server": 1}
    assert assemble(2, files.digests).kept == {}
    assert assemble(1, {}).kept == {}
    assert dict(assemble(2, files.digests).files("digest"))["servers/gpu1/verify.sh"] == b"2\n"


def test_an_edited_generated_file_is_compiled_again(cached_root: Path) -> None:
    """The untouched-tree shortcut trusts nothing it cannot see: an edit to generated/ after a
    compile (another size or time) makes the next compile a real one, which restores the file."""
    _compile(cached_root)
    assert "unchanged since the last compile" in _compile(cached_root)
    config = cached_root / "generated" / "configs" / "rack01-leaf-a.cfg"
    original = config.read_bytes()
    config.write_bytes(original.replace(b"hostname", b"hostname ", 1))
    assert "1 changed" in _compile(cached_root)
    assert config.read_bytes() == original


def test_fingerprint_tells_order_and_types_apart() -> None:
    """Two documents that render differently never share a fingerprint: key order and the
    difference between 1, 1.0, True and "1" all count."""
    documents = [{"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 1.0, "b": 2}, {"a": True, "b": 2}, {"a": "1", "b": 2}]
    assert len({fingerprint(d, "code") for d in documents}) == len(documents)
    assert fingerprint(documents[0], "code") != fingerprint(documents[0], "other code")


def test_a_foreign_cache_is_an_empty_one(tmp_path: Path) -> None:
    """A cache written by other code, or unreadable, is ignored rather than trusted."""
    cache = CompileCache(tmp_path, "not this code", source="x", summary=["compiled"])
    cache.save()
    assert CompileCache.load(tmp_path).source == ""
    cache.path.write_text("{")
    assert CompileCache.load(tmp_path).units == {}


def test_an_old_or_corrupt_record_is_a_miss(tmp_path: Path) -> None:
    """A record of the last format (one marshalled dict), one cut short, or one whose parts do
    not unpack: nothing of it is trusted, neither its units nor its stamps (the walk knows no
    file as written)."""
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "a.cfg").write_text("x\n")
    cache = CompileCache(tmp_path, code_digest(), source="x", files={"a.cfg": sha256(b"x\n")})
    cache.walked = walk(tmp_path / "generated", None).stamps
    cache.save()
    assert CompileCache.load(tmp_path).files == cache.files
    assert walk(tmp_path / "generated", cache.path).unsure == frozenset()
    whole = cache.path.read_bytes()
    old = marshal.dumps({"format": FORMAT - 1, "code": cache.code, "tree": stamps(tmp_path / "generated")})
    for data in (old, whole[:-1], whole + b"\0", b""):
        cache.path.write_bytes(data)
        assert CompileCache.load(tmp_path).source == "", data[:20]
        assert CompileCache.load(tmp_path).files == {}
        assert walk(tmp_path / "generated", cache.path).unsure is None
    # Its last part unreadable: the stamps may hold, but no file is known without its digest.
    cache.path.write_bytes(whole[:-8] + b"\xff" * 8)
    seen = walk(tmp_path / "generated", cache.path)
    assert CompileCache.load(tmp_path).known_digests(seen) == {}


def test_the_walk_tells_the_files_no_longer_as_recorded(tmp_path: Path) -> None:
    """The record's stamps are the tree as walked before the compile and those the write left
    since: the next walk names exactly the files written, removed, edited or added after it."""
    generated = tmp_path / "generated"
    generated.mkdir()
    for name in ("kept", "rewritten", "removed", "edited"):
        (generated / name).write_text(name)
    walked = walk(generated, None)
    (generated / "rewritten").write_text("new text")
    (generated / "removed").unlink()
    (generated / "written").write_text("new")
    files = dict.fromkeys(["kept", "rewritten", "edited", "written"], "d")
    cache = CompileCache(tmp_path, code_digest(), files=files, walked=walked.stamps)
    cache.written = restamped(["rewritten", "written"], ["removed"], generated)
    cache.save()
    assert recorded_stamps(cache.path) == (cache.token, stamps(generated))
    assert walk(generated, cache.path).untouched
    (generated / "edited").write_text("edited by hand")
    (generated / "added").write_text("added by hand")
    (generated / "written").unlink()
    seen = walk(generated, cache.path)
    assert seen.unsure == {"edited", "added", "written"}
    assert sorted(seen.paths()) == ["added", "edited", "kept", "rewritten"]
    known = CompileCache(tmp_path, files=files)
    known.token = cache.token
    assert known.known_digests(seen) == {"kept": "d", "rewritten": "d"}
    cache.save()  # another compile's record since: the walk reads that one's stamps
    again = walk(generated, cache.path)
    assert again.token == cache.token != known.token
    assert known.known_digests(again) == {}


def test_the_walk_names_the_files_its_record_has_no_digest_of_or_that_are_gone(tmp_path: Path) -> None:
    """A file the record has a digest of that is gone, or one there with a stamp but no digest
    (a record no compile writes: its files are its stamps' files), is unsure: a compile never
    takes a missing file as known, nor the record's files for the tree's when they differ."""
    generated = tmp_path / "generated"
    generated.mkdir()
    for name in ("a", "b"):
        (generated / name).write_text(name)
    cache = CompileCache(tmp_path, code_digest(), files={"a": "1", "gone": "2"}, walked=walk(generated, None).stamps)
    cache.save()
    seen = walk(generated, cache.path)
    assert seen.unsure == {"b", "gone"}
    record = CompileCache.load(tmp_path)
    assert record.known_digests(seen) == {"a": "1"}
    assert sorted(record.tree(seen)) == ["a", "b"]
    cache.files = {"a": "1"}  # none gone: the one there without a digest is still unsure
    cache.save()
    assert walk(generated, cache.path).unsure == {"b"}


def _sectioned(inputs: object, name: str = "leaf1") -> Unit:
    return Unit(f"rules/{name}", inputs, lambda: {f"counters.yaml#{name}": f"{name}: {inputs}\n"})


def test_a_kept_units_section_is_cut_from_the_file_as_written(tmp_path: Path) -> None:
    """A fleet-wide file is its units' sections joined in order; a kept unit's section is cut
    out of the file as generated/ holds it. The file changed since it was written, or a layout
    that does not cut it (lengths that do not add up to it, or other sections' names), and the
    units are built again: the layout and the records come from one compile, so a cut of the
    file that layout describes is not hashed again."""
    first = Assembly()
    first.add([_sectioned(1, "leaf1"), _sectioned(2, "leaf2")])
    files = first.files("digest")
    assert files["counters.yaml"] == b"leaf1: 1\nleaf2: 2\n"
    assert "counters.yaml#leaf1" not in files and "counters.yaml#leaf1" not in files.digests

    def assemble(cache: CompileCache, known: dict[str, str], leaf2: object = 2) -> Assembly:
        parts = Assembly(Reuse(cache, known, files))
        parts.add([_sectioned(1, "leaf1"), _sectioned(leaf2, "leaf2")])
        return parts

    cache = CompileCache(tmp_path, code_digest(), units=first.units, sections=first.layouts)
    changed = assemble(cache, files.digests, leaf2=3)
    assert changed.kept == {"rules": 1}
    assert changed.files("digest")["counters.yaml"] == b"leaf1: 1\nleaf2: 3\n"
    assert assemble(cache, {**files.digests, "counters.yaml": "edited"}).kept == {}
    digest = first.layouts["counters.yaml"].digest
    for skewed in (Layout(digest, [("leaf1", 9), ("leaf2", 10)]), Layout(digest, [("leaf3", 9), ("leaf4", 9)])):
        record = CompileCache(tmp_path, code_digest(), units=first.units, sections={"counters.yaml": skewed})
        assert assemble(record, files.digests).kept == {}
    record = CompileCache(tmp_path, code_digest(), units=first.units, sections=first.layouts)
    record.save()
    assert CompileCache.load(tmp_path).sections == first.layouts


def test_a_file_of_kept_sections_is_kept_as_written(tmp_path: Path) -> None:
    """Every section of a file kept, in the order its layout names them: the file is the one
    generated/ holds, kept (read when asked, neither joined nor hashed again) with its layout.
    A section built again, or a section fewer, and the file is joined again."""
    first = Assembly()
    first.add([_sectioned(1, "leaf1"), _sectioned(2, "leaf2")])
    files = first.files("digest")
    cache = CompileCache(tmp_path, code_digest(), units=first.units, sections=first.layouts)

    def assemble(*units: Unit) -> tuple[Assembly, CompiledFiles]:
        parts = Assembly(Reuse(cache, files.digests, files))
        parts.add(units)
        return parts, parts.files("digest")

    kept, compiled = assemble(_sectioned(1, "leaf1"), _sectioned(2, "leaf2"))
    assert "counters.yaml" not in compiled.built()
    assert compiled.kept["counters.yaml"] == files.digests["counters.yaml"]
    assert compiled["counters.yaml"] == files["counters.yaml"]
    assert kept.layouts == first.layouts
    for units, text in (
        ((_sectioned(1, "leaf1"), _sectioned(3, "leaf2")), b"leaf1: 1\nleaf2: 3\n"),
        ((_sectioned(1, "leaf1"),), b"leaf1: 1\n"),
        ((_sectioned(2, "leaf2"), _sectioned(1, "leaf1")), b"leaf2: 2\nleaf1: 1\n"),
    ):
        parts, compiled = assemble(*units)
        assert "counters.yaml" in compiled.built() and compiled["counters.yaml"] == text
        assert parts.layouts["counters.yaml"].digest == sha256(text)


def test_fingerprints_do_not_depend_on_the_hash_seed(example_compile: CompileResult) -> None:
    """Every unit's inputs pickle alike in another process with another string hash seed (no
    set among them): a fresh process keeps what the last one built."""
    script = (
        "import json\n"
        "from pathlib import Path\n"
        "from compiler.pipeline import compile_intent\n"
        f"print(json.dumps({{n: r.key for n, r in compile_intent(Path({str(EXAMPLE_INTENT)!r})).renders.items()}}))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert json.loads(out.stdout) == {name: record.key for name, record in example_compile.renders.items()}


class _Place(NamedTuple):
    file: str
    path: tuple[object, ...] = ()


def test_a_records_fingerprint_is_its_type_and_every_value() -> None:
    """A record keys as its type and each of its values: an edit of any of them, another record
    type with the same fields, or the plain tuple it holds (even one led by the type's name)
    changes its key; the same values key alike in a fresh process's first key or after others."""
    source = Source("racks.yaml", ("racks", 0))
    variants = [
        source,
        Source("ports.yaml", ("racks", 0)),
        Source("racks.yaml", ("racks", 1)),
        Source("racks.yaml", ("racks", "0")),
        Source("racks.yaml", ()),
        _Place("racks.yaml", ("racks", 0)),
        ("racks.yaml", ("racks", 0)),
        ("compiler.sources.Source", "racks.yaml", ("racks", 0)),
        {"Ethernet1": {"": source}},
        {"Ethernet1": {"": tuple(source)}},
        {"Ethernet1": {"": Source("racks.yaml", ("racks", 0)).child("id")}},
    ]
    key = fingerprinter("code")
    keys = [key(value) for value in variants]
    assert len(set(keys)) == len(variants)
    assert keys == [fingerprint(value, "code") for value in variants]
    assert key(Source("racks.yaml", ("racks", 0))) == keys[0]
