"""Render structured configs to text: Jinja2 templates that only loop and print.

Templates see plain data only: the ``config`` of a device's structured document, exactly as
``generated/structured/<device>.yaml`` holds it (unset keys absent), and, as ``eos``, the
``templates`` block of the platform's data file (``compiler/platforms/eos.yaml``). So the
committed YAML renders back to the committed config with the platform's templates and data file
alone.

Example:
    >>> print(render_template("eos/interfaces.j2", {
    ...     "interfaces": [{"name": "Ethernet1", "description": "SERVER_x_nic0", "mtu": 9214}],
    ... }), end="")
    interface Ethernet1
       description SERVER_x_nic0
       mtu 9214
    !
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from compiler.artifacts.yamltext import pruned
from compiler.fabric import Device
from compiler.platforms import eos

_MISSING = object()
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja2 reading mappings first: ``iface.mtu`` on a dict is a key lookup.

    Jinja's own ``getattr`` tries the attribute first, which raises and catches an
    ``AttributeError`` for every key of every interface (the bulk of a compile's render).
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            value = obj.get(attribute, _MISSING)
            return _absent(attribute) if value is _MISSING else value
        return super().getattr(obj, attribute)


@cache
def _absent(key: str) -> jinja2.StrictUndefined:
    """The one undefined value of a missing key (shared: absent keys are the common case)."""
    return jinja2.StrictUndefined(name=key)


@cache
def environment() -> jinja2.Environment:
    """The one Jinja2 environment: strict (an undefined name is a bug), no autoescape (CLI text).

    Templates are package data that do not change while a compile runs, so ``auto_reload`` is
    off: with it, every ``get_template`` and ``{% include %}`` stat()ed the template file again,
    tens of thousands of times at scale.
    """
    env = _Environment(
        loader=jinja2.PackageLoader("compiler", "templates"),
        auto_reload=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.globals["eos"] = eos.data().templates
    return env


def keep_bytecode(directory: Path) -> None:
    """Keep the compiled templates in ``directory`` for the next process.

    Compiling the templates to Python takes a good part of a small compile's time. Jinja2's
    bytecode cache keys each one by its name and the sha1 of its source (and the Python
    version), so an edited template is compiled again; a cache that cannot be written or
    read only costs that time.
    """
    directory.mkdir(parents=True, exist_ok=True)
    environment().bytecode_cache = _ForgivingBytecodeCache(str(directory))


class _ForgivingBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja2's file cache, except that a template it cannot keep is only not kept.

    The environment lives as long as the process; the folder may not (a project removed, a
    cache cleared): Jinja2 already reads a missing file as a miss, and this writes nothing
    instead of failing the render.
    """

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            return


def render_template(name: str, context: dict[str, Any]) -> str:
    """Render one template with ``context``."""
    return environment().get_template(name).render(context)


def render_config(config: dict[str, Any]) -> str:
    """The EOS running-config text of one structured config (plain data, as in the YAML)."""
    return render_template("eos/device.j2", config)


def render_device(device: Device) -> str:
    """The EOS running-config text of ``device``."""
    return render_config(pruned(device.config))
