"""``generated/provenance/<device>.json``: the intent element behind each setting of a switch.

Part of the ``generated/`` contract, written by the compiler and read by ``fabricops diff`` at
two refs without compiling either. An element is a file of ``intent/`` and a YAML path in it
(:class:`Origin`, ``ports.yaml: ports.rack03-leaf-a.Ethernet1/3.shutdown``); in the file it is a
JSON list, the file then the path, unambiguous whatever a key holds (a dot, a slash). Per
interface, the field ``""`` (:data:`ORIGIN`) is why it is used at all (the server row, the
fabric's uplink list); a field without its own source falls back to it. One line per interface
keeps a one-port change a one-line diff of the file too.

Example:
    >>> ports = {"Ethernet1": {"": Origin("servers.csv", ("gpu1",))}}
    >>> text = provenance_document("leaf1", ports, {100: Origin("fabric.yaml", ("vlans", "c"))}, {})
    >>> print(text, end="")
    {"device": "leaf1",
     "interfaces": {
      "Ethernet1": {"": ["servers.csv", "gpu1"]}
     },
     "vlans": {
      "100": ["fabric.yaml", "vlans", "c"]
     },
     "settings": {}}
    >>> found = read_provenance(text)
    >>> str(found.field("Ethernet1", "description")), found.vlans[100]
    ('servers.csv: gpu1', Origin(file='fabric.yaml', path=('vlans', 'c')))
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

__all__ = ["ORIGIN", "DeviceProvenance", "Origin", "provenance_document", "read_provenance", "yaml_path"]

ORIGIN = ""
"""The field key of what an interface is there for."""

PathItem = str | int


class Origin(NamedTuple):
    """One intent element: a file of ``intent/`` and the YAML path inside it."""

    file: str
    path: tuple[PathItem, ...] = ()

    def __str__(self) -> str:
        return f"{self.file}: {yaml_path(self.path)}" if self.path else self.file


class _Element(Protocol):
    """Anything with a file and a path (the compiler's ``Source``, an :class:`Origin`)."""

    @property
    def file(self) -> str: ...

    @property
    def path(self) -> tuple[PathItem, ...]: ...


def yaml_path(path: tuple[PathItem, ...]) -> str:
    """A path as a YAML path: keys joined with dots, list indexes in brackets.

    Example:
        >>> yaml_path(("fabrics", "compute", "leaves", "uplink_ports", 1))
        'fabrics.compute.leaves.uplink_ports[1]'
    """
    out = ""
    for item in path:
        if isinstance(item, int):
            out += f"[{item}]"
        else:
            out += f".{item}" if out else str(item)
    return out


@dataclass(frozen=True)
class DeviceProvenance:
    """One device's provenance as read back from its file."""

    device: str
    interfaces: Mapping[str, Mapping[str, Origin]] = field(default_factory=dict)
    vlans: Mapping[int, Origin] = field(default_factory=dict)
    settings: Mapping[str, tuple[Origin, ...]] = field(default_factory=dict)

    def of_interface(self, name: str) -> Mapping[str, Origin]:
        return self.interfaces.get(name, {})

    def field(self, name: str, item: str) -> Origin | None:
        """The element that set ``item`` of an interface, else the one it serves."""
        found = self.of_interface(name)
        return found.get(item) or found.get(ORIGIN)


def _listed(element: _Element) -> list[Any]:
    return [element.file, *element.path]


def _line(key: str, value: Any) -> str:
    return f"  {json.dumps(key)}: {json.dumps(value, sort_keys=True, ensure_ascii=False)}"


def _block(name: str, entries: list[str]) -> str:
    if not entries:
        return f' "{name}": {{}}'
    return f' "{name}": {{\n' + ",\n".join(entries) + "\n }"


def provenance_document(
    device: str,
    interfaces: Mapping[str, Mapping[str, _Element]],
    vlans: Mapping[int, _Element],
    settings: Mapping[str, Sequence[_Element]],
) -> str:
    """One device's provenance as JSON text, keys sorted, one line per entry."""
    blocks = [
        _block(
            "interfaces",
            [_line(n, {f: _listed(s) for f, s in interfaces[n].items()}) for n in sorted(interfaces)],
        ),
        _block("vlans", [_line(str(v), _listed(vlans[v])) for v in sorted(vlans)]),
        _block("settings", [_line(k, [_listed(s) for s in settings[k]]) for k in sorted(settings)]),
    ]
    return f'{{"device": {json.dumps(device)},\n' + ",\n".join(blocks) + "}\n"


def _origin(item: list[Any]) -> Origin:
    return Origin(str(item[0]), tuple(item[1:]))


def read_provenance(text: str) -> DeviceProvenance:
    """A device's provenance file back."""
    data = json.loads(text)
    return DeviceProvenance(
        str(data["device"]),
        {name: {f: _origin(s) for f, s in fields.items()} for name, fields in data["interfaces"].items()},
        {int(vid): _origin(s) for vid, s in data["vlans"].items()},
        {key: tuple(_origin(s) for s in items) for key, items in data["settings"].items()},
    )
