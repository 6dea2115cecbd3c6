"""Every interface name in ``generated/`` exists on its switch's catalog model.

A config a real switch accepts names only ports its model has, and prints every one of them:
the interface stanzas of each config are exactly the model's interfaces under the breakouts
its ``speed`` lines set (``core.hardware``, the lab's rule too). The structured configs, the
cabling plan, the inventory (hosts, assets) and the monitoring files name the same ports.
Checked on the committed ``generated/``, and (e2e tier) on the 16x compile with its chassis.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
import yaml

from core.hardware import Model, ModelFiles, catalog

REPO = Path(__file__).resolve().parents[2]
_STANZA = re.compile(r"^interface (\S+)\n((?:   .*\n)*)", re.MULTILINE)
_RULE = re.compile(r'source=\\?"([^"\\]+)\\?",interface_name=~\\?"([^"\\]+)\\?"')

Files = Callable[[str], str]


def models_of(files: Files) -> dict[str, Model]:
    """Each switch's catalog model (a chassis with the linecards the inventory names), the
    repository's own models of ``intent/hardware/`` included, as the lab and deploy read them."""
    models = catalog(ModelFiles.read(REPO / "intent" / "hardware"))
    out: dict[str, Model] = {}
    for name, host in yaml.safe_load(files("inventory/hosts.yaml")).items():
        found = models.match(host["data"]["model"])
        assert found is not None, f"{name}: {host['data']['model']} is not a catalog model"
        cards = host["data"].get("linecards")
        out[name] = found.with_linecards({int(k): v for k, v in cards.items()}) if cards else found
    return out


def stanzas(config: str) -> dict[str, str]:
    """The interface stanzas of a config, by name, with their bodies."""
    return {m.group(1): m.group(2) for m in _STANZA.finditer(config)}


def active(model: Model, blocks: Mapping[str, str]) -> list[str]:
    """The model's interfaces under the breakouts the ``speed`` lines of its first lanes set."""
    modes = {}
    for port in model.ports:
        body = blocks.get(port.name(1), "") if port.kind.lanes > 1 else ""
        speed = re.search(r"^   speed (\S+)$", body, re.MULTILINE)
        mode = port.mode_for_keyword(speed.group(1)) if speed else None
        if mode is not None and mode.name != port.kind.default:
            modes[port.label] = mode.name
    return model.active_interfaces(modes)


def expand(ranges: str) -> Iterator[str]:
    """The names of an EOS interface range: ``Ethernet1/1-4,3/1,49`` -> ``Ethernet1/1``..``Ethernet49``."""
    for part in ranges.removeprefix("Ethernet").split(","):
        if not part:
            continue
        head, _, last = part.partition("-")
        prefix, _, first = head.rpartition("/")
        for number in range(int(first), int(last or first) + 1):
            yield f"Ethernet{prefix}/{number}" if prefix else f"Ethernet{number}"


def port_problems(files: Files, names: list[str]) -> Iterator[str]:
    """One line per name in the generated files that its device's model does not have (as broken out)."""
    models = models_of(files)
    ports: dict[str, set[str]] = {}
    for device, model in sorted(models.items()):
        yield from _config_problems(files, device, model, ports)

    def lacks(owner: str, name: str) -> bool:
        return owner in ports and name not in ports[owner]

    for row in csv.DictReader(io.StringIO(files("inventory/cabling.csv"))):
        for end in ("a", "b"):
            if lacks(row[f"{end}_device"], row[f"{end}_port"]):
                yield f"inventory/cabling.csv: {row[f'{end}_device']} {row[f'{end}_port']} is not a port of its model"
    assets = [r for r in csv.DictReader(io.StringIO(files("inventory/assets.csv"))) if r["kind"] == "switch"]
    for row in assets:
        yield from (
            f"inventory/assets.csv: {row['name']} {p} is not a port of its model"
            for p in expand(row["switch_ports"])
            if lacks(row["name"], p)
        )
    for device, entry in yaml.safe_load(files("monitoring/expected-counters.yaml")).items():
        for port, spec in entry["ports"].items():
            far = str(spec.get("peer", "")).split()
            for owner, name in [(device, port), *([tuple(far)] if len(far) == 2 else [])]:
                if lacks(owner, name):
                    yield f"monitoring/expected-counters.yaml: {owner} {name} is not a port of its model"
    for path in (n for n in names if n.startswith("monitoring/rules/")):
        for device, listed in _RULE.findall(files(path)):
            yield from (
                f"{path}: {device} {p} is not a port of its model" for p in listed.split("|") if lacks(device, p)
            )


def _config_problems(files: Files, device: str, model: Model, ports: dict[str, set[str]]) -> Iterator[str]:
    """The config's stanzas are exactly the model's ports as broken out; the structured config names the same."""
    blocks = stanzas(files(f"configs/{device}.cfg"))
    physical = [n for n in blocks if Model.is_physical(n)]
    for name in physical:
        if not model.has_interface(name):
            yield f"configs/{device}.cfg: {model.missing(name)}"
    ethernet = [n for n in physical if n.startswith("Ethernet")]
    expected = active(model, blocks)
    if ethernet != expected:
        extra, missing = sorted(set(ethernet) - set(expected)), sorted(set(expected) - set(ethernet))
        yield f"configs/{device}.cfg: stanzas differ from {model.id}'s ports: extra {extra}, missing {missing}"
    ports[device] = set(expected) | set(model.management)
    structured = yaml.safe_load(files(f"structured/{device}.yaml"))
    if [i["name"] for i in structured["config"]["interfaces"]] != list(blocks):
        yield f"structured/{device}.yaml: its interfaces are not the config's"


def test_every_interface_name_in_generated_exists_on_its_model() -> None:
    root = REPO / "generated"
    names = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    problems = list(port_problems(lambda path: (root / path).read_text(), names))
    assert problems == []
    assert len(models_of(lambda path: (root / path).read_text())) == 55


def test_a_port_the_model_lacks_or_a_missing_stanza_is_found() -> None:
    """The test can fail: a renamed stanza is both a name the model lacks and a port not printed."""
    root = REPO / "generated"
    names = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]

    def files(path: str) -> str:
        text = (root / path).read_text()
        return text.replace("interface Ethernet33\n", "interface Ethernet49\n") if path.endswith("leaf-a.cfg") else text

    problems = list(port_problems(files, names))
    assert any("Ethernet49 does not exist on DCS-7060DX5-32" in p for p in problems)
    assert any("missing ['Ethernet33']" in p for p in problems)


@pytest.mark.e2e
def test_every_interface_name_at_16x_exists_on_its_model(tmp_path: Path) -> None:
    """The 16x compile: chassis super-spines and a chassis core with 100G linecards broken out."""
    from bench.scale import scaled_intent
    from compiler.pipeline import compile_intent

    scaled_intent(16, tmp_path / "intent")
    files = {path: data.decode() for path, data in compile_intent(tmp_path / "intent").files.items()}
    assert list(port_problems(files.__getitem__, sorted(files))) == []
    hosts = yaml.safe_load(files["inventory/hosts.yaml"])
    assert hosts["mgmt-core01"]["data"]["linecards"][3] == "7800R3-48CQ-LC"
