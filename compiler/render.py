"""Render structured configs to text: Jinja2 templates that only loop and print.

Example:
    >>> from compiler.structured import Interface
    >>> print(render_template("eos/interfaces.j2", {
    ...     "interfaces": [Interface("Ethernet1", description="SERVER_x_nic0", mtu=9214)],
    ...     "virtual_router_mac": None,
    ... }), end="")
    interface Ethernet1
       description SERVER_x_nic0
       mtu 9214
    !
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

import jinja2

from compiler.structured import Device


@cache
def environment() -> jinja2.Environment:
    """The one Jinja2 environment: strict (an undefined name is a bug), no autoescape (CLI text).

    Templates are package data that do not change while a compile runs, so ``auto_reload`` is
    off: with it, every ``get_template`` and ``{% include %}`` stat()ed the template file again,
    tens of thousands of times at scale.
    """
    return jinja2.Environment(
        loader=jinja2.PackageLoader("compiler", "templates"),
        auto_reload=False,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render_template(name: str, context: dict[str, Any]) -> str:
    """Render one template with ``context``."""
    return environment().get_template(name).render(context)


def shallow_dict(obj: Any) -> dict[str, Any]:
    """A dataclass's fields as a dict, without recursing (templates read attributes)."""
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def render_device(device: Device) -> str:
    """The EOS running-config text of ``device``."""
    return render_template("eos/device.j2", shallow_dict(device.config))
