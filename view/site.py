"""The static site: one HTML page per row of racks, network, server and switch, from ``generated/``.

Pages are rendered by Jinja2 (autoescaped) from :class:`view.model.Floor`; the search index is
one script loaded when the search box is first used. Everything is relative links and files:
``index.html`` opens from disk, offline, with no server and nothing fetched from elsewhere
(fonts are embedded in ``assets/fonts.css``). The same ``generated/`` gives the same bytes.

The output directory is replaced whole, and only when it is a site this module wrote (it
holds :data:`MARKER`) or empty: a mistyped ``--out`` never deletes anything else.
"""

from __future__ import annotations

import base64
import json
import shutil
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from core.errors import FabricopsError
from core.generated import WORKTREE, open_snapshot
from core.textmetrics import FONT_FILES
from core.topology import Node, neighbourhood
from view.deployed import Deployed, config_diff, last_deployed
from view.draw import neighbourhood_svg
from view.elevation import elevate
from view.model import Floor, Port
from view.ports import panel
from view.search import search_index

HERE = Path(__file__).resolve().parent
MARKER = ".fabricops-view"
SVG_NS = "http://www.w3.org/2000/svg"
SVG_TAGS = frozenset({"svg", "g", "rect", "line", "path", "text", "title", "polyline", "circle"})
SVG_ATTRIBUTES = frozenset(
    {"class", "x", "y", "x1", "y1", "x2", "y2", "width", "height", "viewBox", "rx", "d", "points", "cx", "cy", "r"}
    | {"fill", "stroke", "stroke-width", "font-family", "font-size", "font-weight", "text-anchor", "paint-order"}
    | {"data-name"}
)


@dataclass(frozen=True, slots=True)
class Built:
    """What one build wrote."""

    out: Path
    pages: int
    switches: int
    servers: int
    rows: int
    networks: int
    deployed: bool


def port_state(port: Port) -> str:
    """``used`` (cabled), ``shutdown`` (not cabled and shut) or ``free``."""
    if port.cable is not None:
        return "used"
    return "shutdown" if port.shutdown else "free"


def describe_port(port: Port) -> str:
    """The tooltip of a port on the front panel.

    Example:
        >>> describe_port(Port("Ethernet7", "", True, "", "", None))
        'Ethernet7 · shutdown'
    """
    parts = [port.name, port_state(port)]
    if port.speed:
        parts.append(port.speed)
    if port.cable:
        parts.append(f"to {port.cable.peer} {port.cable.peer_port}")
    if port.vlans:
        parts.append(f"VLAN {port.vlans}")
    return " · ".join(parts)


def diff_class(line: str) -> str:
    """The CSS class of a unified-diff line."""
    if line.startswith(("+++", "---")):
        return "file"
    return {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "same")


def safe_svg(text: str) -> str:
    """An SVG of ``generated/docs`` reduced to drawing elements and attributes, so a picture in a
    change under review can never run script in the reviewer's browser.

    Example:
        >>> safe_svg('<svg xmlns="http://www.w3.org/2000/svg" onload="x()"><script>x()</script><rect width="1"/></svg>')
        '<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" /></svg>'
    """
    ET.register_namespace("", SVG_NS)
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        return ""
    _prune(root)
    return ET.tostring(root, encoding="unicode")


def _prune(element: ET.Element) -> None:
    for child in list(element):
        if child.tag.removeprefix(f"{{{SVG_NS}}}") not in SVG_TAGS:
            element.remove(child)
        else:
            _prune(child)
    for name in list(element.attrib):
        if name not in SVG_ATTRIBUTES:
            del element.attrib[name]


def _environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.globals.update(state=port_state, describe=describe_port, diff_class=diff_class)
    return env


def _fonts_css() -> str:
    faces = []
    for style, path in sorted(FONT_FILES.items()):
        data = base64.b64encode(path.read_bytes()).decode()
        faces.append(
            '@font-face { font-family: "DejaVu Sans"; font-style: normal; '
            f"font-weight: {style}; src: url(data:font/ttf;base64,{data}) format('truetype'); }}"
        )
    return "\n".join(faces) + "\n"


def render_site(floor: Floor, deployed: dict[str, Deployed] | None, source: str) -> dict[str, bytes]:
    """Every file of the site, by path: deterministic for one ``generated/`` and deploy state."""
    env = _environment()
    files: dict[str, str] = {}

    def page(path: str, template: str, title: str, **context: Any) -> None:
        root = "../" * path.count("/")
        files[path] = env.get_template(template).render(floor=floor, root=root, title=title, source=source, **context)

    diffs = {
        name: config_diff(deployed[name].config, floor.configs.get(name, ""), name)
        for name in floor.switches
        if deployed is not None and name in deployed and deployed[name].commit
    }
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for rack_list in floor.rows.values():
        for rack in rack_list:
            counts[rack.row].update(f"{m.kind}es" if m.kind == "switch" else f"{m.kind}s" for m in rack.members)
    page(
        "index.html",
        "index.html.j2",
        f"{floor.site}: the fabric at a glance",
        deployed=deployed,
        changed=sorted(name for name, diff in diffs.items() if diff),
        counts={row: {"servers": c["servers"], "switches": c["switches"]} for row, c in counts.items()},
        network_counts=Counter(s.network for s in floor.switches.values()),
    )
    for row, racks in floor.rows.items():
        page(f"rows/{row}.html", "row.html.j2", f"Row {row}", racks=[(r, elevate(r.members)) for r in racks])
    for network in floor.networks:
        members: dict[str, list[str]] = defaultdict(list)
        for switch in floor.switches.values():
            if switch.network == network:
                members[switch.role].append(switch.name)
        picture = safe_svg(floor.pictures[network]) if network in floor.pictures else ""
        page(
            f"networks/{network}.html",
            "network.html.j2",
            f"{network} network",
            picture=picture,
            members=sorted(members.items()),
        )
    for server in floor.servers.values():
        page(
            f"servers/{server.name}.html",
            "server.html.j2",
            server.name,
            server=server,
            rack_name=_rack(server.placed.rack),
        )
    topology = floor.topology

    def href(node: Node) -> str | None:
        return f"{node.id}.html" if node.id in floor.switches else None

    for switch in floor.switches.values():
        page(
            f"switches/{switch.name}.html",
            "switch.html.j2",
            switch.name,
            switch=switch,
            rack_name=_rack(switch.placed.rack),
            panel=panel(p.name for p in switch.ports),
            ports={p.name: p for p in switch.ports},
            servers=floor.servers,
            neighbours=neighbourhood_svg(neighbourhood(topology, [switch.name]), href),
            deployed=deployed,
            last=(deployed or {}).get(switch.name),
            diff=diffs.get(switch.name, ""),
            config=floor.configs.get(switch.name, ""),
        )
    out = {path: text.encode() for path, text in files.items()}
    out["assets/site.css"] = (HERE / "static" / "site.css").read_bytes()
    out["assets/search.js"] = (HERE / "static" / "search.js").read_bytes()
    out["assets/fonts.css"] = _fonts_css().encode()
    index = json.dumps(search_index(floor), ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    out["assets/search-index.js"] = f"window.FABRICOPS_SEARCH = {index};\n".encode()
    out[MARKER] = b"a site written by 'fabricops view': replaced whole by the next build\n"
    return dict(sorted(out.items()))


def _rack(rack: str) -> str:
    return f"rack{int(rack):02d}" if rack.isdigit() else rack


def _refuse_foreign(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MARKER).exists())):
        raise FabricopsError(f"{out} exists and is not a site 'fabricops view' wrote: choose another --out")


def write_site(files: dict[str, bytes], out: Path) -> None:
    """Write the site to ``out``, replacing a previous one in one rename (never anything else)."""
    _refuse_foreign(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for path, data in files.items():
            target = staging / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        staging.chmod(0o755)
        old = out.with_name(f".{out.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        if out.exists():
            out.rename(old)
        staging.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def build_site(root: Path, ref: str | None, out: Path) -> Built:
    """Build the view of ``generated/`` (in the work tree, or at ``ref``) into ``out``."""
    from view.model import read_floor

    _refuse_foreign(out)
    snapshot = open_snapshot(root, ref)
    floor = read_floor(snapshot)
    if not floor.switches and not floor.servers:
        raise FabricopsError(f"{root / 'generated'} holds no switch or server: run 'fabricops compile' first")
    try:
        deployed = last_deployed(root, floor.switches)
    except FabricopsError:  # not a git repository: no deploy state to compare with
        deployed = None
    source = "the work tree" if snapshot.ref == WORKTREE else f"{ref} ({snapshot.ref[:12]})"
    files = render_site(floor, deployed, source)
    write_site(files, out)
    pages = sum(1 for path in files if path.endswith(".html"))
    return Built(
        out, pages, len(floor.switches), len(floor.servers), len(floor.rows), len(floor.networks), deployed is not None
    )
