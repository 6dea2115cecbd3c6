"""How wide a label is in the font the diagrams declare, so every box can be sized to fit it.

The diagrams (``generated/docs/*.svg``) and the view draw text in DejaVu Sans, shipped in
``core/fonts/`` (the view embeds it, so a browser renders exactly the font measured here).
Widths come from the font's advance widths (``core/fonts/metrics.json``): no font library at
compile time. Kerning moves a pair by 7% of the font size at most, which the padding of every
box absorbs. A character outside the shipped fonts counts as the widest one (``W``).

Examples:
    >>> round(text_width("rack01-leaf-a", 12), 1)
    79.4
    >>> text_width("spine01", 13, bold=True) > text_width("spine01", 13)
    True
    >>> text_width("", 12)
    0.0
"""

from __future__ import annotations

import json
from functools import cache
from itertools import repeat
from pathlib import Path

FONT_DIR = Path(__file__).resolve().parent / "fonts"
FONT_FAMILY = "DejaVu Sans"
#: What SVG and CSS declare: the shipped font first, then the closest in width (Verdana is
#: DejaVu's ancestor's metric twin), then any sans-serif.
FONT_STACK = "DejaVu Sans, Verdana, sans-serif"
FONT_FILES = {"normal": FONT_DIR / "DejaVuSans.ttf", "bold": FONT_DIR / "DejaVuSans-Bold.ttf"}


@cache
def _advances() -> tuple[int, dict[str, dict[str, int]]]:
    data = json.loads((FONT_DIR / "metrics.json").read_text())
    return int(data["units_per_em"]), {style: dict(data[style]) for style in FONT_FILES}


def text_width(text: str, size: float, bold: bool = False) -> float:
    """The width of ``text`` at font size ``size`` (pixels), before kerning."""
    units_per_em, styles = _advances()
    widths = styles["bold" if bold else "normal"]
    widest = widths["W"]
    # Each character's width looked up at C speed (a generator costs a Python step per character).
    return sum(map(widths.get, text, repeat(widest, len(text)))) * size / units_per_em
