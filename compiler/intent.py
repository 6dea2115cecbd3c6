"""Load ``intent/`` into typed, frozen models, or fail once with every problem.

``intent/`` holds three files:

* ``fabric.yaml``  -- the design: models, pools, VLANs, QoS and routing profiles, fabrics;
* ``racks.yaml``   -- the racks: row, position, PDU rating, role;
* ``servers.csv``  -- one row per server (``name,model,asset_tag``, optionally ``compute_port``
  and ``status``): adding a node is adding a row;

and, optionally, the specifics of :mod:`compiler.specifics`: ``vlans.yaml`` (VLANs on server
ports), ``ports.yaml`` (per-port settings), ``devices.yaml`` (per-switch extras and identity).

Every problem is reported as ``file:line: yaml.path: message`` and collected before
failing, so one run shows the whole list (an :class:`~core.errors.IntentError`).
"""

# No ``from __future__ import annotations`` here: with it, pydantic compiles and evaluates the
# text of every field's annotation as it builds the models, at every start (about 30 ms).
import codecs
import contextlib
import csv
import dataclasses
import functools
import io
import ipaddress
import re
import string
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, NamedTuple, Self, TypeVar, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator
from pydantic_core import SchemaValidator

from compiler.collection import paused
from compiler.intentcache import ValidatedFiles, kept_beside
from compiler.memo import per_object
from compiler.sources import Source, SourceLines, yaml_line_of
from compiler.specifics import (
    SPECIFIC_FILES,
    DeviceSettings,
    DevicesFile,
    PortSettings,
    PortsFile,
    ServerVlan,
    VlansFile,
)
from core.errors import FabricopsError, IntentError
from core.generated import INTENT_FILES, INTENT_MODELS, intent_digest
from core.hardware import Catalog, Model, ModelFiles, catalog

HARDWARE_DIR = INTENT_MODELS.rstrip("/")
"""``intent/hardware/``: the repository's own switch models, in the catalog's layout (optional)."""
SPEEDS_GBPS = {"1g": 1, "10g": 10, "25g": 25, "40g": 40, "50g": 50, "100g": 100, "200g": 200, "400g": 400, "800g": 800}

Speed = Literal["1g", "10g", "25g", "40g", "50g", "100g", "200g", "400g", "800g"]
NetworkName = Literal["compute", "storage", "management"]
Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")]


class IntentModel(BaseModel):
    """Base of every intent model: frozen, closed to unknown keys.

    Built on first use (``defer_build``): a compile whose intent files are unchanged takes them
    validated from :mod:`compiler.intentcache` and never builds most models (about 80 ms at
    every start when all were built at import). So no model is instantiated at import: a
    default that is a model is a ``default_factory``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Site(IntentModel):
    name: Name
    domain: str


def format_template(value: str, placeholders: dict[str, object]) -> str:
    """Check that ``value`` formats with exactly the named ``placeholders`` (example values).

    Examples:
        >>> format_template("SERVER_{server}_{nic}", {"server": "a", "nic": "b"})
        'SERVER_{server}_{nic}'
        >>> format_template("SERVER_{host}", {"server": "a", "nic": "b"})
        Traceback (most recent call last):
        ...
        ValueError: unknown placeholder {host}: use {server}, {nic}
    """
    try:
        names = [name for _, name, _, _ in string.Formatter().parse(value) if name is not None]
    except ValueError as exc:
        raise ValueError(f"not a format string: {exc}") from exc
    allowed = ", ".join(f"{{{p}}}" for p in placeholders) or "no placeholder"
    for name in names:
        if name not in placeholders:
            raise ValueError(f"unknown placeholder {{{name}}}: use {allowed}")
    try:
        value.format(**placeholders)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"does not format: {exc}") from exc
    return value


class Descriptions(IntentModel):
    """Interface descriptions, as format strings; each field lists its placeholders."""

    server_port: str = "SERVER_{server}_{nic}"
    server_channel: str = "SERVER_{server}_{bond}"
    fabric_link: str = "P2P_{peer}_{peer_port}"
    peer_link: str = "MLAG_PEER_{peer}_{port}"
    peer_link_channel: str = "MLAG_PEER_{peer}_Po{channel}"
    management_port: str = "MGMT_{peer}_{peer_port}"
    rack_uplink: str = "UPLINK_{peer}_{peer_port}"
    rack_downlink: str = "DOWNLINK_{peer}_{peer_port}"
    upstream: str = "UPSTREAM_SITE"
    loopback: str = "ROUTER_ID"
    management: str = "OOB_MANAGEMENT"
    gateway: str = "{vlan}_GW"
    rack_gateway: str = "GW_{vlan}"
    shutdown_port: str = "{description} SHUTDOWN: {reason}"
    decommissioned_port: str = "DECOMMISSIONED_{server}_{nic}"
    moved_port: str = "MOVED_{server}_{nic}_TO_{moved_to}"

    PLACEHOLDERS: ClassVar[dict[str, dict[str, object]]] = {
        "server_port": {"server": "s", "nic": "n"},
        "server_channel": {"server": "s", "bond": "b"},
        "fabric_link": {"peer": "p", "peer_port": "pp"},
        "peer_link": {"peer": "p", "port": "pp"},
        "peer_link_channel": {"peer": "p", "channel": 1},
        "management_port": {"peer": "p", "peer_port": "pp"},
        "rack_uplink": {"peer": "p", "peer_port": "pp"},
        "rack_downlink": {"peer": "p", "peer_port": "pp"},
        "upstream": {},
        "loopback": {},
        "management": {},
        "gateway": {"vlan": "v"},
        "rack_gateway": {"vlan": "v"},
        "shutdown_port": {"description": "d", "reason": "r"},
        "decommissioned_port": {"server": "s", "nic": "n"},
        "moved_port": {"server": "s", "nic": "n", "moved_to": "m"},
    }
    """The placeholders of each description, with an example value of the type each takes."""

    @field_validator("*")
    @classmethod
    def _placeholders(cls, value: str, info: ValidationInfo) -> str:
        return format_template(value, cls.PLACEHOLDERS[info.field_name or ""])


class Naming(IntentModel):
    server: str = r"^rack(?P<rack>\d{2})-(?P<kind>gpu|stor)(?P<position>\d{3})$"
    descriptions: Descriptions = Field(default_factory=Descriptions)

    @field_validator("server")
    @classmethod
    def _groups(cls, value: str) -> str:
        try:
            pattern = re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from exc
        missing = {"rack", "position"} - set(pattern.groupindex)
        if missing:
            raise ValueError(f"the pattern needs named groups {sorted(missing)}")
        return value


VlanName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]+$")]
ProfileName = Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+$")]
SecretName = Annotated[str, Field(pattern=r"^[a-z0-9_]+$")]
"""The NAME of a ``<secret:NAME>`` reference, resolved on the way to a device (never a value)."""


class AccessRule(IntentModel):
    """Who may reach one management service of the switches: an ACL of source prefixes."""

    acl: ProfileName
    # None: services.management_prefixes (gNMI adds services.collectors.gnmi).
    prefixes: tuple[ipaddress.IPv4Network, ...] | None = None


class Access(IntentModel):
    """One ACL per management service (eAPI, SSH, gNMI), on every switch."""

    eapi: AccessRule = Field(default_factory=lambda: AccessRule(acl="MGMT-EAPI"))
    ssh: AccessRule = Field(default_factory=lambda: AccessRule(acl="MGMT-SSH"))
    gnmi: AccessRule = Field(default_factory=lambda: AccessRule(acl="MGMT-GNMI"))


class Aaa(IntentModel):
    """Remote AAA beside the local admin user: TACACS+ or RADIUS servers, one shared key."""

    protocol: Literal["tacacs+", "radius"] = "tacacs+"
    servers: tuple[ipaddress.IPv4Address, ...] = Field(min_length=1)
    # The server key, type 7 as EOS stores it: written <secret:NAME>, resolved at deploy.
    key: SecretName = "aaa_key"
    group: ProfileName = "AAA-SERVERS"


class Snmp(IntentModel):
    """SNMPv3 with authentication and privacy (no community exists to leak); absent: no SNMP."""

    user: Name
    group: ProfileName = "NMS-RO"
    view: ProfileName = "NMS-VIEW"
    auth: Literal["sha", "sha256", "sha384", "sha512"] = "sha256"
    priv: Literal["aes", "aes192", "aes256"] = "aes256"
    # The passphrases: <secret:NAME> references resolved at deploy.
    auth_secret: SecretName = "snmp_auth"
    priv_secret: SecretName = "snmp_priv"
    hosts: tuple[ipaddress.IPv4Address, ...] = ()


class Collectors(IntentModel):
    """Where telemetry goes: gNMI collectors subscribe to the switches, sFlow collectors receive samples."""

    gnmi: tuple[ipaddress.IPv4Address, ...] = ()
    sflow: tuple[ipaddress.IPv4Address, ...] = ()


class Gnmi(IntentModel):
    """The gNMI server of every switch (dial-in, TLS) and how the collector verifies it."""

    port: int = Field(6030, ge=1, le=65535)
    ssl_profile: ProfileName = "GNMI"
    # Each switch's certificate and key, installed on its certificate: and sslkey: file systems.
    certificate: str = "{hostname}.crt"
    key: str = "{hostname}.key"
    # The CA that signed them, where the collector reads it (gnmic tls-ca).
    ca_file: str = "/etc/gnmic/fabric-ca.pem"
    # Whether the collector skips verifying the switches' certificates (a lab shortcut, never production).
    skip_verify: bool = False

    @field_validator("certificate", "key")
    @classmethod
    def _per_switch(cls, value: str) -> str:
        return format_template(value, {"hostname": "h"})


class Sflow(IntentModel):
    """sFlow from the leaves and spines to ``collectors.sflow`` (1 packet in ``sample_rate``)."""

    # EOS takes a rate below 16384 only with "dangerous"; its default, 1048576, sees too little.
    sample_rate: int = Field(16384, ge=16384, le=16777215)


class Services(IntentModel):
    ntp: tuple[ipaddress.IPv4Address, ...] = ()
    dns: tuple[ipaddress.IPv4Address, ...] = ()
    syslog: tuple[ipaddress.IPv4Address, ...] = ()
    admin_user: Name = "admin"
    # The sources (bastions, automation runners, collectors) eAPI, SSH and gNMI accept.
    management_prefixes: tuple[ipaddress.IPv4Network, ...] = ()
    access: Access = Field(default_factory=Access)
    aaa: Aaa | None = None
    snmp: Snmp | None = None
    collectors: Collectors = Field(default_factory=Collectors)
    gnmi: Gnmi = Field(default_factory=Gnmi)
    sflow: Sflow = Field(default_factory=Sflow)


class Mtu(IntentModel):
    host: int = Field(9000, ge=1500, le=9216)
    switch: int = Field(9214, ge=1500, le=9216)


InterfaceName = Annotated[str, Field(pattern=r"^Ethernet\d+(/\d+){0,2}$")]
"""An Ethernet interface as EOS names it on the switch's model (``Ethernet49``, ``Ethernet29/1``,
``Ethernet3/1/1``)."""

_CAGES = re.compile(r"^(?:(?P<slot>\d+)/)?(?P<first>\d+)(?:-(?P<last>\d+))?$")


def cage_labels(ref: int | str) -> tuple[str, ...]:
    """The cages a port-set item names: a number, a range, or either after a chassis slot.

    Examples:
        >>> cage_labels(5), cage_labels("1-3"), cage_labels("3/35-36")
        (('5',), ('1', '2', '3'), ('3/35', '3/36'))
        >>> cage_labels("Ethernet1")
        Traceback (most recent call last):
        ...
        ValueError: 'Ethernet1' is not a cage number or range (5, 1-44, or 3/1-36 on a chassis)
    """
    match = _CAGES.match(str(ref))
    if match is None:
        raise ValueError(f"{ref!r} is not a cage number or range (5, 1-44, or 3/1-36 on a chassis)")
    first = int(match["first"])
    last = int(match["last"] or first)
    if last < first:
        raise ValueError(f"{ref!r}: the range ends below its start")
    prefix = f"{match['slot']}/" if match["slot"] else ""
    return tuple(f"{prefix}{n}" for n in range(first, last + 1))


class PortSet(IntentModel):
    """An ordered set of interfaces: the cages listed, each broken out into ``breakout``'s
    interfaces; the k-th member is the k-th interface (a 400G cage ``4x100g`` gives ``/1``,
    ``/3``, ``/5``, ``/7``). Without ``breakout`` each cage keeps its default mode.

    Example:
        >>> PortSet(ports=(1, "2-3"), breakout="4x100g").cages
        ('1', '2', '3')
    """

    ports: tuple[int | str, ...] = Field(min_length=1)
    breakout: str | None = None

    @field_validator("ports")
    @classmethod
    def _cages(cls, value: tuple[int | str, ...]) -> tuple[int | str, ...]:
        seen: set[str] = set()
        for item in value:
            for label in cage_labels(item):
                if label in seen:
                    raise ValueError(f"cage {label} is listed twice")
                seen.add(label)
        return value

    @property
    def cages(self) -> tuple[str, ...]:
        """The cage labels, in order."""
        return tuple(label for item in self.ports for label in cage_labels(item))


class SwitchModelRef(IntentModel):
    """A catalog model (``docs/hardware.md``) and, for a chassis, its linecards by slot."""

    model: str
    linecards: dict[int, str | None] = {}
    """Slot -> linecard (None: an empty slot); slots not listed hold the chassis' default card."""


ADAPTER_PORT = re.compile(r"^(?P<adapter>.+?)(?:f\d+)?(?:np\d+)?$")
"""A predictable NIC name (``enp65s0f1``, ``ens1f0np0``) less its PCI function and port: the adapter."""


class Nic(IntentModel):
    name: str = Field(pattern=r"^[a-z][a-z0-9]*$")
    network: NetworkName
    speed: Speed
    numa: int = Field(0, ge=0)
    # The physical adapter the port belongs to (default: the name less its PCI function, enp65s0f1 ->
    # enp65s0): RoCE LAG bonds two ports of one adapter only.
    adapter: str | None = None

    @property
    def adapter_name(self) -> str:
        """The adapter of this port.

        Examples:
            >>> Nic(name="enp65s0f1", network="compute", speed="100g").adapter_name
            'enp65s0'
            >>> Nic(name="ens1f0np0", network="compute", speed="100g").adapter_name
            'ens1'
            >>> Nic(name="eno1", network="management", speed="1g").adapter_name
            'eno1'
        """
        if self.adapter is not None:
            return self.adapter
        match = ADAPTER_PORT.match(self.name)
        return match["adapter"] if match else self.name


class ServerModel(IntentModel):
    gpus: int = Field(ge=0)
    power_w: int = Field(ge=0)
    rack_units: int = Field(1, ge=1)
    nics: tuple[Nic, ...] = Field(min_length=1)
    # The NUMA node of each GPU, by index (nvidia-smi topo -m). Default: the GPUs split evenly, in
    # order, over the NUMA nodes of the compute NICs (8 GPUs, NICs on 0 and 1: four on each).
    gpu_numa: tuple[int, ...] | None = None

    def nics_on(self, network: NetworkName) -> tuple[Nic, ...]:
        """Its NICs on ``network``, in order (asked per server and network: kept per model)."""
        return _nics_by_network(self.nics).get(network, ())

    @property
    def adapters(self) -> Mapping[str, str]:
        """The adapter of each NIC, by NIC name (kept per model)."""
        return _adapters(self.nics)

    @property
    def gpu_nodes(self) -> tuple[int, ...]:
        """The NUMA node of each GPU.

        Example:
            >>> a = Nic(name="a", network="compute", speed="100g", numa=1)
            >>> nics = (a, Nic(name="b", network="compute", speed="100g"))
            >>> ServerModel(gpus=4, power_w=1, nics=nics).gpu_nodes
            (0, 0, 1, 1)
        """
        if self.gpu_numa is not None:
            return self.gpu_numa
        nodes = sorted({n.numa for n in self.nics_on("compute")}) or [0]
        return tuple(nodes[i * len(nodes) // self.gpus] for i in range(self.gpus)) if self.gpus else ()

    @model_validator(mode="after")
    def _one_node_per_gpu(self) -> Self:
        if self.gpu_numa is not None and len(self.gpu_numa) != self.gpus:
            raise ValueError(f"gpu_numa lists {len(self.gpu_numa)} GPUs, the model has {self.gpus}")
        return self


ROCE_DSCPS = (26, 27)
"""RoCEv2 data is marked DSCP 26 (and 27): they belong in the lossless class."""


@per_object
def _nics_by_network(nics: tuple[Nic, ...]) -> dict[str, tuple[Nic, ...]]:
    by_network: dict[str, list[Nic]] = {}
    for nic in nics:
        by_network.setdefault(nic.network, []).append(nic)
    return {network: tuple(found) for network, found in by_network.items()}


@per_object
def _adapters(nics: tuple[Nic, ...]) -> dict[str, str]:
    return {nic.name: nic.adapter_name for nic in nics}


class Vlan(IntentModel):
    id: int = Field(ge=2, le=4092)
    name: VlanName


class Cnp(IntentModel):
    dscp: int = Field(ge=0, le=63)
    tc: int = Field(ge=0, le=7)


class EcnThreshold(IntentModel):
    """The WRED-ECN marking band of the lossless queue at one port speed."""

    min_kbytes: int = Field(ge=1)
    max_kbytes: int = Field(ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.max_kbytes < self.min_kbytes:
            raise ValueError(f"max_kbytes ({self.max_kbytes}) is below min_kbytes ({self.min_kbytes})")
        return self


ECN_KBYTES_PER_100G = (256, 512)
"""The marking band at 100G; other speeds scale it linearly (the same queueing delay at every speed)."""


@functools.cache
def default_ecn_thresholds() -> dict[Speed, EcnThreshold]:
    """The marking band of each speed from 25G, by :data:`ECN_KBYTES_PER_100G` (made on first use:
    an instance made at import would build the model's validator in every process).

    Example:
        >>> default_ecn_thresholds()["400g"]
        EcnThreshold(min_kbytes=1024, max_kbytes=2048)
    """
    return {
        speed: EcnThreshold(
            min_kbytes=ECN_KBYTES_PER_100G[0] * SPEEDS_GBPS[speed] // 100,
            max_kbytes=ECN_KBYTES_PER_100G[1] * SPEEDS_GBPS[speed] // 100,
        )
        for speed in get_args(Speed)
        if SPEEDS_GBPS[speed] >= 25
    }


class Ecn(IntentModel):
    """ECN on the lossless queue: the marking band per port speed, and what hosts put in the ECN bits."""

    queue: int = Field(ge=0, le=7)
    thresholds: dict[Speed, EcnThreshold] = Field(default_factory=default_ecn_thresholds)
    max_mark_probability: int = Field(100, ge=1, le=100)
    weight: int = Field(0, ge=0, le=15)
    # The ECN codepoint hosts send RoCE with: a switch marks CE only on ECN-capable packets.
    host_codepoint: Literal["ect0", "ect1", "not-ect"] = "ect0"

    @field_validator("thresholds")
    @classmethod
    def _over_defaults(cls, value: dict[Speed, EcnThreshold]) -> dict[Speed, EcnThreshold]:
        """The speeds the intent lists replace the defaults; the others keep theirs."""
        return {**default_ecn_thresholds(), **value}


class Watchdog(IntentModel):
    # The PFC watchdog on every lossless port (the timers below alone enable it nowhere).
    enabled: bool = True
    action: Literal["drop", "errdisable", "notify-only"] = "drop"
    timeout: float = Field(0.2, gt=0)
    polling_interval: float = Field(0.1, gt=0)
    recovery_time: float = Field(0.4, gt=0)


Dscp = Annotated[int, Field(ge=0, le=63)]
TrafficClass = Annotated[int, Field(ge=0, le=7)]


class QosProfile(IntentModel):
    dscp_to_tc: dict[Dscp, TrafficClass]
    # Every DSCP not in dscp_to_tc is mapped to this traffic class explicitly (best effort), so no
    # platform default can put a stray marking in the lossless or the CNP class.
    default_tc: int = Field(1, ge=0, le=7)
    pfc_priority: int = Field(ge=0, le=7)
    cnp: Cnp
    ecn: Ecn
    queue_bandwidth: dict[int, int]
    strict_queues: tuple[int, ...] = ()
    watchdog: Watchdog = Field(default_factory=Watchdog)
    # The egress queue of each traffic class; a class not listed uses the queue of its number.
    tc_to_queue: dict[Annotated[int, Field(ge=0, le=7)], Annotated[int, Field(ge=0, le=7)]] = {}
    # The per-port QoS profile of each switch role (queue behaviour differs between ASICs).
    service_profiles: dict[Literal["leaf", "spine"], ProfileName] = {"leaf": "ROCE-LEAF", "spine": "ROCE-SPINE"}


class OspfSettings(IntentModel):
    process: int = Field(100, ge=1, le=65535)
    area: ipaddress.IPv4Address = ipaddress.IPv4Address("0.0.0.0")
    max_lsa: int = Field(12000, ge=1)


class BgpSettings(IntentModel):
    spine_asn: int = Field(ge=1, le=4294967295)
    leaf_asn_base: int = Field(ge=1, le=4294967295)
    # Three-stage fabrics: pod q's spines take pod_asn_base + q, the super-spines super_spine_asn.
    pod_asn_base: int | None = Field(None, ge=1, le=4294967295)
    super_spine_asn: int | None = Field(None, ge=1, le=4294967295)
    maximum_routes: int = Field(12000, ge=1)
    underlay_peer_group: ProfileName = "IPv4-UNDERLAY-PEERS"
    mlag_peer_group: ProfileName = "MLAG-IPv4-UNDERLAY-PEER"
    redistribute_route_map: ProfileName = "RM-CONN-2-BGP"
    mlag_route_map: ProfileName = "RM-MLAG-PEER-IN"
    loopbacks_prefix_list: ProfileName = "PL-LOOPBACKS"
    hosts_prefix_list: ProfileName = "PL-HOST-SUBNETS"


class Bfd(IntentModel):
    """BFD on every underlay adjacency (OSPF neighbors, eBGP sessions to the other tier)."""

    enabled: bool = True
    # A dead link is out after max(interval, min_rx) x multiplier: 750 ms, under a second.
    interval_ms: int = Field(250, ge=50, le=60000)
    min_rx_ms: int = Field(250, ge=50, le=60000)
    multiplier: int = Field(3, ge=3, le=50)


class RoutingProfile(IntentModel):
    protocol: Literal["ospf", "ebgp"]
    ospf: OspfSettings = Field(default_factory=OspfSettings)
    bgp: BgpSettings | None = None
    bfd: Bfd = Field(default_factory=Bfd)

    @model_validator(mode="after")
    def _bgp_settings(self) -> Self:
        if self.protocol == "ebgp" and self.bgp is None:
            raise ValueError("protocol ebgp needs a 'bgp' block (spine_asn, leaf_asn_base)")
        return self


class Pools(IntentModel):
    hosts: ipaddress.IPv4Network
    loopbacks: ipaddress.IPv4Network
    p2p: ipaddress.IPv4Network
    mlag_peer: ipaddress.IPv4Network
    mlag_l3: ipaddress.IPv4Network
    # Three-stage fabrics (``pods``): the pod spines' loopbacks and the pod spine-super-spine /31s.
    spine_loopbacks: ipaddress.IPv4Network | None = None
    spine_p2p: ipaddress.IPv4Network | None = None


class Spines(SwitchModelRef):
    """The spines of a fabric (with ``pods``: the spines of every pod)."""

    count: int = Field(ge=1, le=64)
    rack: int = Field(ge=1)
    name_prefix: Name
    # Leaf L (in a pod: the pod's L-th leaf) takes the L-th interface; default: every cage of the
    # model's fastest speed, in order.
    downlinks: PortSet | None = None
    # With pods: the ports towards the super-spines of the spine's plane, shared out in order.
    uplinks: PortSet | None = None


class DownlinkBudget(IntentModel):
    min: int = Field(1, ge=1)
    max: int = Field(ge=1)


class Leaves(SwitchModelRef):
    name_suffix: Name
    racks_per_pair: int = Field(1, ge=1)
    ports_per_rack: int = Field(ge=1)
    downlink_budget: DownlinkBudget | None = None
    # Server host index k (k = (rack - first rack of the pair) * ports_per_rack + position) takes
    # the k-th interface of these cages.
    downlinks: PortSet
    uplink_ports: tuple[InterfaceName, ...] = Field(min_length=1)
    uplinks_per_leaf: int | None = Field(None, ge=1)
    peer_link_ports: tuple[InterfaceName, ...] = Field(min_length=1)


class SuperSpines(SwitchModelRef):
    """The super-spines of a three-stage fabric: one plane per pod spine number."""

    per_plane: int = Field(ge=1, le=64)
    racks: tuple[int | tuple[int, ...], ...] = Field(min_length=1)
    """Plane p's super-spines stand in ``racks[p - 1]`` (the last entry holds the planes after it):
    a rack, or a list of racks that the plane's super-spines fill in order, evenly (chassis too
    tall for one rack together)."""
    name_prefix: Name = "superspine"
    # Pod q's spine of this plane takes the next interfaces, in pod order; default: every cage of
    # the model's fastest speed.
    downlinks: PortSet | None = None

    def rack_of(self, plane: int, number: int) -> int:
        """The rack super-spine ``number`` of ``plane`` stands in (both from 1).

        Examples:
            >>> supers = SuperSpines(model="DCS-7808-CH", per_plane=8, racks=(201, (202, 203, 204, 205)))
            >>> supers.rack_of(1, 8), [supers.rack_of(2, n) for n in (1, 2, 3, 8)], supers.rack_of(4, 1)
            (201, [202, 202, 203, 205], 202)
        """
        entry = self.racks[min(plane, len(self.racks)) - 1]
        if isinstance(entry, int):
            return entry
        return entry[(number - 1) * len(entry) // self.per_plane]


class Pods(IntentModel):
    """A three-stage fabric: pods of ``racks`` racks, each with its own spines, joined by super-spines."""

    racks: int = Field(ge=1)
    spine_racks: tuple[int, ...] = Field(min_length=1)
    """Pod q's spines stand in ``spine_racks[q - 1]``."""
    super_spines: SuperSpines


class FabricIntent(IntentModel):
    """One spine-leaf fabric of MLAG leaf pairs (the compute or the storage network)."""

    vlan: str
    qos: str | None = None
    routing: str
    # How a server's two NICs of this network attach: one bond (active-backup, or lacp: an MLAG
    # port-channel), or per-nic: no bond, each NIC its own address (and its own RoCE GID).
    bonding: Literal["active-backup", "lacp", "per-nic"] = "active-backup"
    # active-backup: which NIC is primary; by-server alternates leaf a / leaf b by rack position,
    # so neither leaf of a pair carries every bond's traffic.
    primary: Literal["by-server", "leaf-a"] = "by-server"
    # Whether RDMA runs over this network (RoCE LAG rules then apply to its bonds). Default: when
    # the fabric has a QoS profile.
    rdma: bool | None = None
    # The highest leaf oversubscription (server-facing : uplink bandwidth) the design accepts.
    # Default: 1 on a lossless RDMA fabric (non-blocking), 3 otherwise.
    max_oversubscription: float | None = Field(None, gt=0)
    pools: Pools
    spines: Spines
    leaves: Leaves
    pods: Pods | None = None
    virtual_router_mac: str = Field(pattern=r"^([0-9a-f]{2}:){5}[0-9a-f]{2}$")
    # Extra VLAN profiles on one leaf pair (key: pair number; a compute pair is its rack number).
    pair_vlans: dict[int, tuple[str, ...]] = {}
    # With bonding lacp: seconds a server port without LACP stays up on its own (fallback individual).
    lacp_fallback_timeout: int = Field(30, ge=1, le=300)

    @property
    def carries_rdma(self) -> bool:
        """Whether RDMA runs over the network: ``rdma``, else whether it has a QoS profile."""
        return self.rdma if self.rdma is not None else self.qos is not None

    @property
    def oversubscription_limit(self) -> float:
        """``max_oversubscription``, else 1 for a lossless RDMA fabric and 3 for any other."""
        if self.max_oversubscription is not None:
            return self.max_oversubscription
        return 1.0 if self.carries_rdma and self.qos is not None else 3.0


class MlagSettings(IntentModel):
    """How every MLAG leaf pair is built: its VLANs, peer-link port-channel, domain and STP role."""

    peer_vlan: int = Field(4094, ge=2, le=4094)
    peer_vlan_name: VlanName = "MLAG_PEER"
    l3_vlan: int = Field(4093, ge=2, le=4094)
    l3_vlan_name: VlanName = "MLAG_L3_PEER"
    trunk_group: VlanName = "MLAG"
    peer_link_channel: int = Field(1000, ge=1, le=2000)
    domain_id: str = "{NETWORK}_PAIR{pair:02d}"
    mst_priority: int = Field(4096, ge=0, le=61440, multiple_of=4096)

    @field_validator("domain_id")
    @classmethod
    def _domain_id(cls, value: str) -> str:
        return format_template(value, {"network": "compute", "NETWORK": "COMPUTE", "pair": 1})

    @model_validator(mode="after")
    def _distinct_vlans(self) -> Self:
        if self.peer_vlan == self.l3_vlan:
            raise ValueError(f"peer_vlan and l3_vlan are both {self.peer_vlan}: they must differ")
        return self


class SwitchPorts(IntentModel):
    """The ports of a rack's management switch: server position p takes the p-th of ``servers``,
    the fabric switch in slot k the k-th of ``devices``."""

    servers: PortSet
    devices: PortSet


class Core(SwitchModelRef):
    name: Name
    rack: int = Field(ge=1)
    upstream_port: InterfaceName
    # Rack R's management switch takes the R-th interface.
    downlinks: PortSet


class Upstream(IntentModel):
    subnet: ipaddress.IPv4Network
    gateway: ipaddress.IPv4Address


class Management(IntentModel):
    pool: ipaddress.IPv4Network
    vlan_base: int = Field(2000, ge=2, le=3800)
    vlan_name: str = "MGMT_RACK{rack:02d}"
    # The servers' management VLAN of each rack (their subnet is the upper half of the rack's /24).
    server_vlan_base: int = Field(2500, ge=2, le=3800)
    server_vlan_name: str = "SRV_MGMT_RACK{rack:02d}"
    switch_name: str = "rack{rack:02d}-mgmt"
    switch_model: str
    switch_uplink_port: InterfaceName
    switch_ports: SwitchPorts
    core: Core
    upstream: Upstream
    # The VRF of Management1 on the fabric switches (the management network itself routes in default).
    vrf: ProfileName = "MGMT"

    @field_validator("vlan_name", "switch_name", "server_vlan_name")
    @classmethod
    def _rack_names(cls, value: str) -> str:
        return format_template(value, {"rack": 1})


class Thresholds(IntentModel):
    pfc_pause_frames_per_min: int = Field(1000, ge=0)
    ecn_marks_per_min: int = Field(10000, ge=0)
    crc_errors: int = Field(0, ge=0)
    flaps_per_hour: int = Field(3, ge=0)
    optic_temperature_c: float = Field(70, gt=0)


class NfsExport(IntentModel):
    name: Name
    server: str
    export: str = Field(pattern=r"^/")
    mount: str = Field(pattern=r"^/")


ServerKind = Annotated[str, Field(pattern=r"^[a-z][a-z0-9]*$")]


class LustreFs(IntentModel):
    """A Lustre file system mounted by the native client on servers of the given kinds."""

    name: Name
    fsname: str = Field(pattern=r"^[A-Za-z0-9_]{1,8}$")
    mgs: tuple[str, ...] = Field(min_length=1, description="servers running the MGS (NIDs are their storage addresses)")
    mount: str = Field(pattern=r"^/")
    options: str = "flock,_netdev"
    clients: tuple[ServerKind, ...] = ("gpu",)


class GpfsFs(IntentModel):
    """An IBM Storage Scale (GPFS) file system the servers of the given kinds join."""

    name: Name
    cluster: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    device: str = Field(pattern=r"^[A-Za-z0-9_]+$")
    mount: str = Field(pattern=r"^/")
    contact_nodes: tuple[str, ...] = Field(min_length=1, description="servers of the GPFS cluster to contact")
    clients: tuple[ServerKind, ...] = ("gpu",)


class StorageServices(IntentModel):
    nfs: tuple[NfsExport, ...] = ()
    nfs_options: str = "nolock,hard,intr,rsize=1048576,wsize=1048576"
    lustre: tuple[LustreFs, ...] = ()
    gpfs: tuple[GpfsFs, ...] = ()


class StormControl(IntentModel):
    """Storm-control levels on every server-facing port, in percent of the port's speed (null: off)."""

    broadcast: float | None = Field(1.0, gt=0, le=100)
    multicast: float | None = Field(1.0, gt=0, le=100)
    # Off by default: traffic routed to a host whose MAC aged out before its ARP entry is flooded as
    # unknown unicast, and a cap would drop RoCE in the lossless class until the host speaks again.
    unknown_unicast: float | None = Field(None, gt=0, le=100)


class ServerConfig(IntentModel):
    """How server network files are written: NetworkManager keyfiles (default) or ifcfg."""

    format: Literal["networkmanager", "ifcfg"] = "networkmanager"


class CableLengths(IntentModel):
    """The cable-length rule: in-rack runs, rack pitch in a row, row pitch, slack per cable."""

    in_rack_m: float = Field(3.0, gt=0)
    rack_pitch_m: float = Field(0.6, gt=0)
    row_pitch_m: float = Field(3.0, gt=0)
    slack_m: float = Field(6.0, ge=0)


class FabricFile(IntentModel):
    """``intent/fabric.yaml``."""

    site: Site
    naming: Naming = Field(default_factory=Naming)
    services: Services = Field(default_factory=Services)
    mtu: Mtu = Field(default_factory=Mtu)
    server_models: dict[Name, ServerModel]
    vlans: dict[Name, Vlan]
    qos_profiles: dict[Name, QosProfile] = {}
    routing_profiles: dict[Name, RoutingProfile]
    fabrics: dict[Literal["compute", "storage"], FabricIntent]
    management: Management
    mlag: MlagSettings = Field(default_factory=MlagSettings)
    thresholds: Thresholds = Field(default_factory=Thresholds)
    storage_services: StorageServices = Field(default_factory=StorageServices)
    extra_config: dict[str, str] = {}
    server_config: ServerConfig = Field(default_factory=ServerConfig)
    cabling: CableLengths = Field(default_factory=CableLengths)
    storm_control: StormControl = Field(default_factory=StormControl)


class Rack(IntentModel):
    id: int = Field(ge=1, le=4000)
    row: str = Field(pattern=r"^[A-Z]{1,2}$")
    position: int = Field(ge=1)
    pdu_kw: float = Field(gt=0)
    role: Literal["gpu", "storage", "network"]
    units: int = Field(42, ge=1, le=60)


class Row(IntentModel):
    """A row of racks: the cooling and UPS capacity it shares."""

    cooling_kw: float = Field(gt=0)
    ups_kw: float = Field(gt=0)


class RacksFile(IntentModel):
    """``intent/racks.yaml``."""

    racks: tuple[Rack, ...] = Field(min_length=1)
    rows: dict[Annotated[str, Field(pattern=r"^[A-Z]{1,2}$")], Row] = {}


ServerStatus = Literal["active", "decommissioned"]


class ServerRow(IntentModel):
    """One row of ``intent/servers.csv``."""

    name: str
    model: str
    asset_tag: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    compute_port: Annotated[int, Field(ge=1)] | InterfaceName | None = None
    """The k-th downlink port of the server's compute leaves, or an interface name."""
    status: ServerStatus = "active"
    """``decommissioned``: the server is gone; its ports stay shut and described and its addresses
    and position stay reserved until its row is removed (a second, explicit change)."""
    moved_from: str | None = None
    """The server's name before a move (a renamed row keeping its asset tag): the ports of the old
    position that no server takes are described ``MOVED_<old>_<nic>_TO_<new>`` until it is cleared."""

    @field_validator("compute_port", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        if isinstance(value, str) and value.isdigit():
            return int(value)
        return None if value == "" else value

    @field_validator("status", mode="before")
    @classmethod
    def _blank_is_active(cls, value: object) -> object:
        return "active" if value == "" else value

    @field_validator("moved_from", mode="before")
    @classmethod
    def _blank_is_not_moved(cls, value: object) -> object:
        return None if value == "" else value


REQUIRED_COLUMNS = ("name", "model", "asset_tag")


class ValidRow(NamedTuple):
    """The values of a row :class:`ServerRow` validated: what a :class:`Server` is made of, as plain
    values (kept per row by :mod:`compiler.intentcache`, read back without the model).

    Example:
        >>> ValidRow.of(ServerRow(name="rack03-gpu001", model="gpu", asset_tag="A1", compute_port="7"))
        ValidRow(name='rack03-gpu001', model='gpu', asset_tag='A1', compute_port=7, status='active', moved_from=None)
    """

    name: str
    model: str
    asset_tag: str
    compute_port: int | str | None
    status: ServerStatus
    moved_from: str | None

    @classmethod
    def of(cls, row: ServerRow) -> "ValidRow":
        """The values of ``row``."""
        return cls(row.name, row.model, row.asset_tag, row.compute_port, row.status, row.moved_from)


class KeptRows(NamedTuple):
    """``servers.csv`` as :mod:`compiler.intentcache` keeps it: its header line, each of its rows
    (all valid) as its line as written -> the :class:`ValidRow` values, and :class:`ServerRow`'s
    validator once built (pydantic-core's, which pickles as its schema).

    A row is known by its line under the same header (the columns): the same text is the same
    values, so it is valid as it was, without parsing the table as CSV; a table with quotes (a
    row may span lines) is never kept. One entry a table, one pickle: a row per line held as
    its text and a tuple is a quarter of what each row's parsed columns cost to keep and read.

    A row added to a kept table is validated by the kept validator: the very one
    ``ServerRow.model_validate`` runs, the same errors word for word, without building the
    model in this process (building the first model of a process imports pydantic's plugin
    loader, and with it ``importlib.metadata``: about 20 ms of a one-row compile at 16x).

    Example:
        >>> kept = KeptRows("name,model,asset_tag", {"rack01-gpu001,gpu,A1": ("rack01-gpu001", "gpu", "A1",
        ...     None, "active", None)}, None)
        >>> found = kept.known(["name,model,asset_tag", "rack01-gpu001,gpu,A1", "rack01-gpu002,gpu,A2"])
        >>> [(line, row.name) for line, row in found.items()]
        [(2, 'rack01-gpu001')]
        >>> kept.known(["name,asset_tag,model", "rack01-gpu001,gpu,A1"])
        {}
    """

    header: str
    rows: Mapping[str, tuple[Any, ...]]
    validator: SchemaValidator | None

    def known(self, lines: list[str]) -> dict[int, ValidRow]:
        """The rows among ``lines`` (a table's, header first) kept as valid, by line number."""
        if not lines or lines[0] != self.header:
            return {}
        rows = self.rows
        return {number: ValidRow._make(rows[line]) for number, line in enumerate(lines[1:], 2) if line in rows}


def plain_lines(text: str) -> list[str] | None:
    r"""The lines of a CSV table where each line is one row (no quotes, so no row spans lines,
    and every line ends in ``\n`` or ``\r\n``); None for another table.

    Example:
        >>> plain_lines("name,model\r\na,b\n"), plain_lines('name,model\n"a\nb",c\n'), plain_lines("a\rb")
        (['name,model', 'a,b', ''], None, None)
    """
    if '"' in text:
        return None
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None
        return [line.removesuffix("\r") for line in text.split("\n")]
    return text.split("\n")


def _row_validator(kept: KeptRows | None) -> SchemaValidator | None:
    """:class:`ServerRow`'s validator: the model's, when this process built it; else the kept one."""
    built = ServerRow.__pydantic_validator__
    if ServerRow.__pydantic_complete__ and isinstance(built, SchemaValidator):
        return built
    return kept.validator if kept is not None and isinstance(kept.validator, SchemaValidator) else None


@dataclass(frozen=True)
class Server:
    """A server row with the rack and position its name encodes (C6)."""

    name: str
    model: str
    asset_tag: str
    rack: int
    position: int
    kind: str
    compute_port: int | str | None = None
    status: ServerStatus = "active"
    moved_from: tuple[int, int, str] | None = None
    """(rack, position, name) the server was moved from (``servers.csv`` ``moved_from``)."""

    @property
    def active(self) -> bool:
        """Whether the server is in service (a decommissioned one only holds its ports and addresses)."""
        return self.status == "active"


@dataclass(frozen=True)
class Intent:
    """The whole intent, validated: what :func:`compiler.fabric.resolve` consumes."""

    fabric: FabricFile
    racks: dict[int, Rack]
    servers: tuple[Server, ...]
    digest: str
    rows: dict[str, Row] = field(default_factory=dict)
    catalog: Catalog = field(default_factory=catalog)
    """The switch model catalog, with the repository's own models of ``intent/hardware/``."""
    vlans: Mapping[str, ServerVlan] = field(default_factory=dict)
    """``vlans.yaml``: VLANs on server ports, by key."""
    ports: Mapping[str, Mapping[str, PortSettings]] = field(default_factory=dict)
    """``ports.yaml``: per switch, per interface name."""
    devices: Mapping[str, DeviceSettings] = field(default_factory=dict)
    """``devices.yaml``: per switch."""
    rack_order: tuple[int, ...] = ()
    """The rack ids in the order ``racks.yaml`` lists them (its YAML path ``racks[i]``)."""
    lines: SourceLines = field(default_factory=lambda: SourceLines(Path("intent"), {}))
    """Turns a :class:`~compiler.sources.Source` into ``file:line`` (for messages)."""

    def where(self, source: Source) -> str:
        """``intent/<file>:<line>: <yaml path>`` of an intent element."""
        return self.lines.where(source)

    def model(self, ref: SwitchModelRef | str) -> Model:
        """The catalog model a switch of ``ref`` is (a chassis with its linecards)."""
        return resolve_model(self.catalog, ref)


# --------------------------------------------------------------------------- loading


_RESOLVE: Callable[[Any, type[yaml.Node], Any, tuple[bool, bool]], str] = yaml.CSafeLoader.resolve
"""PyYAML's resolver (untyped in its stubs)."""


class _Loader(yaml.CSafeLoader):
    r"""libyaml's fast parser with YAML 1.2 scalars: only true/false are booleans, no base-60; a
    key written twice in one mapping is an error.

    Examples:
        >>> yaml.load("a: on\nb: 1:30\nc: true\nd: 12", Loader=_Loader)
        {'a': 'on', 'b': '1:30', 'c': True, 'd': 12}
        >>> yaml.load("- [12, '12', 12, true, 'true', true]", Loader=_Loader)
        [[12, '12', 12, True, 'true', True]]
        >>> yaml.load("x:\n  a: 1\nx:\n  b: 2\n", Loader=_Loader)
        Traceback (most recent call last):
        ...
        yaml.constructor.ConstructorError: key 'x' is written twice (first on line 1): merge the two into one
          in "<unicode string>", line 3, column 1
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._plain_tags: dict[str, str] = {}

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: tuple[bool, bool]) -> str:
        """The tag of a node; a plain scalar's kept by its text for the document: racks.yaml
        repeats a few keys and values thousands of times at scale, and each went through
        the resolvers' regular expressions again (a quarter of loading the 16x racks.yaml)."""
        if kind is not yaml.ScalarNode or not implicit[0]:
            return _RESOLVE(self, kind, value, implicit)
        tag = self._plain_tags.get(value)
        if tag is None:
            tag = self._plain_tags[value] = _RESOLVE(self, kind, value, implicit)
        return tag

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A mapping, refusing a key written twice: PyYAML keeps the last one silently, and a
        second block for one device would replace the first without a word."""
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node)
            line = key_node.start_mark.line + 1
            if key in first:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"key {key!r} is written twice (first on line {first[key]}): merge the two into one",
                    key_node.start_mark,
                )
            first[key] = line
        return super().construct_mapping(node, deep=deep)


_Loader.yaml_implicit_resolvers = {
    first: [
        (tag, rx)
        for tag, rx in resolvers
        if tag not in {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
    ]
    for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789"))
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$"),
    list("-+0123456789."),
)

M = TypeVar("M", bound=BaseModel)


@paused
def load_intent(directory: Path, *, budgets: bool = True) -> Intent:
    """Load and validate ``directory`` (``intent/``); raise :class:`IntentError` listing every problem.

    ``budgets``: check that every pool, port set, ASN and VLAN range holds what the design asks
    of it (:mod:`compiler.budgets`); off only to test the design rules that stand behind them.
    """
    problems: list[str] = []
    raw: dict[str, bytes] = {}
    for name in INTENT_FILES:
        path = directory / name
        try:
            raw[name] = path.read_bytes()
        except FileNotFoundError:
            problems.append(f"{_show(path)}: missing: intent/ needs {', '.join(INTENT_FILES)}")
    if problems:
        raise IntentError(f"cannot load {_show(directory)}", problems)
    for name in SPECIFIC_FILES:
        with contextlib.suppress(FileNotFoundError):
            raw[name] = (directory / name).read_bytes()

    # The layouts are built of the catalog; their module imports this one.
    from compiler.facts.hardware import KeptHardware, adopt_layouts

    own = _model_files(directory)
    kept = kept_beside(directory)
    found = None if own else KeptHardware.get(kept, raw["fabric.yaml"])
    hardware = found if found is not None and found.adopted() else None
    models = hardware.catalog if hardware is not None else _catalog(directory, own, problems)
    text = {name: _text(directory / name, data, problems) for name, data in raw.items()}
    files = _Files(directory, raw, text, kept, problems)
    fabric = files.model("fabric.yaml", FabricFile)
    racks = files.model("racks.yaml", RacksFile)
    rows = files.server_rows("servers.csv")
    # An absent specific file is an empty one (constructed: validating nothing builds no model).
    vlans = files.model("vlans.yaml", VlansFile) if "vlans.yaml" in raw else VlansFile.model_construct()
    ports = files.model("ports.yaml", PortsFile) if "ports.yaml" in raw else PortsFile.model_construct()
    devices = files.model("devices.yaml", DevicesFile) if "devices.yaml" in raw else DevicesFile.model_construct()
    table_ok = rows is not None
    if fabric is None or racks is None or vlans is None or ports is None or devices is None:
        raise IntentError(f"{_show(directory)} is not valid", problems)

    racks_text = text["racks.yaml"] or ""
    rack_map = _index_racks(directory / "racks.yaml", racks_text, racks, problems)
    problems.extend(_row_references(directory / "racks.yaml", racks_text, racks))
    servers = _servers(directory / "servers.csv", rows or [], fabric, rack_map, problems)
    fabric_text = text["fabric.yaml"] or ""
    # Kept hardware: this fabric.yaml's ports were found on these models (they are its key).
    ports_on = models if hardware is None else None
    problems.extend(
        _cross_references(
            directory / "fabric.yaml", fabric_text, fabric, servers if table_ok else None, rack_map, ports_on
        )
    )
    if problems:
        raise IntentError(f"{_show(directory)} is not valid", problems)
    digest = intent_digest({**raw, **own})
    intent = Intent(
        fabric=fabric,
        racks=rack_map,
        servers=servers,
        digest=digest,
        rows=dict(sorted(racks.rows.items())),
        catalog=models,
        vlans=vlans.vlans,
        ports=ports.ports,
        devices=devices.devices,
        rack_order=tuple(rack.id for rack in racks.racks),
        lines=SourceLines(directory, raw),
    )
    if hardware is not None:
        adopt_layouts(intent, hardware.layouts)
    if not budgets:
        return intent
    _check_budgets(directory, intent)
    if found is None and not own:
        KeptHardware.put(kept, raw["fabric.yaml"], intent)
    return intent


def _catalog(directory: Path, own: Mapping[str, bytes], problems: list[str]) -> Catalog:
    """The catalog with the repository's ``own`` models (the shipped one when they are wrong)."""
    try:
        return catalog(ModelFiles.of(own, folder=_show(directory)))
    except FabricopsError as exc:
        problems.append(str(exc))
    return catalog()


def _check_budgets(directory: Path, intent: Intent) -> None:
    """Capacity before anything is built: a design past its pools or ports fails here in
    milliseconds, one line per budget, not after resolving thousands of switches."""
    from compiler.budgets import over_budget  # it reads the hardware layouts, which import this module

    sources = [(Source(b.file, b.loc), b.message) for b in over_budget(intent)]
    problems = [
        f"{intent.where(source)}: {message}"
        for source, message in sorted(sources, key=lambda item: (item[0].file, intent.lines.line(item[0]) or 0))
    ]
    if problems:
        raise IntentError(f"{_show(directory)} does not fit its design", problems)


def _model_files(directory: Path) -> dict[str, bytes]:
    """The repository's own model files under ``intent/`` (they are part of the intent)."""
    hardware = directory / HARDWARE_DIR
    if not hardware.is_dir():
        return {}
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(hardware.rglob("*.yaml"))}


def _show(path: Path) -> str:
    """A path as the user typed it: relative to the working directory when possible."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


WIDE_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
             (codecs.BOM_UTF16_BE, "UTF-16"))  # fmt: skip
"""Byte-order marks of the encodings a Windows editor saves as "Unicode" (UTF-32 first: its LE
mark starts with UTF-16's)."""


def decode_intent(data: bytes) -> str:
    """An intent file's text: UTF-8, a UTF-8 byte-order mark dropped (Excel writes one to CSV).

    Anything else is refused, naming the line: PyYAML would read UTF-16 silently, and git
    would diff it as binary.

    Examples:
        >>> decode_intent(codecs.BOM_UTF8 + b"name,model")
        'name,model'
        >>> decode_intent("a: 1".encode("utf-16"))
        Traceback (most recent call last):
        ...
        ValueError: 1: UTF-16 text: intent files are UTF-8 (convert it: iconv -f UTF-16 -t UTF-8)
        >>> decode_intent("a: 1\\n# Gr\\u00f6\\u00dfe\\n".encode("latin-1"))
        Traceback (most recent call last):
        ...
        ValueError: 2: byte 0xf6 at column 5 is not UTF-8: save the file as UTF-8 (latin-1 or Windows-1252?)
    """
    for bom, encoding in WIDE_BOMS:
        if data.startswith(bom):
            raise ValueError(f"1: {encoding} text: intent files are UTF-8 (convert it: iconv -f {encoding} -t UTF-8)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        raise ValueError(
            f"{line}: byte 0x{data[exc.start]:02x} at column {column} is not UTF-8: "
            "save the file as UTF-8 (latin-1 or Windows-1252?)"
        ) from None
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        raise ValueError(f"{line}: a NUL byte: intent files are UTF-8 text (UTF-16 without a byte-order mark?)")
    return text.removeprefix("\ufeff")


def _text(path: Path, data: bytes, problems: list[str]) -> str | None:
    """``data`` decoded (:func:`decode_intent`), or None with the problem recorded."""
    try:
        return decode_intent(data)
    except ValueError as exc:
        problems.append(f"{_show(path)}:{exc}")
        return None


def _char_at(text: str, line: int, column: int) -> str:
    """The character at 0-based ``line`` and ``column`` of ``text``, or '' past its end."""
    lines = text.splitlines()
    return lines[line][column : column + 1] if line < len(lines) else ""


class _Tree:
    """A document's line marks, parsed on the first question (only error paths ask)."""

    def __init__(self, data: str) -> None:
        self._data = data
        self._tree: Any = None
        self._parsed = False

    def line(self, loc: tuple[Any, ...]) -> int:
        """The 1-based line of ``loc`` (see :func:`_line_of`)."""
        if not self._parsed:
            self._tree, self._parsed = _yaml_tree(self._data), True
        return _line_of(self._tree, loc)


def _yaml_tree(data: str) -> Any:
    """The document with line marks (slow: used only to point at a problem's line)."""
    from ruamel.yaml import YAML  # only on this error path: importing it costs more than loading the intent

    try:
        return YAML(typ="rt").load(data)
    except Exception:
        return None


def _parse_yaml(path: Path, data: str, problems: list[str]) -> Any:
    """The document, or ``_UNREADABLE`` with the problem recorded (its line; a tab named as such)."""
    try:
        return yaml.load(data, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = exc.problem or exc.context
        if mark is not None and _char_at(data, mark.line, mark.column) == "\t":
            problem = "a tab character: YAML indents with spaces only"
        problems.append(f"{_show(path)}{line}: malformed YAML: {problem}")
    except yaml.YAMLError as exc:
        problems.append(f"{_show(path)}: malformed YAML: {exc}")
    return _UNREADABLE


_UNREADABLE = object()


@dataclass(frozen=True)
class _Files:
    """The files of one load of ``directory``: each taken from ``kept`` (:mod:`compiler.intentcache`)
    when its bytes validated before, else parsed and validated, and kept when valid."""

    directory: Path
    raw: Mapping[str, bytes]
    text: Mapping[str, str | None]
    kept: ValidatedFiles
    problems: list[str]

    def model(self, name: str, model: type[M]) -> M | None:
        """File ``name`` as ``model``; None when it is not valid (its problems recorded)."""
        found = self.kept.get(name, self.raw[name], model)
        if found is None:
            found = _load_yaml_model(self.directory / name, self.text[name], model, self.problems)
            if found is not None:
                self.kept.put(name, self.raw[name], found)
        return found

    def server_rows(self, name: str) -> list[tuple[int, ValidRow]] | None:
        """The rows of the table ``name`` with their line numbers (see :func:`_load_server_rows`):
        those kept (:class:`KeptRows`) as they were, only the others parsed and validated."""
        text = self.text[name]
        if text is None:
            return None
        table = self.kept.get(name, b"", KeptRows)
        lines = plain_lines(text)
        known = table.known(lines) if table is not None and lines is not None else {}
        if known and lines is not None:
            # Kept rows as blank lines: the CSV reader skips them and keeps counting lines.
            text = "\n".join(["" if number in known else line for number, line in enumerate(lines, 1)])
        validator = _row_validator(table)
        validate = validator.validate_python if validator is not None else ServerRow.model_validate
        before = len(self.problems)
        parsed = _load_server_rows(self.directory / name, text, self.problems, validate)
        if parsed is None:
            return None
        rows = sorted([*known.items(), *parsed])
        if lines is not None and len(self.problems) == before and (parsed or not known):
            kept = {lines[number - 1]: tuple(row) for number, row in rows}
            self.kept.put(name, b"", KeptRows(lines[0], kept, _row_validator(table)))
        return rows


def _load_yaml_model(path: Path, data: str | None, model: type[M], problems: list[str]) -> M | None:
    if data is None:
        return None
    values = _parse_yaml(path, data, problems)
    if values is _UNREADABLE:
        return None
    if values is None:
        problems.append(f"{_show(path)}: empty file")
        return None
    if not isinstance(values, dict):
        problems.append(f"{_show(path)}:1: expected a mapping at the top level")
        return None
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        tree = _yaml_tree(data)
        for error in exc.errors():
            loc = tuple(error["loc"])
            problems.append(f"{_show(path)}:{_line_of(tree, loc)}: {_yaml_path(loc)}: {_message(error)}")
    return None


def _line_of(tree: Any, loc: tuple[Any, ...]) -> int:
    """The 1-based line of the deepest node of ``loc`` that exists in ``tree``."""
    return yaml_line_of(tree, loc) or 1


def _yaml_path(loc: tuple[Any, ...]) -> str:
    """A pydantic location as a YAML path.

    Example:
        >>> _yaml_path(("fabrics", "compute", "pools", "hosts"))
        'fabrics.compute.pools.hosts'
        >>> _yaml_path(("racks", 2, "pdu_kw"))
        'racks[2].pdu_kw'
    """
    out = ""
    for key in loc:
        if isinstance(key, int):
            out += f"[{key}]"
        elif key in {"function-after", "function-before"} or "[" in str(key):
            continue
        else:
            out += f".{key}" if out else str(key)
    return out or "(top level)"


def _message(error: Any) -> str:
    if error["type"] == "extra_forbidden" and tuple(error["loc"]) == ("switch_models",):
        return "switch models come from the catalog now: name them by id (docs/hardware.md) and remove this key"
    if error["type"] == "extra_forbidden":
        return "unknown key: remove it or check its spelling"
    if error["type"] == "missing":
        return "required key is missing"
    if error["type"] == "too_short":
        context = error.get("ctx", {})
        return f"needs at least {context.get('min_length')} item(s), has {context.get('actual_length')}"
    message = str(error["msg"])
    return message.removeprefix("Value error, ")


def _load_server_rows(
    path: Path,
    text: str | None,
    problems: list[str],
    validate: Callable[[dict[str, str]], ServerRow] = ServerRow.model_validate,
) -> list[tuple[int, ValidRow]] | None:
    """The valid rows of servers.csv with their line numbers; None when the table itself is
    unreadable. Each row is validated by ``validate`` (:class:`ServerRow`'s validator)."""
    if text is None:
        return None
    shown = _show(path)
    wanted = ",".join(REQUIRED_COLUMNS)
    if not text.strip():
        problems.append(f"{shown}: empty file: its first line is the header '{wanted}', then one row per server")
        return None
    reader = csv.DictReader(io.StringIO(text))
    columns = [f.strip() for f in reader.fieldnames or []]
    optional = [c for c in ServerRow.model_fields if c not in REQUIRED_COLUMNS]
    if columns[: len(REQUIRED_COLUMNS)] != list(REQUIRED_COLUMNS) or not set(columns[3:]) <= set(optional):
        problems.append(
            f"{shown}:1: header must be '{wanted}' (optional: {','.join(optional)}), found '{','.join(columns)}'"
        )
        return None
    expected = columns
    rows: list[tuple[int, ValidRow]] = []
    for record in reader:
        line = reader.line_num
        short = [k for k, v in record.items() if v is None and k.strip() in REQUIRED_COLUMNS]
        if None in record or short:
            problems.append(f"{shown}:{line}: expected {len(expected)} columns ({','.join(expected)})")
            continue
        try:
            row = ValidRow.of(validate({k.strip(): (v or "").strip() for k, v in record.items()}))
        except ValidationError as exc:
            for error in exc.errors():
                problems.append(f"{shown}:{line}: {_yaml_path(tuple(error['loc']))}: {_message(error)}")
            continue
        rows.append((line, row))
    return rows


def _index_racks(path: Path, data: str, racks: RacksFile, problems: list[str]) -> dict[int, Rack]:
    seen: dict[int, Rack] = {}
    tree = _Tree(data)
    for index, rack in enumerate(racks.racks):
        if rack.id in seen:
            line = tree.line(("racks", index))
            problems.append(f"{_show(path)}:{line}: racks[{index}].id: rack {rack.id} is declared twice")
        seen[rack.id] = rack
    return dict(sorted(seen.items()))


def _row_references(path: Path, data: str, racks: RacksFile) -> Iterator[str]:
    """With a ``rows:`` section, every rack's row must have its cooling and UPS figures."""
    if not racks.rows:
        return
    declared = ", ".join(sorted(racks.rows))
    tree = _Tree(data)
    for index, rack in enumerate(racks.racks):
        if rack.row not in racks.rows:
            line = tree.line(("racks", index, "row"))
            problem = f"row {rack.row!r} has no entry under rows: (declared: {declared})"
            yield f"{_show(path)}:{line}: racks[{index}].row: {problem}"


def _servers(
    path: Path,
    rows: list[tuple[int, ValidRow]],
    fabric: FabricFile,
    racks: dict[int, Rack],
    problems: list[str],
) -> tuple[Server, ...]:
    pattern = re.compile(fabric.naming.server)
    has_kind = "kind" in pattern.groupindex
    seen: dict[str, int] = {}
    tags: dict[str, tuple[int, str]] = {}
    slots: dict[tuple[int, int], tuple[str, str]] = {}
    servers: list[Server] = []
    # One cause, one line: rows that fail for the same reason (the naming rule, an undeclared
    # rack, an unknown model) are reported once, at the first of them, with the others' lines.
    grouped: dict[object, tuple[str, list[int]]] = {}

    def report(cause: object, line: int, message: str) -> None:
        grouped.setdefault(cause, (message, []))[1].append(line)

    for line, row in rows:
        match = pattern.fullmatch(row.name)
        if match is None:
            rule = f"the naming rule {fabric.naming.server!r} (e.g. rack03-gpu007)"
            report("naming", line, f"name: {row.name!r} does not follow {rule}")
            continue
        if row.name in seen:
            report(line, line, f"name: duplicate server {row.name!r} (first on line {seen[row.name]})")
            continue
        seen[row.name] = line
        if row.asset_tag in tags:
            first, holder = tags[row.asset_tag]
            report(
                line,
                line,
                f"asset_tag: {row.asset_tag!r} is also {holder}'s (line {first}): an asset tag names one server "
                "(a move keeps the row's tag and changes its name)",
            )
            continue
        tags[row.asset_tag] = (line, row.name)
        rack, position = int(match["rack"]), int(match["position"])
        if rack not in racks:
            report(("rack", rack), line, f"name: {row.name!r} is in rack {rack}, which racks.yaml does not declare")
            continue
        if position < 1:
            report(line, line, f"name: {row.name!r}: positions start at 1")
            continue
        if row.model not in fabric.server_models:
            known = ", ".join(sorted(fabric.server_models))
            report(("model", row.model), line, f"model: unknown server model {row.model!r} (known: {known})")
            continue
        if (rack, position) in slots:
            holder, status = slots[rack, position]
            why = (
                "decommissioned, it keeps its ports and addresses until its row is removed"
                if status == "decommissioned"
                else "positions are unique per rack"
            )
            report(
                line,
                line,
                f"name: {row.name!r} takes position {position} in rack {rack}, already held by {holder!r}: {why}",
            )
            continue
        slots[rack, position] = (row.name, row.status)
        kind = (match["kind"] if has_kind else None) or "server"
        moved_from = None if row.moved_from is None else _moved_from(pattern, racks, row.moved_from, (rack, position))
        if isinstance(moved_from, str):
            report(line, line, moved_from)
            continue
        server = Server(row.name, row.model, row.asset_tag, rack, position, kind, row.compute_port, row.status)
        servers.append(server if moved_from is None else dataclasses.replace(server, moved_from=moved_from))
    shown = _show(path)
    for message, lines in sorted(grouped.values(), key=lambda item: item[1][0]):
        more = f" (and {len(lines) - 1} more rows like it: lines {line_ranges(lines[1:])})" if len(lines) > 1 else ""
        problems.append(f"{shown}:{lines[0]}: {message}{more}")
    return tuple(sorted(servers, key=lambda s: (s.rack, s.position, s.name)))


def _moved_from(
    pattern: re.Pattern[str], racks: Mapping[int, object], name: str | None, slot: tuple[int, int]
) -> tuple[int, int, str] | str | None:
    """``moved_from`` as (rack, position, name), or why it is not a position the server left.

    Examples:
        >>> rule = re.compile(r"rack(?P<rack>\\d{2})-gpu(?P<position>\\d{3})")
        >>> _moved_from(rule, {3: None}, "rack03-gpu005", (7, 10))
        (3, 5, 'rack03-gpu005')
        >>> _moved_from(rule, {3: None}, "rack09-gpu005", (7, 10))[:44]
        "moved_from: 'rack09-gpu005' is not a positio"
    """
    if name is None:
        return None
    old = pattern.fullmatch(name)
    if old is None or int(old["rack"]) not in racks or (int(old["rack"]), int(old["position"])) == slot:
        why = "a name of the naming rule, in a declared rack, other than the row's own position"
        return f"moved_from: {name!r} is not a position the server left: give {why}"
    return int(old["rack"]), int(old["position"]), name


def line_ranges(lines: list[int], most: int = 6) -> str:
    """Line numbers as ranges, at most ``most`` of them.

    Examples:
        >>> line_ranges([3, 4, 5, 9, 11, 12])
        '3-5, 9, 11-12'
        >>> line_ranges([1, 3, 5, 7], most=3)
        '1, 3, ... 7'
    """
    spans: list[list[int]] = []
    for line in sorted(lines):
        if spans and spans[-1][1] == line - 1:
            spans[-1][1] = line
        else:
            spans.append([line, line])
    text = [f"{a}-{b}" if b > a else str(a) for a, b in spans]
    return ", ".join(text) if len(text) <= most else f"{', '.join(text[: most - 1])}, ... {text[-1]}"


At = Callable[..., str]


def _cross_references(
    path: Path,
    data: str,
    fabric: FabricFile,
    servers: tuple[Server, ...] | None,
    racks: dict[int, Rack],
    models: Catalog | None,
) -> Iterator[str]:
    """References between parts of the intent: every name used must be declared; the switches'
    port sets and named ports must be on their models, unless ``models`` is None: the ports of
    this ``fabric`` were found on them by a load that kept its hardware (``KeptHardware``)."""
    tree = _Tree(data)
    shown = _show(path)

    def at(*loc: Any) -> str:
        return f"{shown}:{tree.line(loc)}: {_yaml_path(loc)}"

    for net, spec in sorted(fabric.fabrics.items()):
        yield from _fabric_references(at, fabric, net, spec, racks)
        if models is not None:
            yield from _switch_ports(at, models, ("fabrics", net), spec)
    yield from _management_references(at, fabric, racks)
    if models is not None:
        yield from _management_ports(at, models, fabric.management)
    if servers is not None:
        yield from _storage_references(at, fabric, {s.name: s.model for s in servers})
    yield from _nic_references(at, fabric)
    yield from _qos_references(at, fabric)
    yield from _vlan_references(at, fabric)


def _unknown(kind: str, name: str, declared: Iterable[str]) -> str:
    return f"unknown {kind} {name!r} (declared: {', '.join(sorted(declared)) or 'none'})"


def _fabric_references(
    at: At, fabric: FabricFile, net: str, spec: FabricIntent, racks: dict[int, Rack]
) -> Iterator[str]:
    if spec.vlan not in fabric.vlans:
        yield f"{at('fabrics', net, 'vlan')}: {_unknown('VLAN profile', spec.vlan, fabric.vlans)}"
    for pair, names in sorted(spec.pair_vlans.items()):
        for name in names:
            if name not in fabric.vlans:
                yield f"{at('fabrics', net, 'pair_vlans', pair)}: {_unknown('VLAN profile', name, fabric.vlans)}"
    if spec.qos is not None and spec.qos not in fabric.qos_profiles:
        yield f"{at('fabrics', net, 'qos')}: {_unknown('QoS profile', spec.qos, fabric.qos_profiles)}"
    if spec.routing not in fabric.routing_profiles:
        yield f"{at('fabrics', net, 'routing')}: {_unknown('routing profile', spec.routing, fabric.routing_profiles)}"
    if spec.spines.rack not in racks:
        yield f"{at('fabrics', net, 'spines', 'rack')}: rack {spec.spines.rack} is not in racks.yaml"
    yield from _pod_references(at, fabric, net, spec, racks)
    for pool_name, pool in spec.pools:
        if pool is not None and not pool.is_private:
            yield f"{at('fabrics', net, 'pools', pool_name)}: {pool} is not an RFC1918 private range"


def _management_references(at: At, fabric: FabricFile, racks: dict[int, Rack]) -> Iterator[str]:
    mgmt = fabric.management
    if mgmt.core.rack not in racks:
        yield f"{at('management', 'core', 'rack')}: rack {mgmt.core.rack} is not in racks.yaml"
    if not mgmt.pool.is_private:
        yield f"{at('management', 'pool')}: {mgmt.pool} is not an RFC1918 private range"
    if mgmt.upstream.gateway not in mgmt.upstream.subnet:
        yield f"{at('management', 'upstream', 'gateway')}: {mgmt.upstream.gateway} is outside {mgmt.upstream.subnet}"


def _storage_references(at: At, fabric: FabricFile, models: dict[str, str]) -> Iterator[str]:
    """Every storage server named exists and has a storage address (clients mount it there)."""
    unreachable: dict[str, list[str]] = {}
    named = [("nfs", index, "server", export.server) for index, export in enumerate(fabric.storage_services.nfs)]
    for kind, key in (("lustre", "mgs"), ("gpfs", "contact_nodes")):
        for index, entry in enumerate(getattr(fabric.storage_services, kind)):
            named.extend((kind, index, key, name) for name in getattr(entry, key))
    for kind, index, key, name in named:
        if name not in models:
            yield f"{at('storage_services', kind, index, key)}: unknown server {name!r}"
        elif not fabric.server_models[models[name]].nics_on("storage"):
            servers = unreachable.setdefault(models[name], [])
            servers.extend([name] if name not in servers else [])
    for model, servers in sorted(unreachable.items()):
        yield (
            f"{at('server_models', model, 'nics')}: no NIC on the storage network, but storage_services "
            f"serves from {', '.join(servers)} ({model}): give the model its storage NICs"
        )


def _nic_references(at: At, fabric: FabricFile) -> Iterator[str]:
    networks: tuple[NetworkName, ...] = ("compute", "storage")
    for model_name, server_model in sorted(fabric.server_models.items()):
        for net in networks:
            count = len(server_model.nics_on(net))
            if count and net not in fabric.fabrics:
                yield f"{at('server_models', model_name, 'nics')}: NICs on {net}, but no fabrics.{net} is declared"
            if count > 2:
                yield f"{at('server_models', model_name, 'nics')}: {count} NICs on {net}: a leaf pair takes one or two"


def _qos_references(at: At, fabric: FabricFile) -> Iterator[str]:
    """The lossless class of a QoS profile is one its DSCP map fills (hosts mark RoCE with its lowest DSCP)."""
    for name, profile in sorted(fabric.qos_profiles.items()):
        classes = sorted(set(profile.dscp_to_tc.values()))
        if profile.pfc_priority not in classes:
            roce = sorted(d for d, tc in profile.dscp_to_tc.items() if d in ROCE_DSCPS)
            dscps = ", ".join(map(str, roce)) or "26"
            yield (
                f"{at('qos_profiles', name, 'pfc_priority')}: no DSCP of dscp_to_tc maps to traffic class "
                f"{profile.pfc_priority} (classes mapped: {', '.join(map(str, classes)) or 'none'}): map the RoCE "
                f"DSCP(s) {dscps} to {profile.pfc_priority}, or set pfc_priority to their class"
            )


def _vlan_references(at: At, fabric: FabricFile) -> Iterator[str]:
    """A VLAN id, and a VLAN name, names one VLAN: two profiles of one id would be two ``vlan`` blocks."""
    ids: dict[int, str] = {}
    names: dict[str, str] = {}
    for key, vlan in fabric.vlans.items():
        if vlan.id in ids:
            yield f"{at('vlans', key, 'id')}: VLAN {vlan.id} is vlans.{ids[vlan.id]} already: give {key} its own id"
        elif vlan.name.lower() in names:
            other = names[vlan.name.lower()]
            yield f"{at('vlans', key, 'name')}: the name {vlan.name!r} is vlans.{other}'s already: name {key} apart"
        ids.setdefault(vlan.id, key)
        names.setdefault(vlan.name.lower(), key)


def _pod_references(at: At, fabric: FabricFile, net: str, spec: FabricIntent, racks: dict[int, Rack]) -> Iterator[str]:
    """A three-stage fabric: whole leaf pairs per pod, racks that exist, its pools and ASNs."""
    pods = spec.pods
    if pods is None:
        if spec.spines.uplinks is not None:
            yield f"{at('fabrics', net, 'spines', 'uplinks')}: spine uplinks go to super-spines: add pods, or remove it"
        return
    per = spec.leaves.racks_per_pair
    if pods.racks % per:
        where = at("fabrics", net, "pods", "racks")
        yield f"{where}: {pods.racks} racks is not a whole number of leaf pairs ({per} racks each)"
    placed: list[tuple[str, tuple[int, ...], int]] = [
        ("spine_racks", (index,), rack) for index, rack in enumerate(pods.spine_racks)
    ]
    placed += [
        ("super_spines.racks", (index,) if isinstance(entry, int) else (index, inner), rack)
        for index, entry in enumerate(pods.super_spines.racks)
        for inner, rack in enumerate((entry,) if isinstance(entry, int) else entry)
    ]
    for key, index, rack in placed:
        if rack not in racks:
            yield f"{at('fabrics', net, 'pods', *key.split('.'), *index)}: rack {rack} is not in racks.yaml"
    if spec.spines.uplinks is None:
        where = at("fabrics", net, "spines")
        yield f"{where}: a three-stage fabric needs spines.uplinks (the ports to the super-spines)"
    for pool in ("spine_loopbacks", "spine_p2p"):
        if getattr(spec.pools, pool) is None:
            yield f"{at('fabrics', net, 'pools')}: a three-stage fabric needs pools.{pool}"
    profile = fabric.routing_profiles.get(spec.routing)
    if profile is not None and profile.protocol == "ebgp" and profile.bgp is not None:
        for key in ("pod_asn_base", "super_spine_asn"):
            if getattr(profile.bgp, key) is None:
                yield f"{at('routing_profiles', spec.routing, 'bgp')}: the three-stage fabrics.{net} needs bgp.{key}"


def resolve_model(models: Catalog, ref: SwitchModelRef | str) -> Model:
    """The catalog model of ``ref``, a chassis with its ``linecards``; FabricopsError if unknown.

    Examples:
        >>> ref = SwitchModelRef(model="DCS-7804-CH", linecards={4: None, 5: None, 6: None})
        >>> resolve_model(catalog(), ref).interface_names()[-1]
        'Ethernet3/36/1'
    """
    if isinstance(ref, str):
        return models.model(ref)
    found = models.model(ref.model)
    return found.with_linecards(ref.linecards) if ref.linecards else found


def _switch_ports(at: At, models: Catalog, loc: tuple[Any, ...], spec: FabricIntent) -> Iterator[str]:
    """The models of a fabric's switches exist; their port sets and named ports exist on them."""
    leaves, spines = spec.leaves, spec.spines
    yield from _ports_on_model(
        at,
        models,
        (*loc, "leaves"),
        leaves,
        sets={"downlinks": leaves.downlinks},
        named={"uplink_ports": leaves.uplink_ports, "peer_link_ports": leaves.peer_link_ports},
    )
    yield from _ports_on_model(
        at, models, (*loc, "spines"), spines, sets={"downlinks": spines.downlinks, "uplinks": spines.uplinks}, named={}
    )
    if spec.pods is not None:
        supers = spec.pods.super_spines
        yield from _ports_on_model(
            at, models, (*loc, "pods", "super_spines"), supers, sets={"downlinks": supers.downlinks}, named={}
        )


def _management_ports(at: At, models: Catalog, mgmt: Management) -> Iterator[str]:
    ports = mgmt.switch_ports
    yield from _ports_on_model(
        at,
        models,
        ("management",),
        mgmt.switch_model,
        sets={"switch_ports.servers": ports.servers, "switch_ports.devices": ports.devices},
        named={"switch_uplink_port": (mgmt.switch_uplink_port,)},
    )
    yield from _ports_on_model(
        at,
        models,
        ("management", "core"),
        mgmt.core,
        sets={"downlinks": mgmt.core.downlinks},
        named={"upstream_port": (mgmt.core.upstream_port,)},
    )


def _ports_on_model(
    at: At,
    models: Catalog,
    loc: tuple[Any, ...],
    ref: SwitchModelRef | str,
    sets: dict[str, PortSet | None],
    named: dict[str, tuple[str, ...]],
) -> Iterator[str]:
    """One switch role: its model, each port set's cages and breakout, each named port."""
    model_loc = (*loc, "switch_model") if isinstance(ref, str) else (*loc, "model")
    try:
        model = resolve_model(models, ref)
    except FabricopsError as exc:
        where = at(*loc, "linecards") if not isinstance(ref, str) and ref.linecards else at(*model_loc)
        yield f"{where}: {exc}"
        return
    owner: dict[str, str] = {}
    for key, port_set in sets.items():
        if port_set is None:
            continue
        set_loc = (*loc, *key.split("."))
        try:
            model.port_set(port_set.cages, port_set.breakout)
        except FabricopsError as exc:
            yield f"{at(*set_loc)}: {exc} ({model.id})"
            continue
        for cage in port_set.cages:
            if cage in owner:
                yield f"{at(*set_loc, 'ports')}: cage {cage} is in {owner[cage]} too: a cage serves one purpose"
            owner.setdefault(cage, key)
    for key, names in named.items():
        for index, name in enumerate(names):
            # the line is looked up only for a problem: finding it parses the file again
            at_name = (*loc, key, index) if len(names) > 1 or key.endswith("_ports") else (*loc, key)
            missing = model.missing(name)
            if missing is not None:
                yield f"{at(*at_name)}: {missing}"
                continue
            cage = model.port(name).label
            if cage in owner:
                yield f"{at(*at_name)}: {name} is on cage {cage}, which {owner[cage]} use: pick a port outside it"
