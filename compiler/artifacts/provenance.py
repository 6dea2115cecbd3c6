"""``generated/provenance/<device>.json``: which intent element set each setting of a switch.

The facts know, per interface field, VLAN and device-wide section, the element of ``intent/``
behind it (:mod:`compiler.facts.provenance`). ``fabricops diff`` compares ``generated/`` at two
refs without compiling either, so the compile writes that knowledge beside each config: the
review reads it at both refs and groups a change's config lines by the intent edit that caused
them. One line per interface keeps a one-port change a one-line diff of this file too.

A source is written as a JSON list, the file then its YAML path (``["ports.yaml", "ports",
"rack03-leaf-a", "Ethernet1/3", "shutdown"]``): unambiguous whatever a key holds (a dot, a
slash). The field ``""`` of an interface is why it is used at all (the server row, the fabric's
uplink list); a field without its own source falls back to it.

Example:
    >>> from compiler.facts.provenance import Provenance
    >>> from compiler.sources import Source
    >>> found = Provenance({"leaf1": {"Ethernet1": {"": Source("servers.csv", ("gpu1",))}}},
    ...                    {"leaf1": {100: Source("fabric.yaml", ("vlans", "compute"))}}, {})
    >>> print(provenance_document("leaf1", found), end="")
    {"device": "leaf1",
     "interfaces": {
      "Ethernet1": {"": ["servers.csv", "gpu1"]}
     },
     "vlans": {
      "100": ["fabric.yaml", "vlans", "compute"]
     },
     "settings": {}}
    >>> read_provenance(provenance_document("leaf1", found)).origin("leaf1", "Ethernet1")
    Source(file='servers.csv', path=('gpu1',))
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from compiler.facts.provenance import Provenance
from compiler.sources import Source
from core.generated import provenance_path

__all__ = ["provenance_document", "provenance_files", "read_provenance"]


def _source(source: Source) -> list[Any]:
    return [source.file, *source.path]


def _line(key: str, value: Any) -> str:
    return f"  {json.dumps(key)}: {json.dumps(value, sort_keys=True, ensure_ascii=False)}"


def _block(name: str, entries: list[str]) -> str:
    if not entries:
        return f' "{name}": {{}}'
    return f' "{name}": {{\n' + ",\n".join(entries) + "\n }"


def provenance_document(device: str, provenance: Provenance) -> str:
    """The provenance of one device as JSON text, keys sorted, one line per entry."""
    interfaces = provenance.interfaces.get(device, {})
    vlans = provenance.vlans.get(device, {})
    settings = provenance.settings.get(device, {})
    blocks = [
        _block("interfaces", [_line(n, {f: _source(s) for f, s in interfaces[n].items()}) for n in sorted(interfaces)]),
        _block("vlans", [_line(str(v), _source(vlans[v])) for v in sorted(vlans)]),
        _block("settings", [_line(k, [_source(s) for s in settings[k]]) for k in sorted(settings)]),
    ]
    return f'{{"device": {json.dumps(device)},\n' + ",\n".join(blocks) + "}\n"


def provenance_files(devices: Mapping[str, object], provenance: Provenance) -> dict[str, str]:
    """One file per device of the fabric (an empty one when nothing of it has a source)."""
    return {provenance_path(name): provenance_document(name, provenance) for name in devices}


def _to_source(item: list[Any]) -> Source:
    return Source(str(item[0]), tuple(item[1:]))


def read_provenance(text: str) -> Provenance:
    """A device's provenance file back as :class:`Provenance` (of that one device)."""
    data = json.loads(text)
    device = str(data["device"])
    interfaces = {
        name: {field: _to_source(src) for field, src in fields.items()} for name, fields in data["interfaces"].items()
    }
    vlans = {int(vid): _to_source(src) for vid, src in data["vlans"].items()}
    settings = {k: tuple(_to_source(s) for s in v) for k, v in data["settings"].items()}
    return Provenance({device: interfaces}, {device: vlans}, {device: settings})
