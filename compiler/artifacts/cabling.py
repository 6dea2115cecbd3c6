"""``generated/inventory/cabling.csv`` and ``cabling.md``: one row per cable, as the installer lays it.

The first four columns (``a_device,a_port,b_device,b_port``) are what the lab and other tools
read; the rest say what each end runs, the length from the racks' row and position, the stock
length class, the optic at each end (the same type, or a broken-out cage's parallel optic and
its lane optic), the fibre and the label printed at each end.
Length and optic rules: :mod:`compiler.artifacts.physical`.

Both files come in sections (:func:`cabling_units`): the header (``cabling.md``'s with the bill
of materials), then per switch the cables it is the A end of, built again only when one of
those cables, its length or an end's cage changed.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import cache, partial
from itertools import chain, compress, repeat
from operator import attrgetter, itemgetter

from compiler.artifacts.physical import BrokenOut, Kind, Run, laid, length_class, optics_of, run_of
from compiler.artifacts.servers import server_digests
from compiler.artifacts.tables import HEAD, csv_rows, markdown_rows, markdown_table
from compiler.artifacts.units import Notes, Recall, Unit, built, facts_digests, section_path, shared_digest
from compiler.fabric import ResolvedFabric
from compiler.facts import Cable, Endpoint
from compiler.intent import Intent
from compiler.platforms import eos
from core.hardware import Optic

COLUMNS = (
    "a_device",
    "a_port",
    "b_device",
    "b_port",
    "network",
    "kind",
    "a_speed",
    "b_speed",
    "subnet",
    "speed",
    "length_m",
    "length_class_m",
    "a_optic",
    "b_optic",
    "media",
    "a_label",
    "b_label",
)


def label(near: Endpoint, far: Endpoint) -> str:
    """The label at ``near``'s end: this end, then where the cable goes.

    Example:
        >>> label(Endpoint("rack01-leaf-a", "Ethernet25/1"), Endpoint("spine01", "Ethernet1/1"))
        'rack01-leaf-a Et25/1 > spine01 Et1/1'
    """
    return f"{near.device} {_short_name(near.port)} > {far.device} {_short_name(far.port)}"


_short_name = cache(eos.short_name)
"""Memoised: a fleet's cables use a few hundred port names, each tens of times."""


def _row(run: Run) -> tuple[object, ...]:
    link = run.link
    return (
        link.a.device,
        link.a.port,
        link.b.device,
        link.b.port,
        link.network,
        link.kind,
        link.a_speed or "",
        link.b_speed or "",
        link.subnet or "",
        run.speed,
        f"{run.length_m:g}",
        run.length_class_m or "",
        run.a_optic.name if run.a_optic else "NONE",
        run.b_optic.name if run.b_optic else "NONE",
        run.media,
        label(link.a, link.b),
        label(link.b, link.a),
    )


Bill = tuple[tuple[tuple[tuple[str, str], int], ...], tuple[tuple[tuple[str, int], int], ...]]
"""Optics by (type, media) and cables by (media, length class), each with its count, sorted."""


def bill(kinds: Sequence[Kind], broken_out: BrokenOut) -> Bill:
    """What to order: optics by (type, media), one per cable end and one per broken-out cage,
    and cables by (media, stock length), from every cable's kind and the broken-out cages
    (:func:`~compiler.artifacts.physical.cable_kinds`).

    A copper run (``1000BASE-T``) takes no optic; a cable out of reach counts as ``NONE``.
    """
    optics: Counter[tuple[str, str]] = Counter()
    stock: Counter[tuple[str, int]] = Counter()
    # The cables by kind, a fleet's thousands in a few dozen (counted at C speed); a broken-out
    # cage's one optic is its first cable's there.
    counts = Counter(kinds)
    cages = [optics_of(*kind)[:2][end] for kind, end in broken_out.values()]
    for optic in cages:
        _count(optics, optic, 1)
    # Every other end, and the cables, by kind.
    for kind, n in counts.items():
        a_optic, b_optic, _ = optics_of(*kind)
        optic = a_optic or b_optic
        stock[(optic.media if optic else "") or "-", length_class(kind[3]) or 0] += n
        for optic, shape in ((a_optic, kind[0]), (b_optic, kind[1])):
            if shape is None or not shape[2]:
                _count(optics, optic, n)
    return tuple(sorted(optics.items())), tuple(sorted(stock.items()))


def _count(optics: Counter[tuple[str, str]], optic: Optic | None, n: int) -> None:
    """Count ``n`` of ``optic`` (none for copper, which takes no optic; ``NONE``: out of reach)."""
    if optic is None or optic.media != "copper":
        optics[(optic.name, optic.media) if optic else ("NONE", "")] += n


CSV = "inventory/cabling.csv"
MD = "inventory/cabling.md"
TABLE = ("A end", "B end", "network", "kind", "speed", "length (m)", "optics", "label at A", "label at B")


def cabling_units(intent: Intent, fabric: ResolvedFabric) -> Iterator[Unit]:
    """``cabling.csv`` and ``cabling.md`` in sections: the header with the bill of materials,
    then per switch the cables of which it is the A end (the list's order: by A end, then its
    port). A switch's cables are laid only when its unit is built (:func:`cable_keys` says what
    keys it); the header's bill counts every cable, so it is keyed by every switch's key, and
    keeps each switch's counts by that key in its notes (:attr:`~compiler.artifacts.units.Unit.recall`):
    built again, it counts the cables of the switches whose keys changed, not the fleet's."""
    rule = intent.fabric.cabling
    lengths = (rule.in_rack_m, rule.slack_m, rule.rack_pitch_m, rule.row_pitch_m)
    keys = cable_keys(intent, fabric)
    head = partial(_head, intent, fabric, lengths, keys)
    yield Unit(f"cabling/{HEAD}", (lengths, tuple(keys.items())), partial(_files_of, head), recall=head)
    for name, key in keys.items():
        yield Unit(f"cabling/{name}", key, partial(_switch_rows, intent, fabric, name))


A_END_USES = frozenset({"server", "management", "rack-uplink", "peer-link", "uplink"})
_A_DEVICE, _PEER, _KIND = attrgetter("a.device"), attrgetter("peer"), attrgetter("kind")
"""The uses of a port that is a cable's A end (:mod:`compiler.facts.cabling`): a management
switch's port to a server or switch, its uplink to the core, a leaf's port to a server or its
MLAG peer, a switch's uplink to the tier above. A downlink, a core's port to a rack and the site
upstream are B ends (a peer link is the A end on one side only: both are keyed)."""


def cable_keys(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """Per switch that is the A end of a cable (in the list's order), the sha256 of what its
    rows are made of, from digests already taken:

    * the switch's facts digest (:func:`~compiler.artifacts.units.facts_digests`): its rack and
      role, its used ports (each port's far end and far port, its speed under the breakouts,
      its network, its use and whether its server is retired), the /31s it terminates, its
      layout (each cage's form factor and breakout) and the design (``fabric.yaml``: the
      cable-length rule and the server models' NIC speeds with it);
    * the far end of each port it is the A end of (:data:`A_END_USES`): a switch's layout digest
      (the far port's cage and speed) and rack, a server's record digest
      (:func:`~compiler.artifacts.servers.server_digests`: its rack, its NICs);
    * the id, row and position (``racks.yaml``) of its rack and of every far end's, which the
      lengths follow from (the cage at a switch's end is its layout's: the facts' layout and
      the topology's are one object).

    Which end is A follows from the ports' use (the code); the optics from the cages, the speed
    and the length by the shipped catalog, which the code digest of every key holds. The site
    upstream (far end ``''``) is the design's. A rack moved rebuilds the rows of the switches
    cabled out of it or into it, and no other.
    """
    # A rack as the lengths see it: whether two ends share it (its id), its row and position,
    # written once (``repr``: its id and position numbers, its row quoted; ``None`` for none).
    racks = {rack_id: repr((rack_id, rack.row, rack.position)) for rack_id, rack in intent.racks.items()}
    # Each end as one line, its digest (hex) and its rack, made once: a switch's key is its
    # ends' lines joined, at C speed (a pickle of them each was a third of the keys at 16x).
    ends = {
        name: f"{digest} {racks.get(server.rack)}"
        for (name, server), digest in zip(fabric.servers.items(), server_digests(fabric).values(), strict=True)
    }
    layout_digest = shared_digest(fabric)
    devices = fabric.devices
    ends.update(
        (name, f"{layout_digest(device.facts.switch.layout)} {racks.get(device.rack)}")
        for name, device in devices.items()
    )  # a switch first, as rack_of
    switches = facts_digests(fabric)
    out: dict[str, str] = {}
    # Over the fleet's cables and every switch's ports at C speed (attrgetter, compress): a
    # loop in Python over them was most of the keys' cost at 16x.
    for name in dict.fromkeys(map(_A_DEVICE, fabric.links)):
        device = devices[name]
        ports = device.facts.ports
        far = dict.fromkeys(compress(map(_PEER, ports), map(A_END_USES.__contains__, map(_KIND, ports))))
        # One line each, none empty but a far end that is neither (the site upstream).
        lines = (switches[name], str(racks.get(device.rack)), *map(ends.get, far, repeat("")))
        out[name] = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return out


def cables_of(fabric: ResolvedFabric, name: str) -> Sequence[Cable]:
    """The cables switch ``name`` is the A end of, in the link order: the links are sorted by
    their A end (:func:`compiler.facts.cabling.build_cabling`), so its run of them is found by
    bisection, not by a pass over the fleet's 13,000 at 16x for the few sections rebuilt.

    Example:
        >>> from compiler.facts import Cable as C, Endpoint as E
        >>> links = [C("m", "mgmt", E(a, "Ethernet1"), E("x", "Management1"), None, None, 1500, 1500) for a in "abbc"]
        >>> [link.a.device for link in cables_of(type("F", (), {"links": tuple(links)})(), "b")]
        ['b', 'b']
    """
    links = fabric.links
    return links[bisect_left(links, name, key=_a_end) : bisect_right(links, name, key=_a_end)]


def _a_end(cable: Cable) -> str:
    return cable.a.device


def _files_of(recall: Recall) -> dict[str, str]:
    return recall({})[0]


def _head(
    intent: Intent,
    fabric: ResolvedFabric,
    lengths: tuple[float, float, float, float],
    keys: dict[str, str],
    last: Notes,
) -> tuple[dict[str, str], Notes]:
    """The header sections, and what each switch's cables add to the bill by its section's key
    (:func:`cable_keys`) for the next build: a one-row change lays the cables of the few
    switches whose keys changed, not the fleet's (``last``: the notes of the last build)."""
    in_rack, slack, rack_pitch, row_pitch = lengths
    notes = {key: last.get(key) or section_bill(intent, fabric, name) for name, key in keys.items()}
    optics, stock = joined_bill(notes.values())
    md = [
        "# Cabling plan\n",
        "One row per cable. Lengths: in-rack runs are "
        f"{in_rack:g} m; between racks {slack:g} m slack + "
        f"{rack_pitch:g} m per rack position + {row_pitch:g} m per row "
        "apart. Optics: multimode while it reaches, single-mode beyond, the same type at both ends; a "
        "broken-out cage holds one parallel optic for all its lanes, each lane's far end the matching "
        "breakout optic (a fan-out cable).\n",
        "## Bill of materials\n",
        markdown_table(["optic", "media", "count"], [(o, m, n) for (o, m), n in optics]),
        markdown_table(["media", "length class (m)", "cables"], [(m, c, n) for (m, c), n in stock]),
        "## Cables\n",
        markdown_table(TABLE, []),
    ]
    return {section_path(CSV, HEAD): csv_rows([COLUMNS]), section_path(MD, HEAD): "\n".join(md)}, notes


SectionBill = tuple[
    tuple[tuple[str, str, int], ...], tuple[tuple[str, int, int], ...], tuple[tuple[str, str | None, str], ...]
]
"""What one switch's cables add to the bill: optics (type, media, count) at every cable end
but a broken-out cage's, cables (media, length class, count), and each broken-out cage its
cables reach, in their order (``<device> <cage>``, and its optic's type and media when it
counts: ``None`` for copper). Plain tuples, as a unit's notes are saved."""


def section_bill(intent: Intent, fabric: ResolvedFabric, name: str) -> SectionBill:
    """:func:`bill`'s counts over the cables switch ``name`` is the A end of."""
    kinds: list[Kind] = []
    cages: dict[str, tuple[str | None, str]] = {}
    for cable in laid(intent, fabric, cables_of(fabric, name)):
        kinds.append(cable.kind)
        for end, side, device in ((cable.a_end, 0, cable.link.a.device), (cable.b_end, 1, cable.link.b.device)):
            if end is not None and end.breakout:
                cage = f"{device} {end.cage}"
                if cage not in cages:
                    cages[cage] = _cage_optic(optics_of(*cable.kind)[:2][side])
    optics, stock = bill(kinds, {})
    return (
        tuple((o, m, n) for (o, m), n in optics),
        tuple((m, c, n) for (m, c), n in stock),
        tuple((cage, optic, media) for cage, (optic, media) in cages.items()),
    )


def _cage_optic(optic: Optic | None) -> tuple[str | None, str]:
    """A broken-out cage's optic as the bill counts it (:func:`_count`): ``None`` for copper,
    which takes none; ``NONE`` out of reach."""
    if optic is None:
        return "NONE", ""
    return (None, "") if optic.media == "copper" else (optic.name, optic.media)


def joined_bill(sections: Iterable[SectionBill]) -> Bill:
    """The bill of the cables of ``sections`` (in the list's order): the counts added, each
    broken-out cage counted once, with the optic its first cable in the list gives it (as
    :func:`bill` over the whole list).

    Example:
        >>> sr8, dr4 = ("s1 Ethernet1", "400GBASE-SR8", "multimode"), ("s1 Ethernet1", "400GBASE-DR4", "single-mode")
        >>> a = ((("400GBASE-SR8", "multimode", 2),), (("multimode", 3, 1),), (sr8,))
        >>> b = ((), (("multimode", 3, 1),), (dr4,))
        >>> joined_bill([a, b])
        (((('400GBASE-SR8', 'multimode'), 3),), ((('multimode', 3), 2),))
    """
    optics: Counter[tuple[str, str]] = Counter()
    stock: Counter[tuple[str, int]] = Counter()
    sections = list(sections)
    # Most switches' cables add up alike (a fleet's leaves): each distinct pair of counts is
    # added once, times the sections that have it.
    for (section_optics, section_stock), times in Counter(map(_COUNTS, sections)).items():
        for name, media, n in section_optics:
            optics[name, media] += n * times
        for medium, length, n in section_stock:
            stock[medium, length] += n * times
    # Each cage with its first cable's optic: a dict of the cages in reverse order, where the
    # first is written last (at C speed: a fleet's leaves break out over a thousand cages).
    cages = list(chain.from_iterable(map(_CAGES, sections)))
    for cage_optic, media in dict(zip(map(_CAGE, reversed(cages)), map(_OPTIC, reversed(cages)), strict=True)).values():
        if cage_optic is not None:
            optics[cage_optic, media] += 1
    return tuple(sorted(optics.items())), tuple(sorted(stock.items()))


_COUNTS, _CAGES = itemgetter(0, 1), itemgetter(2)
_CAGE, _OPTIC = itemgetter(0), itemgetter(1, 2)


def _switch_rows(intent: Intent, fabric: ResolvedFabric, name: str) -> dict[str, str]:
    rows = [_row(run_of(cable)) for cable in laid(intent, fabric, cables_of(fabric, name))]
    return {
        section_path(CSV, name): csv_rows(rows),
        section_path(MD, name): markdown_rows(
            (f"{r[0]} {r[1]}", f"{r[2]} {r[3]}", r[4], r[5], r[9], r[10], _optic_text(r[12], r[13]), r[15], r[16])
            for r in rows
        ),
    }


def cabling_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """``cabling.csv`` (every cable) and ``cabling.md`` (the bill of materials, then every cable)."""
    return built(cabling_units(intent, fabric))


def _optic_text(a: object, b: object) -> str:
    """One optic name when both ends take the same, else ``A / B``.

    Example:
        >>> _optic_text("400GBASE-SR8", "400GBASE-SR8"), _optic_text("400GBASE-SR8", "100GBASE-SR2")
        ('400GBASE-SR8', '400GBASE-SR8 / 100GBASE-SR2')
    """
    return str(a) if a == b else f"{a} / {b}"
