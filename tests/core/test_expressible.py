"""The one classifier of raw config lines: what the schema says, and where; the rest is extra_config."""

from __future__ import annotations

import pytest

from core.expressible import structured_form

ETH = ("interface Ethernet2/1",)


@pytest.mark.parametrize(
    ("section", "line", "file", "key", "value"),
    [
        (ETH, "description to rack05", "ports.yaml", "description", "to rack05"),
        (ETH, "shutdown", "ports.yaml", "shutdown", "<why it is shut>"),
        (ETH, "speed forced 10gfull", "ports.yaml", "speed", "10g"),
        (ETH, "speed 100g-2", "ports.yaml", "breakout", "<Nx100g: a mode of the cage>"),
        (ETH, "no error-correction encoding", "ports.yaml", "fec", "disabled"),
        (ETH, "error-correction encoding reed-solomon", "ports.yaml", "fec", "reed-solomon"),
        (ETH, "no lldp receive", "ports.yaml", "lldp", {"receive": False}),
        (ETH, "storm-control unknown-unicast level 2.5", "ports.yaml", "storm_control", {"unknown_unicast": 2.5}),
        (ETH, "no storm-control multicast", "ports.yaml", "storm_control", {"multicast": None}),
        (ETH, "switchport trunk allowed vlan 100,300", "vlans.yaml", "tagged", None),
        (ETH, "switchport trunk native vlan 300", "vlans.yaml", "access", None),
        ((), "ip route vrf MGMT 10.99.0.0/16 172.16.13.1", "devices.yaml", "static_routes", None),
        ((), "ntp server vrf MGMT 172.20.0.12 prefer iburst", "devices.yaml", "ntp", ["172.20.0.12"]),
        ((), "logging host 172.20.0.21", "devices.yaml", "syslog", ["172.20.0.21"]),
        ((), "vlan 300", "vlans.yaml", "<name>", None),
        (("vlan 300",), "name INFERENCE", "vlans.yaml", "<name>", None),
    ],
)
def test_what_the_schema_says(section: tuple[str, ...], line: str, file: str, key: str, value: object) -> None:
    form = structured_form("leaf1", section, line)
    assert form is not None and form.file == file and key in form.path, form
    if value is not None:
        assert form.value == value
    assert str(form).startswith(f"intent/{file}: ")


@pytest.mark.parametrize(
    ("section", "line"),
    [
        (ETH, "mtu 1500"),
        (ETH, "load-interval 5"),
        (ETH, "no shutdown"),
        (ETH, "storm-control broadcast level pps 1000"),  # ports.yaml holds percents
        (("interface Port-Channel1000",), "description peer link"),
        (("interface Vlan300",), "ip address 10.32.3.2/24"),
        (("router bgp 65001",), "neighbor 10.0.0.1 remote-as 65000"),
        ((), "ip name-server vrf MGMT 172.20.0.54"),
        ((), "banner motd"),
        ((), "ntp server vrf MGMT 172.20.0.12 key 3"),  # devices.yaml holds no NTP key
        ((), "ntp server pool.ntp.org"),  # nor a name
        ((), "logging host 172.20.0.21 514 protocol tcp"),
        ((), "ip route 10.99.0.0/16 172.16.13.1 200"),  # nor a distance
        ((), "interface Ethernet2/1"),
    ],
)
def test_what_only_extra_config_says(section: tuple[str, ...], line: str) -> None:
    assert structured_form("leaf1", section, line) is None
