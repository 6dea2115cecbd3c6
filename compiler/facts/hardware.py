"""Hardware: the catalog model of every switch role and the ports its design uses.

A role (the compute leaves, the storage spines, the rack management switches, ...) runs one
catalog model (``core/hardware``, ``docs/hardware.md``). Its **port sets** (``downlinks``,
``uplinks``, a management switch's ``servers`` and ``devices``) name cages and a breakout: the
k-th member of a set is the k-th interface of those cages once broken out. What a role's
breakouts make is its :class:`Layout`: every Ethernet interface that exists (the ones a
breakout removes are gone: they get no stanza), the ``speed`` keyword of each non-default lane,
and the sets as interface names.

* a spine's ``downlinks`` default to every cage of the model's fastest speed that no other set
  of the role takes, in order (a super-spine's likewise);
* the management port is the model's first (``Management1``; ``Management0`` on a chassis: the
  active supervisor's).

Example:
    >>> from pathlib import Path
    >>> from compiler.intent import load_intent
    >>> layouts = build_layouts(load_intent(Path("intent")))
    >>> leaf = layouts.leaf["compute"]
    >>> leaf.model.id, leaf.sets["downlinks"][:5]
    ('DCS-7060DX5-32', ('Ethernet1/1', 'Ethernet1/3', 'Ethernet1/5', 'Ethernet1/7', 'Ethernet2/1'))
    >>> leaf.keyword("Ethernet1/3"), leaf.keyword("Ethernet25/1"), leaf.speed("Ethernet1/3")
    ('100g-2', None, '100g')
    >>> layouts.spine["compute"].sets["downlinks"][:2], layouts.core.management_port
    (('Ethernet1/1', 'Ethernet2/1'), 'Management1')
"""

# No ``from __future__ import annotations``: typing.NamedTuple would compile and evaluate the
# text of every field's annotation as the module loads, at every start.

from collections.abc import Iterable, Mapping
from typing import NamedTuple

from compiler.facts.common import FabricNetwork
from compiler.intent import Intent, PortSet, SwitchModelRef
from compiler.intentcache import ValidatedFiles
from compiler.platforms import eos
from core.hardware import Catalog, Model, VlanRange, adopt_catalog, internal_vlan_range, speed_gbps


class Layout(NamedTuple):
    """A catalog model as one role uses it: its breakouts, interfaces and named port sets."""

    model: Model
    breakouts: tuple[tuple[str, str], ...]
    """(cage label, breakout mode) of every cage not in its default mode, in cage order."""
    interfaces: tuple[str, ...]
    """Every Ethernet interface that exists under those breakouts, in EOS's order."""
    sets: Mapping[str, tuple[str, ...]]
    """The role's port sets as interface names (``downlinks``: the k-th is the k-th port)."""
    lanes: Mapping[str, tuple[str, str | None]]
    """Interface -> (speed, ``speed`` keyword, None in a cage's default mode)."""

    @property
    def management_port(self) -> str:
        """The out-of-band port (``Management1``, ``Management0`` on a chassis)."""
        return self.model.management[0]

    def speed(self, name: str) -> str | None:
        """The speed ``name`` runs at, or None when it does not exist under these breakouts."""
        found = self.lanes.get(name)
        return found[0] if found else None

    def keyword(self, name: str) -> str | None:
        """The ``speed`` line ``name`` needs (a breakout lane), None in a default mode."""
        found = self.lanes.get(name)
        return found[1] if found else None

    def why_absent(self, name: str) -> str:
        """Why ``name`` is not an interface of this layout, in one phrase naming the fix.

        Example:
            >>> from core.hardware import model
            >>> layout = layout_of(model("DCS-7060DX5-32"), {})
            >>> layout.why_absent("Ethernet1/3")
            'Ethernet1/3 is inactive: cage 1 runs 1x400g (Ethernet1/1); break the cage out or use Ethernet1/1'
        """
        missing = self.model.missing(name)
        if missing is not None:
            return missing
        info = self.model.interface(name)
        port = info.port
        modes = dict(self.breakouts)
        partner_of = {
            self.model.port(p.partner if p.slot is None else f"{p.slot}/{p.partner}").label: p
            for p in self.model.ports
            if p.primary and p.partner is not None and modes.get(p.label) in p.pair_modes
        }
        if port.label in partner_of:
            primary = partner_of[port.label]
            return (
                f"{name} is absent: cage {primary.label}'s {modes[primary.label]} breakout takes its gearbox "
                f"partner {port.label}; use another cage"
            )
        mode = port.mode(modes.get(port.label, port.kind.default))
        active = [port.name(lane) for lane in mode.lanes]
        return (
            f"{name} is inactive: cage {port.label} runs {mode.name} ({', '.join(active)}); "
            f"break the cage out or use {active[0]}"
        )


def layout_of(model: Model, sets: Mapping[str, PortSet | None]) -> Layout:
    """The layout of ``model`` with the role's port ``sets``.

    ``sets`` were validated with the intent (their cages exist, their breakouts are allowed).
    A ``downlinks`` set of None defaults to every cage of the model's fastest default speed
    that the other sets do not take.

    Example:
        >>> from core.hardware import model
        >>> from compiler.intent import PortSet
        >>> core = layout_of(model("DCS-7280CR3-32P4"), {"downlinks": PortSet(ports=(1, 3), breakout="4x25g")})
        >>> core.sets["downlinks"][:5], "Ethernet2/1" in core.interfaces
        (('Ethernet1/1', 'Ethernet1/2', 'Ethernet1/3', 'Ethernet1/4', 'Ethernet3/1'), False)
    """
    modes: dict[str, str] = {}
    taken: set[str] = set()
    for port_set in sets.values():
        if port_set is None:
            continue
        taken.update(port_set.cages)
        if port_set.breakout is not None:
            for cage in port_set.cages:
                if model.port(cage).kind.default != port_set.breakout:
                    modes[model.port(cage).label] = port_set.breakout
    names: dict[str, tuple[str, ...]] = {}
    for key, port_set in sets.items():
        if port_set is not None:
            names[key] = tuple(model.port_set(port_set.cages, port_set.breakout))
        elif key == "downlinks":
            fastest = max(speed_gbps(p.default_mode.speed) for p in model.ports)
            cages = [
                p.label for p in model.ports if speed_gbps(p.default_mode.speed) == fastest and p.label not in taken
            ]
            names[key] = tuple(model.port_set(cages))
    return _assemble(model, modes, names)


def with_modes(layout: Layout, modes: Mapping[str, str]) -> Layout:
    """``layout`` with more cages in other modes (one switch's own breakouts, ``ports.yaml``).

    The role's port sets keep their interfaces (a cage of a set is not given another mode).

    Example:
        >>> from core.hardware import model
        >>> leaf = with_modes(layout_of(model("DCS-7060DX5-32"), {}), {"4": "4x100g"})
        >>> leaf.breakouts, leaf.keyword("Ethernet4/3"), leaf.speed("Ethernet4/1")
        ((('4', '4x100g'),), '100g-2', '100g')
    """
    merged = {**dict(layout.breakouts), **modes}
    return _assemble(
        layout.model,
        {label: mode for label, mode in merged.items() if layout.model.port(label).kind.default != mode},
        layout.sets,
    )


def _assemble(model: Model, modes: Mapping[str, str], sets: Mapping[str, tuple[str, ...]]) -> Layout:
    """The layout of ``model`` with cages in ``modes`` and the role's ``sets`` (as interface names)."""
    interfaces = tuple(model.active_interfaces(modes))
    # One object per name and per cage's lane values: the layouts are kept as a pickle
    # (:class:`KeptHardware`), which holds an object once however often it is referred to.
    active = {name: name for name in interfaces}
    lanes: dict[str, tuple[str, str | None]] = {}
    for port in model.ports:
        mode = port.kind.modes[modes.get(port.label, port.kind.default)]
        lane_values = (mode.speed, None if mode.name == port.kind.default else mode.keyword)
        for lane in mode.lanes:
            name = active.get(port.name(lane))
            if name is not None:
                lanes[name] = lane_values
    return Layout(
        model,
        tuple((p.label, modes[p.label]) for p in model.ports if p.label in modes),
        interfaces,
        {key: tuple([active.get(name, name) for name in names]) for key, names in sets.items()},
        lanes,
    )


class Layouts(NamedTuple):
    """The layout of every switch role."""

    leaf: Mapping[FabricNetwork, Layout]
    spine: Mapping[FabricNetwork, Layout]
    super_spine: Mapping[FabricNetwork, Layout]
    mgmt: Layout
    core: Layout


def build_layouts(intent: Intent) -> Layouts:
    """The layout of every switch role of ``intent`` (one object per role, shared by its switches).

    Kept for the last intent: loading checks the budgets on these layouts, then the topology
    is built on them (a chassis' layout is thousands of interfaces, 14 ms at 16x); or adopted
    from the last compile (:func:`adopt_layouts`).
    """
    if _LAST and _LAST[0][0] is intent:
        return _LAST[0][1]
    layouts = _layouts(intent)
    _LAST[:] = [(intent, layouts)]
    return layouts


_LAST: list[tuple[Intent, Layouts]] = []
"""The last intent asked about and its layouts."""


def adopt_layouts(intent: Intent, layouts: Layouts) -> None:
    """Take ``layouts`` as those of ``intent`` (kept by the last compile, :class:`KeptHardware`)."""
    _LAST[:] = [(intent, layouts)]


def _layouts(intent: Intent) -> Layouts:
    spec = intent.fabric

    def of(ref: SwitchModelRef | str, sets: Mapping[str, PortSet | None]) -> Layout:
        return layout_of(intent.model(ref), sets)

    leaf: dict[FabricNetwork, Layout] = {}
    spine: dict[FabricNetwork, Layout] = {}
    super_spine: dict[FabricNetwork, Layout] = {}
    for net, fab in sorted(spec.fabrics.items()):
        leaf[net] = of(fab.leaves, {"downlinks": fab.leaves.downlinks})
        spine_sets = {"downlinks": fab.spines.downlinks}
        if fab.pods is not None:
            spine_sets["uplinks"] = fab.spines.uplinks
            supers = fab.pods.super_spines
            super_spine[net] = of(supers, {"downlinks": supers.downlinks})
        spine[net] = of(fab.spines, spine_sets)
    mgmt = spec.management
    ports = mgmt.switch_ports
    return Layouts(
        leaf,
        spine,
        super_spine,
        of(mgmt.switch_model, {"servers": ports.servers, "devices": ports.devices}),
        of(mgmt.core, {"downlinks": mgmt.core.downlinks}),
    )


class KeptHardware(NamedTuple):
    """The shipped catalog and the layouts a ``fabric.yaml`` makes of it, as the last compile
    built them (:mod:`compiler.intentcache`, entry ``hardware``): reading the catalog's files
    and breaking out a chassis' thousands of interfaces took about 20 ms of every compile at 16x,
    unpickling them takes a third of that.

    Kept only for an intent without its own models (``intent/hardware/``), under the code
    digest (which holds the catalog's files) and the bytes of ``fabric.yaml`` (all the layouts
    read of the intent: its roles' models and port sets), and only by a load that found no
    problem: an entry also says that fabric.yaml's port sets and ports are on their models
    (:func:`compiler.intent.load_intent` does not look again).
    """

    catalog: Catalog
    layouts: Layouts
    digests: tuple[tuple[object, str], ...] = ()
    """Each layout and its interfaces (a switch's ``front_panel``) with their digests
    (:func:`compiler.artifacts.units.digest_of`) as the load that kept them worked them out: the
    same code (the key's) and the same values give the same digests, without pickling a
    chassis' thousands of interfaces again in every compile (2 ms at 16x)."""

    @staticmethod
    def get(kept: ValidatedFiles, fabric_yaml: bytes) -> "KeptHardware | None":
        """The entry kept for ``fabric_yaml`` (None: a miss)."""
        return kept.get(HARDWARE_ENTRY, fabric_yaml, KeptHardware)

    def adopted(self) -> bool:
        """Whether this catalog is now the process' own, and the layouts' digests with it
        (:func:`kept_digest`): not when the process read the catalog before (its shipped models
        are other objects than the layouts')."""
        if adopt_catalog(None, self.catalog) is not self.catalog:
            return False
        _DIGESTS.clear()  # the last adopted hardware's only: a long-lived process stays small
        _DIGESTS.update((id(value), (value, digest)) for value, digest in self.digests)
        return True

    @staticmethod
    def put(kept: ValidatedFiles, fabric_yaml: bytes, intent: Intent) -> None:
        """Keep the catalog and layouts of ``intent``, whose ``fabric.yaml`` is ``fabric_yaml``."""
        from compiler.artifacts.units import digest_of  # the artifacts import this module

        layouts = build_layouts(intent)
        values = [value for layout in every_layout(layouts) for value in (layout, layout.interfaces)]
        digests = tuple((value, digest_of(value)) for value in values)
        kept.put(HARDWARE_ENTRY, fabric_yaml, KeptHardware(intent.catalog, layouts, digests))


def every_layout(layouts: Layouts) -> tuple[Layout, ...]:
    """Each role's layout once (roles of two fabrics may share one).

    Example:
        >>> from pathlib import Path
        >>> from compiler.intent import load_intent
        >>> layouts = build_layouts(load_intent(Path("intent")))
        >>> len(every_layout(layouts)), layouts.core in every_layout(layouts)
        (6, True)
    """
    roles = (*layouts.leaf.values(), *layouts.spine.values(), *layouts.super_spine.values(), layouts.mgmt, layouts.core)
    return tuple({id(layout): layout for layout in roles}.values())


def kept_digest(value: object) -> str | None:
    """The digest kept with ``value`` (:attr:`KeptHardware.digests`), when it is an adopted
    layout or its interfaces."""
    found = _DIGESTS.get(id(value))
    return found[1] if found is not None and found[0] is value else None


_DIGESTS: dict[int, tuple[object, str]] = {}
"""The adopted layouts' and interfaces' digests by the value's id (each held with its value, so
no other object takes its id while it is kept)."""


HARDWARE_ENTRY = "hardware"
"""The name of :class:`KeptHardware`'s entry among the validated files."""


def internal_vlans(layout: Layout, vlans_in_use: Iterable[int]) -> VlanRange:
    """The internal-VLAN range of a switch that routes on its ports.

    Every routed port takes one VLAN of the range (``docs/hardware.md``). The platform's range
    (``compiler/platforms/eos.yaml``) stays while it holds one VLAN per interface the switch
    has under its breakouts and none of its VLANs; else the lowest range from the same first
    VLAN that does (sized by the layout, not by today's links, so adding a leaf never moves it).

    Examples:
        >>> from core.hardware import model
        >>> internal_vlans(layout_of(model("DCS-7060DX5-64S"), {}), [100, 4094])
        VlanRange(first=1006, last=1199, certain=True, note='')
        >>> internal_vlans(layout_of(model("DCS-7808-CH"), {}), [])
        VlanRange(first=1006, last=1293, certain=True, note='')
        >>> big = model("DCS-7060DX5-64S")
        >>> internal_vlans(layout_of(big, {"downlinks": PortSet(ports=("1-64",), breakout="4x100g")}), [1100])
        VlanRange(first=1101, last=1358, certain=True, note='')
    """
    first, last = eos.data().vlan_internal_range
    platform = VlanRange(first, last)
    used = list(vlans_in_use)
    if len(layout.interfaces) <= platform.size and not any(v in platform for v in used):
        return platform
    return internal_vlan_range(max(len(layout.interfaces), platform.size), used, first=first)
