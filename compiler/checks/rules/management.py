"""Management-plane rules: who may reach the switches, where servers sit, secrets, SNMP (C2, G1).

========  ========  ===========  =====================================================
Rule      Severity  Requirement  What it guards
========  ========  ===========  =====================================================
MGT001    error     C2           eAPI, SSH and gNMI of every switch sit behind an ACL
                                 of management prefixes: none permits any source, a
                                 server's management subnet or a fabric host pool
MGT002    error     C2           servers' management addresses are outside the
                                 switches' management subnets, on a VLAN of their own
MGT003    error     G1           no secret value in a config: AAA keys, SNMP
                                 passphrases and user secrets are ``<secret:NAME>``
                                 references (``extra_config`` included)
MGT004    error     C2           SNMP is v3 with privacy or absent: no community, no
                                 v1/v2c host or group (``extra_config`` included)
========  ========  ===========  =====================================================
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from functools import cached_property, partial
from ipaddress import IPv4Network

from compiler.addressing import address_value
from compiler.cache import fingerprint
from compiler.checks.base import Part, rule
from compiler.checks.rules._common import MASKS, PrefixIndex
from compiler.fabric import Device, ResolvedFabric
from compiler.intent import Intent
from compiler.platforms import eos

SERVICES = {"eAPI": "management_api", "SSH": "management_ssh", "gNMI": "management_gnmi"}
SNMP_V1_V2C = re.compile(r"^\s*snmp-server (community \S+|host \S+ .*version (1|2c)\b|group \S+ (v1|v2c)\b)", re.M)


def _guarded(device: Device) -> dict[str, str | None]:
    """The ACL guarding each management service of ``device`` (None: no ACL)."""
    config = device.config
    out: dict[str, str | None] = {}
    for service, field in SERVICES.items():
        section = getattr(config, field)
        out[service] = section.access_group if section is not None else None
    return out


def _server_side(fabric: ResolvedFabric) -> list[tuple[IPv4Network, str]]:
    """What no management ACL may admit: servers' management subnets, fabric host pools."""
    return [(IPv4Network(subnet), label) for subnet, label in _server_side_text(fabric)]


def _server_side_text(fabric: ResolvedFabric) -> list[tuple[str, str]]:
    """:func:`_server_side` as written (each subnet's text, parsed only when a switch is judged)."""
    sides = [
        (r.server_subnet, f"the servers' management subnet of rack {r.rack}")
        for r in fabric.facts.management.racks.values()
    ]
    sides += [(p.cidr, f"the {p.network} host pool") for p in fabric.pools if p.name == "hosts"]
    return sides


def acls_key(intent: Intent, fabric: ResolvedFabric, digests: Mapping[str, str]) -> Iterator[Part]:
    """MGT001 in parts, one per switch, each made of: what no ACL may admit (the servers'
    management subnets and the host pools, with how they are named) and the switch's name and
    facts digest (its services and ACLs are its config's). A server row changes none."""
    del intent
    sides = _server_side_text(fabric)
    shared = fingerprint(tuple(sides))  # once, not in every part
    judge = _AclJudge(fabric)
    for name, device in sorted(fabric.devices.items()):
        yield (shared, name, digests[name]), partial(judge, device)


class _AclJudge:
    """MGT001 over one switch at a time; every switch lists the same few sources, each parsed
    and looked up once."""

    def __init__(self, fabric: ResolvedFabric) -> None:
        self.fabric = fabric
        self.verdicts: dict[str, tuple[IPv4Network | None, list[str]]] = {}

    @cached_property
    def forbidden(self) -> PrefixIndex[str]:
        return PrefixIndex(_server_side(self.fabric))

    def __call__(self, device: Device) -> Iterator[tuple[str, str]]:
        name = device.name
        acls = {a.name: a for a in device.config.access_lists}
        guarded = _guarded(device)
        open_ = [s for s, acl in guarded.items() if acl is None or acl not in acls]
        if open_:
            yield (
                name,
                (
                    f"{', '.join(open_)} accept any source: list the bastions, runners and collectors in "
                    "services.management_prefixes"
                ),
            )
        verdicts = self.verdicts
        for acl_name in sorted({a for a in guarded.values() if a in acls}):
            for entry in acls[acl_name].entries:
                if entry.source not in verdicts:
                    prefix = eos.acl_source_prefix(entry.source)
                    wide = prefix is not None and prefix.prefixlen > 0
                    verdicts[entry.source] = prefix, self.forbidden.overlapping(prefix) if wide and prefix else []
                prefix, hits = verdicts[entry.source]
                if entry.action != "permit" or prefix is None:
                    continue
                if prefix.prefixlen == 0:
                    yield name, f"{acl_name} permits any source ({entry.source})"
                    continue
                if hits:
                    more = f" and {len(hits) - 1} more" if len(hits) > 1 else ""
                    yield name, f"{acl_name} permits {prefix}, which holds {hits[0]}{more}: servers could reach it"


@rule("MGT001", "error", "C2", "eAPI, SSH and gNMI accept only the management prefixes", key=acls_key)
def service_acls(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each switch whose management services are open, or open to servers."""
    del intent
    judge = _AclJudge(fabric)
    for _, device in sorted(fabric.devices.items()):
        yield from judge(device)


@rule("MGT002", "error", "C2", "Servers' management addresses are not in the switches' management subnets")
def server_management_apart(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each server inside a switch management subnet, and each rack whose VLANs coincide."""
    del intent
    management = fabric.facts.management
    subnets = {r.rack: IPv4Network(r.subnet) for r in management.racks.values()}
    # The subnets holding an address are one look-up per prefix length, on integers.
    by_length: dict[int, dict[int, list[tuple[int, IPv4Network]]]] = defaultdict(lambda: defaultdict(list))
    for number, net in subnets.items():
        by_length[net.prefixlen][int(net.network_address)].append((number, net))
    for rack in management.racks.values():
        if rack.server_vlan == rack.vlan:
            yield (
                rack.switch,
                (
                    f"servers and switches of rack {rack.rack} share management VLAN {rack.vlan}: "
                    "set management.server_vlan_base apart from vlan_base"
                ),
            )
    for server, host in sorted(management.servers.items()):
        address = address_value(host.address.partition("/")[0])
        holding = [hit for length, nets in by_length.items() for hit in nets.get(address & MASKS[length], ())]
        for number, net in sorted(holding):
            yield (
                server,
                f"management address {host.address} is inside the switches' management subnet {net} of rack {number}",
            )


def _literal_secrets(text: str) -> list[str]:
    """The lines of ``text`` that carry a secret value rather than a ``<secret:NAME>`` reference."""
    if not text:
        return []
    # The masking patterns (and logging with them): only for a switch with extra_config.
    from core.masking import secret_spans
    from core.secrets import PLACEHOLDER

    out = []
    for line in text.splitlines():
        for start, end in secret_spans(line):
            if not PLACEHOLDER.fullmatch(line[start:end]):
                out.append(line.strip().split()[0])
    return out


@rule("MGT003", "error", "G1", "No secret value in a config")
def no_secret_values(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each switch whose config would carry a secret value into git."""
    for name in sorted(fabric.devices):
        found = _literal_secrets(intent.fabric.extra_config.get(name, ""))
        if found:
            yield (
                name,
                (
                    f"extra_config holds {len(found)} secret value(s) ({', '.join(sorted(set(found)))}): "
                    "write <secret:NAME> and set FABRICOPS_SECRET_<NAME> at deploy"
                ),
            )


@rule("MGT004", "error", "C2", "SNMP is v3 with privacy or absent")
def snmp_v3_only(intent: Intent, fabric: ResolvedFabric) -> Iterator[tuple[str, str]]:
    """Yield each switch whose config speaks SNMP v1 or v2c (a community in clear on the wire)."""
    for name in sorted(fabric.devices):
        found = SNMP_V1_V2C.findall(intent.fabric.extra_config.get(name, ""))
        if found:
            yield (
                name,
                (
                    f"SNMP v1/v2c in extra_config ({found[0][0].split()[0]} ...): communities travel in clear; "
                    "use services.snmp (v3, auth and priv) or none"
                ),
            )
