"""Where a setting comes from: one element of ``intent/``, named by its file and YAML path.

A :class:`Source` names the intent element that produced a port setting, a VLAN, a route or a
config line (``vlans.yaml: vlans.inference``, ``ports.yaml: ports.rack03-leaf-a.Ethernet1/3``,
``servers.csv: rack03-gpu007``). The facts record one per setting (:mod:`compiler.facts.provenance`),
so a review can group the lines of a change by the edit that caused them, and a finding can point
at the line to change: :class:`SourceLines` turns a source into ``file:line`` when, and only when,
a message needs it (finding a line means parsing the file again with line marks).

Examples:
    >>> Source("ports.yaml", ("ports", "rack03-leaf-a", "Ethernet1/3", "shutdown"))
    Source(file='ports.yaml', path=('ports', 'rack03-leaf-a', 'Ethernet1/3', 'shutdown'))
    >>> str(Source("ports.yaml", ("ports", "rack03-leaf-a", "Ethernet1/3")))
    'ports.yaml: ports.rack03-leaf-a.Ethernet1/3'
    >>> str(Source("servers.csv", ("rack03-gpu007",))), str(Source("vlans.yaml", ("vlans", "x", "access", 2)))
    ('servers.csv: rack03-gpu007', 'vlans.yaml: vlans.x.access[2]')
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from core.provenance import PathItem, yaml_path

__all__ = ["PathItem", "Source", "SourceLines", "yaml_path"]


class Source(NamedTuple):
    """One intent element: a file of ``intent/`` and the YAML path inside it (for ``servers.csv``:
    the server's name, then optionally a column)."""

    file: str
    path: tuple[PathItem, ...] = ()

    def __str__(self) -> str:
        return f"{self.file}: {yaml_path(self.path)}" if self.path else self.file

    def child(self, *items: PathItem) -> "Source":
        """The source of an element below this one.

        Example:
            >>> Source("vlans.yaml", ("vlans", "inference")).child("access", 0)
            Source(file='vlans.yaml', path=('vlans', 'inference', 'access', 0))
        """
        return Source(self.file, (*self.path, *items))


class SourceLines:
    """Finds the line of a :class:`Source` in the files of ``intent/`` (parsed on first use).

    Example:
        >>> lines = SourceLines(Path("intent"), {"racks.yaml": b"racks:\\n  - {id: 1}\\n  - {id: 2}\\n"})
        >>> lines.where(Source("racks.yaml", ("racks", 1, "id")))
        'intent/racks.yaml:3: racks[1].id'
        >>> lines.where(Source("servers.csv", ("rack01-gpu001",)))
        'intent/servers.csv: rack01-gpu001'
    """

    def __init__(self, directory: Path, raw: Mapping[str, bytes]) -> None:
        self.directory = directory
        self.raw = raw
        self._trees: dict[str, Any] = {}

    def line(self, source: Source) -> int | None:
        """The 1-based line of the deepest element of ``source.path`` the file holds, or None."""
        data = self.raw.get(source.file)
        if data is None:
            return None
        if source.file.endswith(".csv"):
            return _csv_line(data, source.path[0]) if source.path else None
        if source.file not in self._trees:
            self._trees[source.file] = _line_tree(data)
        return yaml_line_of(self._trees[source.file], source.path)

    def where(self, source: Source) -> str:
        """``intent/<file>:<line>: <yaml path>``, as every intent error starts."""
        line = self.line(source)
        name = _show(self.directory / source.file)
        place = f"{name}:{line}" if line is not None else name
        return f"{place}: {yaml_path(source.path)}" if source.path else place


def _show(path: Path) -> str:
    """A path relative to the working directory when it is below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _line_tree(data: bytes) -> Any:
    """The document with line marks (ruamel's round-trip loader), or None when it does not parse."""
    from ruamel.yaml import YAML  # only on a message's path: importing it costs more than a load

    try:
        return YAML(typ="rt").load(data)
    except Exception:
        return None


def yaml_line_of(tree: Any, path: tuple[PathItem, ...]) -> int | None:
    """The 1-based line of the deepest node of ``path`` in a ruamel ``tree`` (None: not even the first)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    line = None
    node = tree
    for key in path:
        if isinstance(node, CommentedMap) and key in node:
            line = node.lc.key(key)[0] + 1
            node = node[key]
        elif isinstance(node, CommentedSeq) and isinstance(key, int) and key < len(node):
            line = node.lc.item(key)[0] + 1
            node = node[key]
        else:
            break
    return line


def _csv_line(data: bytes, name: PathItem) -> int | None:
    """The line of the row of ``servers.csv`` whose first column is ``name``."""
    reader = csv.reader(io.StringIO(data.decode(errors="replace")))
    for row in reader:
        if row and row[0].strip() == name:
            return reader.line_num
    return None
