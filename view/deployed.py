"""What each switch last verifiably ran, from its state of record on the ``fabricops-state`` branch.

Every deploy, rollback and restore writes ``devices/<device>.json`` (:mod:`core.deployed`) for
each device it verified: changed and confirmed, or found already in sync. The record names the
``generated/`` commit the device runs since, or the backup it was restored to. For a commit the
view shows the diff from that commit's ``generated/configs/<device>.cfg`` to the config being
viewed; for a restored backup it says so and shows no diff (a backup holds the device's own
text, secrets masked, not a generated config to compare line by line). Only ``generated/``
text is read, never a backup: nothing here can hold a secret.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core import gitstate
from core.deployed import read_records
from core.generated import configs_at


@dataclass(frozen=True, slots=True)
class Deployed:
    """What a device last verifiably ran: the run that verified it, when, and the config text.

    ``config`` is the generated config of ``commit``; a device restored to a backup has
    ``backup`` set and no config to compare.
    """

    run: str
    verified: str
    commit: str
    backup: str
    config: str


def last_deployed(root: Path, devices: Iterable[str]) -> dict[str, Deployed] | None:
    """Per device, what it last verifiably ran; None when the repository has no state branch."""
    if gitstate.head(root) is None:
        return None
    records = {name: record for name, record in read_records(root).items() if name in set(devices)}
    by_commit: dict[str, list[str]] = {}
    for name, record in records.items():
        if record.commit:
            by_commit.setdefault(record.commit, []).append(name)
    texts: dict[str, str] = {}
    for commit, names in by_commit.items():
        texts.update(configs_at(root, commit, names))
    return {
        name: Deployed(r.run, r.verified, r.commit, "" if r.commit else r.backup, texts.get(name, ""))
        for name, r in sorted(records.items())
    }


def config_diff(deployed: str, current: str, device: str) -> str:
    """A unified diff from the deployed config to the current one (empty when equal).

    Example:
        >>> print(config_diff("hostname a\\nvlan 10\\n", "hostname a\\nvlan 20\\n", "leaf1"), end="")
        --- leaf1 (deployed)
        +++ leaf1 (this version)
        @@ -1,2 +1,2 @@
         hostname a
        -vlan 10
        +vlan 20
    """
    lines = difflib.unified_diff(
        deployed.splitlines(keepends=True),
        current.splitlines(keepends=True),
        f"{device} (deployed)",
        f"{device} (this version)",
    )
    return "".join(lines)
