"""Mode inference, no-forms, single-valued replacement, parser errors and the printer."""

from __future__ import annotations

import pytest

from lab.configtree import Config, Editor, LineError, load_text
from lab.modes import check_tables
from lab.printer import body_lines, section_of, strip_device_defaults


def apply(*lines: str) -> Config:
    cfg = Config()
    ed = Editor(cfg)
    for line in lines:
        ed.apply(line)
    return cfg


def tree(cfg: Config) -> list[str]:
    return ["   " * depth + node.text for depth, node in cfg.root.walk()]


def test_tables_are_consistent() -> None:
    assert check_tables() == []


def test_flat_lines_find_their_modes() -> None:
    """The cases the spec lists: QoS lines leave the interface; tx-queue nests; https is a leaf."""
    cfg = apply(
        "interface Ethernet1",
        "uc-tx-queue 3",
        "random-detect ecn count",
        "qos map dscp 26 to traffic-class 3",
        "management api http-commands",
        "protocol https",
        "no shutdown",
        "vrf MGMT",
        "no shutdown",
        "priority-flow-control pause watchdog action drop",
        "router bgp 65001",
        "neighbor 10.0.0.1 remote-as 65000",
        "address-family ipv4",
        "neighbor 10.0.0.1 activate",
        "router-id 1.1.1.1",
    )
    assert tree(cfg) == [
        "interface Ethernet1",
        "   uc-tx-queue 3",
        "      random-detect ecn count",
        "qos map dscp 26 to traffic-class 3",
        "management api http-commands",
        "   protocol https",
        "   no shutdown",
        "   vrf MGMT",
        "      no shutdown",
        "priority-flow-control pause watchdog action drop",
        "router bgp 65001",
        "   neighbor 10.0.0.1 remote-as 65000",
        "   router-id 1.1.1.1",
        "   address-family ipv4",
        "      neighbor 10.0.0.1 activate",
    ]


def test_single_valued_lines_replace_in_place_and_toggles_store() -> None:
    cfg = apply(
        "interface Ethernet1",
        "description a",
        "mtu 1500",
        "shutdown",
        "description b",
        "no shutdown",
        "ip address 10.0.0.1/31",
        "ip address 10.0.0.3/31",
        "ip address 10.0.1.1/24 secondary",
    )
    assert tree(cfg) == [
        "interface Ethernet1",
        "   description b",
        "   no shutdown",
        "   mtu 1500",
        "   ip address 10.0.0.3/31",
        "   ip address 10.0.1.1/24 secondary",
    ]


def test_interface_settings_take_eos_order_whatever_the_order_typed() -> None:
    """A merge that adds a description to a configured port prints it first, as EOS does."""
    cfg = apply(
        "interface Ethernet1",
        "spanning-tree portfast",
        "qos trust dscp",
        "uc-tx-queue 3",
        "random-detect ecn count",
        "exit",
        "mtu 9214",
        "switchport access vlan 10",
        "description late",
    )
    assert tree(cfg) == [
        "interface Ethernet1",
        "   description late",
        "   mtu 9214",
        "   switchport access vlan 10",
        "   qos trust dscp",
        "   spanning-tree portfast",
        "   uc-tx-queue 3",
        "      random-detect ecn count",
    ]


def test_no_forms_remove_lines_and_blocks() -> None:
    """``no`` removes a line, a neighbour's every line, or a whole block."""
    cfg = apply(
        "interface Ethernet1",
        "description a",
        "mtu 9214",
        "no description",
        "exit",
        "router bgp 1",
        "neighbor 10.0.0.1 remote-as 2",
        "neighbor 10.0.0.1 description x",
        "no neighbor 10.0.0.1",
        "exit",
        "vlan 10",
        "name A",
        "no vlan 10",
    )
    assert tree(cfg) == ["interface Ethernet1", "   mtu 9214", "router bgp 1"]


def test_abbreviations_are_expanded() -> None:
    cfg = apply("int eth1", "desc uplink", "ip addr 10.0.0.1/31", "host leaf1")
    assert tree(cfg) == ["interface Ethernet1", "   description uplink", "   ip address 10.0.0.1/31", "hostname leaf1"]


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("hostnamee x", "Invalid input (at token 0: 'hostnamee')"),
        ("interface Bogus1", "Invalid input (at token 1: 'Bogus1')"),
        ("hostname", "Incomplete command"),
        ("s", "Ambiguous command"),
        (
            "tacacs-server host 1.1.1.1 key 7 <TYPE7_KEY_PLACEHOLDER>",
            "Invalid input (at token 5: '<TYPE7_KEY_PLACEHOLDER>')",
        ),
        ("username admin secret sha512 <secret:admin>", "Invalid input (at token 4: '<secret:admin>')"),
    ],
)
def test_parser_errors_read_like_eos(line: str, error: str) -> None:
    cfg = apply("hostname before")
    with pytest.raises(LineError) as info:
        Editor(cfg).apply(line)
    assert str(info.value) == error
    assert tree(cfg) == ["hostname before"]


def test_clear_secrets_are_hashed() -> None:
    cfg = apply("username bob privilege 15 role network-admin secret 0 hunter2")
    text = cfg.root.children[0].text
    assert text.startswith("username bob privilege 15 role network-admin secret sha512 $6$")
    assert "hunter2" not in text
    key = apply("tacacs-server host 1.1.1.1 key clear").root.children[0].text
    assert key.startswith("tacacs-server host 1.1.1.1 key 7 ") and "clear" not in key


def test_printer_orders_sections_and_interfaces_like_eos() -> None:
    cfg = apply(
        "router bgp 1",
        "interface Vlan10",
        "interface Ethernet2",
        "interface Port-Channel5",
        "interface Ethernet10",
        "hostname x",
        "ip routing",
        "ntp server 1.1.1.1",
        "dns domain example.net",
        "ip name-server 9.9.9.9",
    )
    body = [line for line in body_lines(cfg) if line != "!"]
    assert body == [
        "no aaa root",
        "transceiver qsfp default-mode 4x10G",
        "service routing protocols model multi-agent",
        "hostname x",
        "ip name-server 9.9.9.9",
        "dns domain example.net",
        "spanning-tree mode mstp",
        "system l1",
        "   unsupported speed action error",
        "   unsupported error-correction action error",
        "interface Port-Channel5",
        "interface Ethernet2",
        "interface Ethernet10",
        "interface Vlan10",
        "ip routing",
        "ntp server 1.1.1.1",
        "router bgp 1",
        "end",
    ]


def test_printer_separators_between_sections_and_blocks() -> None:
    cfg = apply("hostname x", "dns domain d", "management api http-commands", "no shutdown", "vrf MGMT", "no shutdown")
    text = "\n".join(body_lines(cfg))
    assert "hostname x\ndns domain d\n!\n" in text
    assert "management api http-commands\n   no shutdown\n   !\n   vrf MGMT\n      no shutdown\n!\n" in text


def test_load_text_uses_indentation_and_strip_defaults_round_trips() -> None:
    text = "hostname a\n!\ninterface Ethernet1\n   description x\n!\nend\n"
    cfg = Config()
    assert load_text(cfg, text) == []
    assert strip_device_defaults("\n".join(body_lines(cfg, ["Ethernet1", "Ethernet2"])) + "\n") == text


def test_section_of_unknown_lines_sorts_last() -> None:
    assert section_of("something new")[1] == "other"


def test_docs_list_every_section_and_mode() -> None:
    """docs/lab.md is the fidelity table: it must name every section and mode the code knows."""
    from pathlib import Path

    from lab.modes import MODES
    from lab.printer import SECTION_ORDER

    doc = (Path(__file__).resolve().parents[2] / "docs" / "lab.md").read_text()
    missing = [n for n, _ in SECTION_ORDER if f"`{n}`" not in doc]
    missing += [m for m in MODES if f"`{m}`" not in doc]
    assert missing == []


def test_maximum_routes_prints_without_a_trailing_space() -> None:
    """Every real capture (4.25 to 4.33) prints ``maximum-routes N`` without the trailing space
    older releases had; drift strips trailing whitespace anyway."""
    cfg = apply("router bgp 1", "neighbor G peer group", "neighbor G maximum-routes 12000")
    assert "   neighbor G maximum-routes 12000" in body_lines(cfg)
