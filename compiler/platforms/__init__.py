"""Platform layers: the only Python that spells a network OS's names and syntax.

Facts and structured configs are built by the rest of the compiler; whatever they carry in a
device's own words (an interface name, an EOS phrase) is made here. One module per platform;
``eos`` is the one the fabric runs today.
"""

from __future__ import annotations

from compiler.platforms import eos

__all__ = ["eos"]
