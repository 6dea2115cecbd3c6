"""What each switch last had deployed, from the deploy records on the ``fabricops-state`` branch.

A deploy or rollback record (``deploys/<stamp>.json``, written by :mod:`deploy.record`) names the
commit it applied and, per device, whether it changed or was found in sync: either way, after
that run the device ran ``generated/configs/<device>.cfg`` of that commit. The newest such
record per device is its last deployed version; the view shows the diff from it to the config
being viewed. Only ``generated/`` text is read, never a backup: nothing here can hold a secret.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core import gitstate

VERIFIED = frozenset({"changed", "unchanged"})
"""Statuses after which a device runs the record's commit."""
APPLYING = frozenset({"deploy", "rollback"})


@dataclass(frozen=True, slots=True)
class Deployed:
    """A device's last deployed config: the run that applied it and the text."""

    stamp: str
    kind: str
    ref: str
    config: str


def last_deployed(root: Path, devices: Iterable[str]) -> dict[str, Deployed] | None:
    """Per device, its last deployed config; None when the repository has no state branch."""
    from deploy import read_record
    from deploy.record import RECORDS

    if gitstate.head(root) is None:
        return None
    wanted = set(devices)
    found: dict[str, tuple[str, str, str]] = {}
    stamps = sorted(
        (p[len(RECORDS) : -len(".json")] for p in gitstate.list_files(root, RECORDS) if p.endswith(".json")),
        reverse=True,
    )
    for stamp in stamps:
        if not wanted - found.keys():
            break
        record = read_record(root, stamp)
        if record.get("kind") not in APPLYING or record.get("dry_run"):
            continue
        for device, result in (record.get("devices") or {}).items():
            if device in wanted and device not in found and result.get("status") in VERIFIED:
                found[device] = (stamp, str(record["kind"]), str(record["ref"]))
    by_ref: dict[str, list[str]] = {}
    for device, (_, _, ref) in found.items():
        by_ref.setdefault(ref, []).append(device)
    out: dict[str, Deployed] = {}
    for ref, names in by_ref.items():
        texts = gitstate.read_files(root, [f"generated/configs/{n}.cfg" for n in names], at=ref)
        for name in names:
            stamp, kind, _ = found[name]
            text = texts.get(f"generated/configs/{name}.cfg", b"").decode()
            out[name] = Deployed(stamp, kind, ref, text)
    return out


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
