"""Rolling back to a version in which a device did not exist: said so, left as it is, or returned to its base.

History: ``v0`` is the fleet without rack14-mgmt (racked later), ``v1`` adds it. The switch was
bootstrapped before fabricops first deployed it (hostname, admin user with the secret store's
hash, eAPI): that backup is its base config. A lab of the switch and its core, real CLI in process,
Nornir and the stock NAPALM driver.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.generated import open_snapshot
from core.secrets import lab_secret
from deploy import normalise_running
from lab import DeviceSpec, Lab, specs_from_snapshot
from tests.conftest import git, make_repo, seal, write_lab_json
from tests.deploy.conftest import FAST, Ran, run_fabricops

# Deploys of two versions to the lab and rollbacks between them: the second tier.
pytestmark = pytest.mark.e2e

NEW, CORE = "rack14-mgmt", "mgmt-core01"
PASSWORD = "lab-password"


def bootstrap(name: str) -> str:
    """What the switch ran when it was racked: enough to be reached, with a secret fabricops knows."""
    secret = lab_secret("admin_sha512", PASSWORD)
    return (
        f"hostname {name}\nusername admin privilege 15 role network-admin secret sha512 {secret}\n"
        "management api http-commands\n   no shutdown\n"
    )


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory, compiled_example: Path) -> dict[str, str]:
    """Commits: v0 without rack14-mgmt, v1 with it (HEAD)."""
    root = make_repo(tmp_path_factory.mktemp("versions") / "repo", compiled_example, ".lab/\n/plan.json\n")
    full = git(root, "rev-parse", "HEAD").strip()
    hosts_path = root / "generated" / "inventory" / "hosts.yaml"
    hosts: dict[str, Any] = yaml.safe_load(hosts_path.read_text())
    del hosts[NEW]
    hosts_path.write_text(yaml.safe_dump(hosts, sort_keys=False))
    (root / "generated" / "configs" / f"{NEW}.cfg").unlink()
    seal(root)
    git(root, "commit", "-qam", "v0: rack14 has no management switch yet")
    v0 = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", full, "--", "generated")
    git(root, "commit", "-qam", "v1: rack14-mgmt racked")
    return {"root": str(root), "v0": v0, "v1": git(root, "rev-parse", "HEAD").strip()}


@pytest.fixture(scope="module")
def lab(versions: dict[str, str]) -> Iterator[Lab]:
    root = Path(versions["root"])
    specs, links = specs_from_snapshot(open_snapshot(root, "HEAD"), empty=True, only={NEW, CORE})
    specs = [DeviceSpec(s.name, bootstrap(s.name), s.model, s.ethernet_ports) if s.name == NEW else s for s in specs]
    emulated = Lab(specs, links, username="admin", password=PASSWORD)
    emulated.start()
    write_lab_json(root, emulated)
    try:
        yield emulated
    finally:
        emulated.stop()


@pytest.fixture(scope="module")
def base(lab: Lab) -> str:
    """The switch's running config as racked, before any deploy."""
    return lab.device(NEW).running_config()


def cli(versions: dict[str, str], *args: str) -> Ran:
    return run_fabricops(Path(versions["root"]), *args)


def test_a_device_absent_from_the_version_is_said_so_and_left_as_it_is(
    versions: dict[str, str], lab: Lab, base: str
) -> None:
    racked = cli(versions, "deploy", *FAST, "--devices", NEW, "--format", "json")
    assert racked.code == 0 and racked.json()["changed"] == [NEW], racked.err
    running = lab.device(NEW).running_config()

    back = cli(versions, "rollback", "--to", versions["v0"], *FAST, "--devices", NEW, "--format", "json")
    assert back.code == 0, back.out + back.err
    device = back.json()["devices"][NEW]
    assert (device["status"], device["outcome"]) == ("absent", "untouched")
    assert device["detail"].startswith(f"not in generated/ at {versions['v0'][:12]}: left as it is")
    assert "--reset-missing" in device["detail"]
    assert lab.device(NEW).running_config() == running != base, "never silently changed"
    text = cli(versions, "rollback", "--to", versions["v0"], *FAST, "--devices", NEW)
    assert f"{NEW}" in text.out and "absent" in text.out


def test_reset_missing_returns_it_to_its_base_config(versions: dict[str, str], lab: Lab, base: str) -> None:
    """The base config is the oldest backup: what it ran before fabricops first changed it."""
    reset = cli(versions, "rollback", "--to", versions["v0"], *FAST, "--devices", NEW, "--reset-missing")
    assert reset.code == 0, reset.out + reset.err
    assert "rollback of" in reset.out and "restore of" in reset.out, "the rollback, then the reset"
    assert f"restored backups/{NEW}/" in reset.out
    assert normalise_running(lab.device(NEW).running_config()) == normalise_running(base)
    status = {row["device"]: row for row in cli(versions, "status", "--format", "json", "--devices", NEW).json()}
    assert status[NEW]["backup"].startswith(f"backups/{NEW}/") and status[NEW]["commit"] == ""
    assert status[NEW]["intent"] == "pending", "it runs its base config, not what HEAD gives it"
