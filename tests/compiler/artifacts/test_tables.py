"""The fleet-wide tables joined from sections: each section holds exactly the rows of its
switch, rack or address block, after the header, and the sections join into the table."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable

import pytest

from compiler.artifacts.assets import asset_units
from compiler.artifacts.cabling import cabling_units
from compiler.artifacts.ipplan import _row, _sort_key, ipplan_units
from compiler.artifacts.tables import HEAD
from compiler.artifacts.units import Unit, built
from compiler.artifacts.validation import link_test_units
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent
from compiler.pipeline import CompileResult


def _sections(units: Iterable[Unit], file: str) -> dict[str, list[list[str]]]:
    """Each section of ``file`` built by ``units``, by name, as CSV rows (in unit order)."""
    out: dict[str, list[list[str]]] = {}
    for unit in units:
        for path, text in unit.build().items():
            name, mark, section = path.partition("#")
            if mark and name == file:
                out[section] = list(csv.reader(io.StringIO(text)))
    return out


@pytest.fixture(scope="module")
def tables(example_compile: CompileResult) -> dict[str, dict[str, list[list[str]]]]:
    intent, fabric = example_compile.intent, example_compile.fabric
    return {
        "cabling": _sections(cabling_units(intent, fabric), "inventory/cabling.csv"),
        "assets": _sections(asset_units(intent, fabric), "inventory/assets.csv"),
        "ip-plan": _sections(ipplan_units(fabric), "inventory/ip-plan.csv"),
        "link-tests": _sections(link_test_units(fabric), "validation/link-tests.csv"),
    }


@pytest.mark.parametrize(
    ("table", "path"),
    [
        ("cabling", "inventory/cabling.csv"),
        ("assets", "inventory/assets.csv"),
        ("ip-plan", "inventory/ip-plan.csv"),
        ("link-tests", "validation/link-tests.csv"),
    ],
)
def test_a_table_is_its_header_then_its_sections(
    tables: dict[str, dict[str, list[list[str]]]], example_compile: CompileResult, table: str, path: str
) -> None:
    """The header is a section of its own, first; the sections in order are the file's rows."""
    sections = tables[table]
    assert next(iter(sections)) == HEAD and len(sections[HEAD]) == 1
    rows = [row for rows in sections.values() for row in rows]
    assert rows == list(csv.reader(io.StringIO(example_compile.files[path].decode())))
    assert all(sections.values()), "no empty section"


def test_a_switch_section_of_the_cable_list_holds_the_cables_it_is_the_a_end_of(
    tables: dict[str, dict[str, list[list[str]]]], example_compile: CompileResult
) -> None:
    sections = tables["cabling"]
    for name, rows in list(sections.items())[1:]:
        assert {row[0] for row in rows} == {name}
    a_ends = {link.a.device for link in example_compile.fabric.links}
    assert set(sections) - {HEAD} == a_ends
    assert "rack03-leaf-a" in sections and "spine01" not in sections  # a spine is the B end of its uplinks


def test_asset_sections_are_runs_of_one_rack(tables: dict[str, dict[str, list[list[str]]]]) -> None:
    """Switches, then servers, each by name; a section is a run of them in one rack, named by its first."""
    sections = tables["assets"]
    for name, rows in list(sections.items())[1:]:
        assert rows[0][1] == name
        assert len({row[4] for row in rows}) == 1
    assert sections["rack03-gpu001"][-1][1] == "rack03-gpu009"


def test_ip_plan_sections_are_blocks_of_a_pool(tables: dict[str, dict[str, list[list[str]]]]) -> None:
    """A section per network, pool and /24: a rack's hosts share one."""
    sections = tables["ip-plan"]
    for name, rows in list(sections.items())[1:]:
        network, pool, block = name.split(" ")
        assert {(row[0], row[1], row[3].rsplit(".", 1)[0]) for row in rows} == {(network, pool, block)}
    hosts = [rows for name, rows in sections.items() if name.startswith("compute hosts ")]
    assert len(hosts) > 1 and all(len(rows) < 100 for rows in hosts)


def test_link_test_sections_are_racks(
    tables: dict[str, dict[str, list[list[str]]]], example_compile: CompileResult
) -> None:
    """A rack's section holds the pairs its servers are the client of."""
    servers = example_compile.fabric.servers
    for name, rows in list(tables["link-tests"].items())[1:]:
        assert {servers[row[2]].rack for row in rows} == {int(name)}


def test_the_bill_of_materials_counts_every_cable(example_compile: CompileResult) -> None:
    """The header of cabling.md counts each cable of the list once, by media and length class."""
    files = built(cabling_units(example_compile.intent, example_compile.fabric))
    table = files["inventory/cabling.md"].split("## Cables")[0].split("| media | length class (m) | cables |")[1]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line]
    assert sum(int(line.rsplit("|", 2)[1]) for line in rows) == len(example_compile.fabric.links)


@pytest.mark.parametrize("scale", ["example", "16x"])
def test_the_ip_plan_is_every_allocation_in_address_order(
    scale: str, example_compile: CompileResult, fabric_16x: tuple[Intent, ResolvedFabric]
) -> None:
    """The blocks, each sorted when built, join into every allocation sorted by network, pool
    and address (ties in the fabric's order), as one sort of the whole plan would."""
    fabric = example_compile.fabric if scale == "example" else fabric_16x[1]
    sections = _sections(ipplan_units(fabric), "inventory/ip-plan.csv")
    rows = [row for name, rows in sections.items() if name != HEAD for row in rows]
    assert rows == [list(_row(a)) for a in sorted(fabric.allocations, key=_sort_key)]
    assert len(sections) > 2
