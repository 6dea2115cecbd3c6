"""The drift report: per device its state, what differs, who could have caused it, and the ways out.

For a drifted device (``drift``, ``drift+pending``) the report lists the changes per section
path against the config it was last deployed with, names that deploy (run, time, who: anything
changed since was done outside GitOps), and gives two commands:

* revert: back to the **last deployed** config, never an older one: ``fabricops rollback --to
  <its fleet version or commit> --devices <dev>`` (``--to-backup DEV@STAMP`` when it runs a
  restored backup; ``--lab`` when the audit ran with ``--lab``);
* keep the change: the intent edit that adopts it. A line the schema can say (description,
  shutdown, an access VLAN, speed, FEC, LLDP, storm-control, a static route, NTP, syslog) is
  named by the intent key that holds it (``ports.yaml: ports.<device>.<port>.description``) and
  written there by ``fabricops adopt <device> --write`` (:mod:`drift.adopt`); only the rest is
  proposed as ``extra_config`` lines. A secret cannot be adopted through the intent: a changed
  secret, or a line or section the device added that holds one (the report sees it masked,
  ``<secret>``, which EOS would reject if pasted back), is never proposed as an edit; the report
  names the secret (its form and line) and says to set it in the secret store and reference it
  as ``<secret:NAME>``.

A ``pending`` device gets no revert (nothing to undo): the deploy that applies the merged change.

Rendered as text (terminal), markdown (a CI issue) and JSON (machines, ``--merge``); beside them
``issues.json`` says which issue to open, update or close per device (a marker in each body
names the device, so CI edits only the issues it opened). No secret value appears: changes
carry ``<secret>`` in place of one.

The markdown report draws a map (Mermaid, :mod:`core.mermaid`) of every device that is not in
sync, coloured by its state, with the switches one cable away; each issue draws the map around
its own device, so a drifted leaf whose peer is unreachable shows both. An unmanaged switch is
drawn where LLDP saw it.

Examples:
    >>> from core.configtree import Change
    >>> adopt_field(Change(("interface Ethernet5",), "changed", "description X", "description Y"))
    'ports.yaml: ports.<device>.Ethernet5.description'
    >>> device_line(Change(("interface Ethernet5",), "removed", "shutdown"))
    'no shutdown'
    >>> issue_marker("rack03-leaf-a")
    '<!-- fabricops-drift device="rack03-leaf-a" -->'
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core import mermaid
from core.configtree import SECRET_MASK, Change, negate
from core.errors import FabricopsError
from core.generated import REPORTS_DIR, open_snapshot
from core.intentkeys import intent_field
from core.masking import MASKED, SECRET_RULES
from core.platforms import get_rules
from core.topology import Link, Topology, neighbourhood
from drift.audit import DRIFTED, STATUSES, Audit, DeviceResult

__all__ = [
    "DEFAULT_REPORT_DIR",
    "Adoption",
    "adopt_command",
    "adopt_field",
    "adoption",
    "apply_command",
    "audit_topology",
    "device_line",
    "issue_marker",
    "issue_plan",
    "pending_line",
    "render_json",
    "render_markdown",
    "render_text",
    "revert_command",
    "secret_forms",
    "status_map",
    "write_reports",
]

DEFAULT_REPORT_DIR = Path(REPORTS_DIR) / "drift"


def adopt_field(change: Change) -> str | None:
    """The intent key a changed line belongs to (``<device>`` for the device), or ``None`` when
    the schema cannot say it."""
    return intent_field("<device>", change)


def device_line(change: Change) -> str:
    """The config line that makes git say what the device says (for the escape hatch)."""
    if change.kind == "removed":
        return negate(change.line, get_rules("eos"))
    return change.line


@dataclass(frozen=True)
class Adoption:
    """How to keep a device's changes: the intent keys of the lines the schema says (``fabricops
    adopt`` writes them), escape-hatch lines for the rest, and what could not be adopted."""

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


_STORE = "the secret store (FABRICOPS_SECRET_<NAME> or the secrets file)"


def secret_forms(lines: Iterable[str]) -> list[str]:
    """The forms of secret (``SNMP community``, ``user secret``) that masked ``lines`` hold.

    Example:
        >>> secret_forms(["snmp-server community <secret> ro", "description x"])
        ['SNMP community']
        >>> secret_forms(["ntp server 10.0.0.1 key 3"])
        []
    """
    masked = [line.strip() for line in lines if SECRET_MASK in line or MASKED.search(line)]
    forms = [rule.form for line in masked for rule in SECRET_RULES if rule.pattern.search(line)]
    return list(dict.fromkeys(forms)) or (["secret"] if masked else [])


def adoption(result: DeviceResult, structured: bool = True) -> Adoption:
    """The intent keys of a device's changes and escape-hatch lines (grouped under their sections,
    in EOS syntax) for the others; with ``structured=False`` every line is an escape-hatch line
    (``fabricops adopt`` passes those it could not write).

    A line that holds a secret is never among them: the report only ever sees it masked.
    """
    indent = " " * get_rules("eos").indent
    sections: dict[tuple[str, ...], list[str]] = {}
    fields: list[str] = []
    refused: list[str] = []
    for change in result.changes:
        where = " > ".join(change.path) or "(top level)"
        if change.kind == "secret":
            refused.append(f"{where}: {change.line} (a secret: change it in {_STORE}, then deploy)")
            continue
        forms = secret_forms([change.line, *change.block]) if change.kind != "removed" else []
        if forms:
            what = f"{', '.join(forms)} the device holds and git does not"
            how = f"set its value in {_STORE}, add the line to intent extra_config with <secret:NAME> "
            how += "where the secret is, then deploy"
            refused.append(f"{where}: {change.line} (a {what}: {how})")
            continue
        if change.kind == "order":
            refused.append(f"{' > '.join(change.path)}: the device's entry order (write the section in that order)")
            continue
        field = intent_field(result.device, change) if structured else None
        if field is not None:
            fields.append(field)
            continue
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


def pending_line(change: Change) -> str:
    """A pending change as what the deploy will do to the device.

    Example:
        >>> pending_line(Change(("interface Ethernet30",), "removed", "description RESERVED"))
        "interface Ethernet30: deploy adds 'description RESERVED'"
    """
    where = " > ".join(change.path) or "(top level)"
    if change.kind == "changed":
        return f"{where}: deploy changes {change.line!r} -> {change.expected!r}"
    verb = {"removed": "adds", "added": "removes", "secret": "sets the secret in", "order": "reorders"}[change.kind]
    return f"{where}: deploy {verb} {change.line!r}"


def _lab(audit: Audit) -> str:
    return " --lab" if audit.lab else ""


def revert_command(audit: Audit, result: DeviceResult) -> str:
    """The command that puts the device's last deployed config back, as it should be typed."""
    deployed, device = result.deployed, result.device
    if deployed is not None and deployed.backup:
        stamp = deployed.backup.rsplit("/", 1)[-1].removesuffix(".cfg")
        return f"fabricops rollback --to-backup {device}@{stamp}{_lab(audit)}"
    if deployed is not None and deployed.commit:
        return f"fabricops rollback --to {deployed.tag or deployed.commit} --devices {device}{_lab(audit)}"
    return f"fabricops deploy --ref {audit.commit} --devices {device}{_lab(audit)}"


def adopt_command(audit: Audit, result: DeviceResult) -> str:
    """The command that writes a device's drift into intent (``--write``; without it: the patch)."""
    return f"fabricops adopt {result.device} --write{_lab(audit)}"


def apply_command(audit: Audit, result: DeviceResult) -> str:
    """The deploy that applies the merged change a ``pending`` device waits for."""
    ref = "" if audit.ref == "HEAD" else f" --ref {audit.ref}"
    return f"fabricops deploy{ref} --devices {result.device}{_lab(audit)}"


def _cause(result: DeviceResult) -> str:
    deployed = result.deployed
    if deployed is None or deployed.source == "intended":
        return "never deployed by fabricops: compared with the intended config"
    if deployed.source == "fleet version":
        return f"no state of record: compared with fleet version {deployed.tag} (commit {deployed.commit[:12]})"
    what = deployed.backup or f"commit {deployed.commit[:12]}" + (f" ({deployed.tag})" if deployed.tag else "")
    by = f" by {deployed.by}" if deployed.by else ""
    return (
        f"last deployed by {deployed.run} at {deployed.verified}{by}, running {what}; "
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
        entry["pending"] = [_change_dict(c) for c in result.pending]
        if result.status in DRIFTED:
            adopt = adoption(result)
            entry["revert"] = revert_command(audit, result)
            entry["adopt"] = {
                "command": adopt_command(audit, result) if adopt.fields else "",
                "extra_config": adopt.extra_config,
                "intent_yaml": adopt.yaml(result.device) if adopt.extra_config else "",
                "structured_fields": list(adopt.fields),
                "not_adoptable": list(adopt.not_adoptable),
            }
        if result.status in ("pending", "drift+pending"):
            entry["apply"] = apply_command(audit, result)
    data["summary"] = _summary(audit)
    data["missing_shards"] = audit.missing_shards()
    data["exit_code"] = audit.exit_code()
    return data


def _summary(audit: Audit) -> dict[str, int]:
    return {status: audit.count(status) for status in STATUSES}


def _summary_line(audit: Audit) -> str:
    parts = ", ".join(f"{n} {status}" for status, n in _summary(audit).items())
    rate = len(audit.devices) / audit.seconds if audit.seconds else 0.0
    missing = f"; shards missing: {' '.join(audit.missing_shards())}" if audit.missing_shards() else ""
    return f"{len(audit.devices)} devices: {parts} ({audit.seconds:.1f} s, {rate:.0f} devices/s){missing}"


def _header(audit: Audit) -> str:
    shards = f", shards {' '.join(audit.shards)}" if audit.shards else ""
    where = " in the lab" if audit.lab else ""
    return (
        f"drift against what was deployed, intent {audit.ref} ({audit.commit[:12]}), at {audit.started}{where}{shards}"
    )


def render_text(audit: Audit, *, verbose: bool = True) -> str:
    """One line per device, then the changes and ways out of each device that is not in sync."""
    out = [_header(audit)]
    width = max((len(d.device) for d in audit.devices), default=0)
    for result in audit.devices:
        extra = f"  {result.error}" if result.error else ""
        count = f"  {len(result.changes)} change(s)" if result.changes else ""
        if result.pending:
            count += f"  {len(result.pending)} pending"
        out.append(f"{result.device:<{width}}  {result.status}{count}{extra}")
        if not verbose:
            continue
        if result.status in DRIFTED:
            out += ["    " + str(c) for c in result.changes]
        if result.status in ("pending", "drift+pending"):
            out += ["    pending: " + pending_line(c) for c in result.pending]
        out += ["    note: " + n for n in result.notes]
        out += ["    seen by LLDP from " + where for where in result.seen_by]
        if result.status in DRIFTED:
            out.append(f"    revert: {revert_command(audit, result)}")
            adopt = adoption(result)
            if adopt.fields:
                out.append(f"    keep:   {adopt_command(audit, result)}  ({', '.join(adopt.fields)})")
            if adopt.extra_config:
                out.append("    keep:   add to intent/fabric.yaml extra_config:")
                out += ["      " + line for line in adopt.yaml(result.device).splitlines()]
            out += ["    not adoptable: " + n for n in adopt.not_adoptable]
        if result.status in ("pending", "drift+pending"):
            out.append(f"    apply:  {apply_command(audit, result)}")
    out += ["note: " + n for n in audit.notes]
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


def device_markdown(audit: Audit, result: DeviceResult) -> list[str]:
    """The section of one device that is not in sync (also the body of its CI issue)."""
    out = [f"## {result.device}: {result.status}", ""]
    if result.status in ("unreachable", "unmanaged"):
        out.append(result.error or result.status)
        out += [f"* seen by LLDP from {where}" for where in result.seen_by]
        return out
    if result.status in DRIFTED:
        out += [f"Who: {_cause(result)}.", "", "| section | kind | deployed | device |", "| --- | --- | --- | --- |"]
        for change in result.changes:
            out += _md_change(change)
    if result.pending:
        out += ["", "Merged, not deployed yet:", ""]
        out += [f"* `{pending_line(change)}`" for change in result.pending]
    if result.notes:
        out += ["", *[f"* note: {n}" for n in result.notes]]
    if result.status in DRIFTED:
        out += ["", "**Revert** (restores the config it was last deployed with):", "", "```sh"]
        out += [revert_command(audit, result), "```"]
        adopt = adoption(result)
        if adopt.fields:
            fields = ", ".join(f"`{f}`" for f in adopt.fields)
            out += ["", f"**Keep the change** in intent ({fields}), then `fabricops compile`, review, merge, deploy:"]
            out += ["", "```sh", adopt_command(audit, result), "```"]
        if adopt.extra_config:
            out += [
                "",
                "**Keep what the schema cannot say**: add to `intent/fabric.yaml`, then `fabricops compile`, "
                "review, merge, deploy:",
            ]
            out += ["", "```yaml", adopt.yaml(result.device).rstrip("\n"), "```"]
        if adopt.not_adoptable:
            out += ["", *[f"* not adoptable: {n}" for n in adopt.not_adoptable]]
    if result.status in ("pending", "drift+pending"):
        out += ["", "**Apply the merged change**:", "", "```sh", apply_command(audit, result), "```"]
    return out


def audit_topology(audit: Audit, root: Path) -> Topology | None:
    """The cabling of ``generated/`` at the audited commit, for the maps; None when git has not that commit."""
    try:
        return Topology.read(open_snapshot(root, audit.commit))
    except FabricopsError:
        return None


def status_map(audit: Audit, topology: Topology, devices: Iterable[str]) -> list[str]:
    """A Mermaid map of ``devices`` and their neighbours, every device coloured by its state (in sync: grey)."""
    marks = {r.device: r.status for r in audit.devices if r.status != "in-sync"}
    seen = [(r, where.split()[0]) for r in audit.devices if r.status == "unmanaged" for where in r.seen_by]
    unmanaged = {r.device: ("unmanaged", topology.switches.get(seer, ("", ""))[1]) for r, seer in seen}
    topology = topology.with_switches(
        {name: kind for name, kind in unmanaged.items() if name not in topology.switches},
        [Link(seer, r.device, "lldp", "") for r, seer in seen],
    )
    return mermaid.markdown(neighbourhood(topology, devices, marks))


def render_markdown(audit: Audit, topology: Topology | None = None) -> str:
    """The report as markdown, for a CI run to open as an issue; with ``topology``, a map of what is not in sync."""
    counts = _summary(audit)
    title = ", ".join(f"{counts[s]} {s}" for s in STATUSES if s != "in-sync")
    out = [
        f"# Drift report: {title} of {len(audit.devices)}",
        "",
        f"Audited against what each device was last deployed with, and the intent at `{audit.ref}` "
        f"(`{audit.commit[:12]}`), at {audit.started}{' in the lab' if audit.lab else ''}; {_summary_line(audit)}.",
    ]
    if audit.missing_shards():
        out += ["", f"**Not audited**: shard(s) {', '.join(audit.missing_shards())} left no report (the job failed)."]
    out += [*[f"* note: {n}" for n in audit.notes]]
    out += ["", "| device | status | changes |", "| --- | --- | --- |"]
    out += [
        f"| {d.device} | {d.status} | {len(d.changes) + len(d.pending) or d.error} |"
        for d in audit.devices
        if d.status != "in-sync"
    ]
    found = [d.device for d in audit.devices if d.status != "in-sync"]
    if topology is not None and found:
        out += ["", "## Map", "", *status_map(audit, topology, found)]
    for result in audit.devices:
        if result.status != "in-sync":
            out += ["", *device_markdown(audit, result)]
    noted = [r for r in audit.devices if r.notes and r.status == "in-sync"]
    if noted:
        out += ["", "## Notes", ""]
        out += [f"* {r.device}: {note}" for r in noted for note in r.notes]
    return "\n".join(out) + "\n"


#: Issue action per status: drift and unmanaged switches get one; in sync and pending close
#: it; unreachable keeps whatever is open (its state is unknown).
_ISSUE_ACTION = {
    "drift": "open",
    "drift+pending": "open",
    "unmanaged": "open",
    "in-sync": "close",
    "pending": "close",
    "unreachable": "keep",
}


def issue_marker(device: str) -> str:
    """The marker that makes an issue one this audit opened, for exactly one device."""
    return f'<!-- fabricops-drift device="{device}" -->'


def issue_plan(audit: Audit, topology: Topology | None = None) -> list[dict[str, str]]:
    """Per audited device: the issue to open or update (title, body with its marker), close, or keep.

    With ``topology``, a body starts with the map around its device (before the changes, which
    are cut where a body would pass GitHub's limit).
    """
    plan = []
    for result in audit.devices:
        action = _ISSUE_ACTION[result.status]
        kind = "unmanaged switch" if result.status == "unmanaged" else "drift"
        body = ""
        if action == "open":
            picture = status_map(audit, topology, [result.device]) if topology is not None else []
            section = "\n".join([*picture, *([""] if picture else []), *device_markdown(audit, result)])
            body = f"{issue_marker(result.device)}\nFound by the scheduled drift audit.\n\n{section}\n"[:65000]
        plan.append(
            {
                "device": result.device,
                "status": result.status,
                "action": action,
                "marker": issue_marker(result.device),
                "title": f"{kind}: {result.device}",
                "body": body,
            }
        )
    return plan


def write_reports(audit: Audit, report_dir: Path | None, root: Path, topology: Topology | None = None) -> Path:
    """Write ``report.md``, ``report.json`` and ``issues.json`` (default directory: reports/drift/<stamp>/).

    ``topology`` (:func:`audit_topology`) draws the maps of the report and the issues.
    """
    if report_dir is None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        report_dir = root / DEFAULT_REPORT_DIR / stamp
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / "report.md").write_text(render_markdown(audit, topology))
    (report_dir / "report.json").write_text(json.dumps(render_json(audit), indent=2, sort_keys=False) + "\n")
    (report_dir / "issues.json").write_text(json.dumps(issue_plan(audit, topology), indent=2) + "\n")
    return report_dir


def statuses(results: Iterable[DeviceResult]) -> dict[str, str]:
    """Device -> status, for tests and summaries."""
    return {r.device: r.status for r in results}
