"""The switch model catalog: real Arista models as data, and the names EOS gives their ports.

One YAML file per model in ``core/hardware/switches/`` (chassis linecards in ``linecards/``,
cage kinds and their breakouts in ``ports.yaml``, optics in ``optics.yaml``); ``docs/hardware.md``
lists them with their sources. The compiler, the lab and deploy all read it from here.

Examples:
    >>> spine = model("DCS-7060DX5-64S")
    >>> spine.interface_names()[0], spine.interface_names()[-1], len(spine.interface_names())
    ('Ethernet1/1', 'Ethernet66', 66)
    >>> match_model("DCS-7060DX5-64S-R").id
    'DCS-7060DX5-64S'
    >>> same_model("DCS-7060DX5-64S-F", "DCS-7060DX5-64S")
    True
"""

from __future__ import annotations

from core.hardware.catalog import Catalog, ModelFiles, Optic, adopt_catalog, catalog, load_catalog
from core.hardware.model import (
    Breakout,
    BreakoutInterface,
    BreakoutMode,
    InterfaceInfo,
    Linecard,
    Model,
    Port,
    PortKind,
    Power,
    VlanRange,
    sort_interfaces,
    speed_gbps,
    split_name,
)
from core.hardware.planning import (
    PortCount,
    breakout_optics,
    capacity,
    internal_vlan_problems,
    internal_vlan_range,
    internal_vlans_needed,
    optic_for,
    optics,
    port_budget,
)

__all__ = [
    "Breakout",
    "BreakoutInterface",
    "BreakoutMode",
    "Catalog",
    "InterfaceInfo",
    "Linecard",
    "Model",
    "ModelFiles",
    "Optic",
    "Port",
    "PortCount",
    "PortKind",
    "Power",
    "VlanRange",
    "adopt_catalog",
    "breakout_optics",
    "capacity",
    "catalog",
    "internal_vlan_problems",
    "internal_vlan_range",
    "internal_vlans_needed",
    "load_catalog",
    "match_model",
    "model",
    "models",
    "optic_for",
    "optics",
    "port_budget",
    "same_model",
    "sort_interfaces",
    "speed_gbps",
    "split_name",
]


def model(name: str) -> Model:
    """The catalog model ``name`` (id or ``show version`` string); an error lists the known ones."""
    return catalog().model(name)


def match_model(name: str) -> Model | None:
    """The catalog model ``name`` is (airflow suffix allowed), or None when the catalog lacks it."""
    return catalog().match(name)


def models() -> list[str]:
    """Every model id of the catalog, sorted."""
    return sorted(catalog().models)


def same_model(live: str, expected: str) -> bool:
    """Whether a switch reporting ``live`` is the ``expected`` catalog model (base models compared).

    Examples:
        >>> same_model("DCS-7050SX3-48YC8-R", "DCS-7060DX5-32")
        False
    """
    found, wanted = match_model(live), match_model(expected)
    if found is None or wanted is None:
        return live == expected
    return found.id == wanted.id
