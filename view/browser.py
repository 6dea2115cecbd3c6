"""The view in a headless browser: Debian's Chromium and chromedriver, driven by Selenium.

The browser tests and the screenshots in ``docs/`` (``make screenshots``) open the built site
with it. ``make browser`` installs Debian's ``chromium`` and ``chromium-driver``; no browser is
ever downloaded. A runner with a Chrome of its own names it (``FABRICOPS_CHROMIUM``,
``FABRICOPS_CHROMEDRIVER``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM = Path(os.environ.get("FABRICOPS_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("FABRICOPS_CHROMEDRIVER", "/usr/bin/chromedriver"))
# Headless as root in a sandbox-less container, and nothing that phones home: without the
# background-networking flags Chromium's own connections are refused on a closed network.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)
MISSING = "Chromium is missing: run 'make browser' (installs chromium and chromium-driver)"


def available() -> bool:
    """Whether Chromium and chromedriver are installed."""
    return CHROMIUM.exists() and CHROMEDRIVER.exists()


@contextmanager
def chromium(profile: Path, width: int = 1280, height: int = 1150) -> Iterator[WebDriver]:
    """A headless Chromium with its own profile in ``profile`` and a ``width`` x ``height`` window."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--window-size={width},{height}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    try:
        yield driver
    finally:
        driver.quit()
