"""Mermaid pictures as Mermaid itself reads them: safe ids, quoted labels, classes, a bounded size."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from core.generated import open_snapshot
from core.mermaid import MAX_NODES, flowchart, markdown
from core.topology import Edge, Link, Neighbourhood, Node, Topology, neighbourhood
from tests.mermaid import blocks, parse, parsed

HOSTILE = ["end", "graph", "subgraph", "o", "x-1", "leaf:1", 'a"b', "a#b", "a<b>", "rack 7", "é-leaf", "click"]


def test_any_device_name_gives_a_diagram_mermaid_reads_box_for_box() -> None:
    """Names that are Mermaid keywords, edge letters or carry quotes, #, <, spaces and accents."""
    nodes = [
        Node(name, name, "compute leaf", 1, i % 2 == 0, "compute", "changed" if i % 3 else "")
        for i, name in enumerate(HOSTILE)
    ]
    edges = [Edge(a, b, "fabric", "1x400g") for a, b in itertools.pairwise(HOSTILE)]
    (diagram,) = parse(flowchart(Neighbourhood(nodes, edges)))
    assert "error" not in diagram, diagram
    assert len(diagram["vertices"]) == len(HOSTILE)
    assert len(diagram["edges"]) == len(edges) and all(e["text"] == "1x400g" for e in diagram["edges"])
    plain = {v["text"] for v in diagram["vertices"]}
    assert {"end", "graph", "subgraph", "o", "x-1", "leaf:1", "rack 7", "click"} <= plain


def test_marks_are_classes_and_networks_subgraphs() -> None:
    links = [
        Link("leaf1", "spine1", "fabric", "400g"),
        Link("leaf1", "leaf2", "peer-link", "400g"),
        Link("leaf1", "srv1", "server", "100g"),
        Link("leaf1", "mgmt1", "mgmt", "1g"),
    ]
    roles = {
        "leaf1": ("leaf", "compute"),
        "leaf2": ("leaf", "compute"),
        "spine1": ("spine", "compute"),
        "mgmt1": ("mgmt", "management"),
    }
    area = neighbourhood(Topology(roles, {"srv1": "rack01"}, links), ["leaf1"], {"leaf1": "drift", "leaf2": "pending"})
    text = "\n".join(markdown(area))
    diagram = parsed(text)
    classes = {v["id"]: v["classes"] for v in diagram["vertices"]}
    assert classes == {
        "n_spine1": ["neighbour"],
        "n_leaf1": ["drift"],
        "n_leaf2": ["pending"],
        "n_mgmt1": ["neighbour"],
        "n_servers_rack01": ["neighbour"],
    }
    assert {s["title"]: sorted(s["nodes"]) for s in diagram["subgraphs"]} == {
        "compute": ["n_leaf1", "n_leaf2", "n_spine1"],
        "management": ["n_mgmt1"],
    }
    assert [e["stroke"] for e in diagram["edges"] if {e["start"], e["end"]} == {"n_leaf1", "n_leaf2"}] == ["dotted"]
    assert "_red: drift; blue: pending (merged, not deployed); grey: one cable away._" in text


@pytest.mark.e2e  # a picture per switch, each parsed by Mermaid
def test_the_picture_of_every_switch_of_the_example_is_bounded_and_deterministic(compiled_example: Path) -> None:
    """Every switch of the example as the centre: each parses, none past the bound, same bytes twice."""
    topology = Topology.read(open_snapshot(compiled_example))
    texts = [flowchart(neighbourhood(topology, [name], {name: "changed"})) for name in sorted(topology.switches)]
    assert texts == [
        flowchart(neighbourhood(topology, [name], {name: "changed"})) for name in sorted(topology.switches)
    ]
    diagrams = parse(*texts)
    assert [d.get("error") for d in diagrams] == [None] * len(texts)
    assert max(len(d["vertices"]) for d in diagrams) <= 16


def test_past_the_bound_a_report_says_so_instead_of_drawing() -> None:
    nodes = [Node(f"leaf{i}", f"leaf{i}", "", 1, False) for i in range(MAX_NODES + 1)]
    assert markdown(Neighbourhood(nodes, [])) == [f"_{MAX_NODES + 1} boxes: too many to draw ({MAX_NODES} at most)._"]
    with pytest.raises(ValueError, match="more than a picture holds"):
        flowchart(Neighbourhood(nodes, []))


@pytest.mark.e2e  # node parses each README picture
def test_the_pictures_in_the_readme_are_mermaid_github_can_draw() -> None:
    found = blocks((Path(__file__).resolve().parents[2] / "README.md").read_text())
    assert len(found) >= 2
    assert [d.get("error") for d in parse(*found)] == [None] * len(found)
