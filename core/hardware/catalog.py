"""Load the catalog: ``switches/*.yaml`` (one model a file), ``linecards/*.yaml``, ``ports.yaml``
(cage kinds and their breakouts), ``optics.yaml`` and ``eos.yaml`` (shared EOS defaults).

A mistake in a file is one error naming the file and the YAML path, e.g.
``core/hardware/switches/DCS-X.yaml: ports[1].kind: unknown port kind 'qsfp-400g' (known: ...)``.

Examples:
    >>> cat = catalog()
    >>> cat.match("DCS-7060DX5-64S-F").id
    'DCS-7060DX5-64S'
    >>> cat.match("DCS-7280SR2K-48C6-M-R").id
    'DCS-7280SR2K-48C6-M'
    >>> cat.match("cEOSLab") is None
    True
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from core.errors import FabricopsError
from core.generated import INTENT, INTENT_MODELS
from core.hardware.model import BreakoutMode, Chassis, Linecard, Model, PortKind, Power, VlanRange, build_ports

DATA = Path(__file__).resolve().parent
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Optic:
    """A pluggable optic: speed, fibre, reach and the standard that sets it."""

    name: str
    speed: str
    media: str
    reach_m: int
    standard: str
    form_factors: tuple[str, ...]
    reach_om3_m: int | None = None
    breakout: Mapping[str, str] = field(default_factory=dict, hash=False)
    """Breakout mode -> the optic at the far end of each lane (a parallel optic fanned out)."""


@dataclass(frozen=True)
class Catalog:
    """Every model, linecard, cage kind and optic of the catalog."""

    models: Mapping[str, Model] = field(hash=False)
    linecards: Mapping[str, Linecard] = field(hash=False)
    kinds: Mapping[str, PortKind] = field(hash=False)
    optics: tuple[Optic, ...]
    internal_vlans: VlanRange

    def match(self, name: str) -> Model | None:
        """The model ``name`` is, as written or as ``show version`` reports it (airflow suffix)."""
        found = self.models.get(name)
        if found is not None:
            return found
        base, _, suffix = name.rpartition("-")
        found = self.models.get(base)
        return found if found is not None and suffix in found.airflows else None

    def model(self, name: str) -> Model:
        """The model ``name`` is; an error lists the models the catalog has."""
        found = self.match(name)
        if found is None:
            known = ", ".join(sorted(self.models))
            raise FabricopsError(f"unknown switch model {name!r}: the catalog has {known} (docs/hardware.md)")
        return found


@dataclass(frozen=True)
class ModelFiles:
    """A repository's own catalog files, as bytes: ``hardware/switches/<MODEL>.yaml``,
    ``hardware/linecards/<CARD>.yaml`` and ``hardware/ports.yaml`` under ``folder`` (``intent``,
    as messages name it). The compiler reads them from ``intent/``, the lab and deploy from
    the same files at the ref they serve, so all three know the same models.

    Examples:
        >>> own = ModelFiles.of({"fabric.yaml": b"", "hardware/switches/DCS-X.yaml": b"model: DCS-X"})
        >>> own.folder, [name for name, _ in own.files]
        ('intent', ['hardware/switches/DCS-X.yaml'])
        >>> ModelFiles.of({"fabric.yaml": b""}) is None
        True
    """

    folder: str
    files: tuple[tuple[str, bytes], ...]

    @classmethod
    def of(cls, files: Mapping[str, bytes], folder: str = INTENT) -> ModelFiles | None:
        """The catalog files among ``files`` (path under ``folder`` -> bytes); None when there are none."""
        own = tuple(sorted((p, d) for p, d in files.items() if p.startswith(INTENT_MODELS) and p.endswith(".yaml")))
        return cls(folder, own) if own else None

    def readers(self, under: str) -> Iterator[_Reader]:
        """A reader of each file directly in ``hardware/<under>/``, by name."""
        for path, data in self.files:
            if PurePosixPath(path).parent == PurePosixPath(INTENT_MODELS, under):
                yield _Reader(f"{self.folder}/{path}", data)

    def reader(self, name: str) -> _Reader | None:
        """A reader of ``hardware/<name>``, or None when it is not there."""
        wanted = f"{INTENT_MODELS}{name}"
        return next((_Reader(f"{self.folder}/{p}", d) for p, d in self.files if p == wanted), None)

    @classmethod
    def read(cls, folder: Path) -> ModelFiles | None:
        """The catalog files in a folder of the catalog's layout (``switches/``, ``linecards/``, ``ports.yaml``)."""
        files = {f"{INTENT_MODELS}{p.relative_to(folder).as_posix()}": p.read_bytes() for p in folder.rglob("*.yaml")}
        return cls.of(files, folder=_shown(folder.parent))


def _shown(path: Path) -> str:
    """A catalog path as messages name it: relative to the project, else as given."""
    try:
        return str(path.relative_to(DATA.parent.parent))
    except ValueError:
        return str(path)


class _Reader:
    """Typed access to one YAML document with errors that name the file and the YAML path."""

    def __init__(self, shown: str, data: bytes) -> None:
        self.shown = shown
        self.stem = PurePosixPath(shown).stem
        try:
            self.data = yaml.load(data, Loader=_Loader)
        except yaml.YAMLError as exc:
            raise FabricopsError(f"{self.where()}: cannot be read: {exc}") from None

    @classmethod
    def file(cls, path: Path) -> _Reader:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise FabricopsError(f"{_shown(path)}: cannot be read: {exc}") from None
        return cls(_shown(path), data)

    def where(self, at: str = "") -> str:
        return f"{self.shown}: {at}" if at else self.shown

    def fail(self, at: str, what: str) -> FabricopsError:
        return FabricopsError(f"{self.where(at)}: {what}")

    def mapping(self, value: Any, at: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(at, "expected a mapping")
        return value

    def get(self, data: dict[str, Any], key: str, kind: type, at: str, default: Any = ...) -> Any:
        path = f"{at}.{key}" if at else key
        if key not in data:
            if default is ...:
                raise self.fail(path, "missing")
            return default
        value = data[key]
        if (kind is int and isinstance(value, bool)) or not isinstance(value, kind):
            raise self.fail(path, f"expected {kind.__name__}, got {value!r}")
        return value

    def strings(self, data: dict[str, Any], key: str, at: str) -> tuple[str, ...]:
        values = self.get(data, key, list, at, [])
        return tuple(str(v) for v in values)


def _power(reader: _Reader, data: dict[str, Any], at: str) -> Power:
    raw = reader.mapping(reader.get(data, "power", dict, at), f"{at}.power".lstrip("."))
    where = f"{at}.power".lstrip(".")
    return Power(
        reader.get(raw, "typical_w", int, where),
        reader.get(raw, "max_w", int, where),
        reader.get(raw, "certain", bool, where),
        reader.get(raw, "source", str, where),
    )


def _groups(
    reader: _Reader, data: dict[str, Any], kinds: Mapping[str, PortKind]
) -> tuple[tuple[int, int, PortKind, frozenset[str]], ...]:
    groups = []
    for i, raw in enumerate(reader.get(data, "ports", list, "")):
        at = f"ports[{i}]"
        group = reader.mapping(raw, at)
        kind_name = reader.get(group, "kind", str, at)
        kind = kinds.get(kind_name)
        if kind is None:
            raise reader.fail(f"{at}.kind", f"unknown port kind {kind_name!r} (known: {', '.join(kinds)})")
        first, last = reader.get(group, "first", int, at), reader.get(group, "last", int, at)
        if not 1 <= first <= last:
            raise reader.fail(at, f"first {first} and last {last} must satisfy 1 <= first <= last")
        paired = frozenset(reader.strings(group, "paired", at))
        unknown = sorted(paired - set(kind.modes))
        if unknown:
            raise reader.fail(f"{at}.paired", f"modes {', '.join(unknown)} are not modes of {kind_name}")
        if paired and (last - first + 1) % 2:
            raise reader.fail(at, "paired cages come in pairs: the group needs an even number of ports")
        groups.append((first, last, kind, paired))
    return tuple(groups)


def _kinds(reader: _Reader) -> dict[str, PortKind]:
    kinds = {}
    for name, raw in reader.mapping(reader.data, "").items():
        kind = reader.mapping(raw, name)
        lanes = reader.get(kind, "lanes", int, name)
        modes = {}
        for mode_name, mode_raw in reader.mapping(reader.get(kind, "modes", dict, name), f"{name}.modes").items():
            at = f"{name}.modes.{mode_name}"
            mode = reader.mapping(mode_raw, at)
            mode_lanes = tuple(reader.get(mode, "lanes", list, at))
            if not mode_lanes or any(not isinstance(n, int) or not 1 <= n <= lanes for n in mode_lanes):
                raise reader.fail(f"{at}.lanes", f"lanes must be numbers from 1 to {lanes}")
            modes[mode_name] = BreakoutMode(
                mode_name,
                reader.get(mode, "speed", str, at),
                reader.get(mode, "keyword", str, at),
                mode_lanes,
                reader.get(mode, "note", str, at, ""),
            )
        default = reader.get(kind, "default", str, name)
        if default not in modes:
            raise reader.fail(f"{name}.default", f"{default!r} is not one of its modes")
        kinds[name] = PortKind(name, reader.get(kind, "form_factor", str, name), lanes, default, modes)
    return kinds


def _vlans(reader: _Reader, data: dict[str, Any], at: str) -> VlanRange:
    raw = reader.mapping(data, at)
    return VlanRange(
        reader.get(raw, "first", int, at),
        reader.get(raw, "last", int, at),
        reader.get(raw, "certain", bool, at, True),
        reader.get(raw, "note", str, at, "").strip(),
    )


def _linecard(reader: _Reader, kinds: Mapping[str, PortKind]) -> Linecard:
    data = reader.mapping(reader.data, "")
    card = reader.get(data, "linecard", str, "")
    if card != reader.stem:
        raise reader.fail("linecard", f"{card!r} must match the file name {reader.stem!r}")
    return Linecard(
        card,
        reader.get(data, "description", str, ""),
        _groups(reader, data, kinds),
        _power(reader, data, ""),
        reader.strings(data, "sources", ""),
    )


def _model(reader: _Reader, kinds: Mapping[str, PortKind], cards: Mapping[str, Linecard], vlans: VlanRange) -> Model:
    data = reader.mapping(reader.data, "")
    model_id = reader.get(data, "model", str, "")
    if model_id != reader.stem:
        raise reader.fail("model", f"{model_id!r} must match the file name {reader.stem!r}")
    chassis = None
    ports = []
    if "chassis" in data:
        raw = reader.mapping(data["chassis"], "chassis")
        allowed = reader.strings(raw, "linecards", "chassis")
        missing = [card for card in allowed if card not in cards]
        if missing:
            raise reader.fail("chassis.linecards", f"no linecards/{missing[0]}.yaml")
        default = reader.get(raw, "default_linecard", str, "chassis")
        if default not in allowed:
            raise reader.fail("chassis.default_linecard", f"{default!r} is not in chassis.linecards")
        slots = tuple(reader.get(raw, "slots", list, "chassis"))
        chassis = Chassis(slots, {card: cards[card] for card in allowed}, default)
    else:
        ports = build_ports(_groups(reader, data, kinds))
    model = Model(
        id=model_id,
        description=reader.get(data, "description", str, ""),
        family=reader.get(data, "family", str, ""),
        asic=reader.get(data, "asic", str, ""),
        roles=reader.strings(data, "roles", ""),
        rack_units=reader.get(data, "rack_units", int, ""),
        airflows={str(k): str(v) for k, v in reader.get(data, "airflow", dict, "").items()},
        queue=reader.get(data, "queue", str, ""),
        base_power=_power(reader, data, ""),
        management=reader.strings(data, "management", ""),
        ports=tuple(ports),
        internal_vlans=_vlans(reader, data["internal_vlans"], "internal_vlans") if "internal_vlans" in data else vlans,
        sources=reader.strings(data, "sources", ""),
        uncertain=reader.strings(data, "uncertain", ""),
        chassis=chassis,
        file=reader.shown,
    )
    if model.queue not in ("uc-tx-queue", "tx-queue"):
        raise reader.fail("queue", f"{model.queue!r}: expected uc-tx-queue (Trident/Tomahawk) or tx-queue (Jericho)")
    if chassis is not None:
        model = model.with_linecards(dict.fromkeys(chassis.slots, chassis.default))
    return model


def _optics(reader: _Reader) -> tuple[Optic, ...]:
    optics = []
    for name, raw in reader.mapping(reader.data, "").items():
        optic = reader.mapping(raw, name)
        om3 = reader.get(optic, "reach_om3_m", int, name, 0)
        optics.append(
            Optic(
                name,
                reader.get(optic, "speed", str, name),
                reader.get(optic, "media", str, name),
                reader.get(optic, "reach_m", int, name),
                reader.get(optic, "standard", str, name),
                reader.strings(optic, "form_factors", name),
                om3 or None,
                {str(k): str(v) for k, v in reader.get(optic, "breakout", dict, name, {}).items()},
            )
        )
    names = {o.name for o in optics}
    for found in optics:
        for mode, lane in found.breakout.items():
            if lane not in names:
                raise reader.fail(f"{found.name}.breakout.{mode}", f"no optic {lane!r} in this file")
    return tuple(optics)


def load_catalog(root: Path = DATA, extra: ModelFiles | Path | None = None) -> Catalog:
    """Read the catalog under ``root`` (the package's own data by default).

    ``extra`` is a repository's own files of the same layout (``switches/``, ``linecards/``,
    optionally ``ports.yaml``), or a folder of them: they add models, linecards and cage kinds;
    one that names a model the catalog already has is an error, so a shipped model is never
    silently replaced.
    """
    own = ModelFiles.read(extra) if isinstance(extra, Path) else extra
    kinds = _kinds(_Reader.file(root / "ports.yaml"))
    added = own.reader("ports.yaml") if own is not None else None
    if added is not None:
        for name, kind in _kinds(added).items():
            if name in kinds:
                raise added.fail(name, f"cage kind {name!r} is in the catalog already: give it another name")
            kinds[name] = kind
    eos = _Reader.file(root / "eos.yaml")
    vlans = _vlans(eos, eos.get(eos.mapping(eos.data, ""), "internal_vlans", dict, ""), "internal_vlans")

    def readers(under: str) -> list[_Reader]:
        shipped = [_Reader.file(path) for path in sorted((root / under).glob("*.yaml"))]
        return shipped + (list(own.readers(under)) if own is not None else [])

    cards: dict[str, Linecard] = {}
    models: dict[str, Model] = {}
    for reader in readers("linecards"):
        _add(cards, reader, _linecard(reader, kinds))
    for reader in readers("switches"):
        _add(models, reader, _model(reader, kinds, cards, vlans))
    return Catalog(models, cards, kinds, _optics(_Reader.file(root / "optics.yaml")), vlans)


def _add(found: dict[str, Any], reader: _Reader, item: Any) -> None:
    if reader.stem in found:
        raise reader.fail("", f"{reader.stem} is in the catalog already: remove this file or rename the model")
    found[reader.stem] = item


def catalog(extra: ModelFiles | None = None) -> Catalog:
    """The catalog shipped with fabricops, with a repository's own models in ``extra`` (read once).

    Examples:
        >>> catalog() is catalog(None)
        True
    """
    found = _CATALOGS.get(extra)
    if found is None:
        found = _CATALOGS[extra] = load_catalog(DATA, extra)
    return found


def adopt_catalog(extra: ModelFiles | None, found: Catalog) -> Catalog:
    """The catalog of ``extra``: ``found`` (one read from a cache) unless this process read it
    already, so one process shares one catalog object (a shipped model is known by identity,
    :func:`compiler.artifacts.units.model_digest`)."""
    return _CATALOGS.setdefault(extra, found)


_CATALOGS: dict[ModelFiles | None, Catalog] = {}
"""The catalogs read (or adopted) by this process, by the repository's own files."""
