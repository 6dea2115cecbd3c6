"""Deterministic YAML text from plain data (and from dataclasses, pruned of unset fields).

A small block-style emitter: the structured configs are plain dicts, lists, strings, numbers
and booleans, and PyYAML's pure-Python representer was most of the compile time.
A test round-trips every generated file through ``yaml.safe_load``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from functools import cache
from typing import Any

_PLAIN = re.compile(r"^[A-Za-z_/][A-Za-z0-9_./:@<>+-]*( [A-Za-z0-9_./:@<>+-]+)*$")
_IPV4 = re.compile(r"^\d{1,3}(\.\d{1,3}){3}(/\d{1,2})?$")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


_CONTAINERS = (dict, list, tuple)
_SEQUENCES = (list, tuple)
_NUMBERS = (int, float)


def _scalar(value: Any) -> str:
    """One scalar, quoted only when YAML would read it as something else.

    Examples:
        >>> [_scalar(v) for v in ("rack01-leaf-a", "10.30.1.2/24", "on", "1 2", 3, True, None)]
        ['rack01-leaf-a', '10.30.1.2/24', '"on"', '"1 2"', '3', 'true', 'null']
    """
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, _NUMBERS):
        return repr(value)
    return _text(str(value))


@cache
def _text(text: str) -> str:
    """A string scalar, memoised: the same names, ports and addresses recur across every file."""
    plain = _PLAIN.match(text) and ": " not in text and not text.endswith(":")
    if _IPV4.match(text) or (plain and text.lower() not in _RESERVED):
        return text
    return json.dumps(text)


def _emit(data: Any, indent: str, out: list[str]) -> None:
    # isinstance against prebuilt tuples: checking against ``X | Y`` unions is slower, and
    # this runs once per node of every structured and monitoring file.
    if isinstance(data, dict):
        for key, value in data.items():
            head = f"{indent}{_scalar(key)}:"
            if value and isinstance(value, _CONTAINERS):
                out.append(head)
                _emit(value, indent + "  " if isinstance(value, dict) else indent, out)
            else:
                out.append(f"{head} {_empty_or_scalar(value)}")
    else:
        for item in data:
            if item and isinstance(item, _CONTAINERS):
                lines: list[str] = []
                _emit(item, indent + "  ", lines)
                out.append(f"{indent}- {lines[0].lstrip()}")
                out.extend(lines[1:])
            else:
                out.append(f"{indent}- {_empty_or_scalar(item)}")


def _empty_or_scalar(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, _SEQUENCES):
        return "[]"
    return _scalar(value)


def to_yaml(data: Any) -> str:
    """Block-style YAML, keys in insertion order.

    Example:
        >>> print(to_yaml({"b": 1, "a": [1, {"x": "v", "z": [2]}], "c": {}}), end="")
        b: 1
        a:
        - 1
        - x: v
          z:
          - 2
        c: {}
    """
    out: list[str] = []
    _emit(data, "", out)
    return "\n".join(out) + "\n"


@cache
def _field_names(cls: Any) -> tuple[str, ...]:
    """The fields of a record type (a NamedTuple or a dataclass), () for anything else."""
    fields = getattr(cls, "_fields", None)
    if fields is not None:
        return tuple(fields)
    return tuple(f.name for f in dataclasses.fields(cls)) if dataclasses.is_dataclass(cls) else ()


def pruned(obj: Any) -> Any:
    """A tree of records (NamedTuples, dataclasses) as plain data without None, False or empty
    fields (the defaults).

    Example:
        >>> from compiler.structured import Interface
        >>> pruned(Interface("Ethernet1", mtu=9214))
        {'name': 'Ethernet1', 'mtu': 9214}
    """
    if isinstance(obj, str | int | float) or obj is None:
        return obj
    cls: Any = type(obj)
    names = _field_names(cls)
    if not names:
        if isinstance(obj, dict):
            return {k: pruned(v) for k, v in obj.items()}
        return [pruned(v) for v in obj]
    out = {}
    for name in names:
        value = getattr(obj, name)
        if value is None or value is False or (not value and isinstance(value, list | tuple | dict)):
            continue
        out[name] = pruned(value)
    return out
