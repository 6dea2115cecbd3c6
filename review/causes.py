"""A change's config lines grouped by the intent edit that caused them, with the risk of each.

The compile writes, per device, the intent element behind every interface field, VLAN and
device-wide section (``generated/provenance/<device>.json``). Read at both refs, it tells for
each changed section of a structured config which element made it: a field's own source
(``ports.yaml: ports.rack03-leaf-a.Ethernet1/3.shutdown``) before the element the interface
serves (``servers.csv: rack03-gpu007``), the head's before the base's (a removed setting is
explained by the base). Sources are grouped by their element — a VLAN of ``vlans.yaml``, a port
of ``ports.yaml``, a switch of ``devices.yaml``, a server row — and each group is titled the way
a reviewer says it ("VLAN 300 inference added on rack05-leaf-a/b Ethernet3-6"), from the intent
files at both refs: a server row renamed with its asset tag is a move, ``status:
decommissioned`` a decommission, a ``shutdown`` its reason.

A line no element explains (the OSPF network beside a new VLAN's SVI) follows the one element
that changed the same device when the design files did not change; else it is grouped under
the design values that changed (``fabric.yaml: fabrics.compute.pair_vlans.3 added [tenant-a]``).

Example:
    >>> compact_ports(["Ethernet3", "Ethernet4", "Ethernet5", "Ethernet6", "Ethernet9"])
    'Ethernet3-6, 9'
    >>> compact_ports(["Ethernet1/1", "Ethernet1/3", "Ethernet2/1"])
    'Ethernet1/1, 1/3, 2/1'
    >>> pair_names(["rack05-leaf-a", "rack05-leaf-b", "spine01"])
    ['rack05-leaf-a/b', 'spine01']
"""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from core.generated import Snapshot, provenance_path
from core.provenance import ORIGIN, DeviceProvenance, read_provenance, yaml_path
from core.provenance import Origin as Source

__all__ = ["Cause", "Touch", "causes", "compact_ports", "pair_names"]

#: Structured sections (and interface fields) of the lossless-RoCE policy.
QOS_FIELDS = frozenset({"qos", "service_profile", "qos_trust_dscp", "ecn_count_queue", "priority_flow_control"})
ROUTING_SECTIONS = frozenset({"router_bgp", "router_ospf", "router_bfd", "static_routes", "prefix_lists", "route_maps"})
ACCESS_SECTIONS = frozenset({"access_lists", "management_api", "management_ssh", "management_gnmi", "aaa", "users"})
#: The design keys behind a port that carries a fabric's or a rack's traffic up.
UPLINK_KEYS = frozenset({"uplink_ports", "spines", "uplinks", "switch_uplink_port", "upstream_port", "downlinks"})
SPINE_ROLES = frozenset({"spine", "super-spine"})


@dataclass(frozen=True)
class Touch:
    """One changed item of one device's structured config (``interfaces/Ethernet1/3``), as far as
    one cause changed it: only that cause's fields."""

    device: str
    path: str
    status: str
    details: tuple[str, ...] = ()

    def __str__(self) -> str:
        detail = f": {'; '.join(self.details)}" if self.details else ""
        return f"{self.device} {self.status} {self.path}{detail}"


@dataclass
class Cause:
    """One intent edit and the config it changes."""

    element: str
    """The intent element, ``vlans.yaml: vlans.inference`` (empty: not traced)."""
    kind: str
    """``vlan``, ``port``, ``device``, ``server``, ``design``, ``switch`` or ``other``."""
    status: str
    title: str = ""
    devices: list[str] = field(default_factory=list)
    ports: list[str] = field(default_factory=list)
    """``device interface`` of every physical or channel port it touches."""
    servers: list[str] = field(default_factory=list)
    risks: list[str] = field(default_factory=list)
    touches: list[Touch] = field(default_factory=list)


# ------------------------------------------------------------------------ reading both refs


def _provenance(snapshot: Snapshot, devices: Iterable[str]) -> dict[str, DeviceProvenance]:
    found = {}
    for device in devices:
        path = provenance_path(device)
        if snapshot.exists(path):
            found[device] = read_provenance(snapshot.read_text(path))
    return found


def _yaml_section(snapshot: Snapshot, name: str, key: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(snapshot.intent.get(name, b"").decode("utf-8-sig")) or {}
    except (yaml.YAMLError, UnicodeDecodeError):
        return {}
    section = data.get(key) if isinstance(data, dict) else None
    return section if isinstance(section, dict) else {}


def _servers(snapshot: Snapshot) -> dict[str, dict[str, str]]:
    try:
        text = snapshot.intent.get("servers.csv", b"").decode("utf-8-sig")
    except UnicodeDecodeError:
        return {}
    rows = csv.DictReader(io.StringIO(text))
    return {(r.get("name") or "").strip(): {k: (v or "").strip() for k, v in r.items() if k} for r in rows}


@dataclass
class _Side:
    """What one ref says: provenance of the changed devices, structured docs, intent files."""

    provenance: dict[str, DeviceProvenance]
    data: Mapping[str, dict[str, Any]]
    servers: dict[str, dict[str, str]]
    vlans: dict[str, Any]
    ports: dict[str, Any]
    devices: dict[str, Any]
    #: What changed in the design files between the refs (names a change no element explains).
    edited: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, snapshot: Snapshot, data: Mapping[str, dict[str, Any]], devices: Iterable[str]) -> _Side:
        return cls(
            _provenance(snapshot, devices),
            data,
            _servers(snapshot),
            _yaml_section(snapshot, "vlans.yaml", "vlans"),
            _yaml_section(snapshot, "ports.yaml", "ports"),
            _yaml_section(snapshot, "devices.yaml", "devices"),
        )

    def interface(self, device: str, name: str) -> Mapping[str, Source]:
        found = self.provenance.get(device)
        return found.of_interface(name) if found else {}

    def vlan(self, device: str, vid: int) -> Source | None:
        found = self.provenance.get(device)
        return found.vlans.get(vid) if found else None

    def setting(self, device: str, section: str) -> Source | None:
        found = self.provenance.get(device)
        sources = found.settings.get(section, ()) if found else ()
        return sources[0] if sources else None

    def role(self, device: str) -> str:
        return str(self.data.get(device, {}).get("role", ""))

    def peer_link(self, device: str) -> str:
        mlag = self.data.get(device, {}).get("config", {}).get("mlag") or {}
        return str(mlag.get("peer_link", "")) if isinstance(mlag, dict) else ""


# ------------------------------------------------------------------------ attribution


def element(source: Source) -> Source:
    """The intent element a source belongs to: a VLAN, a port, a switch's section, a server row.

    Example:
        >>> str(element(Source("ports.yaml", ("ports", "leaf1", "Ethernet3", "shutdown"))))
        'ports.yaml: ports.leaf1.Ethernet3'
        >>> str(element(Source("servers.csv", ("gpu7", "status"))))
        'servers.csv: gpu7'
    """
    depth = {"vlans.yaml": 2, "ports.yaml": 3, "devices.yaml": 3, "servers.csv": 1}.get(source.file)
    return Source(source.file, source.path[:depth]) if depth else source


def _field_source(before: _Side, after: _Side, device: str, name: str, item: str) -> Source | None:
    """A field's own source (head, then base), else the element the interface serves."""
    new, old = after.interface(device, name), before.interface(device, name)
    return next((s for s in (new.get(item), old.get(item), new.get(ORIGIN), old.get(ORIGIN)) if s is not None), None)


def _field(detail: str) -> str:
    """The interface field a section-change detail is about (``description: a -> b``)."""
    return detail.split(":", 1)[0].split(".", 1)[0]


def _attribute(change: Any, device: str, before: _Side, after: _Side) -> list[tuple[Source | None, Touch]]:
    """A section change split by the sources of its fields."""
    section, item = change.section, change.item
    if section == "interfaces" and item:
        if not change.details:
            source = _field_source(before, after, device, item, ORIGIN)
            return [(source, Touch(device, change.path, change.status))]
        by_source: dict[Source | None, list[str]] = defaultdict(list)
        for detail in change.details:
            by_source[_field_source(before, after, device, item, _field(detail))].append(detail)
        return [(s, Touch(device, change.path, change.status, tuple(d))) for s, d in by_source.items()]
    if section == "vlans" and item.isdigit():
        source = after.vlan(device, int(item)) or before.vlan(device, int(item))
    elif section in ("static_routes", "ntp_servers", "logging_hosts"):
        source = after.setting(device, section) or before.setting(device, section)
    else:
        source = None
    return [(source, Touch(device, change.path, change.status, change.details))]


def causes(
    devices: list[Any],
    base: Snapshot,
    head: Snapshot,
    old_data: Mapping[str, dict[str, Any]],
    new_data: Mapping[str, dict[str, Any]],
) -> list[Cause]:
    """The changed devices' section changes grouped by the intent element behind each (``devices``:
    :class:`review.diff.DeviceChange`), titled, with their blast radius and risks."""
    names = [d.device for d in devices]
    before, after = _Side.read(base, old_data, names), _Side.read(head, new_data, names)
    before.edited = after.edited = design_edits(base.intent, head.intent)
    groups: dict[Source | None, list[Touch]] = defaultdict(list)
    switches: dict[str, list[Touch]] = defaultdict(list)
    for device in devices:
        if device.status != "changed":
            switches[device.status].append(Touch(device.device, "", device.status))
            continue
        untraced: list[Touch] = []
        traced: set[Source] = set()
        for change in device.sections:
            for source, touch in _attribute(change, device.device, before, after):
                if source is None:
                    untraced.append(touch)
                else:
                    traced.add(element(source))
                    groups[element(source)].append(touch)
        # A line no element explains follows the one element that changed this device, unless
        # the design changed too (then the design explains it).
        target = next(iter(traced)) if len(traced) == 1 and not before.edited else None
        groups[target].extend(untraced)
    found = [_cause(source, touches, before, after) for source, touches in groups.items() if touches]
    found += [_switches(status, touches, before, after) for status, touches in sorted(switches.items())]
    return sorted(_merge_moves(found, before, after), key=_order)


_KIND_ORDER = {"switch": 0, "design": 1, "vlan": 2, "device": 3, "port": 4, "server": 5, "other": 6}


def _order(cause: Cause) -> tuple[int, str, str]:
    return (_KIND_ORDER.get(cause.kind, 9), cause.title, cause.element)


def _kind(source: Source | None) -> str:
    if source is None:
        return "other"
    return {"vlans.yaml": "vlan", "ports.yaml": "port", "devices.yaml": "device", "servers.csv": "server"}.get(
        source.file, "design"
    )


def _interface(touch: Touch) -> str | None:
    if touch.path.startswith("interfaces/"):
        name = touch.path.removeprefix("interfaces/")
        return name if name.startswith(("Ethernet", "Port-Channel")) else None
    return None


def _cause(source: Source | None, touches: list[Touch], before: _Side, after: _Side) -> Cause:
    cause = Cause(str(source) if source else "", _kind(source), "changed", touches=touches)
    _radius(cause, before, after)
    cause.status, cause.title = _title(source, cause, before, after)
    return cause


def _switches(status: str, touches: list[Touch], before: _Side, after: _Side) -> Cause:
    cause = Cause("", "switch", status, touches=touches)
    _radius(cause, before, after)
    shown = ", ".join(pair_names(cause.devices)[:6]) + (" ..." if len(cause.devices) > 12 else "")
    cause.title = f"{_count(len(cause.devices), 'switch')} {status}: {shown}"
    return cause


def _radius(cause: Cause, before: _Side, after: _Side) -> None:
    """Devices, ports and servers a cause touches, and what makes it risky."""
    devices = sorted({t.device for t in cause.touches})
    ports: set[str] = set()
    servers: set[str] = set()
    risks: list[str] = []
    for touch in cause.touches:
        risks += _line_risks(cause, touch)
        name = _interface(touch)
        if name is None:
            continue
        ports.add(f"{touch.device} {name}")
        for side in (after, before):
            origin = side.interface(touch.device, name).get(ORIGIN)
            if origin is not None and origin.file == "servers.csv":
                servers.add(str(origin.path[0]))
            elif origin is not None and origin.path and origin.path[-1] in UPLINK_KEYS:
                risks.append("uplink")
            elif (origin is not None and origin.path[-1:] == ("peer_link_ports",)) or name == side.peer_link(
                touch.device
            ):
                risks.append("MLAG peer-link")
    if {after.role(d) or before.role(d) for d in devices} & SPINE_ROLES:
        risks.insert(0, "spine")
    if cause.kind == "switch" and cause.status == "removed":
        risks.append("switch removed")
    cause.devices, cause.ports, cause.servers = devices, sorted(ports), sorted(servers)
    cause.risks = list(dict.fromkeys(risks))


_SHUT = ("shutdown: added", "shutdown: False -> True")


def _line_risks(cause: Cause, touch: Touch) -> list[str]:
    """What makes one changed item risky, whatever port it is on."""
    sections = {touch.path.split("/", 1)[0]} | {_field(d) for d in touch.details}
    risks = []
    # A port that starts or stops serving gains or loses its QoS lines: no policy change.
    if "qos" in sections or any(_field(d) in QOS_FIELDS and " -> " in d for d in touch.details):
        risks.append("QoS/PFC policy")
    # A new network advertised beside a new subnet is expected; anything removed or changed is not.
    if sections & ROUTING_SECTIONS and touch.status != "added" and not _only_additions(touch):
        risks.append("routing")
    if sections & ACCESS_SECTIONS:
        risks.append("management access")
    if "mlag" in sections:
        risks.append("MLAG peer-link")
    # A server's moved or retired ports are shut by design; any other shut stops traffic.
    if cause.kind != "server" and any(d.startswith(_SHUT) for d in touch.details):
        risks.append("port shut")
    return risks


def _only_additions(touch: Touch) -> bool:
    return bool(touch.details) and all(": added " in detail for detail in touch.details)


# ------------------------------------------------------------------------ titles


def _title(source: Source | None, cause: Cause, before: _Side, after: _Side) -> tuple[str, str]:
    """The status of a cause's element between the refs, and its title."""
    where = _where(cause)
    if source is None:
        shown = "; ".join(before.edited[:3]) + (" ..." if len(before.edited) > 3 else "")
        return "changed", f"design: {shown or 'no intent file edited'}, on {where}"
    path = source.path
    if source.file == "vlans.yaml" and len(path) == 2:
        key = str(path[1])
        status = _status(key in before.vlans, key in after.vlans)
        entry = after.vlans.get(key) or before.vlans.get(key) or {}
        vid = entry.get("id", "?") if isinstance(entry, dict) else "?"
        return status, f"VLAN {vid} {key} {status} on {where}"
    if source.file == "ports.yaml" and len(path) == 3:
        device, port = str(path[1]), str(path[2])
        old = (before.ports.get(device) or {}).get(port)
        new = (after.ports.get(device) or {}).get(port)
        status, what = _port_edit(old, new)
        return status, f"port {device} {port} {what}"
    if source.file == "devices.yaml" and len(path) == 3:
        device, key = str(path[1]), str(path[2])
        old = (before.devices.get(device) or {}).get(key)
        new = (after.devices.get(device) or {}).get(key)
        status = _status(old is not None, new is not None)
        return status, f"{device} {key} {status}: {_value(old)} -> {_value(new)}"
    if source.file == "servers.csv" and path:
        return _server_title(str(path[0]), cause, before, after)
    return "changed", f"design {source} changed, on {where}"


def _status(was: bool, now: bool) -> str:
    return "changed" if was and now else "added" if now else "removed"


def _value(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _port_edit(old: Any, new: Any) -> tuple[str, str]:
    """What a ``ports.yaml`` entry's edit does, as a reviewer says it.

    Example:
        >>> _port_edit(None, {"shutdown": "NIC failed, RMA 4411"})
        ('shut', 'shut: NIC failed, RMA 4411')
        >>> _port_edit({"shutdown": "x"}, None)
        ('removed', 'no longer shut (settings removed: back to the design)')
        >>> _port_edit({"speed": "10g"}, {"speed": "25g", "fec": "reed-solomon"})
        ('changed', 'fec reed-solomon, speed 10g -> 25g')
    """
    old = old if isinstance(old, dict) else {}
    new = new if isinstance(new, dict) else {}
    if new.get("shutdown") and new.get("shutdown") != old.get("shutdown"):
        return "shut", f"shut: {new['shutdown']}"
    parts = []
    if old.get("shutdown") and not new.get("shutdown"):
        parts.append("no longer shut")
    for key in sorted((set(old) | set(new)) - {"shutdown"}):
        if old.get(key) != new.get(key):
            was = f"{_value(old[key])} -> " if key in old else ""
            parts.append(f"{key} {was}{_value(new.get(key))}" if key in new else f"{key} {_value(old[key])} removed")
    if not new and old:
        return "removed", ("no longer shut " if old.get("shutdown") else "") + "(settings removed: back to the design)"
    return ("added" if not old else "changed"), ", ".join(parts) or "changed"


def _server_title(name: str, cause: Cause, before: _Side, after: _Side) -> tuple[str, str]:
    old, new = before.servers.get(name), after.servers.get(name)
    where = _where(cause)
    if old is None:
        return "added", f"server {name} added on {where}"
    if new is None:
        return "removed", f"server {name} removed from {where}"
    if new.get("status") == "decommissioned" and old.get("status") != "decommissioned":
        return "decommissioned", f"server {name} decommissioned: {where} shut"
    if old.get("compute_port") != new.get("compute_port"):
        was, now = old.get("compute_port") or "by position", new.get("compute_port") or "by position"
        return "moved", f"server {name} re-cabled (compute_port {was} -> {now}): {where}"
    return "changed", f"server {name} changed on {where}"


def _merge_moves(found: list[Cause], before: _Side, after: _Side) -> list[Cause]:
    """A server row renamed with its asset tag is one move: "X moved: old ports -> new ports"."""
    by_element = {c.element: c for c in found if c.kind == "server"}
    tags_before = {row.get("asset_tag"): name for name, row in before.servers.items() if row.get("asset_tag")}
    out = []
    merged: set[str] = set()
    for cause in found:
        if cause.kind != "server" or cause.status != "added":
            out.append(cause)
            continue
        name = cause.element.split(": ", 1)[1]
        old_name = tags_before.get(after.servers.get(name, {}).get("asset_tag"))
        old = by_element.get(f"servers.csv: {old_name}") if old_name and old_name not in after.servers else None
        if old is None:
            out.append(cause)
            continue
        merged.add(old.element)
        move = Cause(
            cause.element,
            "server",
            "moved",
            touches=[*old.touches, *cause.touches],
        )
        _radius(move, before, after)
        move.title = f"{old_name} moved to {name}: {_where(old)} -> {_where(cause)}"
        out.append(move)
    return [c for c in out if c.element not in merged or c.status == "moved"]


#: Intent files whose elements the provenance names (an edit of them is titled by its element).
_ELEMENT_FILES = frozenset({"vlans.yaml", "ports.yaml", "devices.yaml", "servers.csv"})


def design_edits(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[str]:
    """Each value that differs between two versions of the design files, as ``file: path: a -> b``.

    Example:
        >>> design_edits({"fabric.yaml": b"mtu: {host: 9000}"}, {"fabric.yaml": b"mtu: {host: 1500}"})
        ['fabric.yaml: mtu.host 9000 -> 1500']
        >>> design_edits({"racks.yaml": b"racks: [{id: 1}]"}, {"racks.yaml": b"racks: [{id: 1}, {id: 2}]"})
        ['racks.yaml: racks[1] added {id: 2}']
    """
    from deepdiff import DeepDiff

    out = []
    for name in sorted((set(before) | set(after)) - _ELEMENT_FILES):
        if before.get(name) == after.get(name):
            continue
        try:
            old, new = (yaml.safe_load((side.get(name) or b"").decode("utf-8-sig")) for side in (before, after))
        except (yaml.YAMLError, UnicodeDecodeError):
            out.append(f"{name} edited")
            continue
        diff = DeepDiff(old, new, view="tree", threshold_to_diff_deeper=0)
        for items in diff.values():
            for item in items:
                path = yaml_path(tuple(item.path(output_format="list")))
                was, now = (None if type(v).__name__ == "NotPresent" else v for v in (item.t1, item.t2))
                change = f"{_value(was)} -> {_value(now)}" if was is not None and now is not None else None
                out.append(f"{name}: {path} {change or ('added ' + _value(now) if was is None else 'removed')}")
    return sorted(out)


# ------------------------------------------------------------------------ naming places


def pair_names(devices: Iterable[str]) -> list[str]:
    """Device names with MLAG pairs (``-a``/``-b``) written once, ``rack05-leaf-a/b``."""
    names = sorted(set(devices))
    out = []
    for name in names:
        if name.endswith("-b") and name[:-1] + "a" in names:
            continue
        out.append(f"{name}/b" if name.endswith("-a") and name[:-1] + "b" in names else name)
    return out


_NUMBERED = re.compile(r"^(?P<stem>[A-Za-z-]+)(?P<head>(?:\d+/)*)(?P<last>\d+)$")


def compact_ports(names: Iterable[str], limit: int = 6) -> str:
    """Interface names with their common stem once and runs collapsed (``Ethernet3-6, 9``); past
    ``limit`` runs, the count and the first and last (``9 ports Ethernet1/1 .. 3/1``)."""
    parsed = []
    rest = []
    for name in names:
        match = _NUMBERED.match(name)
        if match:
            parsed.append((match["stem"], match["head"], int(match["last"])))
        else:
            rest.append(name)
    parsed.sort()
    parts: list[str] = []
    stem_seen: set[str] = set()
    i = 0
    while i < len(parsed):
        stem, head, first = parsed[i]
        last = first
        while i + 1 < len(parsed) and parsed[i + 1][:2] == (stem, head) and parsed[i + 1][2] == last + 1:
            i += 1
            last = parsed[i][2]
        label = f"{head}{first}" + (f"-{last}" if last != first else "")
        parts.append(label if stem in stem_seen else f"{stem}{label}")
        stem_seen.add(stem)
        i += 1
    parts += sorted(rest)
    if len(parts) <= limit:
        return ", ".join(parts)
    return f"{len(parsed) + len(rest)} ports {parts[0]} .. {parts[-1]}"


def _where(cause: Cause) -> str:
    """The ports of a cause by device (a pair written once when both carry the same ports)."""
    by_device: dict[str, list[str]] = defaultdict(list)
    for port in cause.ports:
        device, name = port.split(" ", 1)
        by_device[device].append(name)
    devices = [d for d in cause.devices if d not in by_device]
    by_ports: dict[str, list[str]] = defaultdict(list)
    for device, names in by_device.items():
        by_ports[compact_ports(names)].append(device)
    parts = [f"{_names(ds)} {p}" for p, ds in sorted(by_ports.items(), key=lambda i: sorted(i[1]))]
    if devices:
        parts.append(_names(devices))
    return "; ".join(parts) if len(parts) <= 4 else f"{'; '.join(parts[:4])} (+{len(parts) - 4} more)"


def _names(devices: Iterable[str], limit: int = 4) -> str:
    """Devices by name, pairs once, the first few when there are many.

    Example:
        >>> _names([f"rack{r:02d}-leaf-{s}" for r in range(1, 13) for s in "ab"])
        '24 switches: rack01-leaf-a/b, rack02-leaf-a/b, rack03-leaf-a/b, rack04-leaf-a/b, ...'
    """
    names, count = pair_names(devices), len(set(devices))
    if len(names) <= limit:
        return ", ".join(names)
    return f"{_count(count, 'switch')}: {', '.join(names[:limit])}, ..."


def _count(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}es" if noun.endswith("ch") else f"{count} {noun}s"
