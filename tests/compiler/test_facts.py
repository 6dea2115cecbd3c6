"""Fact builders: each one alone, their purity, and the per-switch partition of the facts."""

from __future__ import annotations

from collections.abc import Callable
from ipaddress import IPv4Interface, IPv4Network
from pathlib import Path

import pytest

from bench.scale import scaled_intent
from compiler.addressing import host_in
from compiler.fabric import resolve
from compiler.facts import Facts, PoolUse, build_facts
from compiler.facts.addressing import LeafAddresses, build_addressing
from compiler.facts.cabling import build_cabling
from compiler.facts.hosts import HostVlan
from compiler.facts.management import build_management, rack_halves
from compiler.facts.qos import build_qos
from compiler.facts.routing import build_routing
from compiler.facts.servers import build_attachments
from compiler.facts.topology import build_topology
from compiler.intent import Intent, load_intent
from compiler.structured import structured_config

Edit = Callable[[str, str, str], None]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def intent() -> Intent:
    return load_intent(REPO / "intent")


@pytest.fixture(scope="module")
def facts(intent: Intent) -> Facts:
    return build_facts(intent)


def test_each_builder_runs_alone_on_what_it_depends_on(intent: Intent) -> None:
    """Every stage takes the intent and the results of the stages before it, nothing else."""
    topology = build_topology(intent)
    attachments = build_attachments(intent, topology)
    addressing = build_addressing(intent, topology, attachments)
    management = build_management(intent, topology, attachments)
    cabling = build_cabling(intent, topology, attachments, addressing)
    routing = build_routing(intent, topology, cabling, addressing)
    qos = build_qos(intent)
    assert len(topology.switches) == 55
    assert len(attachments.nics) == 112 + 2 * 108 + 2 * 112
    assert addressing.loopbacks["spine03"] == "10.31.0.3"
    assert management.racks[13].switch_address == "172.16.13.2/25"
    assert len(cabling.cables) == 766
    assert routing.switches["spine01"].protocol == "ospf"
    assert set(qos.fabrics) == {"compute"}


def test_facts_are_deterministic(intent: Intent, facts: Facts) -> None:
    """Building twice from one intent gives equal facts, switch by switch."""
    again = build_facts(intent)
    assert [again.device(n) for n in again.topology.switches] == [facts.device(n) for n in facts.topology.switches]
    assert again.cabling.cables == facts.cabling.cables and again.allocations == facts.allocations


def test_ports_are_keyed_by_device_and_name(facts: Facts) -> None:
    port = facts.cabling.port("rack03-leaf-a", "Ethernet2/5")
    assert port is not None and (port.kind, port.peer, port.peer_port) == ("server", "rack03-gpu007", "enp65s0f0")
    assert facts.cabling.port("rack03-leaf-a", "Ethernet30/1") is None
    assert facts.cabling.port("spine02", "Ethernet6/1").peer == "rack03-leaf-b"  # type: ignore[union-attr]


def test_structured_config_is_a_function_of_the_device_facts(intent: Intent, facts: Facts) -> None:
    """The structured config of a switch is made of its DeviceFacts alone."""
    fabric = resolve(intent)
    for name, device in fabric.devices.items():
        assert structured_config(facts.device(name)) == device.config


def test_a_new_server_changes_only_the_facts_of_its_switches(project: Path) -> None:
    """The partition incremental compiles need: one server row changes the facts of the switches
    it plugs into and no other switch's."""
    before = build_facts(load_intent(project / "intent"))
    servers = project / "intent" / "servers.csv"
    servers.write_text(servers.read_text() + "rack03-gpu010,gpu-8x-h100,GPU-0310\n")
    after = build_facts(load_intent(project / "intent"))
    changed = {n for n in after.topology.switches if after.device(n) != before.device(n)}
    assert changed == {"rack03-leaf-a", "rack03-leaf-b", "rack01-stor-leaf-a", "rack01-stor-leaf-b", "rack03-mgmt"}


def test_a_port_claimed_twice_is_a_problem_not_an_overwrite(project: Path, edit: Edit) -> None:
    """A peer-link port that is also an uplink keeps its first use and is reported."""
    edit(
        "fabric.yaml", "peer_link_ports: [Ethernet31/1, Ethernet32/1]", "peer_link_ports: [Ethernet28/1, Ethernet32/1]"
    )
    facts = build_facts(load_intent(project / "intent"))
    port = facts.cabling.port("rack01-leaf-a", "Ethernet28/1")
    assert port is not None and port.kind == "uplink"
    messages = [p.message for p in facts.problems if p.rule == "PRT007" and p.subject == "rack01-leaf-a"]
    assert messages == ["rack01-leaf-a: Ethernet28/1 is already used (uplink to spine04)"]


# --------------------------------------------------------------- the fast paths keep the answer
# Resolution computes addresses as text from integers and counts pools on packed integers; each
# is held here to a straightforward ``ipaddress`` version of itself, on the example and at 4x.


@pytest.fixture(scope="module")
def facts_4x(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    """The bench's 4x fabric (three-stage compute), built once for the module."""
    root = tmp_path_factory.mktemp("intent-4x") / "intent"
    scaled_intent(4, root)
    return build_facts(load_intent(root))


@pytest.fixture(params=["example", "4x"])
def scaled_facts(request: pytest.FixtureRequest) -> Facts:
    """The example's facts, then the 4x fabric's: the checks against a reference run on both."""
    return request.getfixturevalue("facts" if request.param == "example" else "facts_4x")


def _reference_pool_used(facts: Facts, use: PoolUse) -> int:
    """How many units of its size ``use``'s allocations touch, with ``ipaddress`` objects."""
    size = int(use.unit.split("/", 1)[1].split()[0])
    units = set()
    for allocation in facts.allocations:
        if allocation.network == use.network and allocation.pool == use.name:
            own = IPv4Interface(allocation.prefix).network
            units.add(own if own.prefixlen <= size else own.supernet(new_prefix=size))
    return len(units)


def _reference_leaf_addresses(facts: Facts, leaf: str) -> LeafAddresses:
    """A leaf's addresses from its pair and index, as the module rules of the addressing say."""
    fabric = facts.topology.fabrics[facts.topology.switches[leaf].network]  # type: ignore[index]
    pair = next(p for p in fabric.pairs if leaf in p.leaves)
    side = pair.leaves.index(leaf)
    pools = facts.intent.fabric.fabrics[fabric.network].pools
    hosts = IPv4Network((pools.hosts.network_address + 256 * pair.id, 24))
    peer = IPv4Network((pools.mlag_peer.network_address + 2 * (pair.id - 1), 31))
    l3 = IPv4Network((pools.mlag_l3.network_address + 2 * (pair.id - 1), 31))

    def end(subnet: IPv4Network, at: int) -> str:
        return str(IPv4Interface((subnet.network_address + at, 31)))

    return LeafAddresses(
        str(pools.loopbacks.network_address + 64 + pair.leaf_index(side)),
        str(IPv4Interface((hosts.network_address + 2 + side, 24))),
        str(hosts.network_address + 1),
        end(peer, side),
        end(peer, 1 - side),
        end(l3, side),
        end(l3, 1 - side),
    )


def test_pool_counts_and_leaf_addresses_match_an_ipaddress_reference(scaled_facts: Facts) -> None:
    facts = scaled_facts
    assert [use.used for use in facts.pools] == [_reference_pool_used(facts, use) for use in facts.pools]
    assert all(use.used for use in facts.pools)
    leaves = sorted(facts.addressing.leaves)
    assert [facts.addressing.leaves[leaf] for leaf in leaves] == [
        _reference_leaf_addresses(facts, leaf) for leaf in leaves
    ]
    assert all(facts.addressing.loopbacks[leaf] == facts.addressing.leaves[leaf].loopback for leaf in leaves)


def test_management_addresses_match_an_ipaddress_reference(scaled_facts: Facts) -> None:
    """Each rack's two /25s, its gateways and switch addresses, as ``ipaddress`` gives them."""
    facts = scaled_facts
    for rack, found in facts.management.racks.items():
        switches, servers = rack_halves(facts.intent, rack)
        expected = (str(switches), str(host_in(switches, 1)), str(host_in(switches, 2)))
        assert (found.subnet, found.gateway, found.switch_address) == expected
        assert (found.server_subnet, found.server_gateway) == (str(servers), str(host_in(servers, 1)))
    for name, address in facts.management.switches.items():
        switch = facts.topology.switches[name]
        assert switch.slot is not None
        subnet = rack_halves(facts.intent, switch.rack)[0]
        assert address == (str(host_in(subnet, 2 + switch.slot)), str(subnet.network_address + 1))


VLANS = """vlans:
  inference:
    id: 300
    network: compute
    pool: 10.32.0.0/16
    access: [{server: rack03-gpu008, nic: enp65s0f0}, {rack: 5}]
    tagged: [{rack: 6}]
  l2only: {id: 310, network: compute, gateway: false, tagged: [{rack: 6}]}
  backup:
    id: 400
    network: storage
    pool: 10.33.0.0/16
    tagged: [{rack: 5}]
    access: [{server: rack06-gpu001}]
  nogw: {id: 410, network: storage, pool: 10.34.0.0/16, gateway: false, tagged: [{rack: 6}]}
"""


def test_server_links_carry_their_vlans_per_nic_and_per_bond(project: Path) -> None:
    """Each kind of VLAN of vlans.yaml on each kind of link: an access VLAN takes the port's
    address and pool (per NIC) or the bond's; a tagged one is an interface on the NIC or the
    bond, with an address where it has a pool, a gateway and pool where it is routed."""
    (project / "intent" / "vlans.yaml").write_text(VLANS)
    servers = build_facts(load_intent(project / "intent")).servers
    compute, storage = servers["rack05-gpu001"].links
    assert [(p.nic, p.address, p.gateway, p.pool, p.vlan) for p in compute.ports] == [
        ("enp65s0f0", "10.32.5.11/24", "10.32.5.1", "10.32.0.0/16", 300),
        ("enp193s0f0", "10.32.5.23/24", "10.32.5.1", "10.32.0.0/16", 300),
    ]
    assert (storage.name, storage.address, storage.pool, storage.vlan) == (
        "bond1",
        "10.40.2.11/24",
        "10.40.0.0/16",
        None,
    )
    assert storage.tagged == (HostVlan(400, "BACKUP", "bond1", "10.33.2.11/24", "10.33.2.1", "10.33.0.0/16"),)
    compute, storage = servers["rack06-gpu001"].links
    assert [(v.id, v.parent, v.address, v.gateway, v.pool) for v in compute.tagged] == [
        (300, "enp65s0f0", "10.32.6.11/24", "10.32.6.1", "10.32.0.0/16"),
        (310, "enp65s0f0", None, None, None),
        (300, "enp193s0f0", "10.32.6.23/24", "10.32.6.1", "10.32.0.0/16"),
        (310, "enp193s0f0", None, None, None),
    ]
    assert (storage.address, storage.gateway, storage.pool, storage.vlan) == (
        "10.33.2.22/24",
        "10.33.2.1",
        "10.33.0.0/16",
        400,
    )
    assert storage.tagged == (HostVlan(410, "NOGW", "bond1", "10.34.2.22/24", None, None),)
    compute, _ = servers["rack03-gpu008"].links
    assert [(p.address, p.pool, p.vlan) for p in compute.ports] == [
        ("10.32.3.18/24", "10.32.0.0/16", 300),
        ("10.30.3.30/24", "10.30.0.0/16", None),
    ]


def _records(value: object, seen: set[int]) -> list[tuple[object, ...]]:
    """Every record (``NamedTuple``) reachable from ``value`` through records, tuples, lists and dicts."""
    if id(value) in seen or isinstance(value, str | int | float | bool | None):
        return []
    seen.add(id(value))
    found: list[tuple[object, ...]] = []
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        found.append(value)
    if isinstance(value, dict):
        for key, item in value.items():
            found += _records(key, seen) + _records(item, seen)
    elif isinstance(value, tuple | list):
        for item in value:
            found += _records(item, seen)
    return found


@pytest.mark.parametrize("factor", [1, 2])
def test_every_record_of_the_facts_is_whole(tmp_path: Path, factor: int) -> None:
    """The builders make their most numerous records from all their values at once
    (``compiler.facts.common.record``, no defaults filled in): each has one value per field."""
    if factor == 1:
        facts = build_facts(load_intent(REPO / "intent"))
    else:
        scaled_intent(factor, tmp_path / "intent")
        facts = build_facts(load_intent(tmp_path / "intent"))
    fields = [*facts[1:]]  # the intent apart: pydantic models, not facts
    records = _records(fields, set())
    kinds = {type(r).__name__ for r in records}
    assert {"Cable", "Endpoint", "UsedPort", "Allocation", "HostAddress", "Attachment", "ServerNic"} <= kinds
    assert {"BgpSession", "HostPort"} <= kinds
    broken = [r for r in records if len(r) != len(type(r)._fields)]  # type: ignore[attr-defined]
    assert not broken, broken[:3]
