"""The rollback report: what differs per device, who could have caused it, and two ways out.

For each drifted device the report lists the changes per section path, names the last deploy
(tag and date: anything changed since then was done outside GitOps), and gives two commands:

* revert to git: ``fabricops rollback --to <tag> --devices <dev>`` (``--lab`` when the audit
  ran with ``--lab``); without a deploy tag, ``fabricops deploy --ref <commit> --devices <dev>``;
* keep the change: the intent edit that adopts it. The intent has no per-port override yet,
  so port description, shutdown and VLAN membership are proposed as ``extra_config`` lines in
  ``intent/fabric.yaml`` and the report names the structured field that would hold them
  (``port_overrides.<device>.<port>.<field>``); anything else is proposed as escape-hatch
  lines. A secret change cannot be adopted through the intent: the report says where the
  secret lives instead.

Rendered as text (terminal), markdown (a CI issue) and JSON (machines, ``--merge``). No
secret value appears: changes carry ``<secret>`` in place of one.

Examples:
    >>> from core.configtree import Change
    >>> adopt_field(Change(("interface Ethernet5",), "changed", "description X", "description Y"))
    'port_overrides.<device>.Ethernet5.description'
    >>> device_line(Change(("interface Ethernet5",), "removed", "shutdown"))
    'no shutdown'
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.configtree import Change, negate
from core.generated import REPORTS_DIR
from core.platforms import get_rules
from drift.audit import Audit, DeviceResult

__all__ = [
    "DEFAULT_REPORT_DIR",
    "Adoption",
    "adopt_field",
    "adoption",
    "device_line",
    "render_json",
    "render_markdown",
    "render_text",
    "revert_command",
    "write_reports",
]

DEFAULT_REPORT_DIR = Path(REPORTS_DIR) / "drift"
_PORT = re.compile(r"interface ((?:Ethernet|Port-Channel)\S+)$")
#: Device line prefix -> the field of a structured per-port override that would hold it.
_PORT_FIELDS = (
    ("description", "description"),
    ("shutdown", "shutdown"),
    ("no shutdown", "shutdown"),
    ("switchport access vlan", "vlan"),
    ("switchport trunk allowed vlan", "allowed_vlans"),
    ("switchport mode", "mode"),
)


def adopt_field(change: Change) -> str | None:
    """The per-port intent field a change would belong to, or ``None`` if it is not a port field."""
    if len(change.path) != 1 or change.kind not in ("added", "removed", "changed"):
        return None
    match = _PORT.match(change.path[0])
    if match is None:
        return None
    for prefix, name in _PORT_FIELDS:
        if change.line == prefix or change.line.startswith(prefix + " "):
            return f"port_overrides.<device>.{match.group(1)}.{name}"
    return None


def device_line(change: Change) -> str:
    """The config line that makes git say what the device says (for the escape hatch)."""
    if change.kind == "removed":
        return negate(change.line, get_rules("eos"))
    return change.line


@dataclass(frozen=True)
class Adoption:
    """How to keep a device's changes: escape-hatch lines and what could not be adopted."""

    extra_config: str
    fields: tuple[str, ...]
    not_adoptable: tuple[str, ...]

    def yaml(self, device: str) -> str:
        """The ``intent/fabric.yaml`` snippet (merge it into ``extra_config``), a literal block.

        Examples:
            >>> snippet = Adoption("interface Ethernet5\\n   shutdown\\n", (), ()).yaml("leaf1")
            >>> print(snippet, end="")
            extra_config:
              leaf1: |
                interface Ethernet5
                   shutdown
            >>> import yaml
            >>> yaml.safe_load(snippet)["extra_config"]["leaf1"]
            'interface Ethernet5\\n   shutdown\\n'
        """
        body = "".join(f"    {line}\n" for line in self.extra_config.splitlines())
        return f"extra_config:\n  {device}: |\n{body}"


def adoption(result: DeviceResult) -> Adoption:
    """Escape-hatch lines (grouped under their sections, in EOS syntax) for a device's changes."""
    indent = " " * get_rules("eos").indent
    sections: dict[tuple[str, ...], list[str]] = {}
    fields: list[str] = []
    refused: list[str] = []
    for change in result.changes:
        if change.kind == "secret":
            where = " > ".join(change.path) or "(top level)"
            store = "change it in the secret store (FABRICOPS_SECRET_<NAME> or the secrets file), then deploy"
            refused.append(f"{where}: {change.line} (a secret: {store})")
            continue
        if change.kind == "order":
            refused.append(f"{' > '.join(change.path)}: the device's entry order (write the section in that order)")
            continue
        field = adopt_field(change)
        if field is not None:
            fields.append(field.replace("<device>", result.device))
        body = [device_line(change)]
        if change.kind == "added":
            body += list(change.block)
        sections.setdefault(change.path, []).extend(body)
    out: list[str] = []
    for path, lines in sections.items():
        for depth, header in enumerate(path):
            out.append(indent * depth + header)
        out += [indent * len(path) + line for line in lines]
    return Adoption("\n".join(out) + "\n" if out else "", tuple(dict.fromkeys(fields)), tuple(refused))


def revert_command(audit: Audit, device: str) -> str:
    """The command that puts git's config back on ``device``, as it should be typed."""
    lab = " --lab" if audit.lab else ""
    if audit.deploy_tag is not None and audit.deploy_tag.commit == audit.commit:
        return f"fabricops rollback --to {audit.deploy_tag.name} --devices {device}{lab}"
    if audit.ref.startswith("deploy/"):
        return f"fabricops rollback --to {audit.ref} --devices {device}{lab}"
    return f"fabricops deploy --ref {audit.commit} --devices {device}{lab}"


def _cause(audit: Audit) -> str:
    tag = audit.deploy_tag
    if tag is None:
        return "no deploy tag found: the change was made outside any recorded deploy"
    by = f", by {tag.tagger}" if tag.tagger else ""
    return (
        f"the last deploy was {tag.name} ({tag.date}{by}, commit {tag.commit[:12]}); "
        "the change was made after it, outside GitOps"
    )


def _change_dict(change: Change) -> dict[str, Any]:
    return {
        "path": list(change.path),
        "kind": change.kind,
        "line": change.line,
        "expected": change.expected,
        "block": list(change.block),
    }


def render_json(audit: Audit) -> dict[str, Any]:
    """The report as JSON: the audit itself (readable by ``--merge``) plus the ways out."""
    data = audit.to_json()
    for entry, result in zip(data["devices"], audit.devices, strict=True):
        entry["changes"] = [_change_dict(c) for c in result.changes]
        if result.status == "drifted":
            adopt = adoption(result)
            entry["revert"] = revert_command(audit, result.device)
            entry["adopt"] = {
                "extra_config": adopt.extra_config,
                "intent_yaml": adopt.yaml(result.device) if adopt.extra_config else "",
                "structured_fields": list(adopt.fields),
                "not_adoptable": list(adopt.not_adoptable),
            }
    data["summary"] = _summary(audit)
    data["exit_code"] = audit.exit_code()
    return data


def _summary(audit: Audit) -> dict[str, int]:
    return {status: audit.count(status) for status in ("in-sync", "drifted", "unreachable", "unmanaged")}


def _summary_line(audit: Audit) -> str:
    counts = _summary(audit)
    parts = ", ".join(f"{n} {status}" for status, n in counts.items())
    rate = len(audit.devices) / audit.seconds if audit.seconds else 0.0
    return f"{len(audit.devices)} devices: {parts} ({audit.seconds:.1f} s, {rate:.0f} devices/s)"


def _header(audit: Audit) -> str:
    shards = f", shards {' '.join(audit.shards)}" if audit.shards else ""
    where = " in the lab" if audit.lab else ""
    return f"drift against {audit.ref} ({audit.commit[:12]}) at {audit.started}{where}{shards}"


def render_text(audit: Audit, *, verbose: bool = True) -> str:
    """One line per device, then the changes and ways out of each drifted device."""
    out = [_header(audit)]
    width = max((len(d.device) for d in audit.devices), default=0)
    for result in audit.devices:
        extra = f"  {result.error}" if result.error else ""
        count = f"  {len(result.changes)} change(s)" if result.changes else ""
        out.append(f"{result.device:<{width}}  {result.status}{count}{extra}")
        if verbose and result.status == "drifted":
            out += ["    " + str(c) for c in result.changes]
            out += ["    note: " + n for n in result.notes]
            out.append(f"    revert: {revert_command(audit, result.device)}")
            adopt = adoption(result)
            if adopt.extra_config:
                out.append("    keep:   add to intent/fabric.yaml extra_config:")
                out += ["      " + line for line in adopt.yaml(result.device).splitlines()]
        elif verbose and result.notes:
            out += ["    note: " + n for n in result.notes]
    out.append(_summary_line(audit))
    return "\n".join(out) + "\n"


def _md_change(change: Change) -> list[str]:
    where = " > ".join(change.path) or "(top level)"
    if change.kind == "changed":
        return [f"| `{where}` | changed | `{change.expected}` | `{change.line}` |"]
    if change.kind == "secret":
        return [f"| `{where}` | secret changed | `{change.line}` | (keyed fingerprints differ) |"]
    if change.kind == "order":
        return [f"| `{where}` | reordered | entries in git's order | entries in another order |"]
    shown = change.line + (f" (+{len(change.block)} lines)" if change.block else "")
    if change.kind == "removed":
        return [f"| `{where}` | missing on device | `{shown}` | |"]
    return [f"| `{where}` | added on device | | `{shown}` |"]


def render_markdown(audit: Audit) -> str:
    """The report as markdown, for a CI run to open as an issue."""
    counts = _summary(audit)
    out = [
        f"# Drift report: {counts['drifted']} drifted, {counts['unreachable']} unreachable, "
        f"{counts['unmanaged']} unmanaged of {len(audit.devices)}",
        "",
        f"Audited against `{audit.ref}` (`{audit.commit[:12]}`) at {audit.started}"
        f"{' in the lab' if audit.lab else ''}; {_summary_line(audit)}.",
        "",
        "| device | status | changes |",
        "| --- | --- | --- |",
    ]
    out += [
        f"| {d.device} | {d.status} | {len(d.changes) or d.error} |" for d in audit.devices if d.status != "in-sync"
    ]
    for result in audit.devices:
        if result.status != "drifted":
            continue
        out += ["", f"## {result.device}", "", f"Who: {_cause(audit)}.", ""]
        out += ["| section | kind | git | device |", "| --- | --- | --- | --- |"]
        for change in result.changes:
            out += _md_change(change)
        if result.notes:
            out += ["", *[f"* note: {n}" for n in result.notes]]
        out += [
            "",
            "**Revert to git** (restores the reviewed config):",
            "",
            "```sh",
            revert_command(audit, result.device),
        ]
        out += ["```"]
        adopt = adoption(result)
        if adopt.extra_config:
            out += [
                "",
                "**Keep the change**: add to `intent/fabric.yaml`, then `fabricops compile`, review, merge, deploy:",
            ]
            out += ["", "```yaml", adopt.yaml(result.device).rstrip("\n"), "```"]
            if adopt.fields:
                fields = ", ".join(f"`{f}`" for f in adopt.fields)
                out += ["", f"The intent has no per-port override yet; a structured override would be {fields}."]
        if adopt.not_adoptable:
            out += ["", *[f"* not adoptable: {n}" for n in adopt.not_adoptable]]
    for result in audit.devices:
        if result.status in ("unreachable", "unmanaged"):
            out += ["", f"## {result.device}: {result.status}", "", result.error or result.status]
    noted = [r for r in audit.devices if r.notes and r.status != "drifted"]
    if noted:
        out += ["", "## Notes", ""]
        out += [f"* {r.device}: {note}" for r in noted for note in r.notes]
    return "\n".join(out) + "\n"


def write_reports(audit: Audit, report_dir: Path | None, root: Path) -> Path:
    """Write ``report.md`` and ``report.json``; the default directory is timestamped under reports/drift/."""
    if report_dir is None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        report_dir = root / DEFAULT_REPORT_DIR / stamp
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "report.md").write_text(render_markdown(audit))
    (report_dir / "report.json").write_text(json.dumps(render_json(audit), indent=2, sort_keys=False) + "\n")
    return report_dir


def statuses(results: Iterable[DeviceResult]) -> dict[str, str]:
    """Device -> status, for tests and summaries."""
    return {r.device: r.status for r in results}
