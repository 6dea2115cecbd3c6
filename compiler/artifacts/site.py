"""The artifacts around the switch configs: server configs, cabling, IP plan, power, assets,
monitoring, validation and docs. Each writer returns ``{path under generated/: text}``."""

from __future__ import annotations

from compiler.intent import Intent
from compiler.structured import Fabric


def site_artifacts(intent: Intent, fabric: Fabric) -> dict[str, str]:
    """Every non-config artifact of the cluster."""
    return {}
