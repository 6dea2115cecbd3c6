"""Writers of everything under ``generated/`` except the switch configs themselves.

Each writer is a pure function ``(intent, fabric) -> {relative path: text}``.
"""

from __future__ import annotations

from compiler.artifacts.inventory import nornir_inventory
from compiler.artifacts.structured import structured_configs

__all__ = ["nornir_inventory", "structured_configs"]
