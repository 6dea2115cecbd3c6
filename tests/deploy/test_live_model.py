"""Deploy refuses a switch whose live model is not the model ``generated/`` names.

The example's rack management switches are made a model of the repository's own
(``intent/hardware/switches/DCS-7010TX-48-LAB.yaml``, the catalog's DCS-7010TX-48 under another
id) and compiled: the compiler, the lab and deploy all read it with the catalog. The lab starts
one of them as a catalog model (the wrong switch in the rack) and another as the right model
with a rear-to-front airflow suffix. Real CLI, Nornir and the stock NAPALM driver against the
lab on loopback.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from compiler.pipeline import compile_intent, write_generated
from core.generated import open_snapshot
from core.hardware.catalog import DATA
from lab import Lab, specs_from_snapshot
from tests.conftest import clone_repo, git, write_lab_json
from tests.deploy.conftest import FAST, run_fabricops

WRONG, RIGHT, CORE = "rack01-mgmt", "rack02-mgmt", "mgmt-core01"
EXPECTED = "DCS-7010TX-48-LAB"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory, example_repo: Path) -> Path:
    """The example with its rack switches of the repository's own model, compiled and committed."""
    root = clone_repo(example_repo, tmp_path_factory.mktemp("models") / "repo")
    own = (DATA / "switches" / "DCS-7010TX-48.yaml").read_text().replace("model: DCS-7010TX-48", f"model: {EXPECTED}")
    (root / "intent" / "hardware" / "switches").mkdir(parents=True)
    (root / "intent" / "hardware" / "switches" / f"{EXPECTED}.yaml").write_text(own)
    fabric = root / "intent" / "fabric.yaml"
    fabric.write_text(fabric.read_text().replace("switch_model: DCS-7010TX-48", f"switch_model: {EXPECTED}"))
    write_generated(compile_intent(root / "intent"), root / "generated")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "rack switches of our own model")
    hosts: dict[str, Any] = yaml.safe_load((root / "generated" / "inventory" / "hosts.yaml").read_text())
    assert {hosts[name]["data"]["model"] for name in (WRONG, RIGHT)} == {EXPECTED}
    return root


@pytest.fixture(scope="module")
def lab(repo: Path) -> Iterator[Lab]:
    """Three switches at factory default: rack01-mgmt racked as the wrong model."""
    models = {WRONG: "DCS-7050SX3-48YC8", RIGHT: f"{EXPECTED}-R"}
    specs, links = specs_from_snapshot(
        open_snapshot(repo, "HEAD"), empty=True, only={WRONG, RIGHT, CORE}, models=models
    )
    emulated = Lab(specs, links, username="admin", password="lab-password")
    emulated.start()
    write_lab_json(repo, emulated)
    try:
        yield emulated
    finally:
        emulated.stop()


def test_deploy_refuses_the_wrong_model_and_changes_the_right_one(repo: Path, lab: Lab) -> None:
    before = lab.device(WRONG).running_config()
    halted = run_fabricops(repo, "deploy", *FAST, "--devices", f"{WRONG},{RIGHT}", "--format", "json")
    assert halted.code == 1 and json.loads(halted.out)["devices"][RIGHT]["status"] == "not-touched"
    result = run_fabricops(
        repo, "deploy", *FAST, "--devices", f"{WRONG},{RIGHT}", "--continue-on-error", "--format", "json"
    )
    report = json.loads(result.out)
    assert result.code == 4, result.out + result.err
    wrong, right = report["devices"][WRONG], report["devices"][RIGHT]
    assert wrong["status"] == "refused"
    assert wrong["detail"].startswith(f"live model DCS-7050SX3-48YC8-F, generated/ expects {EXPECTED}")
    assert right["status"] == "changed", "the -R airflow suffix is the same base model"
    assert lab.device(WRONG).running_config() == before, "nothing was loaded on the wrong switch"
    assert "interface Ethernet52" in lab.device(RIGHT).running_config()


def test_plan_names_device_live_and_expected_model_on_one_line(repo: Path, lab: Lab) -> None:
    result = run_fabricops(repo, "plan", "--lab", "--devices", WRONG)
    assert result.code == 1, result.out + result.err
    lines = [line for line in result.out.splitlines() if WRONG in line]
    assert len(lines) == 1
    assert "refused" in lines[0] and "DCS-7050SX3-48YC8-F" in lines[0] and EXPECTED in lines[0]


def test_without_the_model_check_the_wrong_switch_rejects_the_config_at_its_first_missing_port(
    repo: Path, lab: Lab
) -> None:
    """What the check saves: the other model refuses the first port it lacks, as on the floor."""
    from napalm.base.exceptions import ReplaceConfigException

    from core import secrets
    from lab.testing import napalm_driver

    config = (repo / "generated" / "configs" / f"{WRONG}.cfg").read_text()
    config = secrets.PLACEHOLDER.sub(lambda m: secrets.lab_secret(m.group(1), lab.password), config)
    with napalm_driver(lab, WRONG) as driver, pytest.raises(ReplaceConfigException) as refused:
        driver.load_replace_candidate(config=config)
    assert "'interface Ethernet49' failed" in str(refused.value)
    assert "Invalid input (at token 1: 'Ethernet49')" in str(refused.value)
