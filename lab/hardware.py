"""An emulated switch as a model of the catalog (:mod:`core.hardware`): its ports and identity.

A device whose model is in the catalog has exactly that model's ports: the interfaces of each
cage's current breakout (the mode the ``speed`` of its first lane selects) plus the management
ports, listed by ``show interfaces`` and printed as empty stanzas when unconfigured, as a real
switch does. A line naming an Ethernet or Management interface the model lacks is refused with
EOS's parser error, ``Invalid input (at token 1: 'Ethernet49')``, so a config written for another
model fails in the lab as it fails on the floor. A model outside the catalog keeps the generic
``Ethernet1..N`` ports (``ethernet_ports`` of the inventory).

Examples:
    >>> from core.hardware import model
    >>> hw = model("DCS-7060DX5-32")
    >>> port_error(hw, "interface Ethernet49")
    "Invalid input (at token 1: 'Ethernet49')"
    >>> port_error(hw, "interface Ethernet1/5") is None, port_error(hw, "interface Port-Channel10") is None
    (True, True)
"""

from __future__ import annotations

from core.hardware import Model, speed_gbps
from lab.configtree import Config
from lab.grammar import canonical_interface


def active_ports(hw: Model, config: Config) -> list[str]:
    """The model's Ethernet interfaces under ``config``'s breakouts, then its management ports.

    Examples:
        >>> from core.hardware import model
        >>> from lab.configtree import Editor
        >>> cfg = Config()
        >>> editor = Editor(cfg)
        >>> for line in ["interface Ethernet2/1", "speed 200g-4"]:
        ...     editor.apply(line)
        >>> active_ports(model("DCS-7060DX5-32"), cfg)[1:4]
        ['Ethernet2/1', 'Ethernet2/5', 'Ethernet3/1']
    """
    modes = {}
    blocks = config.interfaces()
    for port in hw.ports:
        block = blocks.get(port.name(1)) if port.kind.lanes > 1 else None
        speeds = [c.text.removeprefix("speed ") for c in block.children if c.text.startswith("speed ")] if block else []
        mode = port.mode_for_keyword(speeds[0]) if speeds else None
        if mode is not None and mode.name != port.kind.default:
            modes[port.label] = mode.name
    # A model's interfaces under breakouts: the same few sets for every switch of a fleet, sorted once.
    key = (hw.id, tuple(sorted(modes.items())))
    found = _ACTIVE.get(key)
    if found is None:
        found = _ACTIVE[key] = (*hw.active_interfaces(modes), *hw.management)
    return list(found)


_ACTIVE: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[str, ...]] = {}


def port_error(hw: Model | None, line: str, *, abbreviations: bool = False) -> str | None:
    """EOS's error for a line that opens (or removes) an interface ``hw`` lacks; None otherwise.

    ``abbreviations``: keywords may be shortened (``int et49``), as with eAPI's ``autoComplete``.
    """
    if hw is None:
        return None
    words = line.split()
    first = 1 if words and words[0].lower() in ("no", "default") else 0
    if len(words) != first + 2:
        return None
    keyword = words[first].lower()
    if keyword != "interface" and not (abbreviations and len(keyword) >= 3 and "interface".startswith(keyword)):
        return None
    name = canonical_interface(words[first + 1])
    if name is None or hw.has_interface(name):
        return None
    return f"Invalid input (at token {first + 1}: '{words[first + 1]}')"


def drop_missing_ports(hw: Model | None, text: str) -> tuple[str, list[str]]:
    """``text`` without the interface stanzas ``hw`` lacks, and a load error for each.

    What a switch booting that config does: the ``interface`` line is refused and the lines
    under it have nowhere to go.

    Examples:
        >>> from core.hardware import model
        >>> text = "interface Ethernet53\\n   mtu 9214\\n!\\nhostname a\\n"
        >>> drop_missing_ports(model("DCS-7010TX-48"), text)
        ('\\n\\n!\\nhostname a\\n', ["line 1: Invalid input (at token 1: 'Ethernet53')"])
    """
    if hw is None:
        return text, []
    kept: list[str] = []
    errors: list[str] = []
    skipping = False
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        if not line.startswith(" "):
            error = port_error(hw, line.strip())
            skipping = error is not None
            if error is not None:
                errors.append(f"line {number}: {error}")
        # A dropped line leaves a blank one, so later errors keep their line numbers.
        kept.append("\n" if skipping else line)
    return "".join(kept), errors


def default_bandwidth(hw: Model | None, name: str, fallback: int) -> int:
    """Bits per second of an interface with no ``speed`` line: the catalog's speed of its lane."""
    if hw is None or hw.locate(name) is None:
        return fallback
    return speed_gbps(hw.speed_of(name)) * 1_000_000_000
