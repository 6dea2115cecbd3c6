"""Pure helpers over config text: fingerprints of live configs, diff summaries, shut ports.

Examples:
    >>> text = "! Command: show running-config\\n! device: leaf1 (x, EOS-4.31.2F)\\n!\\nhostname leaf1\\nend\\n"
    >>> normalise_running(text)
    '!\\nhostname leaf1\\nend\\n'
    >>> fingerprint(text, b"k") == fingerprint(text.replace("EOS-4.31.2F", "EOS-4.32.1F"), b"k")
    True
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass, field

# Header lines EOS prints that change without the configuration changing (the command that
# printed it, the software version in the device line, when startup was last written).
VOLATILE_HEADERS = ("! Command:", "! device:", "! Startup-config last modified")
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


def normalise_running(text: str) -> str:
    """``text`` without the volatile header lines, so that equal configs hash equal.

    Examples:
        >>> normalise_running("! Startup-config last modified at Mon\\nhostname a\\n")
        'hostname a\\n'
    """
    lines = text.splitlines(keepends=True)
    return "".join(line for line in lines if not line.startswith(VOLATILE_HEADERS))


def fingerprint(text: str, key: bytes) -> str:
    """HMAC-SHA256 of the normalised running config under ``key``, as stored in a plan and compared at deploy.

    Keyed with the persistent mask key (:func:`core.secrets.mask_key`): ``plan.json`` outlives
    the run, and a plain hash of a whole config would let someone who knows the rest of it test
    guesses of a weak secret in it offline. Without the key a fingerprint says nothing.

    Examples:
        >>> fingerprint("! Command: show running-config\\nhostname a\\n", b"k") == fingerprint("hostname a\\n", b"k")
        True
        >>> fingerprint("hostname a\\n", b"k") != fingerprint("hostname a\\n", b"other")
        True
        >>> len(fingerprint("hostname a\\n", b"k"))
        64
    """
    return hmac.new(key, normalise_running(text).encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class DiffSummary:
    """What a device diff changes: counts of added and removed lines, and the sections touched."""

    added: int = 0
    removed: int = 0
    sections: tuple[str, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, object]:
        return {"added": self.added, "removed": self.removed, "sections": list(self.sections)}

    def short(self) -> str:
        """One line, as reports print it.

        Examples:
            >>> DiffSummary(3, 1, ("hostname leaf1", "interface Ethernet1")).short()
            '+3 -1 (2 sections: hostname leaf1, interface Ethernet1)'
            >>> DiffSummary(40, 0, tuple(f"interface Ethernet{i}" for i in range(9))).short()
            '+40 -0 (9 sections: interface Ethernet0, interface Ethernet1, interface Ethernet2, ...)'
        """
        shown = ", ".join(self.sections[:3]) + (", ..." if len(self.sections) > 3 else "")
        return f"+{self.added} -{self.removed} ({len(self.sections)} sections: {shown})"


def _is_section(line: str) -> bool:
    return bool(line) and not line[0].isspace() and line not in ("!", "end") and not line.startswith("!")


def summarise_diff(diff: str, running: str = "") -> DiffSummary:
    """Counts and top-level sections of an EOS session diff.

    Handles both diff styles EOS prints: a unified diff with ``@@`` hunks (the section of a
    hunk's first lines is looked up in ``running``, the config the diff was taken against), and
    the hierarchical diff of newer releases, where parent lines come as unprefixed context.

    Examples:
        >>> diff = "interface Ethernet1\\n-   shutdown\\n+   mtu 9214\\n+hostname leaf1"
        >>> summarise_diff(diff)
        DiffSummary(added=2, removed=1, sections=('interface Ethernet1', 'hostname'))
        >>> running = "! device: x\\n!\\ninterface Ethernet5\\n   description a\\n   mtu 1500\\n"
        >>> summarise_diff("@@ -4,1 +4,1 @@\\n-   mtu 1500\\n+   mtu 9214", running)
        DiffSummary(added=1, removed=1, sections=('interface Ethernet5',))
    """
    old = running.splitlines()
    if old and old[0].startswith("! Command:"):
        old = old[1:]  # EOS diffs the config without its "! Command:" line
    added = removed = 0
    current = ""
    sections: list[str] = []
    rows = [raw for raw in diff.splitlines() if not raw.startswith(("---", "+++"))]
    for index, raw in enumerate(rows):
        hunk = _HUNK.match(raw)
        if hunk:
            start = int(hunk.group(1))
            current = next((line for line in reversed(old[:start]) if _is_section(line)), "")
            continue
        sign, body = _split(raw)
        if _is_section(body):
            following = _split(rows[index + 1])[1] if index + 1 < len(rows) else ""
            # A block is named by its header; a one-line setting by its keyword (ntp, username, ...).
            current = body if following[:1].isspace() else body.split()[0]
        if sign == " " or body.strip() in ("", "!"):
            continue
        if sign == "+":
            added += 1
        else:
            removed += 1
        if current and current not in sections:
            sections.append(current)
    return DiffSummary(added, removed, tuple(sections))


def _split(raw: str) -> tuple[str, str]:
    """A diff line as (marker, text)."""
    return (raw[0], raw[1:]) if raw[:1] in ("+", "-", " ") else (" ", raw)


def shutdown_ports(config: str) -> set[str]:
    """Interfaces that ``config`` shuts down (an indented ``shutdown`` in their block).

    Examples:
        >>> sorted(shutdown_ports("interface Ethernet1\\n   shutdown\\ninterface Ethernet2\\n   mtu 9214\\n"))
        ['Ethernet1']
    """
    shut: set[str] = set()
    current = None
    for line in config.splitlines():
        if line.startswith("interface "):
            current = line.split(None, 1)[1].strip()
        elif line and not line[0].isspace():
            current = None
        elif current is not None and line.strip() == "shutdown" and _indent(line) == 3:
            shut.add(current)
    return shut


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def config_hostname(config: str) -> str | None:
    """The ``hostname`` a config sets, if any.

    Examples:
        >>> config_hostname("!\\nhostname spine01\\n")
        'spine01'
    """
    for line in config.splitlines():
        if line.startswith("hostname "):
            return line.split(None, 1)[1].strip()
    return None
