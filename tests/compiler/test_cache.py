"""The incremental compile: a one-row change re-renders only its switches and writes the bytes a
full compile writes; an untouched repository is recognised without compiling."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from compiler.cache import CompileCache, code_digest, fingerprint, stamps
from compiler.output import read_tree
from compiler.pipeline import CompileResult, compile_intent
from fabricops.cli import cli

SERVER_ROW = ("servers.csv", "rack03-gpu009,gpu-8x-h100,GPU-0309\n", "rack03-gpu010,gpu-8x-h100,GPU-0310\n")
PORT_DESCRIBED = (
    "ports.yaml",
    "ports: {}\n",
    "ports:\n  rack01-leaf-a:\n    Ethernet1/3:\n      description: burn-in\n",
)


def _compile(root: Path) -> str:
    result = CliRunner().invoke(cli, ["compile", "--root", str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def cached_root(tmp_path: Path, compiled_example: Path, example_compile: CompileResult) -> Path:
    """A copy of the compiled example with the record its compile leaves in .fabricops-cache/."""
    root = tmp_path / "repo"
    shutil.copytree(compiled_example, root)
    CompileCache(root, code_digest(), tree=stamps(root / "generated"), units=example_compile.renders).save()
    return root


@pytest.mark.parametrize(("filename", "after", "added"), [SERVER_ROW, PORT_DESCRIBED], ids=["server", "port"])
def test_one_row_change_recompiles_to_a_full_compiles_bytes(
    cached_root: Path, filename: str, after: str, added: str
) -> None:
    """The change re-renders a few switches, reuses the rest from generated/, and generated/ ends
    byte for byte as a compile from nothing would leave it; a config edited by hand in the
    meantime is not reused but rendered again."""
    intent = cached_root / "intent" / filename
    text = intent.read_text()
    assert after in text
    intent.write_text(text.replace(after, after + added) if filename == "servers.csv" else text.replace(after, added))
    tampered = cached_root / "generated" / "configs" / "rack06-leaf-a.cfg"
    tampered.write_text(tampered.read_text() + "! edited by hand\n")
    output = _compile(cached_root)
    rendered = int(output.split("(")[-1].split(" of ")[0])
    assert 1 < rendered <= 6, output  # the changed switches (2-5) and the tampered one
    assert read_tree(cached_root / "generated") == compile_intent(cached_root / "intent").files
    assert "up to date: intent and compiler unchanged" in _compile(cached_root)


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
