"""Every config the compiler generated goes through NAPALM and comes back unchanged.

This is the fidelity check of the lab's mode tables and section order against
the compiler's templates: load_replace + commit, then the running-config body
(EOS header and the lab's documented device-default lines removed from both
sides, trailing spaces ignored) must equal the generated text.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.generated import open_snapshot
from lab import specs_from_snapshot
from lab.printer import strip_device_defaults, strip_header, strip_hidden_defaults
from lab.testing import napalm_driver, running_lab

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = open_snapshot(ROOT) if (ROOT / "generated").is_dir() else None
CONFIGS = SNAPSHOT.configs() if SNAPSHOT is not None else {}
#: What deploy would put in place of a vault reference; any valid sha512-crypt hash works.
LAB_HASH = "$6$fabricopslab$PN4IHc/v7cmjV4kCble6wlMNBWv1v/268URswpH.cqMgSJh9EGzOyHmUq8S4o9Vfj9a8N1BI6pID6pqkexlMu/"


def _rstrip(text: str) -> str:
    """EOS's one known whitespace quirk (``neighbor X maximum-routes N ``) removed."""
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


def with_secrets(text: str) -> str:
    return re.sub(r"<secret:[^>]+>", LAB_HASH, text)


@pytest.mark.skipif(not CONFIGS, reason="generated/configs is empty: run 'fabricops compile'")
def test_every_generated_config_round_trips() -> None:
    assert SNAPSHOT is not None
    specs, links = specs_from_snapshot(SNAPSHOT, empty=True)
    failures = []
    with running_lab(specs, links) as lab:
        for name, text in sorted(CONFIGS.items()):
            wanted = with_secrets(text)
            with napalm_driver(lab, name) as d:
                d.load_replace_candidate(config=wanted)
                d.commit_config()
            got = strip_device_defaults(strip_header(lab.device(name).running_config()))
            if _rstrip(got) != strip_hidden_defaults(strip_device_defaults(wanted)):
                failures.append(name)
    assert failures == []


@pytest.mark.skipif(not CONFIGS, reason="generated/configs is empty: run 'fabricops compile'")
def test_generated_configs_print_no_hidden_defaults() -> None:
    """Lines a switch never prints would show up as drift right after a deploy."""
    offending = {
        name: sorted({line.strip() for line in text.splitlines()} - set(strip_hidden_defaults(text).splitlines()))
        for name, text in CONFIGS.items()
        if strip_hidden_defaults(text) != text
    }
    assert offending == {}


@pytest.mark.skipif(not CONFIGS, reason="generated/configs is empty: run 'fabricops compile'")
def test_preload_resolves_secrets_like_deploy_and_refuses_raw_references() -> None:
    """With the lab password, references become deploy's lab values; raw, a switch refuses them."""
    assert SNAPSHOT is not None
    from lab import Lab

    name = sorted(CONFIGS)[0]
    raw, _ = specs_from_snapshot(SNAPSHOT, only={name})
    resolved, _ = specs_from_snapshot(SNAPSHOT, only={name}, lab_password="pw")
    assert "<secret:" not in (resolved[0].config or "")
    assert Lab(resolved).load_errors == {}
    if "<secret:" in (raw[0].config or ""):
        assert any("Invalid input" in e for e in Lab(raw).load_errors[name])


@pytest.mark.skipif(not CONFIGS, reason="generated/configs is empty: run 'fabricops compile'")
def test_preloaded_fabric_comes_up_healthy() -> None:
    """The generated fabric, preloaded: every cable shows in LLDP, every session is up."""
    assert SNAPSHOT is not None
    from lab import Lab
    from lab.shows import show_bgp_neighbors, show_lldp_neighbors, show_mlag, show_ospf_neighbor

    specs, links = specs_from_snapshot(SNAPSHOT, lab_password="pw")
    lab = Lab(specs, links)
    assert lab.load_errors == {}
    problems = []
    for name, dev in sorted(lab.devices.items()):
        seen = {(n["port"], n["neighborDevice"], n["neighborPort"]) for n in show_lldp_neighbors(dev)["lldpNeighbors"]}
        for link in links:
            for me, port, other, oport in (
                (link.a_device, link.a_port, link.b_device, link.b_port),
                (link.b_device, link.b_port, link.a_device, link.a_port),
            ):
                if me == name and (port, other, oport) not in seen:
                    problems.append(f"{name} {port}: no LLDP neighbour {other} {oport}")
        for vrf in show_bgp_neighbors(dev, "all")["vrfs"].values():
            problems += [
                f"{name} BGP {p['peerAddress']} {p['state']}" for p in vrf["peerList"] if p["state"] != "Established"
            ]
        mlag = show_mlag(dev)
        if mlag["state"] not in ("disabled", "active"):
            problems.append(f"{name} MLAG {mlag['state']}")
        if dev.running.top("router ospf"):
            entries = [
                e
                for v in show_ospf_neighbor(dev)["vrfs"].values()
                for i in v["instList"].values()
                for e in i["ospfNeighborEntries"]
            ]
            if not entries or any(e["adjacencyState"] != "full" for e in entries):
                problems.append(f"{name}: OSPF adjacencies {[e['adjacencyState'] for e in entries]}")
    assert problems == []


def test_optional_management_families_round_trip(tmp_path: Path) -> None:
    """SNMPv3 and RADIUS are not in the example: compiled from a variant, the lab takes and prints them."""
    import shutil

    from compiler.pipeline import compile_intent
    from lab import DeviceSpec

    intent_dir = tmp_path / "intent"
    shutil.copytree(ROOT / "intent", intent_dir)
    fabric = intent_dir / "fabric.yaml"
    fabric.write_text(
        fabric.read_text().replace(
            "  aaa: {protocol: tacacs+, servers: [172.20.0.30, 172.20.0.31]}\n",
            "  aaa: {protocol: radius, servers: [172.20.0.30]}\n  snmp: {user: nms, hosts: [172.20.0.42]}\n",
        )
    )
    result = compile_intent(intent_dir)
    assert not result.errors, [f.line() for f in result.errors]
    names = ("spine01", "rack01-mgmt")
    texts = {n: with_secrets(result.files[f"configs/{n}.cfg"].decode()) for n in names}
    assert "snmp-server user nms NMS-RO v3 auth sha256 " in texts["spine01"]
    assert "ip radius vrf MGMT source-interface Management1\n" in texts["spine01"]
    specs = [DeviceSpec(n, None) for n in names]
    with running_lab(specs) as lab:
        for name, wanted in texts.items():
            with napalm_driver(lab, name) as d:
                d.load_replace_candidate(config=wanted)
                d.commit_config()
            got = strip_device_defaults(strip_header(lab.device(name).running_config()))
            assert _rstrip(got) == strip_hidden_defaults(strip_device_defaults(wanted)), name
