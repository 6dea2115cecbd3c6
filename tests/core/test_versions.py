"""The table of what each EOS release prints by itself, checked against real switches."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.configtree import Node, parse
from core.errors import FabricopsError
from core.platforms import get_rules
from core.platforms.versions import parse_version, release
from tests.captures import CAPTURES, release_of


def _paths(text: str) -> set[tuple[tuple[str, ...], str]]:
    """Every (section path, line) of a config text."""
    rules = get_rules("eos")
    found: set[tuple[tuple[str, ...], str]] = set()

    def walk(node: Node, path: tuple[str, ...]) -> None:
        for line, child in node.children.items():
            found.add((path, line))
            walk(child, (*path, line))

    walk(parse(text, rules), ())
    return found


@pytest.mark.parametrize("path", CAPTURES)
def test_every_default_of_a_release_is_printed_by_a_switch_of_that_release(path: Path) -> None:
    """Each line the table gives for the capture's release is in the capture, unless a line of
    the capture suppresses it (``aaa root secret`` instead of ``no aaa root``)."""
    text = path.read_text()
    lines = _paths(text)
    missing = []
    for default in release(release_of(text)).printed:
        siblings = [line for p, line in lines if p == default.path]
        if (default.path, default.line) not in lines and not any(default.unless.match(s) for s in siblings):
            missing.append(" > ".join((*default.path, default.line)))
    assert missing == []


@pytest.mark.parametrize("path", CAPTURES)
def test_no_default_of_a_later_release_is_printed_by_an_older_switch(path: Path) -> None:
    """The ``since`` bounds are right: what a newer release adds is absent from older captures."""
    text = path.read_text()
    lines = {line for _, line in _paths(text)}
    own = {(p.path, p.line) for p in release(release_of(text)).printed}
    newest = {(p.path, p.line) for p in release("99.0.0").printed}
    assert sorted(line for p, line in newest - own if not p and line in lines) == []


def test_versions_compare_by_their_numbers() -> None:
    assert parse_version("4.32.2F") == (4, 32, 2)
    assert (4, 32, 1) < (4, 32, 2) and parse_version("4.9.0") == (4, 9, 0)
    assert [p.line for p in release("4.32.1F").printed if "service interface" in p.line] == []
    assert [p.line for p in release("4.32.2F").printed if "service interface" in p.line] != []


def test_an_unknown_version_gets_only_the_defaults_of_every_release() -> None:
    lines = {p.line for p in release(None).printed}
    assert "no aaa root" in lines
    assert "system l1" not in lines


def test_a_repository_table_adds_its_releases(tmp_path: Path) -> None:
    table = tmp_path / "eos.yaml"
    table.write_text('eos:\n  - since: "4.34"\n    prints:\n      - text: management api models\n        why: x\n')
    assert "management api models" in {p.line for p in release("4.34.1F", table).printed}
    assert "management api models" not in {p.line for p in release("4.33.0F", table).printed}
    rules = get_rules("eos", "4.34.1F", table)
    assert any(d.matches((), "management api models") for d in rules.default_lines)


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ("eos: 3\n", "expected a top-level 'eos:' list"),
        ('eos:\n  - since: "four"\n', "eos[0].since: 'four' is not a version"),
        ("eos:\n  - prints:\n      - line: x\n", "eos[0].prints[0]: expected 'text:'"),
        ("eos:\n  - hides:\n      - line: '('\n", "eos[0].hides[0].line: '(' is not a valid regex"),
        ("eos:\n  - colour: red\n", "eos[0]: unknown key(s) colour"),
    ],
)
def test_a_bad_table_is_one_line_naming_the_file_and_the_entry(tmp_path: Path, content: str, error: str) -> None:
    table = tmp_path / "eos.yaml"
    table.write_text(content)
    with pytest.raises(FabricopsError, match=re.escape(f"{table}: {error}")):
        release("4.33.0F", table)
