"""Pytest helpers: an in-process lab on free ports and opened stock NAPALM drivers.

Examples:
    >>> from lab import DeviceSpec
    >>> with running_lab([DeviceSpec("leaf1", None)]) as lab:
    ...     with napalm_driver(lab, "leaf1") as driver:
    ...         driver.get_facts()["hostname"]
    'leaf1'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from lab.emulator import DeviceSpec, Lab
from lab.topology import Link

# --------------------------------------------------------------------------- a sample fabric
# spine1 Ethernet1/2 <-> leaf1/leaf2 Ethernet1 (routed /31, eBGP 65100 <-> 65101);
# leaf1 Ethernet10 <-> leaf2 Ethernet10 (MLAG peer-link Port-Channel10);
# leaf1 Ethernet5 <-> server01 eth0.

SAMPLE_HASH = "$6$fabricopslab$PN4IHc/v7cmjV4kCble6wlMNBWv1v/268URswpH.cqMgSJh9EGzOyHmUq8S4o9Vfj9a8N1BI6pID6pqkexlMu/"

_BASE = f"""\
username admin privilege 15 role network-admin secret sha512 {SAMPLE_HASH}
management api http-commands
   no shutdown
"""

_SPINE1 = f"""\
hostname spine1
{_BASE}interface Ethernet1
   description P2P_leaf1_Ethernet1
   mtu 9214
   no switchport
   ip address 10.0.0.0/31
interface Ethernet2
   description P2P_leaf2_Ethernet1
   mtu 9214
   no switchport
   ip address 10.0.0.2/31
interface Loopback0
   ip address 10.250.0.1/32
ip routing
router bgp 65100
   router-id 10.250.0.1
   neighbor 10.0.0.1 remote-as 65101
   neighbor 10.0.0.1 description leaf1
   neighbor 10.0.0.3 remote-as 65101
   neighbor 10.0.0.3 description leaf2
"""


def _leaf(n: int) -> str:
    """leaf1 or leaf2: uplink to spine1, MLAG peer of the other."""
    me, peer = (0, 1) if n == 1 else (1, 0)
    return f"""\
hostname leaf{n}
{_BASE}vlan 110
   name COMPUTE
vlan 4094
   name MLAG_PEER
   trunk group MLAG
interface Port-Channel10
   description MLAG_PEER
   switchport mode trunk
   switchport trunk group MLAG
interface Ethernet1
   description P2P_spine1_Ethernet{n}
   mtu 9214
   no switchport
   ip address 10.0.0.{2 * n - 1}/31
interface Ethernet5
   description SERVER_server01_eth0
   switchport access vlan 110
interface Ethernet10
   description MLAG_PEER_leaf{3 - n}_Ethernet10
   channel-group 10 mode active
interface Loopback0
   ip address 10.250.0.{10 + n}/32
interface Vlan4094
   no autostate
   ip address 10.1.0.{me}/31
ip routing
mlag configuration
   domain-id PAIR1
   local-interface Vlan4094
   peer-address 10.1.0.{peer}
   peer-link Port-Channel10
router bgp 65101
   router-id 10.250.0.{10 + n}
   neighbor 10.0.0.{2 * n - 2} remote-as 65100
"""


SAMPLE_LINKS = [
    Link("spine1", "Ethernet1", "leaf1", "Ethernet1"),
    Link("spine1", "Ethernet2", "leaf2", "Ethernet1"),
    Link("leaf1", "Ethernet10", "leaf2", "Ethernet10"),
    Link("leaf1", "Ethernet5", "server01", "eth0"),
]


def sample_fabric_specs() -> list[DeviceSpec]:
    """spine1 + an MLAG leaf pair (see :data:`SAMPLE_LINKS`); the admin password is ``admin``."""
    return [
        DeviceSpec("spine1", _SPINE1, ethernet_ports=8),
        DeviceSpec("leaf1", _leaf(1), ethernet_ports=16),
        DeviceSpec("leaf2", _leaf(2), ethernet_ports=16),
    ]


def sample_ospf_pair() -> tuple[list[DeviceSpec], list[Link]]:
    """Two routers ``a`` (1.1.1.1) and ``b`` (2.2.2.2) in OSPF area 0 over a /31 on Ethernet1."""

    def config(name: str, ip: str, rid: str) -> str:
        return (
            f"hostname {name}\ninterface Ethernet1\n   mtu 9214\n   no switchport\n"
            f"   ip address {ip}/31\n   ip ospf network point-to-point\n!\nip routing\n!\n"
            f"router ospf 100\n   router-id {rid}\n   passive-interface default\n"
            f"   no passive-interface Ethernet1\n   network 10.0.0.0/24 area 0.0.0.0\n"
        )

    specs = [
        DeviceSpec("a", config("a", "10.0.0.0", "1.1.1.1"), ethernet_ports=4),
        DeviceSpec("b", config("b", "10.0.0.1", "2.2.2.2"), ethernet_ports=4),
    ]
    return specs, [Link("a", "Ethernet1", "b", "Ethernet1")]


#: Short client timeout: a test must never hang for NAPALM's default 60 s.
TIMEOUT = 5


@contextmanager
def running_lab(devices: Sequence[DeviceSpec], links: Iterable[Link] = (), **kwargs: Any) -> Iterator[Lab]:
    """A started :class:`Lab`, stopped on exit."""
    lab = Lab(devices, links, **kwargs)
    lab.start()
    try:
        yield lab
    finally:
        lab.stop()


def driver_for(lab: Lab, name: str, **optional_args: Any) -> Any:
    """A stock NAPALM ``eos`` driver for one lab device (not yet opened); HTTP unless
    ``transport="https"`` is among the optional args."""
    from napalm import get_network_driver

    https = optional_args.get("transport") == "https"
    host, port = lab.endpoints(https=https)[name]
    args = {"transport": "http", "port": port, **optional_args}
    return get_network_driver("eos")(host, lab.username, lab.password, timeout=TIMEOUT, optional_args=args)


@contextmanager
def napalm_driver(lab: Lab, name: str, **optional_args: Any) -> Iterator[Any]:
    """An opened stock NAPALM ``eos`` driver, closed on exit (before the lab stops)."""
    driver = driver_for(lab, name, **optional_args)
    driver.open()
    try:
        yield driver
    finally:
        driver.close()
