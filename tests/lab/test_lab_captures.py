"""The lab loads every real capture and prints it back where and as EOS printed it.

Lines of families the lab does not model (IS-IS, MPLS, banners, aliases, ``router multicast``...)
are stored as written; the families the project generates keep strict validation.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drift.compare import compare_config
from lab import DeviceSpec
from lab.configtree import Config, Editor, LineError, load_text
from lab.printer import render
from lab.testing import napalm_driver, running_lab
from tests.captures import CAPTURES, body_of, release_of


@pytest.mark.parametrize("path", CAPTURES)
def test_a_capture_loads_and_prints_back_line_for_line(path: Path) -> None:
    """Run as the capture's release, the lab prints the capture again, byte for byte."""
    text = path.read_text()
    config = Config()
    assert load_text(config, text) == []
    assert body_of(render(config, device="x", version=release_of(text))) == body_of(text)


@pytest.mark.parametrize("path", CAPTURES)
def test_a_capture_sent_through_napalm_keeps_every_line(path: Path) -> None:
    """NAPALM strips indentation and sends banners as input: the lab still finds each line's
    block (unmodelled blocks included), so the device ends with the capture's config."""
    text = path.read_text()
    with (
        running_lab([DeviceSpec("sw1", None, eos_version=release_of(text), ethernet_ports=0)]) as lab,
        napalm_driver(lab, "sw1") as driver,
    ):
        driver.load_replace_candidate(config=text)
        driver.commit_config()
        running = driver.get_config(retrieve="running")["running"]
    assert compare_config(text, running, values={}, key=b"k").changes == ()


def test_unmodelled_families_are_stored_and_generated_ones_stay_strict() -> None:
    config = Config()
    editor = Editor(config)
    for line in ("router bgp 65000", "router-id 10.0.0.1", "router isis 0", "net 49.0001.0000.0000.0001.00"):
        editor.apply(line)
    editor.apply("interface Ethernet1")
    editor.apply("isis enable 0")  # an unmodelled family of the interface mode
    with pytest.raises(LineError, match=r"Invalid input \(at token 0: 'descripton'\)"):
        editor.apply("descripton typo")
    editor.apply("router bgp 65000")
    with pytest.raises(LineError, match=r"Invalid input \(at token 2: 'remote-ass'\)"):
        editor.apply("neighbor 10.0.0.2 remote-ass 65001")
    with pytest.raises(LineError, match=r"Invalid input \(at token 0: 'hostnamee'\)"):
        editor.apply("hostnamee x")
    tree = {n.text: [c.text for c in n.children] for n in config.root.children}
    assert tree == {
        "router bgp 65000": ["router-id 10.0.0.1"],
        "router isis 0": ["net 49.0001.0000.0000.0001.00"],
        "interface Ethernet1": ["isis enable 0"],
    }


def test_unindented_lines_find_unmodelled_sub_blocks() -> None:
    """``router multicast`` > ``ipv4``/``ipv6`` as NAPALM sends it: flat lines."""
    config = Config()
    editor = Editor(config)
    for line in (
        "router multicast",
        "ipv4",
        "routing",
        "software-forwarding sfe",
        "ipv6",
        "software-forwarding kernel",
    ):
        editor.apply(line)
    editor.apply("hostname after")
    block = config.root.children[0]
    assert [(c.text, [g.text for g in c.children]) for c in block.children] == [
        ("ipv4", ["routing", "software-forwarding sfe"]),
        ("ipv6", ["software-forwarding kernel"]),
    ]
    assert config.root.children[1].text == "hostname after"


def test_consecutive_bgp_vlan_blocks_stay_siblings() -> None:
    """``vlan 160`` after ``vlan 110``'s lines is the next block under ``router bgp``, not a child."""
    config = Config()
    editor = Editor(config)
    for line in ("router bgp 65102", "vlan 110", "rd 1.1.1.1:110", "vlan 160", "rd 1.1.1.1:160"):
        editor.apply(line)
    bgp = config.root.children[0]
    assert [(c.text, [g.text for g in c.children]) for c in bgp.children] == [
        ("vlan 110", ["rd 1.1.1.1:110"]),
        ("vlan 160", ["rd 1.1.1.1:160"]),
    ]


def test_graceful_restart_time_and_switch_are_two_settings() -> None:
    config = Config()
    editor = Editor(config)
    for line in ("router bgp 65102", "graceful-restart restart-time 300", "graceful-restart"):
        editor.apply(line)
    assert [c.text for c in config.root.children[0].children] == [
        "graceful-restart restart-time 300",
        "graceful-restart",
    ]


@pytest.mark.parametrize(
    ("version", "present", "absent"),
    [
        ("4.27.1F", [], ["system l1", "router multicast"]),
        ("4.31.2F", ["system l1"], ["router multicast", "no service interface inactive port-id allocation disabled"]),
        ("4.33.0F", ["system l1", "router multicast", "no service interface inactive port-id allocation disabled"], []),
    ],
)
def test_a_device_run_as_a_release_prints_that_releases_defaults(
    version: str, present: list[str], absent: list[str]
) -> None:
    with running_lab([DeviceSpec("sw1", None, eos_version=version)]) as lab, napalm_driver(lab, "sw1") as driver:
        assert driver.get_facts()["os_version"].startswith(version)
        lines = driver.get_config(retrieve="running")["running"].splitlines()
    assert f"! device: sw1 (cEOSLab, EOS-{version})" in lines
    assert [line for line in present if line not in lines] == []
    assert [line for line in absent if line in lines] == []
