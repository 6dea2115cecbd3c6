"""What one plan, deploy or rollback works on: the fleet, the configs to apply, and their secrets.

Configs are held in placeholder form (``<secret:NAME>``) as git has them and resolved only on
their way to a device (:meth:`Target.resolved`). Anything read back from a device passes
through :meth:`Target.scrub` (:func:`core.masking.mask`) before it is printed or stored: known
secret values become their placeholders again, any other secret a keyed hash under the
persistent key (:func:`core.secrets.mask_key`), so a masked backup can be restored later.

Whether a live config differs from the target *by meaning* is judged by the one comparison
drift uses, handed in by the caller (``meaning``: deploy does not import drift).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from core.errors import FabricopsError
from core.fleet import Credentials, LabTarget, open_fleet, preload_drivers
from core.generated import Snapshot, open_snapshot, unknown_names
from core.masking import mask
from core.secrets import load_values, mask_key, placeholders, resolve
from deploy.postchecks import CabledPort, Expectations, expectations, switch_cables
from deploy.verified import verify_once
from deploy.waves import Member

if TYPE_CHECKING:
    from nornir.core import Nornir

    from core.hardware import Catalog


class MeaningCompare(Protocol):
    """The comparison by meaning (``drift.compare.compare_config``): a result whose ``changes`` are empty when equal."""

    def __call__(
        self, generated: str, running: str, *, values: Mapping[str, str], key: bytes, platform: str
    ) -> Any: ...


@dataclass
class Target:
    """The fleet, the devices in scope, and the config each device should run.

    ``desired`` covers the whole fleet, not only the scope: post-checks may need to know
    whether a neighbour outside the scope runs its config (see :mod:`deploy.postchecks`).
    ``restored`` names the devices whose desired config is a backup (device -> backup path);
    ``absent`` the devices asked for that ``generated/`` at the ref does not have.
    """

    root: Path
    snapshot: Snapshot
    nornir: Nornir
    scope: list[str]
    desired: dict[str, str] = field(repr=False)
    values: dict[str, str] = field(repr=False)
    key: bytes = field(repr=False)
    cables: dict[str, list[CabledPort]] = field(repr=False)
    meaning: MeaningCompare | None = None
    restored: dict[str, str] = field(default_factory=dict)
    absent: list[str] = field(default_factory=list)

    @property
    def ref(self) -> str:
        return self.snapshot.ref

    @property
    def models(self) -> Catalog:
        """The switch models the compiler knew: the catalog with ``intent/hardware/`` at the ref."""
        return self.snapshot.catalog()

    @property
    def devices(self) -> list[str]:
        """The devices in scope, sorted."""
        return list(self.scope)

    @property
    def fleet(self) -> list[str]:
        """Every device of the inventory at the ref that has a config: what a fleet version covers."""
        return sorted(self.desired)

    def resolved(self, device: str) -> str:
        return resolve(self.desired[device], self.values)

    def same_meaning(self, device: str, running: str) -> bool:
        """Whether ``running`` is the device's desired config by meaning (False without a comparison)."""
        if self.meaning is None:
            return False
        platform = str(self.nornir.inventory.hosts[device].platform or "eos")
        result = self.meaning(self.desired[device], running, values=self.values, key=self.key, platform=platform)
        return not result.changes

    def scrub(self, text: str) -> str:
        """``text`` fit to print or store: no secret value left in it (diffs, errors, configs)."""
        return mask(text, self.key, self.values)

    def members(self) -> list[Member]:
        hosts = self.nornir.inventory.hosts
        return [
            Member(name, str(hosts[name].data.get("role", "")), str(hosts[name].data.get("redundancy_group") or ""))
            for name in self.devices
        ]

    def neighbours(self, devices: Iterable[str]) -> list[str]:
        """Switches cabled to ``devices`` that are outside the scope and have a config to compare."""
        inside = set(self.scope)
        found = {c.peer for name in devices for c in self.cables.get(name, [])}
        return sorted(n for n in found - inside if n in self.desired)

    def expectations(self, device: str) -> Expectations:
        return expectations(device, self.desired[device], self.cables.get(device, []))

    def close(self) -> None:
        """Close every device connection (no driver has a commit timer of ours running by now)."""
        self.nornir.close_connections(on_good=True, on_failed=True)


def open_target(
    root: Path,
    ref: str | None,
    *,
    devices: Sequence[str] = (),
    lab: bool = False,
    workers: int = 20,
    restore: Mapping[str, tuple[str, str]] | None = None,
    meaning: MeaningCompare | None = None,
    absent_ok: bool = False,
) -> Target:
    """The target at ``ref`` (default HEAD): every device of ``generated/``, or ``devices``.

    ``restore`` (device -> (backup path, text)) replaces the configs of ``generated/`` for the
    devices it names (a restore of a device's own backup); the inventory, cabling and other
    configs still come from ``generated/``. With ``absent_ok`` (a rollback), devices of the
    fleet now (the inventory at HEAD, or the state of record) that ``generated/`` at ``ref``
    lacks are listed as :attr:`Target.absent` instead of refused.
    """
    preload_drivers()  # imported while git is read and verified
    snapshot = open_snapshot(root, ref or "HEAD")
    verify_once(root, snapshot)
    lab_target = LabTarget.load(root) if lab else None
    nornir = open_fleet(snapshot, lab=lab_target, workers=workers)
    hosts = set(nornir.inventory.hosts)
    asked = bool(devices)
    absent = sorted(_fleet_now(root) - hosts) if absent_ok else []
    if asked and absent_ok:
        absent = sorted(set(absent) & set(devices))
        devices = [d for d in devices if d not in absent]
    unknown = set(devices) - hosts
    if unknown:
        raise unknown_names("device", unknown, hosts, f"generated/ at {snapshot.short}")
    configs = {**snapshot.configs(), **{name: text for name, (_path, text) in (restore or {}).items()}}
    missing = sorted(set(devices) - set(configs))
    if missing:
        where = f"generated/configs/ at {snapshot.ref[:12]}"
        raise FabricopsError(f"no config for {', '.join(missing)} in {where}: run 'fabricops compile' and commit")
    chosen = {name: text for name, text in configs.items() if name in hosts}
    scope = sorted(devices) if asked else sorted(chosen)
    names = sorted({n for text in chosen.values() for n in placeholders(text)})
    values = load_values(names, lab_password=lab_target.password if lab_target else None)
    for text in chosen.values():
        resolve(text, values)  # every secret must be known before the first device is touched
    cables = switch_cables(snapshot.cables(), hosts)
    password = lab_target.password if lab_target is not None else Credentials.load().password
    restored = {name: path for name, (path, _text) in (restore or {}).items()}
    return Target(root, snapshot, nornir, scope, chosen, values, mask_key(password), cables, meaning, restored, absent)


def _fleet_now(root: Path) -> set[str]:
    """The devices of the fleet today: the inventory at HEAD and every device with a state of record."""
    from core.deployed import read_records

    return set(open_snapshot(root, "HEAD").hosts()) | set(read_records(root))
