"""The configuration of one emulated switch as a tree, and the line editor that changes it.

Lines arrive without indentation (NAPALM strips it), so :class:`Editor` finds
each line's mode as EOS does: the current mode first, then each parent (see
:mod:`lab.modes`). ``no X`` removes X (with its block) unless EOS stores that
negation as a setting; a single-valued command replaces its old value in place.

Examples:
    >>> cfg = Config()
    >>> ed = Editor(cfg)
    >>> for line in ["interface Ethernet1", "mtu 1500", "mtu 9214", "hostname leaf1"]:
    ...     ed.apply(line)
    >>> [(n.text, [c.text for c in n.children]) for n in cfg.root.children]
    [('interface Ethernet1', ['mtu 9214']), ('hostname leaf1', [])]
    >>> ed.apply("no interface Ethernet1")
    >>> [n.text for n in cfg.root.children]
    ['hostname leaf1']
    >>> try:
    ...     ed.apply("hostnamee leaf1")
    ... except LineError as exc:
    ...     print(exc)
    Invalid input (at token 0: 'hostnamee')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from lab.grammar import MatchResult, match_specs
from lab.modes import MODES, Cmd, Words, setting_rank


class LineError(Exception):
    """A configuration line EOS would reject; the message is EOS's error text."""


@dataclass
class ConfigLine:
    """One configuration line and, for a mode opener, the block under it."""

    text: str
    key: str
    mode: str | None = None
    children: list[ConfigLine] = field(default_factory=list)
    #: ``!!`` mode comments, printed first in the block.
    comments: list[str] = field(default_factory=list)

    def clone(self) -> ConfigLine:
        """A deep copy (much faster than ``copy.deepcopy`` on large trees)."""
        return ConfigLine(self.text, self.key, self.mode, [c.clone() for c in self.children], list(self.comments))

    def find(self, text: str) -> ConfigLine | None:
        """The direct child whose line is ``text``."""
        for child in self.children:
            if child.text == text:
                return child
        return None

    def walk(self, depth: int = 0) -> list[tuple[int, ConfigLine]]:
        """Every node under this one, depth-first, with its depth (children start at 0)."""
        out: list[tuple[int, ConfigLine]] = []
        for child in self.children:
            out.append((depth, child))
            out += child.walk(depth + 1)
        return out


@dataclass
class Config:
    """A whole configuration: the children of ``root`` are the top-level lines."""

    root: ConfigLine = field(default_factory=lambda: ConfigLine("", "", "config"))
    #: Bumped by the editor on every change, so derived views can be cached.
    version: int = field(default=0, compare=False)
    _interfaces: tuple[int, dict[str, ConfigLine]] | None = field(default=None, compare=False, repr=False)

    def copy(self) -> Config:
        return Config(self.root.clone())

    def interfaces(self) -> dict[str, ConfigLine]:
        """Configured interface blocks by name (cached until the next change)."""
        if self._interfaces is None or self._interfaces[0] != self.version:
            blocks = {n.text.split(" ", 1)[1]: n for n in self.root.children if n.text.startswith("interface ")}
            self._interfaces = (self.version, blocks)
        return self._interfaces[1]

    def top(self, prefix: str) -> list[ConfigLine]:
        """Top-level nodes whose line starts with ``prefix``."""
        return [n for n in self.root.children if n.text.startswith(prefix)]

    def block(self, text: str) -> ConfigLine | None:
        return self.root.find(text)

    def value(self, block: ConfigLine | None, prefix: str) -> str | None:
        """The rest of the first line under ``block`` (or top level) starting with ``prefix``."""
        parent = block if block is not None else self.root
        for child in parent.children:
            if child.text == prefix.strip() or child.text.startswith(prefix):
                return child.text[len(prefix) :].strip()
        return None


@lru_cache(maxsize=65536)
def _match(mode: str, toks: Words, abbreviations: bool = True) -> tuple[MatchResult, Cmd | None]:
    """Cached: the same lines recur on every device of a fabric."""
    cmds = MODES[mode].cmds
    result = match_specs([c.spec for c in cmds], toks, abbreviations=abbreviations)
    if result.spec is None:
        return result, None
    cmd = next(c for c in cmds if c.spec is result.spec)
    return result, cmd


def _strip_no(words: Words) -> Words:
    return words[1:] if words and words[0] == "no" else words


class Editor:
    """Applies configuration lines to a :class:`Config`, tracking the current mode.

    ``apply`` returns normally, or raises :class:`LineError` and leaves the
    configuration as it was before that line.
    """

    def __init__(self, config: Config, *, abbreviations: bool = True) -> None:
        self.config = config
        self.stack: list[ConfigLine] = [config.root]
        #: Keyword abbreviations (``int eth1``): the CLI and eAPI with ``autoComplete``.
        self.abbreviations = abbreviations

    @property
    def depth(self) -> int:
        """0 at the top level of configuration mode."""
        return len(self.stack) - 1

    def exit(self) -> bool:
        """Leave one sub-mode; False when already at the top level (leaves config mode)."""
        if len(self.stack) == 1:
            return False
        self.stack.pop()
        return True

    def comment(self, text: str) -> None:
        """``comment`` with input: ``!!`` lines in the current mode."""
        node = self.stack[-1]
        if node is self.config.root:
            raise LineError("Invalid input (at token 0: 'comment')")
        node.comments += [f"!! {line}".rstrip() for line in text.splitlines()]

    def apply(self, line: str, *, at_depth: int | None = None) -> None:
        """Apply one line. ``at_depth`` (from indentation) pins the mode to try first."""
        toks = tuple(line.split())
        if not toks:
            return
        if toks == ("exit",):
            self.exit()
            return
        if at_depth is not None and at_depth < len(self.stack):
            del self.stack[at_depth + 1 :]
        negated = toks[0].lower() in ("no", "default")
        errors: list[MatchResult] = []
        for depth in range(len(self.stack) - 1, -1, -1):
            mode = self.stack[depth].mode
            assert mode is not None
            result, cmd = _match(mode, toks, self.abbreviations)
            if cmd is not None:
                self._set(depth, cmd, result.canonical)
                self.config.version += 1
                return
            errors.append(result)
            if negated:
                sub, subcmd = _match(mode, toks[1:], self.abbreviations)
                if subcmd is not None or sub.error == "Incomplete command":
                    self._negate(depth, subcmd, sub.canonical or tuple(toks[1:]), toks[0])
                    self.config.version += 1
                    return
        raise LineError(_best_error(errors))

    def _set(self, depth: int, cmd: Cmd, words: Words) -> None:
        if cmd.canon is not None:
            words = cmd.canon(words)
        del self.stack[depth + 1 :]
        parent = self.stack[depth]
        text = " ".join(words)
        key = cmd.key_of(_strip_no(words))
        if cmd.opens:
            node = parent.find(text)
            if node is None:
                same = [c for c in parent.children if c.key == key and c.mode]
                if same and cmd.key is not None:
                    raise LineError(f"Invalid input (already configured as '{same[0].text}')")
                node = ConfigLine(text, key, cmd.opens)
                parent.children.append(node)
            self.stack.append(node)
            return
        self._put(parent, ConfigLine(text, key))

    @staticmethod
    def _put(parent: ConfigLine, node: ConfigLine) -> None:
        if parent.mode == "config":
            for i, child in enumerate(parent.children):
                if child.key == node.key and child.mode is None:
                    parent.children[i] = node
                    return
            parent.children.append(node)  # the printer orders top-level sections
            return
        rank = setting_rank(parent.mode or "", node.text)
        place = len(parent.children)
        for i, child in enumerate(parent.children):
            if child.key == node.key and child.mode is None:
                parent.children[i] = node
                return
            # EOS prints a mode's own settings before its nested blocks (router-id before
            # address-family), and interface settings in its own order: a new setting goes
            # before the first block or the first setting that EOS prints after it.
            if place == len(parent.children) and (
                child.mode is not None or setting_rank(parent.mode or "", child.text) > rank
            ):
                place = i
        parent.children.insert(place, node)

    def _negate(self, depth: int, cmd: Cmd | None, words: Words, verb: str) -> None:
        del self.stack[depth + 1 :]
        parent = self.stack[depth]
        if cmd is not None and cmd.neg == "store" and verb.lower() == "no":
            self._put(parent, ConfigLine(" ".join(("no", *words)), cmd.key_of(words)))
            return
        if cmd is not None and cmd.opens:
            text = " ".join(words)
            parent.children = [c for c in parent.children if c.text != text]
            return
        if cmd is not None:
            key = cmd.key_of(words)
            parent.children = [c for c in parent.children if c.key != key]
            return
        prefix = [w.lower() for w in words]
        parent.children = [
            c for c in parent.children if list(_strip_no(tuple(c.text.lower().split())))[: len(prefix)] != prefix
        ]


def _best_error(errors: list[MatchResult]) -> str:
    for wanted in ("Incomplete command", "Ambiguous command"):
        if errors and errors[0].error == wanted:
            return wanted
    best = max(errors, key=lambda r: r.error_token)
    return best.error


def load_text(config: Config, text: str) -> list[str]:
    """Load indented running-config text; returns the errors of lines that were skipped.

    Indentation (3 spaces a level) pins each line's mode, as when EOS reads a
    startup-config; a line that fails there is retried with mode inference.

    Examples:
        >>> cfg = Config()
        >>> load_text(cfg, "interface Ethernet1\\n   description x\\n!\\nbogus\\nend\\n")
        ["line 4: Invalid input (at token 0: 'bogus')"]
        >>> cfg.root.children[0].children[0].text
        'description x'
    """
    editor = Editor(config)
    errors = []
    for number, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped == "end":
            continue
        indent = (len(raw) - len(raw.lstrip(" "))) // 3
        if stripped.startswith("!!"):
            del editor.stack[indent + 1 :]
            editor.stack[-1].comments.append(stripped)
            continue
        if stripped.startswith("!"):
            continue
        saved = list(editor.stack)
        try:
            editor.apply(stripped, at_depth=indent)
        except LineError as exc:
            # Unindented text (as NAPALM sends it): fall back to mode inference.
            editor.stack = saved
            try:
                editor.apply(stripped)
            except LineError:
                errors.append(f"line {number}: {exc}")
    return errors
