"""The artifacts around the switch configs: server configs, cabling, IP plan, power, assets,
monitoring, validation and docs. Each writer returns ``{path under generated/: text}``.

The per-server and per-switch files come in units (:mod:`compiler.artifacts.units`), which an
incremental compile rebuilds only when their inputs changed; so do the sections the big
fleet-wide tables are joined from: the expected counters per switch, the cable list
(``cabling.csv`` and ``cabling.md``) per A-end switch, ``assets.csv`` per run of switches or
servers in one rack, ``ip-plan.csv`` per network, pool and /24, ``link-tests.csv`` per rack,
each after its header's section; the pictures (``docs/*.svg``) per row of blocks, after the
spines and buses. The Nornir inventory and the collector's configuration are
units too, keyed by the switches they list; the other fleet-wide files are small and built on
every compile, one pass over their rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import chain

from compiler.artifacts.assets import asset_units
from compiler.artifacts.cabling import cabling_units
from compiler.artifacts.diagram import diagram_units
from compiler.artifacts.docs import docs_files
from compiler.artifacts.inventory import inventory_unit
from compiler.artifacts.ipplan import ipplan_summary, ipplan_units
from compiler.artifacts.monitoring import collector_unit, rule_units
from compiler.artifacts.power import power_files
from compiler.artifacts.servers import server_units
from compiler.artifacts.units import Unit, built
from compiler.artifacts.validation import link_test_units, validation_tables
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent

Writer = Callable[[Intent, ResolvedFabric], dict[str, str]]

WRITERS: tuple[Writer, ...] = (
    ipplan_summary,
    power_files,
    validation_tables,
    docs_files,
)
"""One writer per fleet-wide artifact module; later writers never overwrite earlier ones' paths."""


def site_units(intent: Intent, fabric: ResolvedFabric) -> Iterator[Unit]:
    """The per-server directories, per-switch alert rules, the sections of the big tables and of
    the pictures, unit by unit (a file's sections in its order), and the fleet-wide files made of
    the switches alone (the Nornir inventory, the collector), kept while those are unchanged."""
    return chain(
        (inventory_unit(intent, fabric), collector_unit(intent, fabric)),
        server_units(intent, fabric),
        rule_units(intent, fabric),
        cabling_units(intent, fabric),
        asset_units(intent, fabric),
        ipplan_units(fabric),
        link_test_units(fabric),
        diagram_units(intent, fabric),
    )


def fleet_artifacts(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """The fleet-wide artifacts.

    The big tables come in sections from :func:`site_units`.
    """
    files: dict[str, str] = {}
    for writer in WRITERS:
        files.update(writer(intent, fabric))
    return files


def site_artifacts(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """Every non-config artifact of the cluster."""
    return {**built(site_units(intent, fabric)), **fleet_artifacts(intent, fabric)}
