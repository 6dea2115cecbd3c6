"""``generated/servers/<name>/``: the network side of each server, from the same intent as the switches.

Per server:

* network files -- NetworkManager keyfiles (``NetworkManager/system-connections/``, the
  default) or ifcfg files (``network-scripts/``), chosen by ``server_config.format``; per
  fabric network as its ``bonding`` says (:mod:`compiler.facts.hosts`): a bond (``bond0``
  compute, ``bond1`` storage; active-backup with its alternating primary, or 802.3ad), or with
  ``per-nic`` one interface per NIC with its own address, the leaf-b NIC routed on its own table
  with a rule for its source address; MTU ``mtu.host``, a route to the network's host pool
  through the leaf pair's virtual gateway; the management NIC with the default route;
* ``fstab`` -- the NFS exports with the intent's options, Lustre file systems (MGS NIDs =
  the storage addresses of the MGS servers) for the server kinds the intent names;
* ``setup-host.sh`` -- RDMA modules, NIC power saving off, LRO/GRO off on RoCE NICs, RoCE
  DSCP/PFC/CNP settings from the fabric's QoS profile (every other DSCP on the best-effort
  priority, RoCE sent ECN-capable), IRQs pinned to the NIC's NUMA node, ARP on per-NIC
  addresses answered by the NIC that holds them;
* ``verify.sh`` -- ``ibv_devinfo``, ``rdma link show``, ``ibstatus``, then MTU, address,
  trust, offload, NUMA node of each RoCE NIC, jumbo-ping and mount checks that fail loudly;
* ``gpfs-join.sh`` -- only where a GPFS file system names the server's kind.
"""

from __future__ import annotations

import hashlib
import io
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from ipaddress import IPv4Interface
from itertools import chain

from compiler.artifacts.units import Unit, built, digest_of
from compiler.fabric import ResolvedFabric
from compiler.facts import ResolvedServer, ServerNic
from compiler.facts.hosts import BOND_NAMES, HostLink
from compiler.facts.qos import RoceQos
from compiler.intent import Intent, QosProfile
from compiler.memo import same_as_last
from compiler.platforms import eos
from compiler.render import render_template

RDMA_MODULES = ("mlx5_core", "mlx5_ib", "ib_uverbs", "rdma_ucm")
OFFLOADS = ("large-receive-offload", "generic-receive-offload")
"""Turned off on RoCE NICs only: storage NICs keep GRO, which NFS over TCP benefits from."""

IP_ICMP_HEADERS = 28
"""IPv4 (20) + ICMP (8) bytes: a ``ping -M do -s MTU-28`` proves the full MTU end to end."""


@dataclass(frozen=True, slots=True)
class Section:
    """One ``[section]`` of a NetworkManager keyfile."""

    name: str
    pairs: tuple[tuple[str, str], ...]


@dataclass(slots=True)
class HostInterface:
    """A Linux interface of a server: a bond, a bond port or a plain Ethernet NIC."""

    name: str
    network: str
    mtu: int
    address: str | None = None
    gateway: str | None = None
    route_prefix: str | None = None
    default_route: bool = False
    bond_options: tuple[tuple[str, str], ...] = ()
    master: str | None = None
    offloads_off: bool = False
    members: list[str] = field(default_factory=list)
    table: int | None = None
    """Its own routing table and a rule for its source address (a per-NIC address beside another)."""
    numa: int | None = None
    """The NUMA node a RoCE NIC must sit on."""
    vlan: int | None = None
    """An 802.1Q interface: its VLAN id, on ``parent``."""
    parent: str | None = None

    @property
    def is_bond(self) -> bool:
        return bool(self.bond_options)


def bond_options(mode: str, primary: str | None) -> tuple[tuple[str, str], ...]:
    """Bonding driver options for the fabric's bonding mode.

    Examples:
        >>> bond_options("active-backup", "enp65s0f1")
        (('mode', 'active-backup'), ('miimon', '100'), ('primary', 'enp65s0f1'))
        >>> bond_options("lacp", None)[0]
        ('mode', '802.3ad')
    """
    if mode == "lacp":
        return (("mode", "802.3ad"), ("miimon", "100"), ("lacp_rate", "fast"), ("xmit_hash_policy", "layer3+4"))
    return (("mode", "active-backup"), ("miimon", "100"), ("primary", primary or ""))


def pfc_vector(priority: int) -> str:
    """The ``mlnx_qos --pfc`` argument enabling PFC on one priority.

    Example:
        >>> pfc_vector(3)
        '0,0,0,1,0,0,0,0'
    """
    return ",".join("1" if p == priority else "0" for p in range(8))


def host_interfaces(intent: Intent, server: ResolvedServer) -> list[HostInterface]:
    """The server's interfaces: per fabric network its bond (ports after it) or its NICs, then management."""
    spec = intent.fabric
    out: list[HostInterface] = []
    for link in server.links:
        out.extend(_link_interfaces(link, spec.mtu.host))
    for nic in server.nics:
        if nic.network == "management" and server.mgmt_address:
            out.append(
                HostInterface(
                    nic.name,
                    "management",
                    eos.data().access_mtu,
                    server.mgmt_address,
                    server.mgmt_gateway,
                    default_route=True,
                )
            )
    return out


def _link_interfaces(link: HostLink, mtu: int) -> list[HostInterface]:
    """A bond and its ports, or one addressed interface per NIC (the leaf-b one on its own table),
    then an 802.1Q interface per tagged VLAN. An untagged VLAN without a pool leaves its NIC or bond
    up without an address."""
    numa = {p.nic: p.numa if link.rdma else None for p in link.ports}
    vlans = [
        HostInterface(
            f"{v.parent}.{v.id}",
            link.network,
            mtu,
            v.address,
            v.gateway,
            v.pool,
            vlan=v.id,
            parent=v.parent,
        )
        for v in link.tagged
    ]
    if link.name is None:
        nics = [
            HostInterface(
                p.nic,
                link.network,
                mtu,
                p.address,
                p.gateway if p.pool else None,
                p.pool,
                offloads_off=link.rdma,
                table=p.table,
                numa=numa[p.nic],
            )
            for p in link.ports
            if p.address is not None or p.vlan is not None
        ]
        return [*nics, *vlans]
    if link.address is None and link.vlan is None:
        return []
    bond = HostInterface(
        link.name,
        link.network,
        mtu,
        link.address,
        link.gateway if link.pool else None,
        link.pool,
        bond_options=bond_options(link.mode, link.primary),
        members=[p.nic for p in link.ports],
    )
    ports = [
        HostInterface(p.nic, link.network, mtu, master=link.name, offloads_off=link.rdma, numa=numa[p.nic])
        for p in link.ports
    ]
    return [bond, *ports, *vlans]


def _model_order(intent: Intent, server: ResolvedServer) -> list[ServerNic]:
    """The server's cabled NICs in the model's order (the first of a network is the primary)."""
    order = [n.name for n in intent.fabric.server_models[server.model].nics]
    return sorted(server.nics, key=lambda n: order.index(n.name))


# ------------------------------------------------------------------ network files


def keyfile_sections(intent: Intent, iface: HostInterface) -> list[Section]:
    """The NetworkManager keyfile of one interface, section by section."""
    kind = "bond" if iface.is_bond else "vlan" if iface.vlan is not None else "ethernet"
    connection = [
        ("id", _connection_id(iface)),
        ("type", kind),
        ("interface-name", iface.name),
        ("autoconnect", "true"),
    ]
    if iface.master:
        connection += [("master", iface.master), ("slave-type", "bond")]
    sections = [Section("connection", tuple(connection)), Section("ethernet", (("mtu", str(iface.mtu)),))]
    if iface.offloads_off:
        sections.append(Section("ethtool", (("feature-gro", "false"), ("feature-lro", "false"))))
    if iface.is_bond:
        sections.append(Section("bond", iface.bond_options))
    if iface.vlan is not None:
        sections.append(Section("vlan", (("id", str(iface.vlan)), ("parent", iface.parent or ""))))
    if iface.master:
        return sections
    if iface.address is None:
        return [*sections, Section("ipv4", (("method", "disabled"),)), Section("ipv6", (("method", "disabled"),))]
    ipv4 = [("method", "manual"), ("address1", iface.address)]
    if iface.default_route:
        services = intent.fabric.services
        ipv4 += [("gateway", iface.gateway or "")]
        if services.dns:
            ipv4 += [("dns", "".join(f"{a};" for a in services.dns)), ("dns-search", f"{intent.fabric.site.domain};")]
    else:
        ipv4 += [("never-default", "true")]
        if iface.route_prefix and iface.gateway:
            ipv4 += [("route1", f"{iface.route_prefix},{iface.gateway}")]
    if iface.table is not None:
        source = IPv4Interface(iface.address or "0.0.0.0/32").ip
        ipv4 += [
            ("route-table", str(iface.table)),
            ("routing-rule1", f"priority 100 from {source} table {iface.table}"),
        ]
    sections += [Section("ipv4", tuple(ipv4)), Section("ipv6", (("method", "disabled"),))]
    return sections


def _connection_id(iface: HostInterface) -> str:
    """NetworkManager connection name: the bond, ``<bond>-<port>``, or ``<network>-<nic>``.

    Example:
        >>> _connection_id(HostInterface("enp65s0f0", "compute", 9000, master="bond0"))
        'bond0-enp65s0f0'
    """
    if iface.master:
        return f"{iface.master}-{iface.name}"
    if iface.is_bond:
        return iface.name
    return f"{iface.network}-{iface.name}"


def ifcfg_pairs(intent: Intent, iface: HostInterface) -> list[tuple[str, str]]:
    """The ``ifcfg-<name>`` variables of one interface."""
    pairs = [("DEVICE", iface.name), ("NAME", _connection_id(iface))]
    if iface.is_bond:
        options = " ".join(f"{k}={v}" for k, v in iface.bond_options)
        pairs += [("TYPE", "Bond"), ("BONDING_MASTER", "yes"), ("BONDING_OPTS", f'"{options}"')]
    elif iface.vlan is not None:
        pairs += [("TYPE", "Vlan"), ("VLAN", "yes"), ("PHYSDEV", iface.parent or ""), ("VLAN_ID", str(iface.vlan))]
    else:
        pairs += [("TYPE", "Ethernet")]
    pairs += [("BOOTPROTO", "none"), ("ONBOOT", "yes"), ("MTU", str(iface.mtu))]
    if iface.offloads_off:
        pairs += [("ETHTOOL_OPTS", f'"-K {iface.name} lro off gro off"')]
    if iface.master:
        return [*pairs, ("MASTER", iface.master), ("SLAVE", "yes")]
    if iface.address is None:
        return [*pairs, ("DEFROUTE", "no"), ("IPV6INIT", "no")]
    address = IPv4Interface(iface.address)
    pairs += [("IPADDR", str(address.ip)), ("PREFIX", str(address.network.prefixlen))]
    if iface.default_route:
        pairs += [("GATEWAY", iface.gateway or ""), ("DEFROUTE", "yes")]
        pairs += [(f"DNS{i}", str(a)) for i, a in enumerate(intent.fabric.services.dns, start=1)]
        pairs += [("DOMAIN", intent.fabric.site.domain)]
    else:
        pairs += [("DEFROUTE", "no")]
    return [*pairs, ("IPV6INIT", "no")]


def ifcfg_routes(iface: HostInterface) -> list[dict[str, str]]:
    """The ``route-<name>`` lines of an interface: to its network's pool, on its own table if it has one.

    Example:
        >>> iface = HostInterface("enp193s0f0", "compute", 9000, "10.30.1.24/24", "10.30.1.1", "10.30.0.0/16")
        >>> iface.table = 101
        >>> [r["line"] for r in ifcfg_routes(iface)]
        ['10.30.1.0/24 dev enp193s0f0 table 101', '10.30.0.0/16 via 10.30.1.1 dev enp193s0f0 table 101']
    """
    table = f" table {iface.table}" if iface.table is not None else ""
    routes = [{"line": f"{iface.route_prefix} via {iface.gateway} dev {iface.name}{table}"}]
    if iface.table is not None:
        subnet = IPv4Interface(iface.address or "0.0.0.0/32").network
        routes.insert(0, {"line": f"{subnet} dev {iface.name}{table}"})
    return routes


def network_files(intent: Intent, server: ResolvedServer, ifaces: list[HostInterface]) -> dict[str, str]:
    """The server's interface files in the format ``server_config.format`` selects."""
    base = f"servers/{server.name}"
    comment = f"{server.name}: generated by fabricops from intent/, do not edit"
    files: dict[str, str] = {}
    if intent.fabric.server_config.format == "ifcfg":
        for iface in ifaces:
            files[f"{base}/network-scripts/ifcfg-{iface.name}"] = render_template(
                "linux/ifcfg.j2", {"comment": comment, "pairs": ifcfg_pairs(intent, iface)}
            )
            if iface.route_prefix and iface.gateway:
                files[f"{base}/network-scripts/route-{iface.name}"] = render_template(
                    "linux/route.j2", {"comment": comment, "routes": ifcfg_routes(iface)}
                )
            if iface.table is not None:
                source = IPv4Interface(iface.address or "0.0.0.0/32").ip
                files[f"{base}/network-scripts/rule-{iface.name}"] = render_template(
                    "linux/route.j2", {"comment": comment, "routes": [{"line": f"from {source} table {iface.table}"}]}
                )
        return files
    for iface in ifaces:
        files[f"{base}/NetworkManager/system-connections/{_connection_id(iface)}.nmconnection"] = render_template(
            "linux/keyfile.j2", {"comment": comment, "sections": keyfile_sections(intent, iface)}
        )
    return files


# ------------------------------------------------------------------------ storage


@dataclass(frozen=True, slots=True)
class Mount:
    source: str
    mount: str
    fstype: str
    options: str


def mounts(intent: Intent, fabric: ResolvedFabric, server: ResolvedServer, kind: str) -> list[Mount]:
    """NFS and Lustre mounts of a server of ``kind`` on the storage network (none without a storage address)."""
    if server.storage_address is None:
        return []
    services = intent.fabric.storage_services
    out: list[Mount] = []
    for export in services.nfs:
        nfs_server = fabric.servers[export.server]
        if export.server != server.name and nfs_server.storage_address:
            out.append(
                Mount(f"{_ip(nfs_server.storage_address)}:{export.export}", export.mount, "nfs", services.nfs_options)
            )
    for fs in services.lustre:
        if kind in fs.clients:
            nids = ":".join(f"{_ip(fabric.servers[m].storage_address or '')}@tcp" for m in fs.mgs)
            out.append(Mount(f"{nids}:/{fs.fsname}", fs.mount, "lustre", fs.options))
    return out


def _ip(address: str) -> str:
    """The address of ``address/prefix``.

    Example:
        >>> _ip("10.40.4.11/24")
        '10.40.4.11'
    """
    return address.split("/", 1)[0]


# ----------------------------------------------------------------------- scripts


def host_priority(traffic_class: int) -> int:
    """The 802.1p priority a NIC gives the traffic a switch puts in ``traffic_class``.

    EOS maps CoS 0 to traffic class 1 and CoS 1 to class 0 (best effort above background),
    every other CoS to the class of its number; a host priority is a CoS.

    Example:
        >>> host_priority(1), host_priority(0), host_priority(3)
        (0, 1, 3)
    """
    return {0: 1, 1: 0}.get(traffic_class, traffic_class)


def qos_settings(roce: RoceQos, profile: QosProfile) -> dict[str, object]:
    """What ``setup-host.sh`` sets on a RoCE NIC, from the switches' QoS profile (C4/N4)."""
    return {
        "profile": roce.profile,
        "pfc_priority": profile.pfc_priority,
        "pfc_vector": pfc_vector(profile.pfc_priority),
        "dscp_to_prio": sorted(profile.dscp_to_tc.items()),
        "other_dscps": " ".join(str(d) for d in range(64) if d not in profile.dscp_to_tc),
        "default_priority": host_priority(profile.default_tc),
        "roce_tos": roce.host_tos,
        "cnp_dscp": profile.cnp.dscp,
        "cnp_priority": profile.cnp.tc,
    }


def setup_script(
    intent: Intent,
    server: ResolvedServer,
    ifaces: list[HostInterface],
    server_mounts: list[Mount],
    roce: RoceQos | None,
) -> str:
    """``setup-host.sh``: modules, power saving, offloads, RoCE QoS and IRQ pinning."""
    roce_ports = {i.name for i in ifaces if i.offloads_off}
    qos: dict[str, object] = {}
    if roce is not None:
        qos = qos_settings(roce, intent.fabric.qos_profiles[roce.profile])
    nics = [
        {
            "name": n.name,
            "network": n.network,
            "speed": n.speed,
            "numa": n.numa,
            "switch": n.switch,
            "switch_port": n.switch_port,
            "roce": n.name in roce_ports and bool(qos),
            "offloads_off": n.name in roce_ports,
        }
        for n in _model_order(intent, server)
    ]
    lnet = ""
    if any(m.fstype == "lustre" for m in server_mounts):
        lnet = f"tcp0({','.join(link_devices(server, 'storage')) or BOND_NAMES['storage']})"
    return render_template(
        "linux/setup-host.sh.j2",
        {
            "name": server.name,
            "model": server.model,
            "modules": RDMA_MODULES,
            "nics": nics,
            "qos": qos,
            "lnet_networks": lnet,
            "arp_nics": [i.name for i in ifaces if i.network != "management" and i.address and not i.is_bond],
        },
    )


def link_devices(server: ResolvedServer, network: str) -> list[str]:
    """The Linux devices that carry ``network`` on ``server``: its bond, or its addressed NICs.

    Example:
        >>> from compiler.facts import HostLink, HostPort
        >>> port = HostPort("enp65s0f0", 0, "leaf", 0, "enp65s0", "10.30.1.11/24")
        >>> server = ResolvedServer("s", "m", "t", 1, 1, "", "", None, None, None, None, (),
        ...                         (HostLink("compute", "per-nic", (port,)),))
        >>> link_devices(server, "compute")
        ['enp65s0f0']
    """
    for link in server.links:
        if link.network == network:
            return [link.name] if link.name else [p.nic for p in link.ports if p.address]
    return []


def verify_script(server: ResolvedServer, ifaces: list[HostInterface], server_mounts: list[Mount]) -> str:
    """``verify.sh``: RDMA state, then every planned MTU, address, QoS, offload and mount."""
    pings = [
        {
            "target": i.gateway,
            "payload": i.mtu - IP_ICMP_HEADERS,
            "mtu": i.mtu,
            "what": f"{i.network} gateway via {i.name}",
            "device": i.name,
        }
        for i in ifaces
        if i.gateway
    ]
    return render_template(
        "linux/verify.sh.j2",
        {
            "name": server.name,
            "interfaces": [{"name": i.name, "mtu": i.mtu, "address": i.address} for i in ifaces],
            "roce_nics": [
                {"name": i.name, **({"numa": i.numa} if i.numa is not None else {})} for i in ifaces if i.offloads_off
            ],
            "offloads": OFFLOADS,
            "pings": pings,
            "mounts": [m.mount for m in server_mounts],
        },
    )


def gpfs_script(intent: Intent, server: ResolvedServer, kind: str) -> str | None:
    """``gpfs-join.sh`` when a GPFS file system names the server's kind, else None."""
    filesystems = [
        {"name": fs.name, "cluster": fs.cluster, "device": fs.device, "mount": fs.mount, "contact": fs.contact_nodes[0]}
        for fs in intent.fabric.storage_services.gpfs
        if kind in fs.clients and server.storage_address is not None and server.name not in fs.contact_nodes
    ]
    if not filesystems:
        return None
    return render_template("linux/gpfs-join.sh.j2", {"name": server.name, "filesystems": filesystems})


def shared_inputs(intent: Intent, fabric: ResolvedFabric) -> str:
    """What every server's files are built from besides the server itself: the fabric design,
    the RoCE QoS of the compute fabric and the storage addresses of the NFS and Lustre servers
    they mount (a server's files change only when these or its own facts do)."""
    services = intent.fabric.storage_services
    named = sorted({e.server for e in services.nfs} | {m for fs in services.lustre for m in fs.mgs})
    storage = tuple((n, s.storage_address if (s := fabric.servers.get(n)) else None) for n in named)
    return digest_of((intent.fabric, fabric.facts.qos.fabrics.get("compute"), storage))


def one_server_files(intent: Intent, fabric: ResolvedFabric, server: ResolvedServer, kind: str) -> dict[str, str]:
    """One server's directory under ``servers/`` (nothing for a decommissioned one)."""
    if not server.active:
        return {}  # decommissioned: nothing to configure on it
    name = server.name
    base = f"servers/{name}"
    ifaces = host_interfaces(intent, server)
    server_mounts = mounts(intent, fabric, server, kind)
    files = network_files(intent, server, ifaces)
    if server_mounts:
        files[f"{base}/fstab"] = render_template(
            "linux/fstab.j2",
            {"comment": f"{name}: append to /etc/fstab (generated by fabricops)", "entries": server_mounts},
        )
    roce = fabric.facts.qos.fabrics.get("compute")
    files[f"{base}/setup-host.sh"] = setup_script(intent, server, ifaces, server_mounts, roce)
    files[f"{base}/verify.sh"] = verify_script(server, ifaces, server_mounts)
    gpfs = gpfs_script(intent, server, kind)
    if gpfs is not None:
        files[f"{base}/gpfs-join.sh"] = gpfs
    return files


def server_units(intent: Intent, fabric: ResolvedFabric) -> Iterator[Unit]:
    """One unit per server: its files, keyed by its record's digest (:func:`server_digests`),
    its kind and what every server's files share (:func:`shared_inputs`)."""
    kinds = server_kinds(intent)
    shared = shared_inputs(intent, fabric)
    digests = server_digests(fabric)
    for name, server in fabric.servers.items():
        kind = kinds[name]
        yield Unit(
            f"server/{name}",
            (shared, digests[name], kind),
            partial(one_server_files, intent, fabric, server, kind),
        )


@same_as_last
def server_kinds(intent: Intent) -> dict[str, str]:
    """Each server's kind (``servers.csv``), by name: once per intent for every unit keyed by
    it (its directory, its rack's rows of the asset table)."""
    return {s.name: s.kind for s in intent.servers}


@same_as_last
def server_digests(fabric: ResolvedFabric) -> dict[str, str]:
    """Per server, the sha256 of every field of its record (:func:`server_key`: its rack,
    position, addresses, NICs with their speeds and switch ports, links): once per fabric for
    every unit keyed by a server (its directory, its rows of the cable list and asset table,
    its link tests).

    Each key is pickled by one pickler without a memo (:func:`key_bytes`): its bytes are its
    values' alone (not which of them happen to be one object), and no pickler is made per server.

    Example:
        >>> from pathlib import Path
        >>> from compiler.fabric import resolve
        >>> from compiler.intent import load_intent
        >>> fabric = resolve(load_intent(Path("intent")))
        >>> server = next(iter(fabric.servers.values()))
        >>> server_digests(fabric)[server.name] == hashlib.sha256(key_bytes()(server_key(server))).hexdigest()
        True
    """
    pickled = key_bytes()
    return {name: hashlib.sha256(pickled(server_key(server))).hexdigest() for name, server in fabric.servers.items()}


def key_bytes() -> Callable[[object], bytes]:
    """A pickler of plain data without a memo (no cycles), reused call after call.

    Example:
        >>> pickled, part = key_bytes(), "".join(["a", "b"])
        >>> pickled((part, part)) == pickled(("ab", "ab")) != pickle.dumps((part, part), protocol=5)
        True
    """
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=5)
    pickler.fast = True

    def pickled(value: object) -> bytes:
        out.seek(0)
        out.truncate()
        pickler.dump(value)
        return out.getvalue()

    return pickled


def server_key(server: ResolvedServer) -> tuple[object, ...]:
    """Every field of ``server`` in one flat tuple, its NICs' and links' fields in line, each
    run of records after its count: a record pickles through a call of its own, a plain tuple
    at C speed, and one flat tuple is made and pickled faster than one per NIC, link and port
    (the bulk of the servers' digests at 16x). The records' types and fields are the code's,
    which every fingerprint holds: with the counts, the tuple reads back one way only.

    Example:
        >>> nic = ServerNic("enp65s0f0", "compute", "400g", 0, "rack01-leaf-a", "Ethernet1/1")
        >>> server = ResolvedServer("s", "m", "t", 1, 1, "", "", None, None, None, None, (nic,))
        >>> server_key(server)[11:]
        (1, 'enp65s0f0', 'compute', '400g', 0, 'rack01-leaf-a', 'Ethernet1/1', 0, True)
    """
    nics, links = server.nics, server.links
    return (*server[:-3], len(nics), *_flat(nics), len(links), *_flat(map(_link_key, links)), server.active)


def _link_key(link: HostLink) -> tuple[object, ...]:
    """A link's fields in line, its ports and tagged VLANs each after their count."""
    ports, tagged = link.ports, link.tagged
    return (*link[:2], len(ports), *_flat(ports), *link[3:-1], len(tagged), *_flat(tagged))


_flat = chain.from_iterable


def server_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """Every server's directory under ``servers/``."""
    return built(server_units(intent, fabric))
