"""Config lines counted the same way for every compiler: the lines that configure something.

Not counted: comments and separators (``!``), ``end``, and the stanza of an unused port (an
interface block that is empty or only ``shutdown``: ours prints every physical port, as EOS
does; AVD prints only the ports it configures). Counting those would credit a compiler for
lines that cost it nothing to decide.

Example:
    >>> text = "hostname a\\n!\\ninterface Ethernet1\\n   shutdown\\n!\\ninterface Ethernet2\\n   mtu 9214\\n!\\nend\\n"
    >>> configured_lines(text)
    3
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

UNUSED_PORT_BODIES = ((), ("shutdown",))


def configured_lines(text: str) -> int:
    """The lines of ``text`` that configure something (see the module docstring)."""
    count = 0
    stanza: list[str] = []  # an interface header and its block, held until the block is known

    def close() -> int:
        body = tuple(line.strip() for line in stanza[1:])
        return 0 if not stanza or body in UNUSED_PORT_BODIES else len(stanza)

    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("!") or stripped == "end":
            continue
        if not line.startswith(" "):
            count += close()
            stanza = [line] if line.startswith("interface ") else []
            if not stanza:
                count += 1
        elif stanza:
            stanza.append(line)
        else:
            count += 1
    return count + close()


def count_files(paths: Iterable[Path]) -> int:
    """Configured lines over several config files."""
    return sum(configured_lines(path.read_text()) for path in paths)
