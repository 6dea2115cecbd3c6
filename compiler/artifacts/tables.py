"""Small helpers for the CSV and markdown tables under ``generated/inventory/``."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """CSV with ``\\n`` line ends (stable across platforms).

    Example:
        >>> print(csv_text(["a", "b"], [[1, "x,y"]]), end="")
        a,b
        1,"x,y"
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A GitHub markdown table; ``|`` in a cell is escaped.

    Example:
        >>> print(markdown_table(["a", "b"], [[1, "x|y"]]), end="")
        | a | b |
        | --- | --- |
        | 1 | x\\|y |
    """
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    for row in rows:
        # Cells joined by NUL first: one escape and one join per row, not one per cell.
        cells = "\0".join(map(str, row))
        if "|" in cells:
            cells = cells.replace("|", "\\|")
        lines.append("| " + cells.replace("\0", " | ") + " |")
    return "\n".join(lines) + "\n"


def percent(used: float, capacity: float) -> str:
    """A share as a whole percentage, ``-`` without a capacity.

    Examples:
        >>> percent(61750, 70000), percent(1, 0)
        ('88%', '-')
    """
    return f"{used / capacity:.0%}" if capacity else "-"
