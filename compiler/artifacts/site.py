"""The artifacts around the switch configs: server configs, cabling, IP plan, power, assets,
monitoring, validation and docs. Each writer returns ``{path under generated/: text}``."""

from __future__ import annotations

from collections.abc import Callable

from compiler.artifacts.assets import asset_files
from compiler.artifacts.cabling import cabling_files
from compiler.artifacts.diagram import diagram_files
from compiler.artifacts.docs import docs_files
from compiler.artifacts.ipplan import ipplan_files
from compiler.artifacts.monitoring import monitoring_files
from compiler.artifacts.power import power_files
from compiler.artifacts.servers import server_files
from compiler.artifacts.validation import validation_files
from compiler.fabric import ResolvedFabric
from compiler.intent import Intent

Writer = Callable[[Intent, ResolvedFabric], dict[str, str]]

WRITERS: tuple[Writer, ...] = (
    server_files,
    cabling_files,
    ipplan_files,
    power_files,
    asset_files,
    monitoring_files,
    validation_files,
    docs_files,
    diagram_files,
)
"""One writer per artifact module; later writers never overwrite earlier ones' paths."""


def site_artifacts(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """Every non-config artifact of the cluster.

    ``inventory/cabling.csv`` supersedes the one of ``compiler.artifacts.inventory``: same
    first columns, with lengths, optics and labels after them.
    """
    files: dict[str, str] = {}
    for writer in WRITERS:
        files.update(writer(intent, fabric))
    return files
