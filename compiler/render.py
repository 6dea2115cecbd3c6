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

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from io import StringIO
from pathlib import Path
from typing import Any

import jinja2
import jinja2.tests
from jinja2 import nodes
from jinja2.compiler import CodeGenerator, Frame

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


class _DictReads(CodeGenerator):
    """Jinja2's code generator, reading ``name.key`` of a plain dict without a call.

    The templates test and print keys of dicts (``iface.mtu is defined``, ``{{ iface.mtu }}``):
    as Jinja compiles them, every one is a call of :meth:`_Environment.getattr` and of the test,
    twenty-odd per interface. Where ``name`` is a plain local (a loop variable) and ``key`` is no
    dict method, the compiled code reads the dict itself: ``key in name`` for ``is defined``,
    ``name.get(key) is True`` for ``is true``, ``name[key]`` for a value; anything but a dict
    takes Jinja's path. The result is the same as ``_Environment.getattr`` and the tests give.

    Example:
        >>> env = environment()
        >>> "environment.getattr(" in env.compile("{{ a.b }}", raw=True)  # a context name: Jinja's path
        True
        >>> code = env.compile("{% for i in x %}{% if i.b is defined %}{{ i.b }}{% endif %}{% endfor %}", raw=True)
        >>> "'b' in l_1_i if l_1_i.__class__ is dict" in code
        True
    """

    def visit_Getattr(self, node: nodes.Getattr, frame: Frame) -> None:  # noqa: N802 (Jinja2's visitor name)
        local = self._local_dict(node, frame)
        if local is None:
            super().visit_Getattr(node, frame)
            return
        name, key = local
        self.write(f"({name}[{key!r}] if {name}.__class__ is dict and {key!r} in {name} ")
        self.write(f"else environment.getattr({name}, {key!r}))")

    def visit_Test(self, node: nodes.Test, frame: Frame) -> None:  # noqa: N802 (Jinja2's visitor name)
        fast = _FAST_TESTS.get(node.name)
        local = self._local_dict(node.node, frame) if fast is not None else None
        if fast is None or local is None or self.environment.tests.get(node.name) is not fast[0]:
            super().visit_Test(node, frame)
            return
        name, key = local
        self.write(f"({fast[1].format(name=name, key=repr(key))} if {name}.__class__ is dict ")
        self.write(f"else {self.tests[node.name]}(environment.getattr({name}, {key!r})))")

    def _local_dict(self, node: nodes.Node, frame: Frame) -> tuple[str, str] | None:
        """(the Python local, the key) of ``local.key``, or None for anything else."""
        if self.environment.is_async or not isinstance(node, nodes.Getattr):
            return None
        if not isinstance(node.node, nodes.Name) or node.attr in _DICT_ATTRIBUTES:
            return None
        with self._captured() as text:
            self.visit(node.node, frame)
        name = text.getvalue()
        return (name, node.attr) if name.isidentifier() else None

    @contextmanager
    def _captured(self) -> Iterator[StringIO]:
        """What the generator writes meanwhile, kept apart (to read how it names a variable)."""
        stream, self.stream = self.stream, StringIO()
        try:
            yield self.stream
        finally:
            self.stream = stream


_FAST_TESTS: dict[str, tuple[Any, str]] = {
    "defined": (jinja2.tests.test_defined, "{key} in {name}"),
    "true": (jinja2.tests.test_true, "{name}.get({key}) is True"),
}
"""The tests read inline on a dict: Jinja's function (only when the environment still has it)
and the expression that gives its answer."""

CODE_GENERATION = "dict-reads-1"
"""Names the code :class:`_DictReads` generates: compiled templates kept by an earlier one
are not reused."""


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
    env.code_generator_class = _DictReads
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

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return super().get_cache_key(f"{CODE_GENERATION}:{name}", filename)

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
