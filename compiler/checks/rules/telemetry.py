"""Telemetry rules: the collector reaches every switch it targets, and the alerts read what it collects (O2).

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
TEL001    error     O2           every switch ``gnmic.yaml`` targets serves gNMI on the
                                 target's port, in the VRF of the target's address,
                                 over TLS (an SSL profile it defines), behind an ACL
                                 that admits every gNMI collector; the collector
                                 verifies certificates (no skip-verify, a CA file)
TEL002    error     O2           every Prometheus rule queries metrics and labels the
                                 gNMIc subscriptions produce
========  ========  ===========  =====================================================
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import partial
from ipaddress import IPv4Address
from typing import Any

from compiler.artifacts import monitoring
from compiler.artifacts.units import digest_of
from compiler.checks.base import Part, rule
from compiler.checks.rules._common import per_run
from compiler.fabric import Device, ResolvedFabric
from compiler.intent import Intent
from compiler.platforms import eos

_gnmic_config = per_run(monitoring.gnmic_config)
"""The collector's configuration, once for the two rules that read it."""


def _gnmi_problems(device: Device, port: int, collectors: tuple[IPv4Address, ...]) -> Iterator[str]:
    config = device.config
    gnmi = config.management_gnmi
    if gnmi is None:
        yield "no management api gnmi: the collector targets it"
        return
    served = gnmi.port if gnmi.port is not None else eos.data().gnmi_default_port
    if served != port:
        yield f"gNMI serves port {served}, the collector dials {port}"
    vrf = config.management_api.vrf if not config.management_api.default_vrf else None
    if gnmi.vrf != vrf:
        yield f"gNMI serves VRF {gnmi.vrf or 'default'}, but the address the collector dials is in {vrf or 'default'}"
    if gnmi.ssl_profile not in {p.name for p in config.ssl_profiles}:
        yield f"gNMI uses SSL profile {gnmi.ssl_profile}, which the switch does not define: no TLS"
    acl = {a.name: a for a in config.access_lists}.get(gnmi.access_group or "")
    if acl is not None:
        admitted = [eos.acl_source_prefix(e.source) for e in acl.entries if e.action == "permit"]
        for collector in collectors:
            if not any(p is not None and collector in p for p in admitted):
                yield f"{acl.name} does not admit the gNMI collector {collector}"


def targets_key(intent: Intent, fabric: ResolvedFabric, digests: Mapping[str, str]) -> Iterator[Part]:
    """TEL001 in parts: whether the collector verifies TLS, made of its ``skip-verify`` and
    ``tls-ca``; then one per target that is a switch, in the order of its address, made of the
    port dialled, the switch's name and facts digest (its gNMI, management API, SSL profiles and
    ACLs are its config's) and the gNMI collectors. A server row changes none."""
    config = _gnmic_config(intent, fabric)
    yield (config.get("skip-verify"), config.get("tls-ca")), partial(_verifies, config)
    collectors = intent.fabric.services.collectors.gnmi
    dialling = tuple(str(c) for c in collectors)
    for device, port in _targets(fabric, config):
        inputs = (port, device.name, digests[device.name], dialling)
        yield inputs, partial(_target, device, port, collectors)


def _verifies(config: dict[str, Any]) -> Iterator[tuple[str, str]]:
    if config.get("skip-verify") or not config.get("tls-ca"):
        yield "services.gnmi", "gnmic.yaml skips certificate verification: set a CA file and skip_verify: false"


def _targets(fabric: ResolvedFabric, config: dict[str, Any]) -> Iterator[tuple[Device, int]]:
    """Each target of the collector that is a switch, and the port dialled, by address."""
    for address, target in sorted(config["targets"].items()):
        device = fabric.devices.get(target["name"])
        if device is not None:
            yield device, int(address.rsplit(":", 1)[1])


def _target(device: Device, port: int, collectors: tuple[IPv4Address, ...]) -> Iterator[tuple[str, str]]:
    for message in _gnmi_problems(device, port, collectors):
        yield device.name, message


@rule(
    "TEL001",
    "error",
    "O2",
    "Every switch the collector targets serves gNMI as it dials it, over TLS",
    key=targets_key,
)
def gnmi_targets(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each gNMIc target its switch would not answer, and a collector that does not verify TLS."""
    config = _gnmic_config(intent, fabric)
    yield from _verifies(config)
    collectors = intent.fabric.services.collectors.gnmi
    for device, port in _targets(fabric, config):
        yield from _target(device, port, collectors)


def _standing(fabric: ResolvedFabric) -> list[Device]:
    """One switch per network and role, the first by name: it stands for the others in TEL002."""
    standing: dict[tuple[str, str], Device] = {}
    for _, device in sorted(fabric.devices.items()):
        standing.setdefault((device.network, device.role), device)
    return list(standing.values())


def alerts_key(intent: Intent, fabric: ResolvedFabric, digests: Mapping[str, str]) -> Iterator[Part]:
    """TEL002 in parts, one per standing switch, each made of: the thresholds, the switch's name,
    network, lossless queue and facts digest (its cabled ends are made of its used ports, facts),
    which its alert group is made of (:func:`compiler.artifacts.monitoring.device_rules`, keyed
    the same way for ``generated/``: ``rule_units``); and the subscriptions, what the collector
    produces (:func:`compiler.artifacts.monitoring.produced_series`). A server row changes the
    part of the leaf it is cabled to, at most."""
    config = _gnmic_config(intent, fabric)
    shared = (digest_of(intent.fabric.thresholds), digest_of(config["subscriptions"]))
    for device in _standing(fabric):
        inputs = (*shared, device.name, device.network, monitoring.ecn_queue(fabric, device), digests[device.name])
        yield inputs, partial(_unproduced, intent, fabric, config, device)


def _unproduced(
    intent: Intent, fabric: ResolvedFabric, config: dict[str, Any], device: Device
) -> Iterator[tuple[str, str]]:
    """What the alert group of ``device`` queries that the collector (``config``) does not produce."""
    ends = monitoring.switch_ends(device.facts.ports)
    rules = monitoring.device_rules(intent, device, ends, monitoring.ecn_queue(fabric, device))
    for problem in monitoring.unproduced_queries(rules, config):
        yield f"monitoring/rules/{device.name}.rules.yaml", problem


@rule("TEL002", "error", "O2", "Alerts query what the collector produces", key=alerts_key)
def alerts_match_collection(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each alert of a switch's rules whose metric or label no gNMIc subscription produces.

    One switch per network and role stands for the others: their rules differ only in names.
    """
    config = _gnmic_config(intent, fabric)
    for device in _standing(fabric):
        yield from _unproduced(intent, fabric, config, device)
