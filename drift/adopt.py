"""``fabricops adopt``: keep a switch's drift by writing it into intent.

The device is audited as ``drift`` audits it; its changes against the config it was last
deployed with become intent edits (:mod:`compiler.adoption`): ``ports.yaml``, ``vlans.yaml``,
``devices.yaml``, written with comments and order kept. What the schema cannot say stays for
``extra_config`` (the report's escape-hatch snippet), and a secret is never adopted. After the
edits, ``fabricops compile`` prints the device's lines: commit, and the next deploy records it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from compiler.adoption import AdoptContext, Adoption, PortNow, apply_edits, patch, plan_adoption
from core.errors import FabricopsError
from core.generated import INTENT, Snapshot, open_snapshot
from drift.audit import DRIFTED, DeviceResult, run_audit
from drift.report import adoption as escape_hatch

__all__ = ["AdoptResult", "adopt_device", "context_for"]


@dataclass
class AdoptResult:
    """What adopting one device's drift does: the edits, the patch, and what stays raw."""

    result: DeviceResult
    plan: Adoption
    files: dict[str, tuple[str, str]]
    #: ``extra_config`` lines for what the schema cannot say (``intent/fabric.yaml``).
    extra_config: str
    not_adoptable: tuple[str, ...]

    @property
    def patch(self) -> str:
        return patch(self.files)

    def text(self, written: bool) -> str:
        """What a person reads: each edit with the lines it adopts, then the patch or the files written."""
        device = self.result.device
        out = [f"{device}: {self.result.status}, {len(self.result.changes)} change(s) against its last deploy"]
        for edit in self.plan.edits:
            out.append(f"  {edit}    # {'; '.join(edit.adopts)}")
            if edit.note:
                out.append(f"    note: {edit.note}")
        if self.extra_config:
            out.append("  not in the schema: add to intent/fabric.yaml extra_config:")
            out += [f"    {line}" for line in self.extra_config.splitlines()]
        out += [f"  not adoptable: {why}" for why in self.not_adoptable]
        if not self.files:
            out.append("no intent edit")
        elif written:
            wrote = ", ".join(f"intent/{name}" for name in sorted(self.files))
            out.append(f"wrote {wrote}: run 'fabricops compile' and commit")
        else:
            out += ["", self.patch.rstrip("\n"), "", f"(fabricops adopt {device} --write applies it)"]
        return "\n".join(out) + "\n"


def context_for(root: Path, snapshot: Snapshot, device: str) -> AdoptContext:
    """The intent as it loads now, and each port of ``device`` as ``generated/`` at the audited ref has it."""
    from compiler.intent import load_intent

    intent = load_intent(root / INTENT)
    doc = snapshot.read_yaml(f"structured/{device}.yaml") if snapshot.exists(f"structured/{device}.yaml") else {}
    config = (doc or {}).get("config", {})
    cables = {(r.a_device, r.a_port): (r.b_device, r.b_port) for r in snapshot.cables()}
    cables |= {(r.b_device, r.b_port): (r.a_device, r.a_port) for r in snapshot.cables()}
    servers = {server.name for server in intent.servers}
    ports = {}
    for iface in config.get("interfaces", []):
        name = str(iface["name"])
        peer, peer_port = cables.get((device, name), (None, None))
        served = peer in servers
        ports[name] = PortNow(
            iface.get("description"),
            bool(iface.get("shutdown")),
            peer if served else None,
            peer_port if served else None,
        )
    vrf = next((s.get("vrf") for s in config.get("ntp_servers", []) if s.get("vrf")), None)
    return AdoptContext(intent, ports, vrf)


def adopt_device(
    root: Path, device: str, *, lab: bool = False, ref: str | None = None, reason: str | None = None
) -> AdoptResult:
    """Audit ``device`` and plan the intent edits that keep its drift (nothing is written)."""
    audit = run_audit(root, ref=ref, devices=[device], lab=lab)
    result = next(r for r in audit.devices if r.device == device)
    if result.status == "unreachable":
        raise FabricopsError(f"{device} is unreachable ({result.error}): nothing to adopt")
    changes = result.changes if result.status in DRIFTED else ()
    snapshot = open_snapshot(root, audit.commit)
    context = context_for(root, snapshot, device)
    plan = plan_adoption(device, changes, context, **({"reason": reason} if reason else {}))
    files = apply_edits(root / INTENT, plan.edits) if plan.edits else {}
    raw = DeviceResult(device, result.status, tuple(plan.raw))
    hatch = escape_hatch(raw, structured=False)
    return AdoptResult(result, plan, files, hatch.extra_config, hatch.not_adoptable)


def write(root: Path, adopted: AdoptResult) -> None:
    """Write the edited intent files (each whole, after every edit of it was made in memory)."""
    for name, (_before, after) in adopted.files.items():
        (root / INTENT / name).write_text(after)
