"""A review as text, markdown (the sticky PR comment) or JSON.

The markdown draws the blast radius as a Mermaid picture (:func:`blast_picture`): the devices
that change, coloured by how (changed, added, removed), and every switch one cable away, grouped
when a tier is crowded, so a one-port change and a 20-rack change both give a picture that fits.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from core import mermaid
from core.topology import Topology, neighbourhood
from review.causes import Cause, pair_names
from review.diff import DeviceChange, Review

MAX_LISTED_ROWS = 20
#: Past this many intent changes, the comment lists them by kind and folds the full list.
MAX_LISTED_CAUSES = 12
#: Config lines listed per intent change before "(+N more)".
MAX_TOUCHES = 20
#: Past this many changed devices, the per-device table is folded.
MAX_DEVICE_ROWS = 12
#: The comment stops adding folded detail here: a GitHub comment holds 65,536 characters.
MAX_COMMENT_CHARS = 60_000
#: The folded config lines by intent change stop here.
MAX_CAUSE_LINES_CHARS = 15_000
#: What the blast radius always says yes or no to.
WATCHED = ("QoS/PFC policy", "MLAG peer-link", "uplink")
RISK_MARK = "\u26a0\ufe0f"


def as_json(review: Review, findings: list[dict[str, Any]]) -> str:
    return json.dumps({**asdict(review), "changed": review.changed, "findings": findings}, indent=2)


def _sections(device: DeviceChange) -> list[str]:
    lines = []
    for change in device.sections:
        detail = f": {'; '.join(change.details)}" if change.details else ""
        lines.append(f"{change.status} {change.path}{detail}")
    return lines


def _listed(names: list[str], limit: int = 8) -> str:
    return ", ".join(names[:limit]) + (f" (+{len(names) - limit} more)" if len(names) > limit else "")


def _blast_lines(review: Review) -> list[str]:
    blast = review.blast
    devices = pair_names(d.device for d in review.devices)
    return [
        f"devices: {blast.devices}" + (f" ({_listed(devices)})" if devices else ""),
        f"ports: {blast.ports}",
        f"servers: {len(blast.servers)}" + (f" ({_listed(blast.servers)})" if blast.servers else ""),
        "spines: " + (", ".join(blast.spines) or "none"),
        *(f"{what}: {'touched' if what in blast.risks else 'untouched'}" for what in WATCHED),
        "risks: " + (", ".join(blast.risks) or "none"),
        f"redundancy groups: {', '.join(blast.redundancy_groups) or 'none'}",
        "both members of an MLAG pair: " + (", ".join(blast.both_members) or "no"),
    ]


def base_line(review: Review) -> str:
    """Which two trees are compared: the base (and how it was chosen) and the head."""
    head = "generated/ in the work tree" if review.head == "WORKTREE" else review.head[:12]
    note = f", {review.base_note}" if review.base_note else ""
    return f"compared with {review.base[:12]}{note}; head: {head}"


def headline(review: Review) -> str:
    """The first line a reviewer reads: the intent changes (by kind past three), then the spines.

    Example:
        >>> from review.diff import BlastRadius
        >>> one = Cause("ports.yaml: ports.leaf1.Ethernet3", "port", "shut", "port leaf1 Ethernet3 shut: NIC failed")
        >>> r = Review("b", "h", "1 port changed on leaf1", [], BlastRadius(1, [], [], []), [], [one])
        >>> headline(r)
        'port leaf1 Ethernet3 shut: NIC failed; no spine touched'
    """
    if not review.causes:
        return review.summary
    if len(review.causes) <= 3:
        parts = [cause.title for cause in review.causes]
    else:
        parts = [f"{len(review.causes)} intent changes: {by_kind(review.causes)}"]
    spines = f"spines touched: {', '.join(review.blast.spines)}" if review.blast.spines else "no spine touched"
    return "; ".join([*parts, spines])


_NOUNS = {
    "vlan": "VLAN",
    "port": "port",
    "server": "server",
    "device": "switch setting",
    "design": "design key",
    "switch": "switch",
    "other": "untraced group",
}


def by_kind(causes: list[Cause]) -> str:
    """Intent changes counted by kind and status: ``180 servers added, 2 VLANs added``."""
    counts: dict[tuple[str, str], int] = {}
    for cause in causes:
        key = (cause.kind, cause.status)
        counts[key] = counts.get(key, 0) + (len(cause.devices) if cause.kind == "switch" else 1)
    parts = []
    for (kind, status), count in counts.items():
        noun = _NOUNS.get(kind, kind)
        plural = noun if count == 1 else f"{noun}es" if noun.endswith("ch") else f"{noun}s"
        parts.append(f"{count} {plural} {status}")
    return ", ".join(parts)


def _cause_lines(cause: Cause) -> list[str]:
    shown = [str(touch) for touch in cause.touches[:MAX_TOUCHES]]
    if len(cause.touches) > MAX_TOUCHES:
        shown.append(f"(+{len(cause.touches) - MAX_TOUCHES} more)")
    return shown


def _risk(cause: Cause) -> str:
    return f" (risk: {', '.join(cause.risks)})" if cause.risks else ""


def as_text(review: Review, findings: list[dict[str, Any]]) -> str:
    out = [headline(review), base_line(review), review.summary, ""]
    if review.causes:
        out.append(f"Intent changes ({len(review.causes)}):")
        for cause in review.causes:
            mark = "! " if cause.risks else "  "
            source = f" [{cause.element}]" if cause.element else ""
            out.append(f"{mark}{cause.title}{source}{_risk(cause)}")
            out += [f"      {line}" for line in _cause_lines(cause)]
        out.append("")
    out += ["Blast radius:", *(f"  {line}" for line in _blast_lines(review)), ""]
    for device in review.devices:
        out.append(f"{device.device} ({device.status}, +{device.lines_added} -{device.lines_removed})")
        out += [f"  {line}" for line in _sections(device)]
    for table in review.artifacts:
        out.append(f"{table.path}: +{len(table.added)} -{len(table.removed)} rows")
    problems = [f for f in findings if f["severity"] != "info"]
    out += ["", f"Checks: {len(problems)} finding(s)"] + [
        f"  {f['severity']} {f['rule']} {f['subject']}: {f['message']}" for f in problems
    ]
    return "\n".join(out).rstrip() + "\n"


def blast_picture(review: Review, topology: Topology) -> list[str]:
    """The changed devices and their neighbours as a Mermaid block (empty when no device changes)."""
    if not review.devices:
        return []
    marks = {device.device: device.status for device in review.devices}
    return mermaid.markdown(neighbourhood(topology, marks, marks))


def as_markdown(review: Review, findings: list[dict[str, Any]], topology: Topology | None = None) -> str:
    """The PR comment; with the ``topology`` of both refs, the blast radius is drawn too."""
    out = ["### fabricops review", "", f"**{headline(review)}**", ""]
    out += [f"Base `{review.base[:12]}`" + (f" ({review.base_note})" if review.base_note else "")]
    out += [f"→ head `{review.head[:12]}`: {review.summary}", ""]
    if review.blast.risks:
        out += [f"{RISK_MARK} **Risky:** {', '.join(review.blast.risks)}", ""]
    out += _causes_markdown(review.causes)
    out += ["| blast radius | |", "| --- | --- |"]
    out += [f"| {line.split(': ', 1)[0]} | {line.split(': ', 1)[1]} |" for line in _blast_lines(review)]
    out.append("")
    picture = blast_picture(review, topology) if topology is not None else []
    out += [*picture, *([""] if picture else [])]
    errors = [f for f in findings if f["severity"] == "error"]
    warnings = [f for f in findings if f["severity"] == "warning"]
    out.append(f"**Checks:** {len(errors)} error(s), {len(warnings)} warning(s)")
    out += [f"- `{f['rule']}` {f['severity']} {f['subject']}: {f['message']}" for f in errors + warnings]
    out.append("")
    if review.devices:
        folded = len(review.devices) > MAX_DEVICE_ROWS
        if folded:
            out += [f"<details><summary>{len(review.devices)} devices change</summary>", ""]
        out += ["| device | change | lines | sections |", "| --- | --- | --- | --- |"]
        for device in review.devices:
            sections = ", ".join(f"{c.status} `{c.path}`" for c in device.sections[:8])
            more = f" (+{len(device.sections) - 8} more)" if len(device.sections) > 8 else ""
            lines = f"+{device.lines_added} -{device.lines_removed}"
            out.append(f"| `{device.device}` | {device.status} | {lines} | {sections}{more} |")
        out += ["", *(["</details>", ""] if folded else [])]
    for table in review.artifacts:
        out.append(f"**`generated/{table.path}`**: +{len(table.added)} -{len(table.removed)} rows")
        rows = [f"+ {r}" for r in table.added[:MAX_LISTED_ROWS]] + [f"- {r}" for r in table.removed[:MAX_LISTED_ROWS]]
        out += ["```diff", *rows, "```", ""]
    budget = MAX_COMMENT_CHARS - sum(len(line) + 1 for line in out)
    for index, device in enumerate(review.devices):
        block = [
            f"<details><summary><code>{device.device}</code> config diff</summary>",
            "",
            "```diff",
            device.unified_diff.rstrip(),
            "```",
            "</details>",
            "",
        ]
        budget -= sum(len(line) + 1 for line in block)
        if budget < 0:
            rest = len(review.devices) - index
            out += [f"_{rest} more device diff(s) left out of this comment: `fabricops diff --base ...` prints them._"]
            break
        out += block
    return "\n".join(out).rstrip() + "\n"


def _causes_markdown(causes: list[Cause]) -> list[str]:
    """The intent changes: each on one line (by kind past :data:`MAX_LISTED_CAUSES`, the full list
    folded), then their config lines folded."""
    if not causes:
        return []

    def bullet(cause: Cause) -> str:
        mark = f"{RISK_MARK} " if cause.risks else ""
        source = f" — `{cause.element}`" if cause.element else ""
        return f"- {mark}{cause.title}{source}{_risk(cause)}"

    out = [f"#### Intent changes ({len(causes)})", ""]
    if len(causes) <= MAX_LISTED_CAUSES:
        out += [bullet(cause) for cause in causes]
    else:
        out += [f"- {part}" for part in by_kind(causes).split(", ")]
        risky = [cause for cause in causes if cause.risks]
        out += [bullet(cause) for cause in risky[:MAX_LISTED_CAUSES]]
        out += ["", f"<details><summary>All {len(causes)} intent changes</summary>", ""]
        out += [bullet(cause) for cause in causes]
        out += ["", "</details>"]
    out += ["", "<details><summary>Config lines by intent change</summary>", ""]
    budget = MAX_CAUSE_LINES_CHARS
    for index, cause in enumerate(causes):
        block = [f"**{cause.title}**", "", *(f"- `{line}`" for line in _cause_lines(cause)), ""]
        budget -= sum(len(line) + 1 for line in block)
        if budget < 0:
            out += [f"_{len(causes) - index} more: `fabricops diff --base ...` prints every line._", ""]
            break
        out += block
    out += ["</details>", ""]
    return out
