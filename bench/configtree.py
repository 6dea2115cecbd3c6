"""The config tree: fabricops' own (``core/configtree.py``) against hier_config, and netutils'
interface helpers against the lab's, measured on real EOS captures and the generated configs.

    python bench/configtree.py [--runs 5] [--out bench/CONFIGTREE.md]

What is measured (each figure is printed and written to the markdown file):

* parse speed: the 5 real captures and the 53 generated configs, median of ``--runs``;
* fidelity: every (section path, line) of each capture is in the parsed tree;
* the circle (hier_config's own test): for the golden cases in ``tests/drift/fixtures/`` and
  for out-of-band edits on each capture (a changed description, a changed access VLAN, a
  removed line, an added line, a changed secret), ``running -> remediation -> future ==
  intended``;
* what a drift audit needs beyond a diff: the lines a 4.33.0F switch prints by itself, reported
  as differences when the intended config (a capture without them) is compared;
* netutils: EOS's interface abbreviations made canonical, and the order EOS prints interfaces
  (the captures are the reference), against the lab's ``canonical_interface`` and
  ``interface_sort_key``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import re
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hier_config import Platform, WorkflowRemediation, get_hconfig
from netutils.interface import canonical_interface_name, sort_interface_list

from core.configtree import Node, diff, future, normalise, parse, remediation
from core.platforms import get_rules
from core.platforms.versions import version_from_header
from lab.grammar import canonical_interface
from lab.printer import interface_sort_key, strip_device_defaults

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = sorted((ROOT / "tests" / "fixtures" / "eos-captures").glob("*.cfg"))
GENERATED = sorted((ROOT / "generated" / "configs").glob("*.cfg"))
FIXTURES = ROOT / "tests" / "drift" / "fixtures"
EOS = get_rules("eos")


def _median_ms(run: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        clock = time.perf_counter()
        run()
        samples.append((time.perf_counter() - clock) * 1000)
    return statistics.median(samples)


def _lines(text: str) -> set[tuple[str, ...]]:
    """Every line of a config with the headers above it (comments, ``end`` and banners' text left out)."""
    out: set[tuple[str, ...]] = set()
    stack: list[tuple[int, str]] = []
    in_banner = False
    for raw in text.splitlines():
        if in_banner:
            in_banner = raw != "EOF"
            continue
        line = raw.rstrip()
        if not line.strip() or line.lstrip().startswith("!") or line == "end":
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        out.add((*(t for _, t in stack), line.strip()))
        stack.append((indent, line.strip()))
        in_banner = line.startswith("banner ")
    return out


def _hier_lines(text: str) -> set[tuple[str, ...]]:
    """Lines of hier_config's tree (a banner is one child holding its text: its first line counts)."""
    tree = get_hconfig(Platform.ARISTA_EOS, text)
    return {tuple(c.text.split("\n")[0] for c in child.lineage()) for child in tree.all_children()}


def _own_lines(text: str) -> set[tuple[str, ...]]:
    found: set[tuple[str, ...]] = set()

    def walk(node: Any, path: tuple[str, ...]) -> None:
        for child in node.children.values():
            found.add((*path, child.raw))
            walk(child, (*path, child.raw))

    walk(parse(text, EOS), ())
    return found


def _parse_own(texts: list[str]) -> list[Node]:
    return [normalise(parse(t, EOS), EOS) for t in texts]


def _parse_hier(texts: list[str]) -> list[Any]:
    return [get_hconfig(Platform.ARISTA_EOS, t) for t in texts]


def speed(runs: int) -> list[str]:
    rows = ["| corpus | lines | fabricops parse + normalise | hier_config `get_hconfig` |", "| --- | --- | --- | --- |"]
    for name, files in (("5 real captures", CAPTURES), ("53 generated configs", GENERATED)):
        texts = [p.read_text() for p in files]
        lines = sum(len(t.splitlines()) for t in texts)
        own = _median_ms(functools.partial(_parse_own, texts), runs)
        hier = _median_ms(functools.partial(_parse_hier, texts), runs)
        rows.append(f"| {name} | {lines:,} | {own:.1f} ms | {hier:.1f} ms ({hier / own:.1f}x) |")
    return rows


def fidelity() -> list[str]:
    rows = ["| capture | lines | lost by fabricops | lost by hier_config |", "| --- | --- | --- | --- |"]
    for path in CAPTURES:
        text = path.read_text()
        want = _lines(text)
        own = len(want - _own_lines(text))
        hier = len(want - _hier_lines(text))
        rows.append(f"| `{path.stem}` | {len(want)} | {own} | {hier} |")
    return rows


def _edits(text: str) -> Iterable[tuple[str, str]]:
    """(what, edited text): out-of-band edits an engineer makes on a console."""
    description = re.search(r"^   description .*$", text, re.M)
    if description:
        yield "changed description", text.replace(description.group(0), "   description HAND_EDIT", 1)
    vlan = re.search(r"^   switchport access vlan \d+$", text, re.M)
    if vlan:
        yield "changed access VLAN", text.replace(vlan.group(0), "   switchport access vlan 999", 1)
    hostname = re.search(r"^hostname .*$", text, re.M)
    if hostname:
        yield "removed line", text.replace(hostname.group(0) + "\n", "", 1)
    yield "added line", text.replace("\nend", "\nntp server 192.0.2.99\nend", 1)
    secret = re.search(r"(password 7|secret sha512|secret 5|key 7) (\S+)", text)
    if secret:
        yield "changed secret", text.replace(secret.group(2), secret.group(2)[::-1], 1)


def _own_circle(intended: str, running: str) -> bool:
    want, have = normalise(parse(intended, EOS), EOS), normalise(parse(running, EOS), EOS)
    return not diff(want, future(have, remediation(want, have, EOS), EOS), EOS)


def _hier_circle(intended: str, running: str) -> bool:
    want, have = get_hconfig(Platform.ARISTA_EOS, intended), get_hconfig(Platform.ARISTA_EOS, running)
    after = have.future(WorkflowRemediation(have, want).remediation_config)
    return {tuple(c.text for c in x.lineage()) for x in after.all_children()} == {
        tuple(c.text for c in x.lineage()) for x in want.all_children()
    }


def circle() -> list[str]:
    cases: list[tuple[str, str, str]] = []
    for generated in sorted(FIXTURES.glob("*_generated.conf")):
        case = generated.name.removesuffix("_generated.conf")
        cases.append((f"golden `{case}`", generated.read_text(), (FIXTURES / f"{case}_running.conf").read_text()))
    for path in CAPTURES:
        text = path.read_text()
        cases += [(f"{what} on `{path.stem[:6]}`", text, edited) for what, edited in _edits(text)]
    own = [c for c in cases if not _own_circle(c[1], c[2])]
    hier = [c for c in cases if not _hier_circle(c[1], c[2])]
    eos = [c for c in cases if not _hier_applies_eos_remediation(c[1], c[2])]
    rows = [
        f"{len(cases)} cases. The circle, each with its own remediation: fails {len(own)} time(s) for fabricops, "
        f"{len(hier)} for hier_config (whose remediation negates every old value first: `no description X`, "
        "then `description Y`).",
        "",
        f"hier_config's `future()` applying the remediation a switch needs (`description Y` replaces the old one on "
        f"EOS, as the lab and fabricops model it): wrong in {len(eos)} of {len(cases)} cases; it keeps both values.",
    ]
    rows += [f"* fabricops fails: {c[0]}" for c in own]
    rows += [f"* hier_config fails: {c[0]}" for c in hier]
    rows += [f"* hier_config's future() keeps the old value: {c[0]}" for c in eos]
    return rows


def _hier_applies_eos_remediation(intended: str, running: str) -> bool:
    """hier_config's ``future()`` on the minimal remediation (EOS replaces single-valued commands)."""
    want, have = normalise(parse(intended, EOS), EOS), normalise(parse(running, EOS), EOS)
    lines = remediation(want, have, EOS)
    after = get_hconfig(Platform.ARISTA_EOS, running).future(get_hconfig(Platform.ARISTA_EOS, "\n".join(lines)))
    fixed = normalise(parse("\n".join(after.dump_simple()), EOS), EOS)
    return not diff(want, fixed, EOS)


def defaults() -> list[str]:
    path = next(p for p in CAPTURES if p.name.startswith("4.33"))
    text = path.read_text()
    version = version_from_header(text)
    intended = strip_device_defaults(text, (version or "").split("-")[0])  # what a generator writes
    rules = get_rules("eos", version)
    own = diff(normalise(parse(intended, rules), rules), normalise(parse(text, rules), rules), rules)
    hier = WorkflowRemediation(get_hconfig(Platform.ARISTA_EOS, text), get_hconfig(Platform.ARISTA_EOS, intended))
    hier_lines = [line for line in hier.remediation_config.dump_simple() if line.strip()]
    return [
        f"`{path.stem}` against itself without the lines 4.33 prints by itself: fabricops (per-release table) "
        f"{len(own)} difference(s); hier_config {len(hier_lines)} remediation line(s) "
        f"({', '.join(repr(x.strip()) for x in hier_lines[:4])}, ...)"
    ]


ABBREVIATIONS = {
    "et1": "Ethernet1",
    "eth1/1": "Ethernet1/1",
    "ethe49/1": "Ethernet49/1",
    "Et2": "Ethernet2",
    "po31": "Port-Channel31",
    "port-c10": "Port-Channel10",
    "Po1000": "Port-Channel1000",
    "lo0": "Loopback0",
    "loopb1": "Loopback1",
    "ma1": "Management1",
    "mana0": "Management0",
    "vl4094": "Vlan4094",
    "vx1": "Vxlan1",
    "tu1": "Tunnel1",
}


def interfaces() -> list[str]:
    lab = sum(canonical_interface(a) == want for a, want in ABBREVIATIONS.items())
    net = 0
    for abbreviation, want in ABBREVIATIONS.items():
        with contextlib.suppress(Exception):  # an abbreviation netutils does not know raises: wrong
            net += canonical_interface_name(abbreviation) == want
    order_lab = order_net = ethernet_net = 0
    for path in CAPTURES:
        printed = re.findall(r"^interface (\S+)$", path.read_text(), re.M)
        order_lab += sorted(printed, key=interface_sort_key) == printed
        order_net += sort_interface_list(printed) == printed
        ports = [name for name in printed if name.startswith("Ethernet")]
        ethernet_net += sort_interface_list(ports) == ports
    return [
        f"EOS abbreviations made canonical: lab `canonical_interface` {lab}/{len(ABBREVIATIONS)}, "
        f"netutils `canonical_interface_name` {net}/{len(ABBREVIATIONS)}.",
        f"Every interface in the order EOS prints them (the captures; Port-Channel before Ethernet before "
        f"Loopback...): lab `interface_sort_key` {order_lab}/{len(CAPTURES)}, netutils `sort_interface_list` "
        f"{order_net}/{len(CAPTURES)}.",
        f"The Ethernet ports alone (numeric by slot, port, lane), as `core.hardware` sorts a model's ports: "
        f"netutils `sort_interface_list` {ethernet_net}/{len(CAPTURES)}.",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/configtree.py")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("CONFIGTREE.md"))
    args = parser.parse_args(argv)
    sections = [
        (f"Parse speed (median of {args.runs} runs)", speed(args.runs)),
        ("Fidelity: lines of each real capture missing from the tree", fidelity()),
        ("The circle: running -> remediation -> future == intended", circle()),
        ("Lines a switch prints by itself", defaults()),
        ("Interface names (netutils)", interfaces()),
    ]
    text = "# Config tree: fabricops against hier_config and netutils\n\n"
    text += "Written by `python bench/configtree.py`; see its docstring for what each figure is.\n"
    for title, lines in sections:
        text += f"\n## {title}\n\n" + "\n".join(lines) + "\n"
    args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
