"""Post-checks: what must hold on a device after a commit, before the commit is confirmed.

Read through NAPALM (``show hostname`` through its ``cli`` as JSON, ``get_lldp_neighbors``,
``get_interfaces``) and judged by :func:`evaluate`, a pure function:

1. **The device answers** and reports the hostname its config sets (the ``hostname`` of
   ``show hostname``, what ``get_facts`` reports: ``get_facts`` would also fetch ``show
   interfaces`` a second time, the largest reply a switch gives, which ``get_interfaces`` reads).
2. **No LLDP neighbour contradicts the cabling plan.** On every switch-to-switch cable of
   ``generated/inventory/cabling.csv`` whose local port the config does not shut down, any
   neighbour LLDP reports must be the far end the plan names (device and port). A neighbour
   that is someone else is a mis-cabling and fails the check, whatever state the far end is in.
3. **Cabled links to settled neighbours are up and seen.** A link's state depends on both ends,
   so a link is only required to be up (``is_up``) with the planned neighbour seen over LLDP
   when its far end is *settled*: its running config was in sync with the target at the start
   of the run, or it was changed and confirmed in an earlier wave. Far ends that are being
   changed in the same wave, are not yet deployed, were skipped as unreachable or failed are
   not judged: their state says nothing about this device's change.

Cables to servers are not checked: a powered-off server must not roll back a switch.

Examples:
    >>> from core.generated import parse_cabling
    >>> csv_text = "a_device,a_port,b_device,b_port\\nleaf1,Ethernet49,spine1,Ethernet1\\n"
    >>> cables = switch_cables(parse_cabling(csv_text), {"leaf1", "spine1"})
    >>> exp = expectations("leaf1", "hostname leaf1\\n", cables.get("leaf1", []))
    >>> facts = {"hostname": "leaf1"}
    >>> lldp = {"Ethernet49": [{"hostname": "spine1", "port": "Ethernet1"}]}
    >>> up = {"Ethernet49": {"is_up": True, "is_enabled": True}}
    >>> evaluate(exp, facts, lldp, up, settled={"spine1"})
    []
    >>> evaluate(exp, facts, {"Ethernet49": [{"hostname": "spine2", "port": "Ethernet1"}]}, up, settled=set())
    ['Ethernet49: LLDP neighbour spine2 Ethernet1, cabling plan says spine1 Ethernet1']
    >>> evaluate(exp, facts, {}, {"Ethernet49": {"is_up": False}}, settled={"spine1"})
    ['Ethernet49 (to spine1 Ethernet1) is down', 'Ethernet49: no LLDP neighbour, cabling plan says spine1 Ethernet1']
    >>> evaluate(exp, facts, {}, {"Ethernet49": {"is_up": False}}, settled=set())
    []
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from core.generated import CableRow
from deploy.configs import config_hostname, shutdown_ports


@dataclass(frozen=True)
class CabledPort:
    """One switch-to-switch cable seen from one end."""

    port: str
    peer: str
    peer_port: str


@dataclass(frozen=True)
class Expectations:
    """What the post-checks expect of one device."""

    device: str
    hostname: str | None
    cables: tuple[CabledPort, ...]


def switch_cables(rows: Iterable[CableRow], switches: Iterable[str]) -> dict[str, list[CabledPort]]:
    """Cables whose both ends are switches, indexed from each end.

    Examples:
        >>> from core.generated import parse_cabling
        >>> text = "a_device,a_port,b_device,b_port\\nleaf1,Ethernet1,gpu1,eth0\\nleaf1,Ethernet49,spine1,Ethernet1\\n"
        >>> switch_cables(parse_cabling(text), {"leaf1", "spine1"})["spine1"]
        [CabledPort(port='Ethernet1', peer='leaf1', peer_port='Ethernet49')]
    """
    names = set(switches)
    out: dict[str, list[CabledPort]] = {}
    for row in rows:
        if row.a_device in names and row.b_device in names:
            out.setdefault(row.a_device, []).append(CabledPort(row.a_port, row.b_device, row.b_port))
            out.setdefault(row.b_device, []).append(CabledPort(row.b_port, row.a_device, row.a_port))
    return out


def expectations(device: str, config: str, cables: Iterable[CabledPort]) -> Expectations:
    """The checks for ``device`` given the config being applied: cabled ports it leaves enabled."""
    shut = shutdown_ports(config)
    kept = tuple(sorted((c for c in cables if c.port not in shut), key=lambda c: (c.port, c.peer)))
    return Expectations(device, config_hostname(config), kept)


def _short(name: str) -> str:
    """LLDP may carry the FQDN: compare the host part only."""
    return name.split(".", 1)[0]


def evaluate(
    exp: Expectations,
    facts: Mapping[str, Any],
    lldp: Mapping[str, list[dict[str, Any]]],
    interfaces: Mapping[str, Mapping[str, Any]],
    settled: set[str],
) -> list[str]:
    """Every failed post-check of one device, one line each (empty when all pass)."""
    problems = []
    if exp.hostname and _short(str(facts.get("hostname", ""))) != exp.hostname:
        problems.append(f"hostname is {facts.get('hostname')!r}, config sets {exp.hostname!r}")
    for cable in exp.cables:
        planned = f"{cable.peer} {cable.peer_port}"
        seen = [(_short(str(n.get("hostname", ""))), str(n.get("port", ""))) for n in lldp.get(cable.port, [])]
        wrong = [f"{host} {port}" for host, port in seen if (host, port) != (cable.peer, cable.peer_port)]
        for neighbour in wrong:
            problems.append(f"{cable.port}: LLDP neighbour {neighbour}, cabling plan says {planned}")
        if cable.peer not in settled:
            continue
        if not interfaces.get(cable.port, {}).get("is_up", False):
            problems.append(f"{cable.port} (to {planned}) is down")
        if not seen:
            problems.append(f"{cable.port}: no LLDP neighbour, cabling plan says {planned}")
    return problems


def gather(driver: Any) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]], dict[str, dict[str, Any]]]:
    """What the checks read, from an opened NAPALM driver: the facts they judge (the hostname),
    LLDP neighbours and interfaces."""
    hostname = driver.cli(["show hostname"], encoding="json")["show hostname"]
    facts = {"hostname": hostname.get("hostname", ""), "fqdn": hostname.get("fqdn", "")}
    return facts, driver.get_lldp_neighbors(), driver.get_interfaces()
