"""The view's site, read as files: every page there and linked, each fact traced to generated/.

Expected values come from the tables in generated/ (cabling, assets, configs), never typed in,
so a change of port names or models (breakouts, chassis) keeps these tests meaningful.
"""

from __future__ import annotations

import csv
import html
import io
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from core.errors import FabricopsError
from core.generated import open_snapshot
from core.hardware import sort_interfaces
from tests.conftest import run_fabricops
from view.model import read_floor
from view.ports import panel
from view.site import MARKER, build_site, render_site


@pytest.fixture(scope="module")
def site(compiled_example: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("view") / "site"
    build_site(compiled_example, None, out)
    return out


def _rows(root: Path, table: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((root / "generated" / "inventory" / table).read_text())))


def _text(page: Path) -> str:
    """The visible text of a page, tags dropped and entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page.read_text()))


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in ("href", "src"):
            if values.get(name):
                self.links.append(str(values[name]))
        if values.get("id"):
            self.ids.add(str(values["id"]))


def test_a_page_per_server_switch_row_and_network(site: Path, compiled_example: Path) -> None:
    assets = _rows(compiled_example, "assets.csv")
    assert {p.stem for p in (site / "servers").glob("*.html")} == {r["name"] for r in assets if r["kind"] == "server"}
    assert {p.stem for p in (site / "switches").glob("*.html")} == {r["name"] for r in assets if r["kind"] == "switch"}
    assert {p.stem for p in (site / "rows").glob("*.html")} == {r["row"] for r in assets}
    assert {p.stem for p in (site / "networks").glob("*.html")} == {"compute", "storage", "management"}
    assert (site / "index.html").is_file() and (site / MARKER).is_file()


def test_every_link_leads_to_a_file_and_anchor_of_the_site(site: Path) -> None:
    """Relative links only (it opens from disk), none to the network, none broken."""
    pages = sorted(site.rglob("*.html"))
    parsed = {}
    for page in pages:
        parser = _Links()
        parser.feed(page.read_text())
        parsed[page.resolve()] = parser
    checked = 0
    for page, parser in parsed.items():
        for link in parser.links:
            assert "://" not in link and not link.startswith("//"), f"{page}: {link} leaves the site"
            path, _, anchor = link.partition("#")
            target = (page.parent / path).resolve() if path else page
            assert target.is_file(), f"{page.relative_to(site.resolve())}: broken link {link}"
            if anchor and target in parsed:
                assert anchor in parsed[target].ids, f"{page}: no #{anchor} in {path}"
            checked += 1
    assert checked > 5000


def test_server_page_follows_each_nic_to_its_switch_port(site: Path, compiled_example: Path) -> None:
    """NIC -> switch and port -> cable label -> optic -> address -> VLAN, from the tables."""
    server = "rack03-gpu004"
    page = (site / "servers" / f"{server}.html").read_text()
    cables = [r for r in _rows(compiled_example, "cabling.csv") if r["b_device"] == server]
    owned = [r for r in _rows(compiled_example, "ip-plan.csv") if r["owner"] == server]
    assert len(cables) == 5
    for cable in cables:
        row = re.search(rf'<tr id="nic-{cable["b_port"]}">(.*?)</tr>', page, re.DOTALL)
        assert row, f"no row for {cable['b_port']}"
        cells = html.unescape(row.group(1))
        for fact in (cable["a_device"], cable["a_port"], cable["b_label"], cable["a_label"], cable["b_optic"]):
            assert fact in cells
        # Each compute NIC has its own RoCE address (the plan names the NIC), the others their network's
        nic = [r["prefix"] for r in owned if r["purpose"].endswith(f" NIC {cable['b_port']}")]
        mine = nic or [r["prefix"] for r in owned if r["network"] == cable["network"]]
        others = {r["prefix"] for r in owned if r["network"] == cable["network"]} - set(mine)
        assert all(a in cells for a in mine) and not any(a in cells for a in others), cells
        structured = yaml.safe_load(
            (compiled_example / "generated" / "structured" / f"{cable['a_device']}.yaml").read_text()
        )
        port = next(i for i in structured["config"]["interfaces"] if i["name"] == cable["a_port"])
        assert str(port["switchport_access_vlan"]) in cells


def test_front_panel_shows_every_interface_of_the_config(site: Path, compiled_example: Path) -> None:
    """Each Ethernet interface the config lists is a cage on the panel, cabled ones marked used."""
    for switch in ("rack01-leaf-a", "spine01", "rack01-mgmt", "mgmt-core01"):
        config = (compiled_example / "generated" / "configs" / f"{switch}.cfg").read_text()
        interfaces = re.findall(r"^interface (Ethernet\S+)$", config, re.MULTILINE)
        page = (site / "switches" / f"{switch}.html").read_text()
        panel_html = page[page.index('<div class="panel">') : page.index('<p class="legend">')]
        cages = re.findall(r'href="#port-([^"]+)"', panel_html)
        assert cages == interfaces
        cabled = {r["a_port"] for r in _rows(compiled_example, "cabling.csv") if r["a_device"] == switch}
        cabled |= {r["b_port"] for r in _rows(compiled_example, "cabling.csv") if r["b_device"] == switch}
        used = set(re.findall(r'class="(?:cage|lane) used" href="#port-([^"]+)"', panel_html))
        assert used == cabled & set(interfaces)


def test_real_eos_names_breakouts_and_line_cards() -> None:
    """Cages come from the names as EOS prints them: a breakout is one cage with its lanes."""
    fixed = panel(
        sort_interfaces(
            ["Ethernet2", "Ethernet1", "Ethernet49/1", "Ethernet49/3", "Ethernet49/5", "Ethernet49/7", "Ethernet50/1"]
        )
    )
    assert [(g.title, [c.number for c in g.cages]) for g in fixed] == [
        ("ports", ["1", "2"]),
        ("multi-lane ports", ["49", "50"]),
    ]
    assert [c.breakout for c in fixed[1].cages] == [True, False]
    assert fixed[1].cages[0].interfaces == ["Ethernet49/1", "Ethernet49/3", "Ethernet49/5", "Ethernet49/7"]
    chassis = panel(
        sort_interfaces(["Ethernet4/1/1", "Ethernet3/2/1", "Ethernet3/1/1", "Management1", "Port-Channel10"])
    )
    assert [(g.title, [c.number for c in g.cages]) for g in chassis] == [
        ("line card 3", ["3/1", "3/2"]),
        ("line card 4", ["4/1"]),
    ]


def test_a_breakout_port_is_drawn_with_its_lanes(compiled_example: Path, tmp_path: Path) -> None:
    """A leaf whose uplink cage is broken out into four lanes (as the catalog will generate)."""
    root = tmp_path / "repo"
    shutil.copytree(compiled_example / "generated", root / "generated", copy_function=os.link)
    path = root / "generated" / "structured" / "rack01-leaf-a.yaml"
    data = yaml.safe_load(path.read_text())
    path.unlink()  # a hard link to the shared compiled example: the edit goes to a file of its own
    interfaces = [i for i in data["config"]["interfaces"] if i["name"] != "Ethernet53"]
    interfaces += [{"name": f"Ethernet53/{lane}", "speed": "100g-4"} for lane in (1, 3, 5, 7)]
    data["config"]["interfaces"] = interfaces
    path.write_text(yaml.safe_dump(data))
    files = render_site(read_floor(open_snapshot(root)), None, "test")
    page = files["switches/rack01-leaf-a.html"].decode()
    cage = re.search(r'<div class="cage breakout" title="53: breakout, 4 lanes">(.*?)</div>', page, re.DOTALL)
    assert cage and re.findall(r">(\d)</a>", cage.group(1)) == ["1", "3", "5", "7"]
    assert '<tr id="port-Ethernet53/5" class="free">' in page


def test_elevation_places_every_device_of_a_rack(site: Path, compiled_example: Path) -> None:
    assets = [r for r in _rows(compiled_example, "assets.csv") if r["rack"] == "3"]
    page = (site / "rows" / "A.html").read_text()
    rack = page[page.index('<section class="rack" id="rack03">') :]
    rack = rack[: rack.index("</section>")]
    drawn = max(42, *(int(row["rack_unit"]) for row in assets))  # a 48U rack is drawn whole
    assert drawn == 48
    for row in assets:
        top, height = int(row["rack_unit"]), int(row["height_u"])
        assert f'href="../{row["kind"]}{"es" if row["kind"] == "switch" else "s"}/{row["name"]}.html"' in rack
        assert f"--offset: {drawn - top}; --height: {height}" in rack.split(f"/{row['name']}.html")[1][:80]
        assert f'<span class="tag">{row["asset_tag"]}</span>' in rack
    assert 'class="warning"' not in rack


def test_topology_pictures_are_inline_and_without_script(site: Path, compiled_example: Path) -> None:
    for network, picture in (("compute", "compute-fabric"), ("management", "management-network")):
        page = (site / "networks" / f"{network}.html").read_text()
        assert "<svg" in page and "<script" not in page.split("<main>")[1]
        svg = (compiled_example / "generated" / "docs" / f"{picture}.svg").read_text()
        assert all(f">{name}<" in page for name in re.findall(r">(rack\d+-\w+(?:-\w)?)<", svg))


def test_search_index_finds_server_address_tag_port_and_label(site: Path) -> None:
    index = (site / "assets" / "search-index.js").read_text()
    for key in (
        "rack03-gpu004",
        "GPU-0304",
        "10.30.3.14",
        "rack03-leaf-a Ethernet1/7",
        "rack03-leaf-a Et1/7 > rack03-gpu004 enp65s0f0",
    ):
        assert f'["{key}",' in index, key


def test_the_same_generated_gives_the_same_site(site: Path, compiled_example: Path, tmp_path: Path) -> None:
    again = tmp_path / "again"
    build_site(compiled_example, None, again)
    first = {p.relative_to(site): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}
    second = {p.relative_to(again): p.read_bytes() for p in sorted(again.rglob("*")) if p.is_file()}
    assert first == second


def test_a_directory_it_did_not_write_is_never_replaced(compiled_example: Path, tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    with pytest.raises(FabricopsError, match="not a site 'fabricops view' wrote"):
        build_site(compiled_example, None, tmp_path / "mine")
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"


def test_cli_builds_and_says_how_to_open_it(compiled_example: Path, tmp_path: Path) -> None:
    out = tmp_path / "view"
    ran = run_fabricops(compiled_example, "view", "--out", str(out))
    assert ran.code == 0, ran.err
    assert f"open {(out / 'index.html').as_uri()}" in ran.out
    assert "55 switches, 112 servers, 3 rows, 3 networks" in ran.out


def test_cli_without_generated_says_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "generated").mkdir()
    ran = run_fabricops(tmp_path, "view")
    assert ran.code == 1
    assert ran.err.strip().splitlines() == [
        f"Error: {tmp_path / 'generated'} holds no switch or server: run 'fabricops compile' first"
    ]
    assert "Traceback" not in ran.err


def test_serve_listens_on_loopback_only(compiled_example: Path, tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("fabricops")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    args = [str(exe), "view", "--root", str(compiled_example), "--out", str(tmp_path / "v"), "--serve"]
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as proc:
        try:
            assert proc.stdout is not None
            line = ""
            for _ in range(3):
                line = proc.stdout.readline()
                if line.startswith("serving"):
                    break
            url = re.search(r"http://127\.0\.0\.1:\d+/index\.html", line)
            assert url, line
            with urllib.request.urlopen(url.group(0), timeout=10) as response:
                assert response.status == 200 and b"the fabric at a glance" in response.read()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
