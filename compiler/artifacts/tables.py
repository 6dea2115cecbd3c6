"""Small helpers for the CSV and markdown tables under ``generated/inventory/``.

A fleet-wide table is joined from sections (:mod:`compiler.artifacts.units`): its header, then
the rows of each switch, rack or run of servers, each written by :func:`csv_rows` or
:func:`markdown_rows` alone; joined, they are the bytes of :func:`csv_text` or
:func:`markdown_table` over every row.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from compiler.artifacts.units import Unit, section_path

HEAD = ":head"
"""The section of a table's header and what precedes its rows: a name no device takes."""


def header_unit(kind: str, file: str, columns: Sequence[str]) -> Unit:
    """The unit of CSV ``file``'s header line, its first section (named :data:`HEAD`).

    Example:
        >>> header_unit("ip-plan", "inventory/ip-plan.csv", ("network", "pool")).build()
        {'inventory/ip-plan.csv#:head': 'network,pool\\n'}
    """
    return Unit(f"{kind}/{HEAD}", tuple(columns), lambda: {section_path(file, HEAD): csv_rows([columns])})


def csv_text(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """CSV with ``\\n`` line ends (stable across platforms).

    Example:
        >>> print(csv_text(["a", "b"], [[1, "x,y"]]), end="")
        a,b
        1,"x,y"
    """
    return csv_rows([header]) + csv_rows(rows)


def csv_rows(rows: Iterable[Sequence[object]]) -> str:
    """The CSV lines of ``rows``, no header: a section of a table.

    Example:
        >>> print(csv_rows([[1, "x,y"], [2, ""]]), end="")
        1,"x,y"
        2,
    """
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A GitHub markdown table; ``|`` in a cell is escaped.

    Example:
        >>> print(markdown_table(["a", "b"], [[1, "x|y"]]), end="")
        | a | b |
        | --- | --- |
        | 1 | x\\|y |
    """
    head = "| " + " | ".join(header) + " |\n| " + " | ".join("---" for _ in header) + " |\n"
    return head + markdown_rows(rows)


def markdown_rows(rows: Iterable[Sequence[object]]) -> str:
    """The lines of ``rows`` in a markdown table, no header: a section of a table.

    Example:
        >>> print(markdown_rows([[1, "x|y"], [2, ""]]), end="")
        | 1 | x\\|y |
        | 2 |  |
    """
    lines = []
    for row in rows:
        # Cells joined by NUL first: one escape and one join per row, not one per cell.
        cells = "\0".join(map(str, row))
        if "|" in cells:
            cells = cells.replace("|", "\\|")
        lines.append("| " + cells.replace("\0", " | ") + " |\n")
    return "".join(lines)


def percent(used: float, capacity: float) -> str:
    """A share as a whole percentage, ``-`` without a capacity.

    Examples:
        >>> percent(61750, 70000), percent(1, 0)
        ('88%', '-')
    """
    return f"{used / capacity:.0%}" if capacity else "-"
