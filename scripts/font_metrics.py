"""Write ``core/fonts/metrics.json``: the advance width of every character of the shipped fonts.

The diagrams size their boxes from these widths (no font library at compile time); a test
checks the file against the fonts themselves. Run after changing a font file:

    .venv/bin/python scripts/font_metrics.py
"""

from __future__ import annotations

import json
from pathlib import Path

from fontTools.ttLib import TTFont

FONTS = Path(__file__).resolve().parent.parent / "core" / "fonts"
STYLES = {"normal": "DejaVuSans.ttf", "bold": "DejaVuSans-Bold.ttf"}


def metrics() -> dict[str, object]:
    """Units per em and, per style, each character's advance width in font units."""
    out: dict[str, object] = {}
    for style, filename in STYLES.items():
        font = TTFont(FONTS / filename)
        out["units_per_em"] = font["head"].unitsPerEm
        hmtx = font["hmtx"]
        out[style] = {chr(code): hmtx[glyph][0] for code, glyph in sorted(font.getBestCmap().items())}
    return out


if __name__ == "__main__":
    (FONTS / "metrics.json").write_text(json.dumps(metrics(), ensure_ascii=False, sort_keys=True, indent=0) + "\n")
