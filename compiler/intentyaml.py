"""The YAML loader of the intent files: libyaml's parser with YAML 1.2 scalars (imported by
:func:`compiler.intent._parse_yaml` only when a file is parsed: a compile whose intent files are
all kept, :mod:`compiler.intentcache`, never imports PyYAML, 10 ms)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml

_RESOLVE: Callable[[Any, type[yaml.Node], Any, tuple[bool, bool]], str] = yaml.CSafeLoader.resolve
"""PyYAML's resolver (untyped in its stubs)."""


class Loader(yaml.CSafeLoader):
    r"""libyaml's fast parser with YAML 1.2 scalars: only true/false are booleans, no base-60; a
    key written twice in one mapping is an error.

    Examples:
        >>> yaml.load("a: on\nb: 1:30\nc: true\nd: 12", Loader=Loader)
        {'a': 'on', 'b': '1:30', 'c': True, 'd': 12}
        >>> yaml.load("- [12, '12', 12, true, 'true', true]", Loader=Loader)
        [[12, '12', 12, True, 'true', True]]
        >>> yaml.load("x:\n  a: 1\nx:\n  b: 2\n", Loader=Loader)
        Traceback (most recent call last):
        ...
        yaml.constructor.ConstructorError: key 'x' is written twice (first on line 1): merge the two into one
          in "<unicode string>", line 3, column 1
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._plain_tags: dict[str, str] = {}

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: tuple[bool, bool]) -> str:
        """The tag of a node; a plain scalar's kept by its text for the document: racks.yaml
        repeats a few keys and values thousands of times at scale, and each went through
        the resolvers' regular expressions again (a quarter of loading the 16x racks.yaml)."""
        if kind is not yaml.ScalarNode or not implicit[0]:
            return _RESOLVE(self, kind, value, implicit)
        tag = self._plain_tags.get(value)
        if tag is None:
            tag = self._plain_tags[value] = _RESOLVE(self, kind, value, implicit)
        return tag

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """A mapping, refusing a key written twice: PyYAML keeps the last one silently, and a
        second block for one device would replace the first without a word."""
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node)
            line = key_node.start_mark.line + 1
            if key in first:
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"key {key!r} is written twice (first on line {first[key]}): merge the two into one",
                    key_node.start_mark,
                )
            first[key] = line
        return super().construct_mapping(node, deep=deep)


Loader.yaml_implicit_resolvers = {
    first: [
        (tag, rx)
        for tag, rx in resolvers
        if tag not in {"tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
    ]
    for first, resolvers in yaml.CSafeLoader.yaml_implicit_resolvers.items()
}
Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$"), list("-+0123456789"))
Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$"),
    list("-+0123456789."),
)
