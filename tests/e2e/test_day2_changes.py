"""Day-2 changes as pull requests, each through the whole chain on the session lab.

Every change of the intent's specifics is a one-line edit of ``vlans.yaml``, ``ports.yaml``,
``devices.yaml`` or ``extra_config``, and goes: intent edit -> ``compile`` -> ``check`` ->
``diff --base main`` (the review names it) -> merge -> ``deploy`` of the touched switches
only -> ``drift`` clean. Two pull requests carry them (several edits per deploy keep the lab
time small): a VLAN on four ports of one leaf pair, a port description and a port shut with its
reason; then a speed and a FEC change, a static route, an NTP and a syslog server, and a line
only ``extra_config`` says (after the check has refused an ``mtu 1500`` on a spine uplink there).

The lab is the session's (``tests/conftest.py``), running the example, HEAD tagged as its last
deploy; the CLI runs in-process, as a person runs it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from fabricops.cli import main
from tests.conftest import SessionLab, clone_repo, git

if TYPE_CHECKING:
    from lab import Lab

PAIR = ("rack03-leaf-a", "rack03-leaf-b")
STORAGE = "rack01-stor-leaf-a"
DEPLOY = ("--lab", "--revert-in", "60", "--settle", "0")


class Cli:
    """The CLI in ``root``, in-process (the session lab lives in this process)."""

    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root, self.capsys = root, capsys
        self.stdout = ""

    def __call__(self, *args: str, expect: int = 0) -> str:
        try:
            main([*args[:1], "--root", str(self.root), *args[1:]])
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        out = self.capsys.readouterr()
        assert code == expect, f"fabricops {' '.join(args)} -> {code}\n{out.out}\n{out.err}"
        assert "Traceback" not in out.err, out.err
        self.stdout = out.out
        return out.out + out.err

    def json(self, *args: str, expect: int = 0) -> Any:
        self(*args, "--format", "json", expect=expect)
        return json.loads(self.stdout)


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, example_repo: Path) -> Path:
    root = clone_repo(example_repo, tmp_path_factory.mktemp("day2") / "repo")
    git(root, "tag", "-a", "deploy/20260101T000000Z", "-m", "deploy of the example cluster")
    git(root, "config", "fabricops.remote", "none")
    return root


@pytest.fixture
def lab(repo: Path, session_lab: SessionLab) -> Lab:
    return session_lab.synced(repo)


def write(root: Path, name: str, text: str) -> None:
    (root / "intent" / name).write_text(text)


def pull_request(cli: Cli, root: Path, branch: str) -> dict[str, Any]:
    """Compile and check the edited intent on a branch, commit it; the review diff against main."""
    git(root, "checkout", "-q", "-b", branch)
    cli("compile")
    cli("check")
    git(root, "add", "-A", "intent", "generated")
    git(root, "commit", "-q", "-m", branch)
    review: dict[str, Any] = cli.json("diff", "--base", "main", expect=3)
    git(root, "checkout", "-q", "main")
    git(root, "merge", "-q", "--ff-only", branch)
    return review


def deploy_and_drift_clean(cli: Cli, devices: str) -> None:
    done = cli.json("deploy", *DEPLOY, "--devices", devices)
    assert sorted(done["changed"]) == sorted(devices.split(",")), done
    audit = cli.json("drift", "--lab", "--devices", devices)
    assert {d["device"]: d["status"] for d in audit["devices"]} == dict.fromkeys(devices.split(","), "in-sync")


def config(root: Path, device: str) -> str:
    return (root / "generated" / "configs" / f"{device}.cfg").read_text()


def stanza(text: str, interface: str) -> str:
    return text.split(f"\ninterface {interface}\n", 1)[1].split("\n!\n", 1)[0]


def test_day2_changes_go_from_intent_to_the_lab(
    repo: Path, lab: Lab, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)  # findings name intent/... as in a person's checkout
    cli = Cli(repo, capsys)
    ports_vlans_and_admin_state(cli, repo, lab)
    speed_fec_extras_and_the_escape_hatch(cli, repo, lab)


def ports_vlans_and_admin_state(cli: Cli, root: Path, lab: Lab) -> None:
    """VLAN 300 on four ports of rack03's pair (both NICs of two servers), a description, a shut port."""
    write(
        root,
        "vlans.yaml",
        "vlans:\n  inference:\n    id: 300\n    network: compute\n    pool: 10.32.0.0/16\n"
        "    access:\n      - {server: rack03-gpu001}\n      - {server: rack03-gpu002}\n",
    )
    write(
        root,
        "ports.yaml",
        "ports:\n  rack03-leaf-a:\n    Ethernet30/1:\n      description: burn-in bench\n"
        "  rack03-leaf-b:\n    Ethernet1/5:\n      shutdown: NIC enp193s0f0 failed, RMA 4411\n",
    )
    review = pull_request(cli, root, "vlan-300")
    assert {d["device"] for d in review["devices"]} == set(PAIR), "only the pair's configs change"
    text = json.dumps(review)
    for line in ("vlan 300", "switchport access vlan 300", "description burn-in bench", "RMA 4411", "shutdown"):
        assert line in text, line
    leaf_a, leaf_b = config(root, PAIR[0]), config(root, PAIR[1])
    assert "\nvlan 300\n   name INFERENCE\n" in leaf_a and "\nvlan 300\n   name INFERENCE\n" in leaf_b
    assert "switchport access vlan 300" in stanza(leaf_a, "Ethernet1/1")
    assert "switchport access vlan 300" in stanza(leaf_b, "Ethernet1/3")
    assert stanza(leaf_a, "Ethernet30/1").startswith("   description burn-in bench\n")
    shut = stanza(leaf_b, "Ethernet1/5")
    assert "SHUTDOWN: NIC enp193s0f0 failed, RMA 4411" in shut and "\n   shutdown" in shut
    # Every artifact follows: the servers' files, the IP plan, the assets, the design document.
    generated = root / "generated"
    host = generated / "servers" / "rack03-gpu001" / "NetworkManager" / "system-connections"
    assert "10.32.3.11" in "".join(p.read_text() for p in host.glob("compute-*.nmconnection"))
    assert "10.32.3.11" in (generated / "servers" / "rack03-gpu001" / "verify.sh").read_text()
    plan = (generated / "inventory" / "ip-plan.csv").read_text()
    assert "10.32.3.1/24,10.32.3.1,address,compute-pair03,virtual-router gateway" in plan
    assert ",10.32.3.12," in (generated / "inventory" / "assets.csv").read_text()
    assert "vlans.inference | 10.32.0.0/16" in (generated / "docs" / "fabric.md").read_text()
    deploy_and_drift_clean(cli, ",".join(PAIR))
    assert "SHUTDOWN: NIC enp193s0f0" in lab.device(PAIR[1]).running_config()


def speed_fec_extras_and_the_escape_hatch(cli: Cli, root: Path, lab: Lab) -> None:
    """A speed and FEC change, a static route, NTP and syslog; extra_config after its MTU refusal."""
    fabric = root / "intent" / "fabric.yaml"
    design = fabric.read_text()
    fabric.write_text(
        design.replace(
            "extra_config: {}\n", "extra_config:\n  spine01: |\n    interface Ethernet1/1\n       mtu 1500\n"
        )
    )
    refused = cli("check", expect=1)
    line = 4 + design.splitlines().index("extra_config: {}")  # 0-based; the mtu line is two below its key
    assert (
        f"error LNK002 [N5] intent/fabric.yaml:{line}: extra_config.spine01: mtu 1500 on spine01 Ethernet1/1" in refused
    )
    fabric.write_text(
        design.replace(
            "extra_config: {}\n",
            "extra_config:\n  rack03-leaf-a: |\n    interface Ethernet30/1\n       load-interval 5\n",
        )
    )
    ports = (root / "intent" / "ports.yaml").read_text()
    ports = ports.replace("  rack03-leaf-b:\n", "    Ethernet1/7:\n      fec: reed-solomon\n  rack03-leaf-b:\n")
    write(root, "ports.yaml", ports + f"  {STORAGE}:\n    Ethernet46:\n      speed: 10g\n")
    write(
        root,
        "devices.yaml",
        "devices:\n  rack03-leaf-a:\n    static_routes:\n"
        "      - {prefix: 10.99.0.0/16, next_hop: 172.16.3.1, vrf: MGMT}\n"
        "    ntp: [172.20.0.12]\n    syslog: [172.20.0.21]\n",
    )
    review = pull_request(cli, root, "leaf-a-extras")
    assert {d["device"] for d in review["devices"]} == {PAIR[0], STORAGE}
    leaf_a = config(root, PAIR[0])
    assert "   speed 10g" in stanza(config(root, STORAGE), "Ethernet46")
    assert "   error-correction encoding reed-solomon" in stanza(leaf_a, "Ethernet1/7")
    assert "   load-interval 5" in stanza(leaf_a, "Ethernet30/1"), "extra_config merged into the stanza"
    assert leaf_a.count("\ninterface Ethernet30/1\n") == 1
    for line in ("ip route vrf MGMT 10.99.0.0/16 172.16.3.1", "ntp server vrf MGMT 172.20.0.12", "host 172.20.0.21"):
        assert line in leaf_a, line
        assert line in json.dumps(review), line
    deploy_and_drift_clean(cli, f"{PAIR[0]},{STORAGE}")
    assert "load-interval 5" in stanza(lab.device(PAIR[0]).running_config(), "Ethernet30/1")
