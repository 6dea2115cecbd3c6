"""The view in a real browser: the system's headless Chromium, driven by Selenium and chromedriver.

Chromium and chromedriver are Debian's (``make browser`` installs them; no browser is ever
downloaded; :mod:`view.browser`). Pages are opened from disk (``file://``), as a person opens
the built site. Screenshots and the 16x load times are kept in ``build/view-screenshots/`` for CI to upload.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO
from view.browser import MISSING, available, chromium

pytestmark = pytest.mark.e2e

SHOTS = REPO / "build" / "view-screenshots"
LOAD_BOUND_S = 60.0
"""A sanity bound, not a target: a page that takes longer has frozen the browser."""

if TYPE_CHECKING := False:
    from selenium.webdriver.remote.webdriver import WebDriver


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    if not available():
        if os.environ.get("CI"):
            pytest.fail(MISSING)
        pytest.skip(MISSING)
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium(tmp_path_factory.mktemp("chromium-profile"), 1280, 1150) as driver:
        driver.set_page_load_timeout(LOAD_BOUND_S * 2)
        yield driver


@pytest.fixture(scope="module")
def site(compiled_example: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from view.site import build_site

    out = tmp_path_factory.mktemp("view-1x") / "site"
    build_site(compiled_example, None, out)
    return out


def _rows(root: Path, table: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((root / "generated" / "inventory" / table).read_text())))


def _search(driver: WebDriver, query: str) -> list[tuple[str, str]]:
    """Type into the search box; the results shown, as (title, detail)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    box = driver.find_element(By.ID, "search")
    box.clear()
    box.send_keys(query)
    results = driver.find_element(By.ID, "search-results")
    WebDriverWait(driver, LOAD_BOUND_S).until(
        lambda d: results.get_attribute("data-query") == query and results.is_displayed()
    )
    items = driver.find_elements(By.CSS_SELECTOR, "#search-results li a")
    return [(a.find_element(By.CLASS_NAME, "title").text, a.find_element(By.CLASS_NAME, "detail").text) for a in items]


def test_searching_a_server_shows_its_two_leaves_and_ports(
    browser: WebDriver, site: Path, compiled_example: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    server = "rack03-gpu004"
    leaves = sorted(
        (r["a_device"], r["a_port"])
        for r in _rows(compiled_example, "cabling.csv")
        if r["b_device"] == server and r["network"] == "compute"
    )
    assert len(leaves) == 2
    browser.get((site / "index.html").as_uri())
    results = _search(browser, server)
    assert results[0][0] == server
    for leaf, port in leaves:
        assert f"{leaf} {port}" in results[0][1]
    browser.save_screenshot(str(SHOTS / "search.png"))
    browser.find_element(By.ID, "search").send_keys(Keys.ENTER)
    browser.find_element(By.CSS_SELECTOR, "table.nics")
    assert browser.current_url.endswith(f"servers/{server}.html")
    shown = set()
    for row in browser.find_elements(By.CSS_SELECTOR, "table.nics tbody tr"):
        cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
        if cells[1] == "compute":
            shown.add((cells[2], cells[3]))
    assert sorted(shown) == leaves
    browser.save_screenshot(str(SHOTS / "server.png"))


def test_search_finds_address_asset_tag_port_and_cable_label(browser: WebDriver, site: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.get((site / "index.html").as_uri())
    assert _search(browser, "10.30.3.14")[0][0] == "rack03-gpu004"
    assert _search(browser, "GPU-0304")[0][0] == "rack03-gpu004"
    assert _search(browser, "rack03-leaf-a Ethernet1/7")[0][0] == "rack03-leaf-a Ethernet1/7"
    label = "rack03-leaf-a Et1/7 > rack03-gpu004 enp65s0f0"
    assert _search(browser, label)[0] == (
        "rack03-leaf-a Ethernet1/7",
        "port to rack03-gpu004 enp65s0f0 · 100g · VLAN 100 (GPU-Compute)",
    )
    assert _search(browser, "no-such-thing") == []
    assert browser.find_element(By.CSS_SELECTOR, "#search-results li.none").text == "nothing matches no-such-thing"


def test_the_elevation_of_a_rack_lists_every_server_of_that_rack(
    browser: WebDriver, site: Path, compiled_example: Path
) -> None:
    """Every server of rack 3 is drawn, each at its own units: no two boxes overlap on screen."""
    from selenium.webdriver.common.by import By

    servers = {
        r["name"]: r["asset_tag"]
        for r in _rows(compiled_example, "assets.csv")
        if r["rack"] == "3" and r["kind"] == "server"
    }
    browser.get((site / "rows" / "A.html").as_uri())
    rack = browser.find_element(By.ID, "rack03")
    boxes = rack.find_elements(By.CSS_SELECTOR, ".unit.server")
    drawn = {b.find_element(By.CLASS_NAME, "name").text: b.find_element(By.CLASS_NAME, "tag").text for b in boxes}
    assert drawn == servers
    spans = sorted((b.rect["y"], b.rect["y"] + b.rect["height"]) for b in rack.find_elements(By.CSS_SELECTOR, ".unit"))
    assert all(top >= bottom for (_, bottom), (top, _) in itertools.pairwise(spans))
    browser.save_screenshot(str(SHOTS / "elevation.png"))


def test_switch_page_front_panel_and_neighbours(browser: WebDriver, site: Path) -> None:
    from selenium.webdriver.common.by import By

    browser.get((site / "switches" / "rack01-leaf-a.html").as_uri())
    assert browser.find_elements(By.CSS_SELECTOR, ".panel .cage.used")
    assert browser.find_element(By.CSS_SELECTOR, "figure.neighbourhood svg").is_displayed()
    # the font of the pictures is the embedded DejaVu Sans, as the labels were measured in
    assert browser.execute_script("return document.fonts.check('12px \"DejaVu Sans\"')")
    browser.save_screenshot(str(SHOTS / "switch.png"))


@pytest.fixture(scope="module")
def site_16x(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, float]]:
    """The bench's 16x intent (683 switches, 1,732 servers) compiled and viewed; build times."""
    from bench.scale import scaled_intent
    from compiler.pipeline import compile_intent, write_generated
    from view.site import build_site

    root = tmp_path_factory.mktemp("view-16x")
    scaled_intent(16, root / "intent")
    write_generated(compile_intent(root / "intent"), root / "generated")
    started = time.perf_counter()
    build_site(root, None, root / "site")
    built = time.perf_counter() - started
    shutil.rmtree(root / "generated" / "servers")  # the site is built; spare the disk
    return root / "site", {"build_s": round(built, 2)}


def _timed_search(driver: WebDriver, query: str) -> float:
    """Seconds from a query entered at once (not typed key by key) to its results on screen."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    results = driver.find_element(By.ID, "search-results")
    started = time.perf_counter()
    driver.execute_script(
        "const box = document.getElementById('search'); box.value = arguments[0];"
        "box.dispatchEvent(new Event('input'));",
        query,
    )
    WebDriverWait(driver, LOAD_BOUND_S, poll_frequency=0.01).until(
        lambda d: results.get_attribute("data-query") == query
    )
    return round(time.perf_counter() - started, 3)


def _load(driver: WebDriver, page: Path) -> float:
    """Seconds from navigation to the load event, as the browser measured it."""
    driver.get(page.as_uri())
    millis = driver.execute_script(
        "const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime;"
    )
    return round(float(millis) / 1000, 3)


def test_the_view_at_16x_loads_without_freezing(browser: WebDriver, site_16x: tuple[Path, dict[str, float]]) -> None:
    """Load times at 16x are measured and kept (build/view-screenshots/load-16x.json), bounded only for sanity."""
    site, figures = site_16x
    spine = max((site / "switches").glob("*.html"), key=lambda p: p.stat().st_size)
    pages = {
        "index": site / "index.html",
        "row": site / "rows" / "A.html",
        "server": site / "servers" / "rack192-gpu009.html",
        "largest switch page": spine,
    }
    for name, page in pages.items():
        figures[f"{name}_load_s"] = _load(browser, page)
        figures[f"{name}_bytes"] = page.stat().st_size
    browser.get(pages["index"].as_uri())
    results = _search(browser, "rack150-gpu007")  # as a person types it
    figures["search_index_bytes"] = (site / "assets" / "search-index.js").stat().st_size
    browser.get(pages["index"].as_uri())
    figures["first_search_s"] = _timed_search(browser, "rack150-gpu007")  # loads the index
    figures["next_search_s"] = _timed_search(browser, "10.32.150")
    assert results[0][0] == "rack150-gpu007"
    assert browser.execute_script("return 1 + 1") == 2  # the page still answers
    (SHOTS / "load-16x.json").write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    browser.get(pages["row"].as_uri())
    browser.save_screenshot(str(SHOTS / "elevation-16x.png"))
    assert all(v < LOAD_BOUND_S for k, v in figures.items() if k.endswith("_s") and k != "build_s"), figures
