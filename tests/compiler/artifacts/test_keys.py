"""The units' keys in plain tuples or narrowed to digests already taken hold everything their
files are built from: each is checked against the records it stands for."""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from compiler.artifacts import diagram
from compiler.artifacts.assets import asset_units
from compiler.artifacts.cabling import A_END_USES, bill, cable_keys, cabling_units, joined_bill, section_bill
from compiler.artifacts.diagram import diagram_files, fabric_picture, management_picture
from compiler.artifacts.inventory import inventory_unit
from compiler.artifacts.ipplan import ipplan_units
from compiler.artifacts.monitoring import cabled_ends, collector_unit, rule_units
from compiler.artifacts.physical import cable_kinds
from compiler.artifacts.provenance import provenance_units
from compiler.artifacts.servers import key_bytes, server_digests, server_key
from compiler.artifacts.tables import HEAD
from compiler.artifacts.units import Unit, digest_of, facts_key, model_digest
from compiler.cache import fingerprinter
from compiler.fabric import ResolvedFabric, resolve
from compiler.facts import ResolvedServer, ServerNic
from compiler.facts.hosts import HostLink, HostPort, HostVlan
from compiler.intent import Intent, load_intent
from compiler.pipeline import CompileResult
from compiler.sources import Source
from core.hardware import ModelFiles, catalog
from core.hardware.catalog import DATA
from core.provenance import provenance_document


def _plain(value: object) -> object:
    """Every record in ``value`` as the plain tuple of its fields, at every depth."""
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    return value


def test_a_servers_key_is_every_field_of_its_record(example_compile: CompileResult) -> None:
    """The same fields in the same order as the record's, nested records' too, read back from
    the flat key by the counts in it, and no record: plain values only."""
    servers = list(example_compile.fabric.servers.values())
    assert any(len(link.ports) > 1 for server in servers for link in server.links)
    first, *others = next(s for s in servers if len(s.links) > 1).links  # the example tags no VLAN on a server
    tagged = (HostVlan(30, "inference", "bond0", "10.9.0.2/24"), HostVlan(31, "l2", "bond0"))
    servers.append(servers[0]._replace(links=(first._replace(tagged=tagged), *others)))
    for server in servers:
        key = server_key(server)
        assert _read_back(key) == _plain(server)
        assert not any(isinstance(value, tuple) for value in key)


def _read_back(key: tuple[object, ...]) -> tuple[object, ...]:
    """The nested tuples a server's flat key stands for: each run of records after its count,
    each record as many values as its type has fields."""
    values = iter(key)

    def take(n: int) -> tuple[object, ...]:
        return tuple(next(values) for _ in range(n))

    def records(kind: type[tuple[object, ...]]) -> tuple[tuple[object, ...], ...]:
        return tuple(take(len(kind._fields)) for _ in range(cast(int, next(values))))  # type: ignore[attr-defined]

    head, nics = take(len(ResolvedServer._fields) - 3), records(ServerNic)
    links = []
    for _ in range(cast(int, next(values))):
        start, ports, rest, tagged = take(2), records(HostPort), take(len(HostLink._fields) - 4), records(HostVlan)
        links.append((*start, ports, *rest, tagged))
    read = (*head, nics, tuple(links), next(values))
    assert next(values, "end") == "end"
    return read


def test_a_switchs_key_is_every_fact_the_shared_ones_as_digests(example_compile: CompileResult) -> None:
    """Each field of a switch's facts is in its key: as it is (records as plain tuples, equal to
    them), the switch record with its layout's digest, the shared objects and models as digests
    (an empty mapping as it is)."""
    digested = {"front_panel", "qos", "port_settings", "settings", "design"}
    for device in example_compile.fabric.devices.values():
        facts = device.facts
        key = dict(zip(facts._fields, facts_key(facts), strict=True))
        switch = list(facts.switch)
        switch[facts.switch._fields.index("layout")] = digest_of(facts.switch.layout)
        assert key["switch"] == tuple(switch)
        for name, value in zip(facts._fields, facts, strict=True):
            if name in digested and value != {}:
                assert isinstance(key[name], str) and len(str(key[name])) == 64
            elif name in digested:
                assert key[name] == {}  # nothing to digest (no ports.yaml entry)
            elif name != "switch":
                assert key[name] == value, name


def test_a_models_digest_tells_every_model_apart() -> None:
    """A model fabricops ships is keyed by its id and linecards (its files are in the code digest
    every fingerprint holds); a repository's own model by every field: an edit of its file
    changes its digest."""
    shipped = catalog()
    chassis = shipped.models["DCS-7804-CH"]
    digests = {
        model_digest(chassis),
        model_digest(chassis.with_linecards({3: "7800R3-48CQ-LC"})),
        model_digest(chassis.with_linecards({4: None})),
        model_digest(shipped.models["DCS-7010TX-48"]),
    }
    assert len(digests) == 4
    assert model_digest(chassis.with_linecards({3: "7800R3-48CQ-LC"})) == model_digest(
        chassis.with_linecards({3: "7800R3-48CQ-LC"})
    )
    text = (DATA / "switches" / "DCS-7010TX-48.yaml").read_text().replace("model: DCS-7010TX-48", "model: DCS-X-LAB")

    def own(text: str) -> str:
        models = catalog(ModelFiles.of({"hardware/switches/DCS-X-LAB.yaml": text.encode()}))
        return model_digest(models.models["DCS-X-LAB"])

    assert own(text) == own(text) not in digests
    assert own(text.replace("rack_units: 1", "rack_units: 2")) != own(text)


def _fleet_units(project: Path) -> dict[str, Unit]:
    intent = load_intent(project / "intent")
    fabric = resolve(intent)
    return {unit.name: unit for unit in (inventory_unit(intent, fabric), collector_unit(intent, fabric))}


def test_the_inventory_and_collector_keys_change_with_their_files(
    project: Path, edit: Callable[[str, str, str], None], example_compile: CompileResult
) -> None:
    """A server added leaves the Nornir inventory and the collector as they were, and their
    keys; a switch's serial or model changes the inventory and its key, not the collector's;
    the gNMI port the collector's and not the inventory's."""
    intent, fabric = example_compile.intent, example_compile.fabric
    before = {unit.name: unit for unit in (inventory_unit(intent, fabric), collector_unit(intent, fabric))}
    row = "rack03-gpu009,gpu-8x-h100,GPU-0309\n"
    serial = "devices:\n  spine01:\n    serial: JPE21330ABC\n    base_mac: 00:1c:73:aa:bb:cc\n"
    edits = [
        ("servers.csv", row, row + "rack03-gpu010,gpu-8x-h100,GPU-0310\n", set()),
        ("devices.yaml", "devices: {}", serial, {"fleet/inventory"}),
        ("fabric.yaml", "model: DCS-7050CX3-32S, rack: 13", "model: DCS-7060CX-32S, rack: 13", {"fleet/inventory"}),
        ("fabric.yaml", "  ntp: [", "  gnmi: {port: 6031}\n  ntp: [", {"fleet/gnmic"}),
    ]
    for file, old, new, changed in edits:
        edit(file, old, new)
        after = _fleet_units(project)
        for name, unit in after.items():
            same_files, same_key = unit.build() == before[name].build(), unit.inputs == before[name].inputs
            assert same_files == same_key == (name not in changed), (file, name)
        before = after


def _ends_of_cables(fabric: ResolvedFabric) -> dict[str, set[tuple[str, str, str, str]]]:
    """Per switch, its end of every cable laid (Management1 aside): what the ends stand for."""
    out: dict[str, set[tuple[str, str, str, str]]] = {}
    for link in fabric.links:
        for (device, port), speed, (far, far_port) in ((link.a, link.a_speed, link.b), (link.b, link.b_speed, link.a)):
            if device in fabric.devices and port.startswith("Ethernet"):
                out.setdefault(device, set()).add((port, link.kind, speed or "", f"{far} {far_port}"))
    return out


@pytest.mark.parametrize("scale", ["example", "16x"])
def test_a_switchs_cabled_ends_from_its_ports_are_its_cables_ends(
    scale: str, example_compile: CompileResult, fabric_16x: tuple[Intent, ResolvedFabric]
) -> None:
    """The ends a switch's rules are built from come from its used ports (its facts), one per
    cable it terminates, each with the cable's kind, its speed at this end and its far end:
    so the rules may be keyed by the facts' digest, in two- and three-stage fabrics."""
    fabric = example_compile.fabric if scale == "example" else fabric_16x[1]
    ends, cables = cabled_ends(fabric), _ends_of_cables(fabric)
    assert {name: set(mine) for name, mine in ends.items()} == cables
    assert all(len(set(mine)) == len(mine) for mine in ends.values())


def test_a_rule_units_key_holds_what_its_files_are_made_of(
    project: Path, edit: Callable[[str, str, str], None], example_compile: CompileResult
) -> None:
    """A switch's rule unit is keyed by its facts' digest, without its cabled ends: a server
    added (a cable more on its rack's switches) and a port shut (expected down) change the
    keys of the switches they touch; a switch whose key is unchanged builds the same files."""
    intent, fabric = example_compile.intent, example_compile.fabric
    before = {unit.name: unit for unit in rule_units(intent, fabric)}
    row = "rack03-gpu009,gpu-8x-h100,GPU-0309\n"
    edits = [
        ("servers.csv", row, row + "rack03-gpu010,gpu-8x-h100,GPU-0310\n", "rack03-leaf-a"),
        ("ports.yaml", "ports: {}\n", "ports:\n  spine01:\n    Ethernet1/1:\n      shutdown: cable test\n", "spine01"),
    ]
    for file, old, new, touched in edits:
        edit(file, old, new)
        changed = load_intent(project / "intent")
        after = {unit.name: unit for unit in rule_units(changed, resolve(changed))}
        for name, unit in after.items():
            if unit.inputs == before[name].inputs:
                assert unit.build() == before[name].build(), (file, name)
        assert after[f"rules/{touched}"].build() != before[f"rules/{touched}"].build()
        before = after


@pytest.mark.parametrize("scale", ["example", "16x"])
def test_a_cables_a_end_is_a_port_of_an_a_end_use_and_its_b_end_that_ports_far_end(
    scale: str, example_compile: CompileResult, fabric_16x: tuple[Intent, ResolvedFabric]
) -> None:
    """What a switch's cable rows are keyed by (its used ports of an A-end use and their far
    ends) holds every cable it is the A end of: the A end is a port of such a use, the B end
    that port's far end; no B-end use is an A end; every far end is a switch or a server; the
    cages the cables are laid with are those of the layouts the keys digest; the cables come
    sorted by their A end."""
    fabric = example_compile.fabric if scale == "example" else fabric_16x[1]
    ports, switches = fabric.facts.cabling.ports, fabric.facts.topology.switches
    assert all(device.facts.switch.layout is switches[name].layout for name, device in fabric.devices.items())
    assert list(fabric.links) == sorted(fabric.links, key=lambda link: link.a.device)  # cables_of bisects
    for link in fabric.links:
        port = ports[link.a.device][link.a.port]
        assert port.kind in A_END_USES, link
        assert (port.peer, port.peer_port) == tuple(link.b), link
        assert link.b.device in fabric.devices or link.b.device in fabric.servers
        far = ports.get(link.b.device, {}).get(link.b.port)
        assert far is None or far.kind not in A_END_USES or far.kind == "peer-link", link


CABLE_EDITS = [
    ("racks.yaml", "{id: 6, row: A, position: 6", "{id: 6, row: A, position: 2", ("cabling/rack06-leaf-a",)),
    ("fabric.yaml", "  slack_m: 6\n", "  slack_m: 7\n", ("cabling/rack01-leaf-a",)),
    (
        "ports.yaml",
        "ports: {}\n",
        "ports:\n  rack01-leaf-b:\n    Ethernet32/1: {breakout: 2x200g}\n",
        ("cabling/rack01-leaf-a",),
    ),
    ("servers.csv", "rack03-gpu009,gpu-8x-h100,GPU-0309\n", "", ("cabling/rack03-leaf-a",)),
]
"""A rack moved, the length rule, a far end's cage (the MLAG peer's end of the peer link, broken
out: its speed; the A end's facts are unchanged), a server gone: each changes the rows of the
switch named."""

ASSET_EDITS = [
    (
        "racks.yaml",
        "{id: 6, row: A, position: 6",
        "{id: 6, row: B, position: 6",
        ("assets/rack06-leaf-a", "assets/rack06-gpu001"),
    ),
    ("fabric.yaml", "    rack_units: 4\n", "    rack_units: 3\n", ("assets/rack03-gpu001",)),
    ("servers.csv", "rack03-gpu009,gpu-8x-h100,GPU-0309\n", "", ("assets/rack03-gpu001", "assets/rack03-leaf-a")),
]
"""A rack's row (every device in it), a server model's height (its servers' rack units), a
server gone (its rack's servers, and its leaves' used ports): the runs named change."""


@pytest.mark.parametrize(("units", "edits"), [(cabling_units, CABLE_EDITS), (asset_units, ASSET_EDITS)])
def test_a_sections_key_holds_what_its_rows_are_made_of(
    project: Path,
    edit: Callable[[str, str, str], None],
    example_compile: CompileResult,
    units: Callable[[Intent, ResolvedFabric], Iterator[Unit]],
    edits: list[tuple[str, str, str, tuple[str, ...]]],
) -> None:
    """Each edit changes the rows of the sections it names (a switch's cables, a run of a rack's
    assets), and their keys; a section whose key is unchanged builds the same rows (the cable
    list's header with the bill of materials too)."""
    intent, fabric = example_compile.intent, example_compile.fabric
    before = {unit.name: unit for unit in units(intent, fabric)}
    for file, old, new, touched in edits:
        edit(file, old, new)
        changed = load_intent(project / "intent")
        after = {unit.name: unit for unit in units(changed, resolve(changed))}
        assert after.keys() == before.keys(), file
        for name, unit in after.items():
            if unit.inputs == before[name].inputs:
                assert unit.build() == before[name].build(), (file, name)
        for name in touched:
            assert after[name].build() != before[name].build(), (file, name)
            assert after[name].inputs != before[name].inputs, (file, name)
        before = after


@pytest.mark.parametrize("scale", ["example", "16x"])
def test_the_bill_from_each_switchs_counts_is_the_whole_lists(
    scale: str, example_compile: CompileResult, fabric_16x: tuple[Intent, ResolvedFabric]
) -> None:
    """The bill of materials added up from each switch's section (a broken-out cage counted
    once, with its first cable's optic) is the bill counted over every cable of the list, in
    two- and three-stage fabrics."""
    intent, fabric = (example_compile.intent, example_compile.fabric) if scale == "example" else fabric_16x
    keys = cable_keys(intent, fabric)
    sections = [section_bill(intent, fabric, name) for name in keys]
    assert any(cages for _, _, cages in sections), "no broken-out cage to count"
    assert joined_bill(sections) == bill(*cable_kinds(intent, fabric))


def _head(units: Iterator[Unit]) -> Unit:
    head = next(units)
    assert head.name == f"cabling/{HEAD}" and head.recall is not None
    return head


def test_the_bills_counts_are_kept_by_the_key_of_their_section(
    project: Path, edit: Callable[[str, str, str], None], example_compile: CompileResult
) -> None:
    """The cable list's header keeps what each switch's cables add to the bill by the key of
    the switch's section: after each edit of an input of a section's key (its rack's place,
    the length rule, a far end's cage, a server gone or added), the header built from the
    last build's notes is the header built from nothing, and the bill changed with it."""
    intent, fabric = example_compile.intent, example_compile.fabric
    recall = _head(cabling_units(intent, fabric)).recall
    assert recall is not None
    files, notes = recall({})
    assert set(notes) == set(cable_keys(intent, fabric).values())
    row, gone = "rack03-gpu008,gpu-8x-h100,GPU-0308\n", "rack03-gpu009,gpu-8x-h100,GPU-0309\n"
    for file, old, new, _ in [*CABLE_EDITS, ("servers.csv", row, row + gone, ())]:  # the server back
        edit(file, old, new)
        changed = load_intent(project / "intent")
        recall = _head(cabling_units(changed, resolve(changed))).recall
        assert recall is not None
        again, kept = recall(notes)
        fresh, anew = recall({})
        assert again == fresh and kept == anew, file
        assert again != files, file
        files, notes = again, kept


def _other(value: object) -> object:
    """A value unlike ``value`` of its kind (a tuple grown by its first item)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, tuple):
        return value + value[:1]
    return "x"  # None


def test_a_servers_digest_follows_each_field_not_which_values_are_one_object(example_compile: CompileResult) -> None:
    """Each field of a server edited changes its digest; a copy of the record (equal values, other
    objects) keeps it."""
    fabric = example_compile.fabric
    digests = server_digests(fabric)
    server = next(s for s in fabric.servers.values() if s.links and s.nics)

    def digest(record: ResolvedServer) -> str:
        return hashlib.sha256(key_bytes()(server_key(record))).hexdigest()

    assert digest(server) == digests[server.name]
    assert digest(pickle.loads(pickle.dumps(server))) == digests[server.name]
    for name, value in zip(server._fields, server, strict=True):
        assert digest(server._replace(**{name: _other(value)})) != digests[server.name], name


def _edits(found: tuple[dict[Any, Any], ...]) -> Iterator[tuple[str, tuple[dict[Any, Any], ...]]]:
    """``found`` (a switch's provenance: interfaces, VLANs, settings) with one thing it prints
    edited: a name, a field, a source's file or one item of its path."""
    interfaces, vlans, settings = found
    port, fields = next(iter(interfaces.items()))
    field, source = next(iter(fields.items()))
    vlan, vlan_source = next(iter(vlans.items()))
    setting, sources = next(iter(settings.items()))
    yield "port", ({**interfaces, port + "x": fields}, vlans, settings)
    yield "field", ({**interfaces, port: {**fields, field + "x": source}}, vlans, settings)
    yield "file", ({**interfaces, port: {**fields, field: source._replace(file="x.yaml")}}, vlans, settings)
    for at, item in enumerate(source.path):
        path = (*source.path[:at], _other(item), *source.path[at + 1 :])
        yield f"path[{at}]", ({**interfaces, port: {**fields, field: source._replace(path=path)}}, vlans, settings)
    yield "vlan", (interfaces, {**vlans, vlan + 1: vlan_source}, settings)
    yield "vlan source", (interfaces, {**vlans, vlan: vlan_source.child("x")}, settings)
    yield "setting", (interfaces, vlans, {**settings, setting + "x": sources})
    yield "setting sources", (interfaces, vlans, {**settings, setting: sources[1:]})


def test_a_provenance_units_key_changes_with_what_its_file_prints(example_compile: CompileResult) -> None:
    """Each edit of a switch's provenance that its file prints changes the unit's key."""
    fabric = example_compile.fabric
    units = list(provenance_units(fabric.devices, fabric.facts.provenance))
    devices = [found for u in units for found in cast(tuple[tuple[str, tuple[dict[Any, Any], ...]], ...], u.inputs)]
    assert [name for name, _ in devices] == list(fabric.devices)  # each device in one unit's key, in order
    name, (interfaces, vlans, settings) = next(found for found in devices if all(found[1][:2]))
    # The example sets no device-wide section: one with two sources stands for one.
    found = (interfaces, vlans, settings or {"services": (Source("fabric.yaml", ("services",)), *vlans.values())})
    key, document = fingerprinter("code"), provenance_document(name, *found)
    assert key((name, found)) == fingerprinter("code")((name, found))
    for edit, edited in _edits(found):
        assert provenance_document(name, *edited) != document, edit  # the edit is printed
        assert key((name, edited)) != key((name, found)), edit


def test_a_pictures_sections_are_drawn_from_their_keys_alone(example_compile: CompileResult) -> None:
    """Each row of a picture is drawn from its key (its boxes' fields and places) and nothing
    else: an edit of any value of any block changes the key and the row as drawn from it; the
    head is keyed by its own text. Joined, the sections are the picture."""
    intent, fabric = example_compile.intent, example_compile.fabric
    pictures = [
        *(fabric_picture(intent, fabric, n) for n in sorted(intent.fabric.fabrics)),
        management_picture(intent, fabric),
    ]
    assert diagram_files(intent, fabric) == {p.path: diagram._drawn(p) for p in pictures}
    key = fingerprinter("code")
    for picture in pictures:
        units = {unit.name: unit for unit in diagram._units(picture)}
        head = next(iter(units.values()))
        assert head.inputs == picture.head and head.build() == {f"{picture.path}#head": picture.head}
        for number, row in enumerate(picture.rows):
            unit = units[f"{head.name}/row{number}"]
            assert unit.inputs == row
            drawn = unit.build()
            assert drawn == diagram._row(picture.path, number, picture.draw, row)
            block = row[-1]
            for at, value in enumerate(block):
                for edit in _block_edits(value):
                    edited = (*row[:-1], (*block[:at], edit, *block[at + 1 :]))
                    assert key(edited) != key(row), (unit.name, at, edit)
                    assert diagram._row(picture.path, number, picture.draw, edited) != drawn, (unit.name, at, edit)


def _block_edits(value: object) -> Iterator[object]:
    """A block's box fields with each edited (a tuple's first item), or its place moved."""
    if isinstance(value, tuple):
        for at, item in enumerate(value):
            edited = (_other(item[0]), *item[1:]) if isinstance(item, tuple) and item else _other(item)
            yield (*value[:at], edited, *value[at + 1 :])
    else:
        yield float(value) + 1  # type: ignore[arg-type]


def test_an_ip_plan_blocks_key_is_every_field_of_its_allocations(example_compile: CompileResult) -> None:
    """A block's key holds its network and pool once and each allocation's other fields: each
    allocation of the fabric is in exactly one key, whole."""
    fabric = example_compile.fabric
    keyed: list[tuple[str, ...]] = []
    for unit in ipplan_units(fabric):
        if unit.name != f"ip-plan/{HEAD}":
            network, pool, rows = cast(tuple[str, str, tuple[tuple[str, ...], ...]], unit.inputs)
            keyed += [(network, pool, *rest) for rest in rows]
    assert sorted(keyed) == sorted(map(tuple, fabric.allocations))
