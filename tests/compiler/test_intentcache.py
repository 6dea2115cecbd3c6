"""Validated intent files kept in .fabricops-cache/validated/: taken only under their key (code,
name, bytes), a bad or broken entry a miss, and a load from them the same as a load without."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pickle
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from compiler.artifacts.units import digest_of
from compiler.cache import CACHE_DIR
from compiler.facts.hardware import HARDWARE_ENTRY, KeptHardware, build_layouts, every_layout, kept_digest
from compiler.intent import Intent, KeptRows, ServerRow, ValidRow, load_intent
from compiler.intentcache import FOLDER, ValidatedFiles
from compiler.platforms import eos
from core.errors import IntentError
from tests.compiler.test_intent import BAD_INPUTS, Edit, _own_model

ROOT = Path(__file__).resolve().parents[2]
hardware_module = importlib.import_module("compiler.facts.hardware")
catalog_module = importlib.import_module("core.hardware.catalog")  # the package's name is its catalog()
KEPT = ("fabric.yaml", "racks.yaml", "servers.csv", "vlans.yaml", "ports.yaml", "devices.yaml", HARDWARE_ENTRY)


def kept_folder(project: Path) -> Path:
    return project / CACHE_DIR / FOLDER


def values(intent: Intent) -> dict[str, object]:
    """Every field of ``intent``; its line finder by what it reads (it is equal only to itself)."""
    fields = {f.name: getattr(intent, f.name) for f in dataclasses.fields(intent) if f.name != "lines"}
    return {**fields, "lines": (intent.lines.directory, dict(intent.lines.raw))}


def problems_of(intent_dir: Path) -> list[str]:
    with pytest.raises(IntentError) as caught:
        load_intent(intent_dir)
    return caught.value.problems


def test_each_input_of_the_key_changes_it() -> None:
    """The code digest, the file's name and its bytes: a change to any one is another key."""
    base = ValidatedFiles(None, "code").key("fabric.yaml", b"site: {}")
    assert ValidatedFiles(None, "code2").key("fabric.yaml", b"site: {}") != base
    assert ValidatedFiles(None, "code").key("racks.yaml", b"site: {}") != base
    assert ValidatedFiles(None, "code").key("fabric.yaml", b"site: {} ") != base
    assert ValidatedFiles(None, "code").key("fabric.yaml", b"site: {}") == base


@pytest.mark.parametrize("change", ["code", "name", "bytes"])
def test_an_entry_is_taken_only_under_its_key(tmp_path: Path, change: str) -> None:
    """An entry kept under one code, name and bytes is a miss when any of them differs."""
    folder = tmp_path / FOLDER
    ValidatedFiles(folder, "code").put("fabric.yaml", b"a", {"validated": True})
    assert ValidatedFiles(folder, "code").get("fabric.yaml", b"a", dict) == {"validated": True}
    if change == "name":  # the entry of one file where another's is looked for
        shutil.copy(folder / "fabric.yaml", folder / "racks.yaml")
    code, name, data = {
        "code": ("code2", "fabric.yaml", b"a"),
        "name": ("code", "racks.yaml", b"a"),
        "bytes": ("code", "fabric.yaml", b"b"),
    }[change]
    assert ValidatedFiles(folder, code).get(name, data, dict) is None


def _truncated(entry: bytes) -> bytes:
    return entry[:-5]


def _garbage_pickle(entry: bytes) -> bytes:
    return entry[:65] + b"\x80\x05not a pickle"


def _foreign_type(entry: bytes) -> bytes:
    """The right key, a valid pickle of something else than the model looked for."""
    return entry[:65] + pickle.dumps(["a list"])


def _no_newline(entry: bytes) -> bytes:
    return entry[:64] + b"X" + entry[65:]


@pytest.mark.parametrize("damage", [_truncated, _garbage_pickle, _foreign_type, _no_newline, lambda entry: b""])
def test_a_corrupt_entry_is_a_miss(project: Path, damage: Callable[[bytes], bytes]) -> None:
    """A damaged entry of fabric.yaml is validated again, gives the same intent, and is rewritten."""
    first = load_intent(project / "intent")
    entry = kept_folder(project) / "fabric.yaml"
    good = entry.read_bytes()
    entry.write_bytes(damage(good))
    assert values(load_intent(project / "intent")) == values(first)
    assert entry.read_bytes()[:65] == good[:65]


def test_an_unreadable_or_unwritable_cache_only_costs_time(project: Path) -> None:
    """A folder in place of an entry, and a cache that is a file: the intent loads all the same."""
    first = load_intent(project / "intent")
    entry = kept_folder(project) / "racks.yaml"
    entry.unlink()
    entry.mkdir()
    assert values(load_intent(project / "intent")) == values(first)
    shutil.rmtree(project / CACHE_DIR)
    (project / CACHE_DIR).write_text("not a folder")
    assert values(load_intent(project / "intent")) == values(first)


def test_a_load_from_the_cache_equals_one_without(project: Path) -> None:
    """Every file kept by the first load, the second takes them all: equal intents, field by field."""
    cold = load_intent(project / "intent")
    assert sorted(p.name for p in kept_folder(project).iterdir()) == sorted(KEPT)
    warm = load_intent(project / "intent")
    assert values(warm) == values(cold)
    assert warm.fabric is not cold.fabric, "the second load took fabric.yaml from the cache"


_PROBE = """
import json, sys
from pathlib import Path
import pydantic
from compiler.intent import load_intent
import compiler.pipeline, fabricops.commands.compile  # everything a compile imports
from compiler.platforms import eos
from core.errors import IntentError

def ours():
    seen, stack = [], [pydantic.BaseModel]
    while stack:
        for sub in stack.pop().__subclasses__():
            stack.append(sub)
            if sub.__module__.split(".")[0] in {"compiler", "core", "fabricops"}:
                seen.append(sub)
    return seen

def built():
    return sorted(m.__name__ for m in ours() if m.__pydantic_complete__)

report = {"models": len(ours()), "at_import": built()}
if len(sys.argv) > 2:
    try:
        load_intent(Path(sys.argv[2]))
        eos.data()
    except IntentError as exc:
        report["problems"] = exc.problems
    report["after_load"] = built()
json.dump(report, open(sys.argv[1], "w"))
"""


def probe(tmp_path: Path, *intent_dir: Path) -> dict[str, object]:
    """What a fresh interpreter built: at import, and after loading ``intent_dir`` (when given)."""
    report = tmp_path / "built.json"
    args = [sys.executable, "-c", _PROBE, str(report), *map(str, intent_dir)]
    subprocess.run(args, cwd=ROOT, check=True, capture_output=True)
    result: dict[str, object] = json.loads(report.read_text())
    return result


def test_importing_the_compiler_builds_no_model(tmp_path: Path) -> None:
    """No model's validator is built at import (a model instance made at import would build its
    class's): a process that takes its intent from the cache never pays for them."""
    report = probe(tmp_path)
    assert isinstance(report["models"], int) and report["models"] > 60, "the probe saw the intent's models"
    assert report["at_import"] == []


def test_an_unchanged_intent_builds_no_model(project: Path, tmp_path: Path) -> None:
    """Once kept, the intent and the platform's data load in a new process without building any
    model, and so does a row added to servers.csv (the kept validator of its rows validates it)."""
    from compiler.intentcache import kept_beside

    kept_beside(project / "intent")
    eos.data.cache_clear()
    try:
        eos.data()  # kept beside this project, as a compile does
    finally:
        eos.data.cache_clear()
    load_intent(project / "intent")
    assert probe(tmp_path, project / "intent")["after_load"] == []
    servers = project / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack02-gpu010,gpu-8x-h100,GPU-0210\n")
    assert probe(tmp_path, project / "intent")["after_load"] == []


def test_a_bad_new_row_is_reported_as_without_the_cache(project: Path, tmp_path: Path) -> None:
    """Rows added to a kept table are validated by the kept validator (a new process builds no
    model): their problems are those a load without the cache reports, word for word."""
    servers = project / "intent" / "servers.csv"
    header, *rows = servers.read_text().splitlines()
    servers.write_text("\n".join([f"{header},compute_port", *(f"{row}," for row in rows)]) + "\n")
    load_intent(project / "intent")
    bad = ["rack02-gpu010,gpu-8x-h100,GPU 0210,", "rack02-gpu011,gpu-8x-h100,GPU-0211,0", "rack02-gpu012,x,GPU-12,Eth1"]
    servers.write_text(servers.read_text() + "\n".join(bad) + "\n")
    warm = probe(tmp_path, project / "intent")
    assert warm["after_load"] == []
    shutil.rmtree(project / CACHE_DIR)
    cold = problems_of(project / "intent")
    assert warm["problems"] == list(cold)
    assert {line.split(": ")[0].rsplit(":", 1)[1] for line in cold} == {"114", "115", "116"}, cold


def test_a_new_row_alone_is_validated(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """servers.csv is kept per row: after a row is added, only it is validated; the rest, and an
    unchanged table, are taken as they were."""
    cold = load_intent(project / "intent")
    validated: list[ServerRow] = []
    original = ValidRow.of

    def counted(row: ServerRow) -> ValidRow:
        validated.append(row)
        return original(row)

    monkeypatch.setattr(ValidRow, "of", counted)
    assert values(load_intent(project / "intent")) == values(cold)
    assert validated == []
    servers = project / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack02-gpu010,gpu-8x-h100,GPU-0210\n")
    added = load_intent(project / "intent")
    assert [row.name for row in validated] == ["rack02-gpu010"]
    assert [s.name for s in added.servers if s not in cold.servers] == ["rack02-gpu010"]
    monkeypatch.undo()
    shutil.rmtree(project / CACHE_DIR)
    assert values(load_intent(project / "intent")) == values(added)


def test_a_row_is_kept_by_its_columns_and_values(project: Path) -> None:
    """A row is looked up by its line under the same header: another value, or the same values
    under other columns, is validated again."""
    load_intent(project / "intent")
    servers = project / "intent" / "servers.csv"
    lines = servers.read_text().splitlines()
    lines[0] += ",status"
    lines[1:] = [f"{line}," for line in lines[1:]]
    lines[1] = lines[1].removesuffix(",") + ",decommissioned"
    servers.write_text("\n".join(lines) + "\n")
    kept = ValidatedFiles.beside(project / "intent")
    before = kept.get("servers.csv", b"", KeptRows)
    assert before is not None
    assert before.known(lines) == {}, "a new column: every row is another key"
    intent = load_intent(project / "intent")
    after = kept.get("servers.csv", b"", KeptRows)
    assert after is not None
    assert after.header == lines[0] and set(after.rows) == set(lines[1:])
    assert sum(1 for s in intent.servers if not s.active) == 1


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_a_row_spanning_lines_or_another_line_ending_loads_as_without_the_cache(project: Path, ending: str) -> None:
    """A table with quotes is not kept (a row may span lines), one with CRLF endings is: the
    intent and the problems are those of a load without the cache."""
    servers = project / "intent" / "servers.csv"
    header, *rows = servers.read_text().splitlines()
    rows[0] = rows[0].replace("gpu-8x-h100", '"gpu-8x-h100"')
    servers.write_bytes(ending.join([header, *rows, ""]).encode())
    cold = load_intent(project / "intent")
    kept = ValidatedFiles.beside(project / "intent")
    assert kept.get("servers.csv", b"", KeptRows) is None
    servers.write_bytes(servers.read_bytes().replace(b'"', b""))
    for _ in range(2):  # kept, then taken
        assert load_intent(project / "intent").servers == cold.servers
    entry = kept.get("servers.csv", b"", KeptRows)
    assert entry is not None and entry.header == header
    servers.write_bytes(servers.read_bytes() + f'rack02-gpu010,"gpu,x",GPU-0210{ending}'.encode())
    warm = problems_of(project / "intent")
    shutil.rmtree(project / CACHE_DIR)
    assert warm == problems_of(project / "intent")


@pytest.mark.parametrize(("filename", "old", "new", "expected"), BAD_INPUTS, ids=[c[3][:40] for c in BAD_INPUTS])
def test_a_bad_file_is_reported_as_without_the_cache(
    project: Path,
    edit: Edit,
    monkeypatch: pytest.MonkeyPatch,
    filename: str,
    old: str | None,
    new: str | Callable[[bytes], bytes],
    expected: str,
) -> None:
    """Every file valid and kept (the hardware too, taken as by a new process), then one made
    bad: the same problems, word for word, as with no cache at all."""
    load_intent(project / "intent")
    _fresh_process(monkeypatch)
    path = project / "intent" / filename
    if callable(new):
        path.write_bytes(new(path.read_bytes()))
    else:
        assert old is not None
        edit(filename, old, new)
    warm = problems_of(project / "intent")
    assert any(expected in line for line in warm)
    shutil.rmtree(project / CACHE_DIR)
    assert problems_of(project / "intent") == warm


def test_only_a_valid_file_is_kept(project: Path, edit: Edit) -> None:
    """A file its model refuses is not kept, nor a table with a bad row; a file valid on its own
    is, even with a rack declared twice (what is checked across a file's items, or across
    files, is checked at every load)."""
    edit("fabric.yaml", "  host: 9000\n", "  host: jumbo\n")
    edit("servers.csv", "GPU-0102", "GPU 0102")
    edit(
        "racks.yaml",
        "role: storage}\n",
        "role: storage}\n  - {id: 13, row: C, position: 3, pdu_kw: 20, role: network}\n",
    )
    problems = problems_of(project / "intent")
    assert [line.split(": ")[0].rsplit("/", 1)[1] for line in problems] == ["fabric.yaml:26", "servers.csv:3"]
    kept = ValidatedFiles.beside(project / "intent")
    assert kept.get("fabric.yaml", (project / "intent" / "fabric.yaml").read_bytes(), object) is None
    assert kept.get("servers.csv", b"", KeptRows) is None
    assert kept.get("racks.yaml", (project / "intent" / "racks.yaml").read_bytes(), object) is not None


def test_the_platform_data_is_kept_beside_the_intent(project: Path) -> None:
    """eos.yaml is kept with the intent being compiled, keyed by its bytes like an intent file."""
    from compiler.intentcache import kept_beside

    eos.data.cache_clear()
    try:
        kept_beside(project / "intent")
        fresh = eos.data()
        kept = ValidatedFiles.beside(project / "intent").get("eos.yaml", eos.DATA.read_bytes(), eos.EosData)
        assert kept == fresh
        eos.data.cache_clear()
        assert eos.data() == fresh
    finally:
        eos.data.cache_clear()


def test_valid_row_holds_every_field_of_server_row() -> None:
    """A field added to ServerRow must reach the servers through ValidRow too."""
    assert ValidRow._fields == tuple(ServerRow.model_fields)


def _fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """No catalog read yet, as in a new process (one read before is kept over a cached one)."""
    monkeypatch.setattr(catalog_module, "_CATALOGS", {})


def test_the_hardware_is_kept_and_taken_as_built(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalog and layouts kept by one load are the next one's: equal to those built, the
    catalog adopted as the process' own (a shipped model is known by identity)."""
    cold = load_intent(project / "intent")
    _fresh_process(monkeypatch)
    warm = load_intent(project / "intent")
    assert warm.catalog is not cold.catalog and warm.catalog == cold.catalog
    assert warm.catalog is catalog_module.catalog()
    assert build_layouts(warm) == build_layouts(cold)
    assert build_layouts(warm).leaf["compute"].model is warm.catalog.models["DCS-7060DX5-32"]


def test_the_layouts_digests_are_taken_with_them_as_worked_out_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A load that takes the kept hardware takes each layout's and its interfaces' digests with
    it; each is the one the value gives when worked out again."""
    load_intent(project / "intent")
    _fresh_process(monkeypatch)
    layouts = every_layout(build_layouts(load_intent(project / "intent")))
    values = [value for layout in layouts for value in (layout, layout.interfaces)]
    kept = [kept_digest(value) for value in values]
    assert None not in kept
    monkeypatch.setattr(hardware_module, "_DIGESTS", {})
    assert [kept_digest(value) for value in values] == [None] * len(values)
    assert kept == [digest_of(value) for value in values]


@pytest.mark.parametrize("change", ["code", "fabric.yaml", "own models"])
def test_each_input_of_the_hardware_key_changes_it(
    project: Path, edit: Edit, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """The code digest (it holds the catalog's files) and fabric.yaml's bytes key the entry; an
    intent with models of its own never takes it (its catalog is built with them)."""
    intent_dir = project / "intent"
    load_intent(intent_dir)
    kept = ValidatedFiles.beside(intent_dir)
    _fresh_process(monkeypatch)
    found = KeptHardware.get(kept, (intent_dir / "fabric.yaml").read_bytes())
    assert found is not None and found.adopted()
    _fresh_process(monkeypatch)
    if change == "code":
        kept = ValidatedFiles(kept.folder, kept.code + "2")
    elif change == "fabric.yaml":
        edit("fabric.yaml", "switch_model: DCS-7010TX-48", "switch_model: DCS-7010TX-48 ")
    else:
        _own_model(project, "DCS-7010TX-48-LAB")  # fabric.yaml unchanged
        assert "DCS-7010TX-48-LAB" in load_intent(intent_dir).catalog.models
        return
    assert KeptHardware.get(kept, (intent_dir / "fabric.yaml").read_bytes()) is None


def test_a_process_that_read_the_catalog_first_keeps_the_entry_as_it_is(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It cannot take the kept hardware (its shipped models are other objects), and does not
    write it again at every load."""
    load_intent(project / "intent")
    written: list[str] = []
    original = ValidatedFiles.put

    def put(self: ValidatedFiles, name: str, data: bytes, value: object) -> None:
        written.append(name)
        original(self, name, data, value)

    monkeypatch.setattr(ValidatedFiles, "put", put)
    catalog_module.catalog()
    intent = load_intent(project / "intent")
    assert intent.catalog is catalog_module.catalog()
    assert HARDWARE_ENTRY not in written
