"""What a change does to ``generated/``, explained for a reviewer.

The comparison is made on the structured configs (``generated/structured/<device>.yaml``),
keyed by what a network engineer names things by — VLANs by id, interfaces by name, BGP
neighbors by address — so a review says "VLAN 210 added on 2 leaves" rather than "lines
81-84 changed". deepdiff does the data comparison; the config text diff is kept too, folded
per device, for the reviewer who wants every line.

Example:
    >>> keyed({"vlans": [{"id": 100, "name": "A"}], "interfaces": [{"name": "Ethernet1"}]})
    {'vlans': {'100': {'id': 100, 'name': 'A'}}, 'interfaces': {'Ethernet1': {'name': 'Ethernet1'}}}
"""

from __future__ import annotations

import csv
import difflib
import io
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Literal

from deepdiff import DeepDiff

from core.generated import Snapshot
from review.causes import Cause, causes

# List sections and the field that names their items.
LIST_KEYS = {
    "vlans": "id",
    "interfaces": "name",
    "neighbors": "address",
    "peer_groups": "name",
    "prefix_lists": "name",
    "static_routes": "prefix",
    "users": "name",
    "ntp_servers": "address",
    "name_servers": "address",
    "logging_hosts": "address",
}
ChangeStatus = Literal["added", "removed", "changed"]


@dataclass(frozen=True)
class SectionChange:
    """One named thing on one device that appears, disappears or changes."""

    section: str
    item: str
    status: ChangeStatus
    details: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        return f"{self.section}/{self.item}" if self.item else self.section


@dataclass
class DeviceChange:
    """Everything that changes on one device."""

    device: str
    status: ChangeStatus
    role: str
    network: str
    redundancy_group: str
    sections: list[SectionChange] = field(default_factory=list)
    unified_diff: str = ""
    lines_added: int = 0
    lines_removed: int = 0


@dataclass
class ArtifactChange:
    """Rows added and removed in one table of ``generated/`` (cabling, IP plan, ...)."""

    path: str
    added: list[str]
    removed: list[str]


@dataclass
class BlastRadius:
    devices: int
    redundancy_groups: list[str]
    both_members: list[str]
    spines: list[str]
    ports: int = 0
    servers: list[str] = field(default_factory=list)
    #: What makes the change risky, over every cause: ``spine``, ``QoS/PFC policy``,
    #: ``MLAG peer-link``, ``uplink``, ``routing``, ``management access``, ``port shut``, ...
    risks: list[str] = field(default_factory=list)


@dataclass
class Review:
    base: str
    head: str
    summary: str
    devices: list[DeviceChange]
    blast: BlastRadius
    artifacts: list[ArtifactChange]
    #: The config changes grouped by the intent edit that caused them.
    causes: list[Cause] = field(default_factory=list)
    #: How the base was chosen, e.g. ``the merge-base of main and HEAD``.
    base_note: str = ""

    @property
    def changed(self) -> bool:
        return bool(self.devices or self.artifacts)


def keyed(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` with its list sections turned into dicts keyed by item name (recursively)."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        if key in LIST_KEYS and isinstance(value, list) and all(isinstance(v, dict) for v in value):
            out[key] = {str(item.get(LIST_KEYS[key])): keyed(item) for item in value}
        elif isinstance(value, dict):
            out[key] = keyed(value)
        else:
            out[key] = value
    return out


def _structured(snapshot: Snapshot, devices: set[str]) -> dict[str, dict[str, Any]]:
    """The structured configs of ``devices`` that the snapshot has (only those: parsing is slow)."""
    out = {}
    for path in snapshot.list("structured/"):
        name = path.removeprefix("structured/").removesuffix(".yaml")
        if path.endswith(".yaml") and name in devices:
            out[name] = snapshot.read_yaml(path)  # libyaml: a 20-rack change reads hundreds
    return out


def _has_structured(snapshot: Snapshot) -> bool:
    return any(path.endswith(".yaml") for path in snapshot.list("structured/"))


def section_changes(old: dict[str, Any], new: dict[str, Any]) -> list[SectionChange]:
    """The named things that differ between two structured configs.

    Example:
        >>> old = {"vlans": [{"id": 100, "name": "A"}], "mtu": 1}
        >>> new = {"vlans": [{"id": 100, "name": "A"}, {"id": 210, "name": "B"}], "mtu": 2}
        >>> [(c.path, c.status) for c in section_changes(old, new)]
        [('mtu', 'changed'), ('vlans/210', 'added')]
    """
    # threshold 0: always name the fields that changed, never "the whole item was replaced"
    diff = DeepDiff(keyed(old), keyed(new), view="tree", threshold_to_diff_deeper=0)
    grouped: dict[tuple[str, str], dict[str, Any]] = {}
    for kind, items in diff.items():
        for item in items:
            path = item.path(output_format="list")
            section = str(path[0])
            name = str(path[1]) if len(path) > 1 and section in LIST_KEYS else ""
            entry = grouped.setdefault((section, name), {"kinds": set(), "details": []})
            depth = 2 if name else 1
            if len(path) <= depth and kind in {"dictionary_item_added", "iterable_item_added"}:
                entry["kinds"].add("added")
            elif len(path) <= depth and kind in {"dictionary_item_removed", "iterable_item_removed"}:
                entry["kinds"].add("removed")
            else:
                entry["kinds"].add("changed")
                entry["details"].append(_detail(kind, path[depth:], item))
    changes = []
    for (section, name), entry in sorted(grouped.items()):
        kinds = entry["kinds"]
        status: ChangeStatus = "added" if kinds == {"added"} else "removed" if kinds == {"removed"} else "changed"
        changes.append(SectionChange(section, name, status, tuple(sorted(entry["details"]))))
    return changes


def _detail(kind: str, rest: list[Any], item: Any) -> str:
    where = ".".join(str(p) for p in rest) or "value"
    if kind in {"values_changed", "type_changes"}:
        return f"{where}: {item.t1} -> {item.t2}"
    if "added" in kind:
        return f"{where}: added {item.t2}"
    if "removed" in kind:
        return f"{where}: removed {item.t1}"
    return f"{where}: {kind}"


def unified(old: str, new: str, name: str) -> str:
    """The config text diff of one device, three lines of context."""
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/configs/{name}.cfg", f"b/configs/{name}.cfg"
    )
    return "".join(lines)


def table_changes(base: Snapshot, head: Snapshot, path: str) -> ArtifactChange | None:
    """Rows added and removed in a CSV table, header excluded; None when it is unchanged."""
    old = base.read_text(path) if base.exists(path) else ""
    new = head.read_text(path) if head.exists(path) else ""
    if old == new:
        return None
    old_rows = list(csv.reader(io.StringIO(old)))[1:]
    new_rows = list(csv.reader(io.StringIO(new)))[1:]
    old_set = {",".join(r) for r in old_rows}
    new_set = {",".join(r) for r in new_rows}
    return ArtifactChange(path, sorted(new_set - old_set), sorted(old_set - new_set))


#: The artifact name a unit change is listed under (the units live in the Nornir inventory).
UNITS = "inventory/hosts.yaml (units)"


def unit_changes(base: Snapshot, head: Snapshot) -> ArtifactChange | None:
    """The switch units intent names (serial, base MAC) that change: an RMA changes no config
    line, yet the next deploy refuses the old unit, so the review must say it."""
    old, new = base.hosts(), head.hosts()
    swapped = [name for name in sorted(old.keys() & new.keys()) if old[name].unit != new[name].unit]
    if not swapped:
        return None
    return ArtifactChange(UNITS, [new[name].unit_row for name in swapped], [old[name].unit_row for name in swapped])


def review(base: Snapshot, head: Snapshot, base_note: str = "") -> Review:
    """Compare ``generated/`` at two refs (``base_note``: how the base was chosen, for the reader)."""
    old_cfg, new_cfg = base.configs(), head.configs()
    changed = {name for name in set(old_cfg) | set(new_cfg) if old_cfg.get(name, "") != new_cfg.get(name, "")}
    old_data, new_data = _structured(base, changed), _structured(head, changed)
    devices = []
    for name in sorted(changed):
        before, after = old_cfg.get(name, ""), new_cfg.get(name, "")
        meta = new_data.get(name) or old_data.get(name) or {}
        status: ChangeStatus = "added" if not before else "removed" if not after else "changed"
        text = unified(before, after, name)
        change = DeviceChange(
            device=name,
            status=status,
            role=str(meta.get("role", "")),
            network=str(meta.get("network", "")),
            redundancy_group=str(meta.get("redundancy_group", "")),
            sections=section_changes(
                (old_data.get(name) or {}).get("config", {}), (new_data.get(name) or {}).get("config", {})
            ),
            unified_diff=text,
            lines_added=sum(1 for line in text.splitlines() if line.startswith("+") and not line.startswith("+++")),
            lines_removed=sum(1 for line in text.splitlines() if line.startswith("-") and not line.startswith("---")),
        )
        devices.append(change)
    tables = sorted(p for p in set(base.list("inventory/")) | set(head.list("inventory/")) if p.endswith(".csv"))
    artifacts = [c for c in (table_changes(base, head, p) for p in tables) if c is not None]
    units = unit_changes(base, head)
    artifacts += [units] if units else []
    grouped = causes(devices, base, head, old_data, new_data)
    blast = _blast(devices, new_data if _has_structured(head) else old_data, grouped)
    summary = summarise(devices, blast)
    if units:
        replaced = sorted(row.split()[0] for row in units.added)
        summary = f"unit replaced on {', '.join(replaced)} (serial, base MAC); {summary}"
    return Review(base.ref, head.ref, summary, devices, blast, artifacts, grouped, base_note)


def _blast(devices: list[DeviceChange], data: dict[str, dict[str, Any]], grouped: list[Cause]) -> BlastRadius:
    names = {d.device for d in devices}
    groups = sorted({d.redundancy_group for d in devices if d.redundancy_group})
    both = sorted(
        f"{d.device}+{data[d.device].get('mlag_peer')}"
        for d in devices
        if d.device in data and data[d.device].get("mlag_peer") in names and d.device < str(data[d.device]["mlag_peer"])
    )
    spines = sorted(d.device for d in devices if d.role in ("spine", "super-spine"))
    ports = {port for cause in grouped for port in cause.ports}
    servers = sorted({server for cause in grouped for server in cause.servers})
    risks = list(dict.fromkeys(risk for cause in grouped for risk in cause.risks))
    return BlastRadius(len(devices), groups, both, spines, len(ports), servers, risks)


def summarise(devices: list[DeviceChange], blast: BlastRadius) -> str:
    """One line a reviewer reads first.

    Example:
        >>> leaf = DeviceChange("rack03-leaf-a", "changed", "leaf", "compute", "compute-pair03",
        ...     [SectionChange("vlans", "210", "added"), SectionChange("interfaces", "Ethernet4", "changed")])
        >>> summarise([leaf], BlastRadius(1, ["compute-pair03"], [], []))
        'VLAN 210 added on 1 leaf; 1 port changed on rack03-leaf-a; no spine touched'
    """
    if not devices:
        return "no device configuration changes"
    by_vlan, ports, other = _classify([d for d in devices if d.status == "changed"])
    parts = [
        f"VLAN {vlan} {status} on {_count_roles(where)}"
        for (vlan, status), where in sorted(by_vlan.items(), key=lambda i: (int(i[0][0]), i[0][1]))
    ]
    parts += [f"{_plural(count, 'port')} changed on {name}" for name, count in sorted(ports.items())]
    parts += [
        f"{section.replace('_', ' ')} changed on {_plural(len(names), 'device')}"
        for section, names in sorted(other.items())
    ]
    for status in ("added", "removed"):
        names = [d.device for d in devices if d.status == status]
        if names:
            shown = ", ".join(names[:4]) + ("..." if len(names) > 4 else "")
            parts.append(f"{_plural(len(names), 'device')} {status} ({shown})")
    parts.append(f"spines touched: {', '.join(blast.spines)}" if blast.spines else "no spine touched")
    return "; ".join(parts)


def _classify(
    devices: list[DeviceChange],
) -> tuple[dict[tuple[str, str], list[DeviceChange]], dict[str, int], dict[str, set[str]]]:
    """Changes grouped as a reviewer thinks of them: VLANs, ports per device, other sections."""
    by_vlan: dict[tuple[str, str], list[DeviceChange]] = defaultdict(list)
    ports: dict[str, int] = {}
    other: dict[str, set[str]] = defaultdict(set)
    for device in devices:
        for change in device.sections:
            if change.section == "vlans":
                by_vlan[change.item, change.status].append(device)
            elif change.section == "interfaces" and change.item.startswith(("Ethernet", "Port-Channel")):
                ports[device.device] = ports.get(device.device, 0) + 1
            elif change.section != "interfaces":
                other[change.section].add(device.device)
    return by_vlan, ports, other


def _plural(count: int, noun: str) -> str:
    """``count noun`` with the right number.

    Example:
        >>> _plural(1, "leaf"), _plural(24, "leaf"), _plural(2, "port")
        ('1 leaf', '24 leaves', '2 ports')
    """
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {noun[:-1]}ves" if noun.endswith("f") else f"{count} {noun}s"


def _count_roles(devices: list[DeviceChange]) -> str:
    roles: dict[str, int] = defaultdict(int)
    for device in devices:
        roles[device.role or "device"] += 1
    return ", ".join(_plural(n, role) for role, n in sorted(roles.items()))
