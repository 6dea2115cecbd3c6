"""The escape hatch parsed: ``extra_config`` blocks as sections, merged where the schema has a field.

``fabric.yaml`` ``extra_config`` holds EOS lines per switch for what the intent cannot say.
They are not appended blind: each block is parsed into sections (a line at the left margin
and the indented lines below it), and

* an ``interface`` section of an interface the switch has is merged into that interface (a
  line of a structured field, ``mtu 1500``, replaces the field, so the checks see it; any other
  line is printed in the interface's stanza); the other sections are printed after the config;
* a line the schema can express (:func:`core.expressible.structured_form`) is refused
  with the entry that writes it (EXT001);
* a section written twice in one block, a front-panel interface the switch's model does not
  have, an interface range or list, or a ``no shutdown`` of a port ``ports.yaml`` shuts is
  refused (EXT002): EOS would merge, reject or spread what a reviewer reads otherwise.

Every problem names ``intent/fabric.yaml``, the line inside the block and what to do.

Example:
    >>> block = parse_block("interface Ethernet1/1\\n   mtu 1500\\n!\\nip name-server vrf MGMT 10.0.0.5\\n")
    >>> [(s.header.text, [c.text for c in s.children]) for s in block]
    [('interface Ethernet1/1', ['mtu 1500']), ('ip name-server vrf MGMT 10.0.0.5', [])]
    >>> block[0].children[0].offset
    1
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from compiler.facts.common import Problem
from compiler.platforms.eos import interface_line_field, is_front_panel
from compiler.sources import Source
from core.expressible import structured_form

if TYPE_CHECKING:
    from compiler.facts.provenance import ProvenanceBook
    from compiler.facts.topology import Topology
    from compiler.intent import Intent
    from compiler.structured.model import Interface

__all__ = [
    "ExtraLine",
    "ExtraSection",
    "extra_line",
    "extra_problems",
    "extra_where",
    "field_where",
    "merged_interfaces",
    "parse_block",
    "record_extra",
]


_ONE_INTERFACE = re.compile(r"^[A-Za-z-]+\d+(/\d+)*$")
"""One interface name (not a range such as ``1/1-4`` or a list ``1/1,2/1``)."""


class ExtraLine(NamedTuple):
    """One line of a block: its 0-based offset in the block, the line as written (no newline)
    and its text without indentation."""

    offset: int
    raw: str
    text: str
    depth: int = 0
    """Columns deeper than the section's first line below its header (0: a line of the section
    itself, more: a line of a block inside it, ``uc-tx-queue 3`` > ``random-detect ecn count``)."""

    @property
    def nested(self) -> str:
        """The line with its depth inside the section kept, as printed in the interface's stanza."""
        return " " * self.depth + self.text


class ExtraSection(NamedTuple):
    """A line at the left margin and the indented lines below it, in order."""

    header: ExtraLine
    children: tuple[ExtraLine, ...] = ()

    @property
    def interface(self) -> str | None:
        """The interface the section configures, or None."""
        words = self.header.text.split()
        return words[1] if len(words) == 2 and words[0] == "interface" else None


def parse_block(text: str) -> tuple[ExtraSection, ...]:
    """The sections of one ``extra_config`` block (``!`` and blank lines separate, nothing else)."""
    sections: list[tuple[ExtraLine, list[ExtraLine]]] = []
    for index, raw in enumerate(text.splitlines()):
        stripped = raw.strip()
        if not stripped or stripped in {"!", "end"}:
            continue
        line = ExtraLine(index, raw.rstrip(), stripped)
        if raw[:1].isspace() and sections:
            sections[-1][1].append(line)
        else:
            sections.append((line, []))
    return tuple(ExtraSection(header, _depths(children)) for header, children in sections)


def _depths(children: list[ExtraLine]) -> tuple[ExtraLine, ...]:
    if not children:
        return ()
    base = len(children[0].raw) - len(children[0].raw.lstrip())
    return tuple(c._replace(depth=max(0, len(c.raw) - len(c.raw.lstrip()) - base)) for c in children)


def extra_line(intent: Intent, device: str, index: int) -> int | None:
    """The line of ``intent/fabric.yaml`` that holds the ``index``-th line of ``device``'s block: a
    literal block (``|``) starts on the line after its key, a one-line value is on the key's line."""
    key_line = intent.lines.line(_source(device))
    if key_line is None:
        return None
    raw = intent.lines.raw.get("fabric.yaml", b"").decode("utf-8", "replace").splitlines()
    header = raw[key_line - 1].split("#", 1)[0].rstrip() if key_line <= len(raw) else ""
    return key_line + 1 + index if header.endswith(("|", "|-", "|+", ">", ">-", ">+")) else key_line


def extra_where(intent: Intent, device: str, index: int) -> str:
    """``intent/fabric.yaml:<line>: extra_config.<device>`` of the block's ``index``-th line."""
    where = intent.where(_source(device))
    key_line, line = intent.lines.line(_source(device)), extra_line(intent, device, index)
    return where.replace(f"fabric.yaml:{key_line}:", f"fabric.yaml:{line}:", 1) if key_line and line else where


def field_where(intent: Intent, device: str, interface: str, field: str) -> str | None:
    """Where the block of ``device`` sets ``field`` of ``interface`` (its last line that does), or None."""
    found: int | None = None
    for section in parse_block(intent.fabric.extra_config.get(device, "")):
        if section.interface == interface:
            for child in section.children:
                known = interface_line_field(child.text) if not child.depth else None
                if known is not None and known[0] == field:
                    found = child.offset
    return extra_where(intent, device, found) if found is not None else None


def merged_interfaces(
    interfaces: tuple[Interface, ...], sections: tuple[ExtraSection, ...]
) -> tuple[tuple[Interface, ...], str | None]:
    """The interfaces with the block's interface sections merged in (a structured field's line
    replaces the field, any other line is kept in the stanza), and the rest of the block as text
    (``None`` when nothing is left).

    Example:
        >>> from compiler.structured.model import Interface
        >>> merged, rest = merged_interfaces((Interface("Ethernet1/1", mtu=9214),), parse_block(
        ...     "interface Ethernet1/1\\n   mtu 1500\\n   load-interval 5\\n"
        ...     "   uc-tx-queue 4\\n      random-detect ecn count\\nip name-server vrf MGMT 10.0.0.5\\n"))
        >>> merged[0].mtu, merged[0].extra, rest
        (1500, ('load-interval 5', 'uc-tx-queue 4', '   random-detect ecn count'), 'ip name-server vrf MGMT 10.0.0.5')
    """
    by_name = {iface.name: iface for iface in interfaces}
    rest: list[str] = []
    for section in sections:
        name = section.interface
        if name is None or name not in by_name:
            rest += [section.header.raw, *(child.raw for child in section.children)]
            continue
        iface = by_name[name]
        extra = list(iface.extra)
        for child in section.children:
            known = interface_line_field(child.text) if not child.depth else None
            if known is not None:
                field: dict[str, Any] = {known[0]: known[1]}
                iface = iface._replace(**field)
            else:
                extra.append(child.nested)
        by_name[name] = iface._replace(extra=tuple(extra))
    return tuple(by_name.values()), "\n".join(rest) if rest else None


def record_extra(book: ProvenanceBook, intent: Intent) -> None:
    """``extra_config`` as the source of every interface field its lines set (``extra``: the lines
    no field holds), and of the block."""
    for device, text in intent.fabric.extra_config.items():
        book.setting(device, "extra_config", _source(device))
        for section in parse_block(text):
            name = section.interface
            if name is None:
                continue
            fields = {
                known[0] if known else "extra"
                for child in section.children
                for known in [interface_line_field(child.text) if not child.depth else None]
            }
            if fields:
                book.port(device, name, _source(device), sorted(fields))


def _source(device: str) -> Source:
    return Source("fabric.yaml", ("extra_config", device))


def extra_problems(
    intent: Intent, topology: Topology, blocks: Mapping[str, tuple[ExtraSection, ...]]
) -> tuple[Problem, ...]:
    """Every line of ``extra_config`` the schema writes (EXT001), every section written twice,
    interface the switch lacks or ``no shutdown`` of a port ``ports.yaml`` shuts (EXT002), one
    problem each, in block order."""
    found: list[Problem] = []
    for device, sections in sorted(blocks.items()):
        switch = topology.switches.get(device)
        if switch is None:
            continue  # REF002 names the block
        seen: dict[str, int] = {}
        for section in sections:
            header = section.header
            first = seen.setdefault(header.text, header.offset)
            if first != header.offset and section.children:
                found.append(
                    Problem(
                        "EXT002",
                        extra_where(intent, device, header.offset),
                        f"{header.text!r} is written twice in {device}'s block (first on line "
                        f"{extra_line(intent, device, first)}): merge the two into one section",
                    )
                )
            name = section.interface
            if header.text.split()[0] == "interface" and (name is None or not _ONE_INTERFACE.match(name)):
                found.append(
                    Problem(
                        "EXT002",
                        extra_where(intent, device, header.offset),
                        f"{header.text!r} names a range or list: write one section per interface, so the "
                        "checks see each",
                    )
                )
                continue
            if name is not None and is_front_panel(name) and name not in switch.layout.interfaces:
                found.append(
                    Problem(
                        "EXT002",
                        extra_where(intent, device, header.offset),
                        f"{name} does not exist on {device} ({switch.model}): name one of its interfaces "
                        "(docs/hardware.md)",
                    )
                )
                continue
            own = [child for child in section.children if not child.depth]
            settings = intent.ports.get(device, {}).get(name or "")
            for child in own:
                if (
                    settings is not None
                    and settings.shutdown
                    and interface_line_field(child.text) == ("shutdown", False)
                ):
                    found.append(
                        Problem(
                            "EXT002",
                            extra_where(intent, device, child.offset),
                            f"'no shutdown' contradicts intent/ports.yaml: ports.{device}.{name}.shutdown "
                            f"({settings.shutdown!r}): remove that entry to bring the port back",
                        )
                    )
            for path, line in ((), header), *(((header.text,), child) for child in own):
                form = structured_form(device, path, line.text)
                if form is not None:
                    found.append(
                        Problem(
                            "EXT001",
                            extra_where(intent, device, line.offset),
                            f"{line.text!r} is said by the schema, not extra_config: write {form}",
                        )
                    )
                    if not path:
                        break  # a refused section header: its lines go with it
    return tuple(found)
