"""Device state on disk: ``.lab/state/<device>.json``, written atomically on every change.

Examples:
    >>> import tempfile, pathlib
    >>> from lab.configtree import Config, Editor
    >>> cfg = Config(); Editor(cfg).apply("hostname leaf1")
    >>> back = tree_from_json(tree_to_json(cfg.root))
    >>> back.children[0].text
    'hostname leaf1'
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "x.json"
    >>> write_json_atomic(path, {"a": 1}); path.read_text()
    '{\\n  "a": 1\\n}\\n'
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from lab.configtree import Config, ConfigLine

STATE_VERSION = 1


def tree_to_json(node: ConfigLine) -> list[Any]:
    """[text, key, mode, comments, children(, flags)] recursively (exact, no re-parsing needed).

    ``flags`` is there only for a line of a family the lab does not model.
    """
    out: list[Any] = [node.text, node.key, node.mode, list(node.comments), [tree_to_json(c) for c in node.children]]
    if node.verbatim:
        out.append({"verbatim": True, "anchor": node.anchor} if node.anchor else {"verbatim": True})
    return out


def tree_from_json(data: list[Any]) -> ConfigLine:
    text, key, mode, comments, children, *rest = data
    flags = rest[0] if rest else {}
    children = [tree_from_json(c) for c in children]
    return ConfigLine(
        text, key, mode, children, list(comments), bool(flags.get("verbatim")), str(flags.get("anchor", ""))
    )


def config_from_json(data: list[Any]) -> Config:
    return Config(tree_from_json(data))


def write_json_atomic(path: Path, data: Any, *, indent: int | None = 2) -> None:
    """Write JSON through a temp file and ``os.replace`` so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(data, handle, indent=indent)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def device_state(
    running: Config, startup: Config, files: dict[str, Config], unit: tuple[str, str] | None = None
) -> dict[str, Any]:
    """The state file of a device; ``unit``: the (serial, base MAC) of a replaced unit."""
    state = {
        "version": STATE_VERSION,
        "running": tree_to_json(running.root),
        "startup": tree_to_json(startup.root),
        "files": {name: tree_to_json(cfg.root) for name, cfg in files.items()},
    }
    return {**state, "unit": list(unit)} if unit is not None else state


def read_state(path: Path) -> tuple[Config, Config, dict[str, Config], tuple[str, str] | None] | None:
    """(running, startup, files, the unit if replaced) from a state file, or None if absent or unreadable."""
    try:
        data = json.loads(path.read_text())
        if data.get("version") != STATE_VERSION:
            return None
        unit = data.get("unit")
        return (
            config_from_json(data["running"]),
            config_from_json(data["startup"]),
            {k: config_from_json(v) for k, v in data.get("files", {}).items()},
            (str(unit[0]), str(unit[1])) if unit else None,
        )
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None
