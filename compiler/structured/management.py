"""The management plane of a switch: who may reach eAPI, SSH and gNMI, TLS for gNMI, remote AAA,
SNMPv3 and sFlow.

Every switch serves eAPI, SSH and gNMI in its management VRF (``management.vrf`` on the fabric
switches, the default VRF on the management network's own switches), each behind a standard ACL
of the sources ``services`` allows (:func:`compiler.facts.management.access_prefixes`). gNMI
speaks TLS with the switch's own certificate (``services.gnmi``). With ``services.aaa`` the
switch asks TACACS+ or RADIUS first and its local admin when no server answers; the key is a
``<secret:NAME>`` reference. SNMP is v3 with privacy or absent. Leaves and spines send sFlow to
``services.collectors.sflow``.

Example:
    >>> from pathlib import Path
    >>> from compiler.facts import build_facts
    >>> from compiler.intent import load_intent
    >>> facts = build_facts(load_intent(Path("intent")))
    >>> leaf, rack = facts.device("rack01-leaf-a"), facts.device("rack01-mgmt")
    >>> management_ssh(leaf)
    ManagementService(vrf='MGMT', access_group='MGMT-SSH', default_vrf=False)
    >>> management_ssh(rack)
    ManagementService(vrf='default', access_group='MGMT-SSH', default_vrf=True)
    >>> [(a.name, [e.source for e in a.entries]) for a in access_lists(leaf)][-1]
    ('MGMT-SSH', ['172.20.0.0/24'])
    >>> management_gnmi(leaf)
    GnmiServer(transport='default', ssl_profile='GNMI', port=None, vrf='MGMT', access_group='MGMT-GNMI')
"""

from __future__ import annotations

from compiler.facts import DeviceFacts
from compiler.facts.management import MANAGEMENT_SERVICES, access_prefixes
from compiler.intent import Services
from compiler.memo import same_as_last
from compiler.platforms import eos
from compiler.structured.model import (
    AaaConfig,
    AclEntry,
    GnmiServer,
    ManagementService,
    SflowConfig,
    SnmpConfig,
    SslProfile,
    StandardAcl,
    VrfHost,
)
from compiler.structured.system import is_fabric_switch, management_vrf

ACL_STEP = 10
DEFAULT_VRF = "default"


def _acl_name(facts: DeviceFacts, service: str) -> str | None:
    """The ACL guarding ``service``, or None when no source is allowed (checks report it)."""
    return _service_acl(facts.design.services, service)


def _service_acl(services: Services, service: str) -> str | None:
    if not access_prefixes(services)[service]:
        return None
    name: str = getattr(services.access, service).acl
    return name


def access_lists(facts: DeviceFacts) -> tuple[StandardAcl, ...]:
    """One standard ACL per management service, its sources in the order ``services`` lists them."""
    return _access_lists(facts.design.services)


@same_as_last
def _access_lists(services: Services) -> tuple[StandardAcl, ...]:
    """The ACLs of ``services``: the same on every switch, built once (records are immutable)."""
    prefixes = access_prefixes(services)
    acls = {}
    for service in MANAGEMENT_SERVICES:
        name = _service_acl(services, service)
        if name is not None:
            entries = tuple(
                AclEntry(ACL_STEP * (i + 1), "permit", eos.acl_source(p)) for i, p in enumerate(prefixes[service])
            )
            acls[name] = StandardAcl(name, entries)
    return tuple(acls[name] for name in sorted(acls))


def _service(facts: DeviceFacts, service: str) -> ManagementService:
    vrf = management_vrf(facts)
    return ManagementService(vrf or DEFAULT_VRF, _acl_name(facts, service), default_vrf=vrf is None)


def management_api(facts: DeviceFacts) -> ManagementService:
    """eAPI in the management VRF, behind its ACL."""
    return _service(facts, "eapi")


def management_ssh(facts: DeviceFacts) -> ManagementService:
    """SSH in the management VRF, behind its ACL."""
    return _service(facts, "ssh")


def management_gnmi(facts: DeviceFacts) -> GnmiServer:
    """gNMI over TLS on the collector's port, in the management VRF, behind its ACL."""
    platform = eos.data()
    gnmi = facts.design.services.gnmi
    return GnmiServer(
        platform.gnmi_transport,
        gnmi.ssl_profile,
        port=None if gnmi.port == platform.gnmi_default_port else gnmi.port,
        vrf=management_vrf(facts),
        access_group=_acl_name(facts, "gnmi"),
    )


def ssl_profiles(facts: DeviceFacts) -> tuple[SslProfile, ...]:
    """The gNMI server's certificate and key, named after the switch."""
    gnmi = facts.design.services.gnmi
    name = facts.switch.name
    return (SslProfile(gnmi.ssl_profile, gnmi.certificate.format(hostname=name), gnmi.key.format(hostname=name)),)


def _source(facts: DeviceFacts) -> VrfHost | None:
    """The interface management traffic leaves from: the management port in the management VRF (fabric switches)."""
    vrf = management_vrf(facts)
    return VrfHost(facts.switch.layout.management_port, vrf) if vrf else None


def aaa(facts: DeviceFacts) -> AaaConfig | None:
    """TACACS+ or RADIUS servers in the management VRF, tried before the local admin."""
    spec = facts.design.services.aaa
    if spec is None:
        return None
    vrf = management_vrf(facts)
    authentication, authorization, accounting = eos.aaa_methods(spec.protocol, spec.group)
    source = _source(facts)
    return AaaConfig(
        spec.protocol,
        eos.aaa_server_keyword(spec.protocol),
        tuple(VrfHost(str(a), vrf) for a in spec.servers),
        spec.key,
        spec.group,
        source if spec.protocol == "tacacs+" else None,
        source if spec.protocol == "radius" else None,
        authentication,
        authorization,
        accounting,
    )


def snmp(facts: DeviceFacts) -> SnmpConfig | None:
    """SNMPv3 (authentication and privacy) towards ``services.snmp.hosts``; None without SNMP."""
    spec = facts.design.services.snmp
    if spec is None:
        return None
    vrf = management_vrf(facts)
    return SnmpConfig(
        spec.view,
        spec.group,
        spec.user,
        spec.auth,
        spec.auth_secret,
        spec.priv,
        spec.priv_secret,
        tuple(VrfHost(str(a), vrf) for a in spec.hosts),
        vrf,
        facts.switch.layout.management_port if vrf else None,
    )


def sflow(facts: DeviceFacts) -> SflowConfig | None:
    """sFlow from a leaf or spine to the collectors, from Management1 in the management VRF."""
    collectors = facts.design.services.collectors.sflow
    if not collectors or not is_fabric_switch(facts):
        return None
    vrf = management_vrf(facts)
    return SflowConfig(
        facts.design.services.sflow.sample_rate, tuple(VrfHost(str(a), vrf) for a in collectors), _source(facts)
    )
