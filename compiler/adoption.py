"""Adopting drift into the schema: the intent edit that makes the compile print a line a switch runs.

A line changed on the console (``description``, ``shutdown``, an access VLAN, ``speed``, FEC,
LLDP, storm-control, a static route, an NTP server, a syslog host) maps to one edit of
``intent/ports.yaml``, ``vlans.yaml`` or ``devices.yaml``; :func:`apply_edits` writes the edits
with ruamel's round-trip loader, so comments, order and style stay as people wrote them. A line
the schema cannot say (a breakout lane's ``speed 100g-2``, a trunk, an unknown VLAN) maps to no
edit: it is left to ``extra_config``, the escape hatch.

:func:`plan_adoption` decides with the intent at hand (which VLAN has id 300, which server NIC
a port serves, what the description is without its shutdown reason); the line patterns, and
whether the schema says a line at all, are :mod:`core.expressible`'s.
"""

from __future__ import annotations

import difflib
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from compiler.sources import Source, yaml_path
from core.configtree import Change
from core.expressible import ACCESS, ETHERNET, FEC, NTP, ROUTE, SPEED, STORM, SYSLOG, fec_value

if TYPE_CHECKING:
    from compiler.intent import Intent
    from core.generated import Snapshot

__all__ = [
    "AdoptContext",
    "Adoption",
    "IntentEdit",
    "apply_edits",
    "context_for",
    "plan_adoption",
]

Op = Literal["set", "delete", "append", "remove"]
DEFAULT_REASON = "shut on the switch"

_STORM_KEYS = {"broadcast": "broadcast", "multicast": "multicast", "unknown-unicast": "unknown_unicast"}
_SPEEDS = frozenset({"1g", "10g", "25g", "40g", "50g", "100g", "200g", "400g", "800g"})


@dataclass(frozen=True)
class IntentEdit:
    """One edit of one intent file: set or delete a key, append to or remove from a list.

    Example:
        >>> str(IntentEdit("ports.yaml", ("ports", "leaf1", "Ethernet3", "shutdown"), "set", "NIC failed"))
        "ports.yaml: ports.leaf1.Ethernet3.shutdown = 'NIC failed'"
    """

    file: str
    path: tuple[str | int, ...]
    op: Op
    value: Any = None
    #: The live lines this edit makes the compile print.
    adopts: tuple[str, ...] = ()
    #: What else follows from it (a shut port's description carries its reason).
    note: str = ""

    @property
    def source(self) -> Source:
        return Source(self.file, self.path)

    def __str__(self) -> str:
        where = f"{self.file}: {yaml_path(self.path)}"
        if self.op == "set":
            return f"{where} = {self.value!r}"
        if self.op == "delete":
            return f"{where}: remove"
        return f"{where}: {'add' if self.op == 'append' else 'drop'} {self.value!r}"


# ------------------------------------------------------------------------------- planning


@dataclass(frozen=True)
class PortNow:
    """What the compile gives a port now (``generated/`` at HEAD) and who it serves."""

    description: str | None = None
    shutdown: bool = False
    server: str | None = None
    nic: str | None = None


@dataclass(frozen=True)
class AdoptContext:
    """What a plan reads: the intent as loaded, and each port of the device as compiled now."""

    intent: Intent
    ports: Mapping[str, PortNow]
    management_vrf: str | None = None

    def vlan_key(self, vid: int) -> str | None:
        return next((key for key, vlan in self.intent.vlans.items() if vlan.id == vid), None)

    def fabric_vlans(self) -> set[int]:
        fabric = self.intent.fabric
        return {fabric.vlans[f.vlan].id for f in fabric.fabrics.values() if f.vlan in fabric.vlans}


@dataclass
class Adoption:
    """The edits that adopt a device's changes, and the changes no edit can say."""

    edits: list[IntentEdit] = field(default_factory=list)
    raw: list[Change] = field(default_factory=list)


def context_for(root: Path, snapshot: Snapshot, device: str) -> AdoptContext:
    """The intent under ``root`` as it loads now, and each port of ``device`` as ``snapshot`` (the
    audited ``generated/``) has it, with the server NIC cabled to it."""
    from compiler.intent import load_intent

    intent = load_intent(root / "intent")
    path = f"structured/{device}.yaml"
    config = ((snapshot.read_yaml(path) if snapshot.exists(path) else None) or {}).get("config", {})
    cables = {(r.a_device, r.a_port): (r.b_device, r.b_port) for r in snapshot.cables()}
    cables |= {(r.b_device, r.b_port): (r.a_device, r.a_port) for r in snapshot.cables()}
    servers = {server.name for server in intent.servers}
    ports = {}
    for iface in config.get("interfaces", []):
        name = str(iface["name"])
        peer, nic = cables.get((device, name), (None, None))
        served = peer in servers
        ports[name] = PortNow(
            iface.get("description"), bool(iface.get("shutdown")), peer if served else None, nic if served else None
        )
    vrf = next((s.get("vrf") for s in config.get("ntp_servers", []) if s.get("vrf")), None)
    return AdoptContext(intent, ports, vrf)


def plan_adoption(
    device: str, changes: Sequence[Change], context: AdoptContext, reason: str = DEFAULT_REASON
) -> Adoption:
    """The intent edits that make the compile print what ``device`` runs.

    ``changes`` are drift's (``line`` the device's, ``expected`` git's; ``removed``: the device
    lacks git's line). Per port, the description and the shutdown are decided together: a shut
    port's description carries its reason (``naming.descriptions.shutdown_port``).
    """
    out = Adoption()
    by_port: dict[str, list[Change]] = {}
    device_wide: list[IntentEdit] = []
    for change in changes:
        match = ETHERNET.match(change.path[0]) if len(change.path) == 1 else None
        edit = _device_edit(device, change, context) if not change.path and change.kind != "changed" else None
        if match is not None and change.kind in ("added", "removed", "changed"):
            by_port.setdefault(match.group(1), []).append(change)
        elif edit is not None:
            device_wide.append(edit)
        else:
            out.raw.append(change)
    for port, found in by_port.items():
        edits, raw = _port_edits(device, port, found, context, reason)
        out.edits += edits
        out.raw += raw
    out.edits += device_wide
    return out


def _device_edit(device: str, change: Change, context: AdoptContext) -> IntentEdit | None:
    settings = context.intent.devices.get(device)
    route, ntp, syslog = ROUTE.match(change.line), NTP.match(change.line), SYSLOG.match(change.line)
    base: tuple[str | int, ...] = ("devices", device)
    if route is not None:
        item = {"prefix": route["prefix"], "next_hop": route["hop"], **({"vrf": route["vrf"]} if route["vrf"] else {})}
        have = [
            {"prefix": str(r.prefix), "next_hop": str(r.next_hop), **({"vrf": r.vrf} if r.vrf else {})}
            for r in (settings.static_routes if settings else ())
        ]
        return _list_edit((*base, "static_routes"), item, have, change)
    for match, key, items in (
        (ntp, "ntp", settings.ntp if settings else ()),
        (syslog, "syslog", settings.syslog if settings else ()),
    ):
        if match is None:
            continue
        if (match["vrf"] or None) != context.management_vrf:
            return None  # the compile puts these in the management VRF only
        edit = _list_edit((*base, key), match["addr"], [str(a) for a in items], change)
        if edit is not None and key == "ntp" and change.kind == "added" and match["rest"].strip() != "iburst":
            note = f"printed as 'ntp server{_vrf(match['vrf'])} {match['addr']} iburst': the next deploy adds iburst"
            edit = IntentEdit(edit.file, edit.path, edit.op, edit.value, edit.adopts, note)
        return edit
    return None


def _vrf(vrf: str | None) -> str:
    return f" vrf {vrf}" if vrf else ""


def _list_edit(path: tuple[str | int, ...], item: Any, have: list[Any], change: Change) -> IntentEdit | None:
    """Append an item the device added; drop one it removed (only one ``devices.yaml`` holds)."""
    if change.kind == "added":
        return None if item in have else IntentEdit("devices.yaml", path, "append", item, (change.line,))
    return IntentEdit("devices.yaml", path, "remove", item, (change.line,)) if item in have else None


def _shut_pattern(template: str) -> re.Pattern[str]:
    """The description of a shut port, as ``naming.descriptions.shutdown_port`` writes it."""
    escaped = re.escape(template)
    escaped = escaped.replace(re.escape("{description}"), "(?P<description>.*)")
    return re.compile("^" + escaped.replace(re.escape("{reason}"), "(?P<reason>.+)") + "$")


def _port_edits(
    device: str, port: str, changes: list[Change], context: AdoptContext, reason: str
) -> tuple[list[IntentEdit], list[Change]]:
    now = context.ports.get(port, PortNow())
    entry = context.intent.ports.get(device, {}).get(port)
    edits: list[IntentEdit] = []
    raw: list[Change] = []
    description, shut = now.description, now.shutdown
    said: list[str] = []
    for change in changes:
        line, gone = change.line, change.kind == "removed"
        if line.startswith("description ") or line == "description":
            description = None if gone else line.removeprefix("description ")
            said.append(line)
        elif line in ("shutdown", "no shutdown"):
            shut = (line == "shutdown") != gone
            said.append(line)
        else:
            edit = _port_line(device, port, change, context, entry, now)
            if edit is None:
                raw.append(change)
            else:
                edits.append(edit)
    if said:
        found = _description_and_shutdown(device, port, description, shut, context, reason, tuple(said))
        if found is None:
            raw += [c for c in changes if c.line in said]
        else:
            edits = found + edits
    return edits, raw


def _description_and_shutdown(
    device: str,
    port: str,
    description: str | None,
    shut: bool,
    context: AdoptContext,
    reason: str,
    lines: tuple[str, ...],
) -> list[IntentEdit] | None:
    """The ``description`` and ``shutdown`` keys of a port that print what it runs (None: they cannot)."""
    now = context.ports.get(port, PortNow())
    entry = context.intent.ports.get(device, {}).get(port)
    template = context.intent.fabric.naming.descriptions.shutdown_port
    pattern = _shut_pattern(template)
    where: tuple[str | int, ...] = ("ports", device, port)
    # The description the port has now, without the reason its shutdown adds.
    base_now = now.description
    if entry is not None and entry.shutdown is not None and base_now is not None:
        found = pattern.match(base_now) or pattern.match(" " + base_now)
        base_now = (found["description"] or None) if found else base_now
    edits: list[IntentEdit] = []
    note = ""
    if shut:
        found = pattern.match(description or "") or pattern.match(" " + (description or ""))
        if found:
            wanted_reason, base = found["reason"], (found["description"].strip() or None)
        else:  # the description does not say why: a reason the intent has stays, else the given one
            wanted_reason, base = (entry.shutdown if entry and entry.shutdown else reason), description
            shown = template.format(description=description or "", reason=wanted_reason).strip()
            note = f"a shut port's description carries its reason: the next deploy writes 'description {shown}'"
        if entry is None or entry.shutdown != wanted_reason:
            edits.append(IntentEdit("ports.yaml", (*where, "shutdown"), "set", wanted_reason, lines, note))
    else:
        base = description
        if entry is not None and entry.shutdown is not None:
            edits.append(IntentEdit("ports.yaml", (*where, "shutdown"), "delete", None, lines))
    if base != base_now:
        if base is None:
            return None  # no key says "no description"
        edits.append(IntentEdit("ports.yaml", (*where, "description"), "set", base, lines))
    return edits


def _port_line(
    device: str, port: str, change: Change, context: AdoptContext, entry: Any, now: PortNow
) -> IntentEdit | None:
    """The edit for one port line other than description and shutdown (None: the schema cannot say it)."""
    line, gone = change.line, change.kind == "removed"
    where: tuple[str | int, ...] = ("ports", device, port)
    if access := ACCESS.match(line):
        return None if gone else _access_vlan(int(access[1]), context, now, (line,))
    found = _port_value(line, gone, entry)
    if found is None:
        return None
    key, value = found
    if value is _UNSET:  # the device dropped a line a ports.yaml key gave: the key goes
        return IntentEdit("ports.yaml", (*where, key), "delete", None, (line,)) if getattr(entry, key, None) else None
    path = (*where, *key.split("."))
    return IntentEdit("ports.yaml", path, "set", value, (line,))


_UNSET: Any = object()


def _port_value(line: str, gone: bool, entry: Any) -> tuple[str, Any] | None:
    """The ``ports.yaml`` key (dotted below a port) and value that print ``line`` (or, when
    ``gone``, that leave it out); None when no key says it."""
    if (speed := SPEED.match(line)) and speed[1] in _SPEEDS:
        return "speed", _UNSET if gone else speed[1]
    if fec := FEC.match(line):
        return "fec", _UNSET if gone else fec_value(fec)
    if line in ("no lldp transmit", "no lldp receive"):
        lldp = {"transmit": True, "receive": True}
        if entry is not None and entry.lldp is not None:
            lldp = {"transmit": entry.lldp.transmit, "receive": entry.lldp.receive}
        lldp[line.removeprefix("no lldp ")] = gone
        return "lldp", lldp
    if storm := STORM.match(line):
        level = float(storm[2])
        return f"storm_control.{_STORM_KEYS[storm[1]]}", None if gone else (int(level) if level.is_integer() else level)
    return None


def _access_vlan(vid: int, context: AdoptContext, now: PortNow, adopts: tuple[str, ...]) -> IntentEdit | None:
    """A server NIC's port on another VLAN: a member of that ``vlans.yaml`` VLAN, or none (the fabric's)."""
    if now.server is None or now.nic is None:
        return None
    member = {"server": now.server, "nic": now.nic}
    key = context.vlan_key(vid)
    if key is not None:
        return IntentEdit("vlans.yaml", ("vlans", key, "access"), "append", member, adopts)
    if vid in context.fabric_vlans():
        for other, vlan in context.intent.vlans.items():
            for item in vlan.access:
                if item.server == now.server and item.nic in (None, now.nic) and item.rack is None:
                    listed = {"server": now.server, **({"nic": item.nic} if item.nic else {})}
                    return IntentEdit("vlans.yaml", ("vlans", other, "access"), "remove", listed, adopts)
    return None


# ------------------------------------------------------------------------------- writing


def apply_edits(intent_dir: Path, edits: Iterable[IntentEdit]) -> dict[str, tuple[str, str]]:
    """Each edited file's text before and after (nothing is written: the caller writes ``after``).

    Round-trip YAML: comments, key order and quoting stay; a new port or member is written in
    the file's own block style.
    """
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    by_file: dict[str, list[IntentEdit]] = {}
    for edit in edits:
        by_file.setdefault(edit.file, []).append(edit)
    out = {}
    for name, group in by_file.items():
        path = intent_dir / name
        before = path.read_text() if path.exists() else ""
        data = yaml.load(before) if before.strip() else None
        if data is None:
            data = _mapping({})
        for edit in group:
            _apply(data, edit)
        buffer = io.StringIO()
        yaml.dump(data, buffer)
        out[name] = (before, buffer.getvalue())
    return out


def _mapping(value: Mapping[str, Any], flow: bool = False) -> Any:
    from ruamel.yaml.comments import CommentedMap

    made = CommentedMap(value)
    if flow:
        made.fa.set_flow_style()
    else:
        made.fa.set_block_style()
    return made


def _child(node: Any, key: str | int) -> Any:
    """``node[key]``, made a block mapping when absent or an empty flow one (``ports: {}``)."""
    if key not in node or node[key] is None or (not node[key] and hasattr(node[key], "fa")):
        node[key] = _mapping({})
    return node[key]


def _apply(data: Any, edit: IntentEdit) -> None:
    from ruamel.yaml.comments import CommentedSeq

    if not isinstance(data, dict):
        raise ValueError(f"intent/{edit.file} does not hold a mapping")
    if edit.op in ("delete", "remove"):
        _take_away(data, edit)
        return
    *parents, last = edit.path
    node = data
    for key in parents:
        node = _child(node, key)
    if edit.op == "set":
        node[last] = _mapping(edit.value, flow=True) if isinstance(edit.value, dict) else edit.value
        return
    items = node.get(last)
    if not isinstance(items, list):
        items = node[last] = CommentedSeq()
    if edit.value not in [_plain(item) for item in items]:
        items.append(_mapping(edit.value, flow=True) if isinstance(edit.value, dict) else edit.value)


def _take_away(data: Any, edit: IntentEdit) -> None:
    """Delete a key or drop a list item; an entry left empty goes too (the file keeps ``ports: {}``)."""
    *parents, last = edit.path
    trail = [data]
    for key in parents:
        if key not in trail[-1]:
            return
        trail.append(trail[-1][key])
    node = trail[-1]
    if edit.op == "delete":
        node.pop(last, None)
    else:
        items = node.get(last) or []
        index = next((i for i, item in enumerate(items) if _plain(item) == edit.value), None)
        if index is not None:
            del items[index]
        if not items:
            node.pop(last, None)
    for key, parent in zip(reversed(parents), reversed(trail[:-1]), strict=True):
        if parent[key]:
            break
        if parent is data:
            parent[key] = _mapping({}, flow=True)
        else:
            del parent[key]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def patch(files: Mapping[str, tuple[str, str]]) -> str:
    """The edits as a unified diff of ``intent/`` (``git apply`` takes it)."""
    out: list[str] = []
    for name, (before, after) in sorted(files.items()):
        out += difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/intent/{name}", f"b/intent/{name}"
        )
    return "".join(out)


def describe(
    device: str,
    plan: Adoption,
    files: Mapping[str, tuple[str, str]],
    extra_config: str,
    not_adoptable: Sequence[str],
    written: bool,
) -> str:
    """What ``fabricops adopt`` prints: each edit with the lines it adopts, what stays raw, then
    the patch (or the files written)."""
    out = []
    for edit in plan.edits:
        out.append(f"  {edit}    # {'; '.join(edit.adopts)}")
        if edit.note:
            out.append(f"    note: {edit.note}")
    if extra_config:
        out.append("  not in the schema: add to intent/fabric.yaml extra_config:")
        out += [f"    {line}" for line in extra_config.splitlines()]
    out += [f"  not adoptable: {why}" for why in not_adoptable]
    if not files:
        out.append("no intent edit")
    elif written:
        wrote = ", ".join(f"intent/{name}" for name in sorted(files))
        out.append(f"wrote {wrote}: run 'fabricops compile' and commit")
    else:
        out += ["", patch(files).rstrip("\n"), "", f"(fabricops adopt {device} --write applies it)"]
    return "\n".join(out) + "\n"
