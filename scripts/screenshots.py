"""Refresh the view's screenshots in ``docs/``: the rack elevations of row A and a server's page.

``make screenshots`` runs it (after ``make browser``): it builds the view of ``generated/`` in
the work tree into a scratch directory, from a copy without git, so no deploy state shows, and
opens it in headless Chromium (:mod:`view.browser`) at the sizes the README shows.

    .venv/bin/python scripts/screenshots.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from view.browser import MISSING, available, chromium  # noqa: E402
from view.site import build_site  # noqa: E402

#: docs/<file>: the page of the site, and the window it is taken in (width, height).
SHOTS = {
    "view-elevation.png": ("rows/A.html", (1180, 1130)),
    "view-server.png": ("servers/rack03-gpu004.html", (1280, 720)),
}


def main() -> int:
    if not available():
        print(MISSING, file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="fabricops-screenshots-") as scratch:
        root = Path(scratch)
        for part in ("intent", "generated"):
            shutil.copytree(ROOT / part, root / part)
        build_site(root, None, root / "site")
        for name, (page, (width, height)) in SHOTS.items():
            with chromium(root / f"profile-{name}", width, height) as browser:
                # The page exactly width x height, without scrollbars (the window's frame aside).
                metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
                browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
                browser.execute_cdp_cmd("Emulation.setScrollbarsHidden", {"hidden": True})
                browser.get((root / "site" / page).as_uri())
                browser.save_screenshot(str(ROOT / "docs" / name))
            print(f"docs/{name}: {page} at {width}x{height}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
