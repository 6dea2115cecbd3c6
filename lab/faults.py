"""Faults a test or an operator can inject into one emulated switch at run time.

Examples:
    >>> f = Faults()
    >>> f.reject = r"^ntp "
    >>> f.rejects("ntp server 1.1.1.1"), f.rejects("hostname a")
    (True, False)
    >>> f.as_dict()["reject"]
    '^ntp '
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

#: The fault kinds the CLI and the control endpoint accept.
FAULT_KINDS = (
    "unreachable",
    "slow",
    "reject",
    "drop-after-commit",
    "reboot",
    "flap",
    "link-down",
    "miscable",
    "pending-session",
    "clear",
)


@dataclass
class Faults:
    """Standing faults of one device (one-shot actions such as reboot are device methods)."""

    #: Connection refused: the device's listener is closed.
    unreachable: bool = False
    #: Seconds to wait before answering each request.
    slow: float = 0.0
    #: Configuration lines matching this regex are refused as unsupported.
    reject: str | None = None
    #: How many more commits apply but get no HTTP reply (the connection is closed).
    drop_after_commit: int = 0
    #: Ports whose link is held down (a pulled cable, a dead optic).
    links_down: set[str] = field(default_factory=set)

    def rejects(self, line: str) -> bool:
        """Whether ``line`` is refused by the ``reject`` fault."""
        return self.reject is not None and re.search(self.reject, line) is not None

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form, as ``lab status`` shows it."""
        out = asdict(self)
        out["links_down"] = sorted(self.links_down)
        return out

    def active(self) -> list[str]:
        """Names of the faults currently set."""
        names = []
        if self.unreachable:
            names.append("unreachable")
        if self.slow:
            names.append(f"slow={self.slow}s")
        if self.reject:
            names.append(f"reject={self.reject}")
        if self.drop_after_commit:
            names.append(f"drop-after-commit={self.drop_after_commit}")
        names += [f"link-down={p}" for p in sorted(self.links_down)]
        return names
