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
from review.diff import DeviceChange, Review

MAX_LISTED_ROWS = 20


def as_json(review: Review, findings: list[dict[str, Any]]) -> str:
    return json.dumps({**asdict(review), "changed": review.changed, "findings": findings}, indent=2)


def _sections(device: DeviceChange) -> list[str]:
    lines = []
    for change in device.sections:
        detail = f": {'; '.join(change.details)}" if change.details else ""
        lines.append(f"{change.status} {change.path}{detail}")
    return lines


def _blast_lines(review: Review) -> list[str]:
    blast = review.blast
    return [
        f"devices: {blast.devices}",
        f"redundancy groups: {', '.join(blast.redundancy_groups) or 'none'}",
        "both members of an MLAG pair: " + (", ".join(blast.both_members) or "no"),
        "spines: " + (", ".join(blast.spines) or "none"),
    ]


def as_text(review: Review, findings: list[dict[str, Any]]) -> str:
    out = [review.summary, ""]
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
    out = ["### fabricops review", "", f"**{review.summary}**", ""]
    out += [f"Base `{review.base[:12]}` → head `{review.head[:12]}`", ""]
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
        out += ["| device | change | lines | sections |", "| --- | --- | --- | --- |"]
        for device in review.devices:
            sections = ", ".join(f"{c.status} `{c.path}`" for c in device.sections[:8])
            more = f" (+{len(device.sections) - 8} more)" if len(device.sections) > 8 else ""
            lines = f"+{device.lines_added} -{device.lines_removed}"
            out.append(f"| `{device.device}` | {device.status} | {lines} | {sections}{more} |")
        out.append("")
    for table in review.artifacts:
        out.append(f"**`generated/{table.path}`**: +{len(table.added)} -{len(table.removed)} rows")
        rows = [f"+ {r}" for r in table.added[:MAX_LISTED_ROWS]] + [f"- {r}" for r in table.removed[:MAX_LISTED_ROWS]]
        out += ["```diff", *rows, "```", ""]
    for device in review.devices:
        out += [
            f"<details><summary><code>{device.device}</code> config diff</summary>",
            "",
            "```diff",
            device.unified_diff.rstrip(),
            "```",
            "</details>",
            "",
        ]
    return "\n".join(out).rstrip() + "\n"
