"""Golden files: one leaf, one spine, one storage leaf, one management switch, the core.

A golden file is ``golden/<device>[.<variant>].cfg``; adding a case is adding a file.
Regenerate after a deliberate template change with ``UPDATE_GOLDEN=1 make test``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compiler.fabric import resolve
from compiler.intent import load_intent
from compiler.render import environment, render_device

GOLDEN = Path(__file__).parent / "golden"
VARIANTS = {
    "": [],
    "ebgp": [("fabric.yaml", "    routing: ospf-underlay", "    routing: ebgp-underlay")],
    "lacp": [("fabric.yaml", "bonding: active-backup          #", "bonding: lacp          #")],
}


def golden_cases() -> list[tuple[str, str]]:
    cases = []
    for path in sorted(GOLDEN.glob("*.cfg")):
        device, _, variant = path.stem.partition(".")
        cases.append((device, variant))
    return cases


@pytest.mark.parametrize(("device", "variant"), golden_cases())
def test_golden(project: Path, device: str, variant: str) -> None:
    """The rendered config equals its golden file, byte for byte."""
    for filename, old, new in VARIANTS[variant]:
        path = project / "intent" / filename
        path.write_text(path.read_text().replace(old, new, 1))
    fabric = resolve(load_intent(project / "intent"))
    text = render_device(fabric.devices[device])
    golden = GOLDEN / (f"{device}.{variant}.cfg" if variant else f"{device}.cfg")
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(text)
    assert text == golden.read_text()


def test_golden_cases_cover_every_role() -> None:
    devices = {device for device, _ in golden_cases()}
    assert {"rack01-leaf-a", "spine01", "rack01-stor-leaf-a", "rack01-mgmt", "mgmt-core01"} <= devices


def test_templates_compute_nothing() -> None:
    """Templates only loop and print: no arithmetic, no filters that decide design."""
    env = environment()
    for name in env.list_templates():
        source = Path(env.loader.get_source(env, name)[1] or "").read_text()  # type: ignore[union-attr]
        for forbidden in (" + ", " - ", " * ", " // ", " % ", "|int", "ipaddr", "namespace("):
            assert forbidden not in source, f"{name} computes: {forbidden!r}"
