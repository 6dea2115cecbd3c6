"""The search index: what a person types (a server, an address, an asset tag, a switch port, a
cable label) and the page it leads to.

The index is two lists, so a key never repeats a page's title and detail: *targets*
``[url, title, detail]`` and *keys* ``[text, target]``. The browser loads it only when the
search box is first used (``assets/search-index.js``), so pages open at once at any size.

Example:
    >>> index = SearchIndex()
    >>> index.add("servers/a.html", "a", "server", ["a", "GPU-1", "10.0.0.1"])
    >>> index.add("servers/a.html", "a", "server", ["a"])  # the same target once
    >>> index.as_data()
    {'targets': [['servers/a.html', 'a', 'server']], 'keys': [['10.0.0.1', 0], ['GPU-1', 0], ['a', 0]]}
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from view.model import Floor, Server, Switch


class SearchIndex:
    """Targets and the keys that find them."""

    def __init__(self) -> None:
        self._targets: dict[tuple[str, str, str], int] = {}
        self._keys: set[tuple[str, int]] = set()

    def add(self, url: str, title: str, detail: str, keys: Iterable[str]) -> None:
        target = self._targets.setdefault((url, title, detail), len(self._targets))
        self._keys.update((key, target) for key in keys if key)

    def as_data(self) -> dict[str, Any]:
        return {"targets": [list(t) for t in self._targets], "keys": [list(k) for k in sorted(self._keys)]}


def _bare(address: str) -> str:
    return address.split("/", 1)[0]


def _server(index: SearchIndex, server: Server) -> None:
    where = server.placed
    url = f"servers/{server.name}.html"
    cabled: dict[str, list[str]] = {}
    for nic in server.nics:
        if nic.cable.network != "management":
            cabled.setdefault(nic.cable.network, []).append(f"{nic.cable.peer} {nic.cable.peer_port}")
    ports = "; ".join(f"{network}: {', '.join(sorted(ends))}" for network, ends in sorted(cabled.items()))
    units = f" U{where.top_u - where.height_u + 1}-{where.top_u}" if where.height_u else ""
    detail = f"server {where.asset_tag} · rack {where.rack}{units} · {ports}"
    index.add(url, server.name, detail, [server.name, where.asset_tag, *(_bare(a.address) for a in server.addresses)])
    for nic in server.nics:
        end = nic.cable
        index.add(
            f"{url}#nic-{nic.name}",
            f"{server.name} {nic.name}",
            f"cable {end.label} · {end.optic} · {end.length_m} m",
            [f"{server.name} {nic.name}", end.label],
        )


def _switch(index: SearchIndex, switch: Switch) -> None:
    where = switch.placed
    url = f"switches/{switch.name}.html"
    detail = f"switch {where.asset_tag} · {switch.network} {switch.role} · rack {where.rack} U{where.top_u}"
    detail += f" · {switch.mgmt_address}"
    keys = [switch.name, where.asset_tag, switch.mgmt_address, *(_bare(a.address) for a in switch.addresses)]
    index.add(url, switch.name, detail, keys)
    for port in switch.ports:
        end = port.cable
        if end is None and not port.description:
            continue
        far = f"to {end.peer} {end.peer_port} · {end.speed}" if end else port.description
        vlans = f" · VLAN {port.vlans}" if port.vlans else ""
        index.add(
            f"{url}#port-{port.name}",
            f"{switch.name} {port.name}",
            f"port {far}{vlans}",
            [f"{switch.name} {port.name}", end.label if end else ""],
        )


def search_index(floor: Floor) -> dict[str, Any]:
    """The index of a whole floor: every server, NIC, switch and described or cabled port."""
    index = SearchIndex()
    for server in floor.servers.values():
        _server(index, server)
    for switch in floor.switches.values():
        _switch(index, switch)
    return index.as_data()
