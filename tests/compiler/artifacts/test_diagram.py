"""The topology pictures: one per network, uplinks and peer-links drawn, every label fits its box.

Labels are measured with FreeType (Pillow) on the font the SVGs declare, not by counting
characters, at 1x and at 16x (the bench's scaled intent), where names are longer and rows many.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from PIL import ImageFont

from compiler.artifacts import diagram
from compiler.artifacts.diagram import diagram_files
from compiler.fabric import ResolvedFabric, resolve
from compiler.intent import Intent, load_intent
from core.textmetrics import FONT_FAMILY, FONT_FILES, text_width

SVG = "{http://www.w3.org/2000/svg}"
EDGE = 2.0
"""A label may come no closer than this to the edge of its box."""


@cache
def _font(size: float, bold: bool) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_FILES["bold" if bold else "normal"]), size)


@dataclass(frozen=True)
class Label:
    text: str
    left: float
    right: float
    top: float
    bottom: float


def _label(element: ET.Element) -> Label:
    """Where a ``<text>`` is drawn, its width measured by FreeType with the declared font."""
    size = float(element.attrib["font-size"])
    text = element.text or ""
    width = _font(size, element.get("font-weight") == "bold").getlength(text)
    x, y = float(element.attrib["x"]), float(element.attrib["y"])
    left = {"start": x, "middle": x - width / 2, "end": x - width}[element.get("text-anchor", "start")]
    return Label(text, left, left + width, y - 0.76 * size, y + 0.24 * size)


def _boxes(root: ET.Element) -> Iterator[tuple[ET.Element, list[ET.Element]]]:
    """Each box's rectangle and the labels it holds itself (not those of boxes inside it)."""
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "box":
            yield group.find(f"{SVG}rect"), group.findall(f"{SVG}text")  # type: ignore[misc]


def _check(name: str, svg: str) -> int:
    """Assert every label of one picture fits; return how many labels were measured."""
    root = ET.fromstring(svg)
    assert root.get("font-family", "").startswith(FONT_FAMILY), f"{name}: declares another font"
    width, height = float(root.attrib["width"]), float(root.attrib["height"])
    for rect, texts in _boxes(root):
        x, y = float(rect.attrib["x"]), float(rect.attrib["y"])
        w, h = float(rect.attrib["width"]), float(rect.attrib["height"])
        for text in texts:
            label = _label(text)
            assert label.left >= x + EDGE and label.right <= x + w - EDGE, f"{name}: {label.text!r} overflows its box"
            assert label.top >= y and label.bottom <= y + h, f"{name}: {label.text!r} leaves its box vertically"
    labels = [_label(t) for t in root.iter(f"{SVG}text")]
    for label in labels:
        assert label.left >= 0 and label.right <= width, f"{name}: {label.text!r} leaves the picture"
        assert label.top >= 0 and label.bottom <= height, f"{name}: {label.text!r} leaves the picture"
    rows: dict[int, list[Label]] = {}
    for label in labels:
        rows.setdefault(round(label.top), []).append(label)
    for row in rows.values():
        for a, b in itertools.combinations(sorted(row, key=lambda lb: lb.left), 2):
            assert a.right <= b.left, f"{name}: {a.text!r} and {b.text!r} overlap"
    return len(labels)


@pytest.fixture(scope="module")
def pictures_1x() -> dict[str, str]:
    intent = load_intent(Path("intent"))
    return diagram_files(intent, resolve(intent))


@pytest.fixture(scope="module")
def pictures_16x(fabric_16x: tuple[Intent, ResolvedFabric]) -> dict[str, str]:
    return diagram_files(*fabric_16x)


def test_one_picture_per_network(pictures_1x: dict[str, str]) -> None:
    assert sorted(pictures_1x) == [
        "docs/compute-fabric.svg",
        "docs/management-network.svg",
        "docs/storage-fabric.svg",
    ]


def test_every_label_fits_at_1x(pictures_1x: dict[str, str]) -> None:
    assert sum(_check(name, svg) for name, svg in pictures_1x.items()) > 100


def test_every_label_fits_at_16x(pictures_16x: dict[str, str]) -> None:
    """At 16x the compute fabric has 192 pairs and names such as ``rack192-leaf-a``."""
    assert "rack192-leaf-b" in pictures_16x["docs/compute-fabric.svg"]
    assert sum(_check(name, svg) for name, svg in pictures_16x.items()) > 1000


def test_the_super_spines_are_drawn_with_their_links_at_16x(pictures_16x: dict[str, str]) -> None:
    """Three-stage: the 8 super-spines above the 48 pod spines, each pod spine's 32 uplinks up to
    them, each super-spine's 12 pods x 16 links down."""
    compute = pictures_16x["docs/compute-fabric.svg"]
    assert len(re.findall(r'<g class="box" data-name="plane\d-superspine\d\d">', compute)) == 8
    assert "(not drawn)" not in compute
    assert compute.count(">32x400g up</text>") == 48
    assert compute.count(">192x400g</text>") == 8


def test_many_super_spines_are_a_box_per_plane(
    fabric_16x: tuple[Intent, ResolvedFabric], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past SUPER_SPINE_BOXES super-spines each plane is one box, its links summed; labels still fit."""
    monkeypatch.setattr(diagram, "SUPER_SPINE_BOXES", 4)
    compute = diagram.fabric_svg(*fabric_16x, "compute")
    assert compute.count(">plane 3: 2 super-spines</text>") == 1 and "plane3-superspine01" not in compute
    assert compute.count(">384x400g</text>") == 4
    assert _check("docs/compute-fabric.svg", compute) > 500


def test_uplinks_and_peer_links_are_drawn(pictures_1x: dict[str, str]) -> None:
    """Each leaf has its uplink label, each pair its peer-link; each rack switch its uplink."""
    compute = pictures_1x["docs/compute-fabric.svg"]
    assert compute.count(">4x400g</text>") == 24  # one per leaf: 4 uplinks of 400g
    assert compute.count(">peer-link 2x400g</text>") == 12
    assert compute.count(">24x400g</text>") == 4  # one per spine: a downlink per leaf
    management = pictures_1x["docs/management-network.svg"]
    assert management.count(">1x25g</text>") == 14
    assert ">rack01-mgmt</text>" in management and ">9 servers, 4 switches</text>" in management


def test_the_check_catches_an_overflowing_label(pictures_1x: dict[str, str]) -> None:
    """A label longer than its box fails the check (the test can fail)."""
    svg = pictures_1x["docs/storage-fabric.svg"].replace(
        ">rack01-stor-leaf-a<", ">rack01-stor-leaf-a-with-a-long-name<"
    )
    with pytest.raises(AssertionError, match="overflows its box"):
        _check("storage", svg)


def test_metrics_match_the_font_files() -> None:
    """The advance widths the diagrams are laid out with are the shipped fonts' own."""
    from fontTools.ttLib import TTFont

    for style, path in FONT_FILES.items():
        font = TTFont(path)
        scale = 100 / font["head"].unitsPerEm
        for code, glyph in font.getBestCmap().items():
            expected = font["hmtx"][glyph][0] * scale
            assert text_width(chr(code), 100, bold=style == "bold") == pytest.approx(expected)
