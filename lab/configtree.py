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
from lab.modes import HEREDOCS, MODES, Cmd, Words, setting_rank, verbatim_family, verbatim_opener

_UNRANKED = setting_rank("", "")  # the rank of a setting in a mode without an order table

#: The mode of a block the lab does not model: its lines are stored as written.
VERBATIM = "verbatim"
#: The mode of a heredoc (``banner login``): its children are text lines, printed up to ``EOF``.
HEREDOC = "heredoc"


#: Modes whose nested blocks EOS prints before their own settings (``transport grpc X``
#: before ``provider eos-native``).
_BLOCKS_FIRST = frozenset({"mgmt-gnmi"})


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
    #: A line of a family the lab does not model: stored and printed as written, never checked.
    verbatim: bool = False
    #: For a top-level line of a family the printer has no section for: the line it followed when
    #: loaded, so it prints where the device printed it.
    anchor: str = ""

    def clone(self) -> ConfigLine:
        """A deep copy (much faster than ``copy.deepcopy`` on large trees)."""
        children = [c.clone() for c in self.children]
        return ConfigLine(self.text, self.key, self.mode, children, list(self.comments), self.verbatim, self.anchor)

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
    _top_lines: tuple[int, frozenset[str]] | None = field(default=None, compare=False, repr=False)

    def copy(self) -> Config:
        return Config(self.root.clone())

    def interfaces(self) -> dict[str, ConfigLine]:
        """Configured interface blocks by name (cached until the next change)."""
        if self._interfaces is None or self._interfaces[0] != self.version:
            blocks = {n.text.split(" ", 1)[1]: n for n in self.root.children if n.text.startswith("interface ")}
            self._interfaces = (self.version, blocks)
        return self._interfaces[1]

    def has_top(self, text: str) -> bool:
        """Whether ``text`` is a top-level line (the set of them cached until the next change).

        Example:
            >>> config = Config(ConfigLine("", "", "config", [ConfigLine("no lldp run", "lldp run")]))
            >>> config.has_top("no lldp run"), config.has_top("lldp run")
            (True, False)
        """
        if self._top_lines is None or self._top_lines[0] != self.version:
            self._top_lines = (self.version, frozenset(n.text for n in self.root.children))
        return text in self._top_lines[1]

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


class _Children:
    """One block's children by line, its sub-blocks and its settings by key (the first of each, as
    a scan finds them).

    Valid while the block's list of children is the one it was built from, at the length it
    knows: the editor appends through :meth:`add`; anything else that edits the list (a
    negation, a replace) makes a new list or changes its length, and the index is rebuilt.
    """

    def __init__(self, parent: ConfigLine) -> None:
        self.parent, self.children, self.length = parent, parent.children, len(parent.children)
        self.by_text: dict[str, ConfigLine] = {}
        self.blocks: dict[str, ConfigLine] = {}
        self.settings: dict[str, ConfigLine] = {}
        for child in parent.children:
            self._note(child)

    def fresh(self, parent: ConfigLine) -> bool:
        return parent.children is self.children and len(parent.children) == self.length

    def add(self, child: ConfigLine) -> None:
        """``child`` was appended to the block."""
        self.length += 1
        self._note(child)

    def _note(self, child: ConfigLine) -> None:
        self.by_text.setdefault(child.text, child)
        if child.mode:
            self.blocks.setdefault(child.key, child)
        elif child.mode is None:
            self.settings.setdefault(child.key, child)


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
        #: The last line stored that did not open a mode (a block when deeper lines follow).
        self.last: ConfigLine | None = None
        #: Per parent block: its children by line and its blocks by key, so loading a config
        #: that opens hundreds of interfaces does not scan the top level once per interface.
        self._children: dict[int, _Children] = {}

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
        if at_depth is not None and at_depth == len(self.stack) - 1 and self.stack[-1].mode == VERBATIM:
            self._store_verbatim(at_depth, line)  # indentation puts it inside an unmodelled block
            return
        negated = toks[0].lower() in ("no", "default")
        errors: list[MatchResult] = []
        for depth in range(len(self.stack) - 1, -1, -1):
            mode = self.stack[depth].mode
            assert mode is not None
            if mode not in MODES:
                continue
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
        at = self._verbatim_depth(line)
        if at is None:
            raise LineError(_best_error(errors))
        self._store_verbatim(at, line)

    # ------------------------------------------------------------------ unmodelled families
    def _family(self, depth: int) -> str | None:
        """The block family of the verbatim block at ``depth`` (``router multicast``, then ``ipv4``)."""
        family: str | None = None
        for node in self.stack[1 : depth + 1]:
            family = verbatim_opener(node.text, family) if node.mode == VERBATIM else None
        return family

    def _verbatim_depth(self, line: str) -> int | None:
        """Where an unmodelled line goes: the innermost mode that has its family, else the
        innermost unmodelled block (EOS knows the grammar; the lab knows the family names)."""
        fallback = None
        for depth in range(len(self.stack) - 1, -1, -1):
            node = self.stack[depth]
            if node.mode == VERBATIM:
                if verbatim_opener(line, self._family(depth)) is not None:
                    return depth
                fallback = depth if fallback is None else fallback
            elif node.mode in MODES and verbatim_family(node.mode, line) is not None:
                return depth
        return fallback

    def _store_verbatim(self, depth: int, line: str) -> None:
        del self.stack[depth + 1 :]
        parent = self.stack[depth]
        text = line.strip()
        family = self._family(depth) if parent.mode == VERBATIM else None
        opens = verbatim_opener(text, family) is not None if (parent.mode == VERBATIM or depth == 0) else False
        if text.startswith("no ") and not opens:
            target = text[3:]
            kept = [c for c in parent.children if not (c.text == target or c.text.startswith(target + " "))]
            if len(kept) != len(parent.children):
                parent.children = kept
                self.config.version += 1
                return
        node = parent.find(text)
        if node is None:
            node = ConfigLine(text, text, VERBATIM if opens else None, verbatim=True)
            if depth == 0 and parent.children:
                node.anchor = parent.children[-1].text
            if parent.mode in (VERBATIM, HEREDOC):
                parent.children.append(node)
            else:
                self._put(parent, node)
        self.last = node
        if node.mode is not None:
            self.stack.append(node)
        self.config.version += 1

    def open_below_last(self) -> bool:
        """Make the last unmodelled line a block (a deeper-indented line follows it)."""
        last = self.last
        if last is None or not last.verbatim or last.mode is not None:
            return False
        last.mode = VERBATIM
        self.stack.append(last)
        return True

    def heredoc(self, command: str, text: str) -> None:
        """``banner login`` with its text (eAPI's ``input``, or the lines up to ``EOF``)."""
        del self.stack[1:]
        root = self.config.root
        words = " ".join(command.split())
        lines = [ConfigLine(line, line, verbatim=True) for line in text.split("\n")]
        node = ConfigLine(words, words, HEREDOC, lines, verbatim=True)
        root.children = [c for c in root.children if c.text != words]
        root.children.append(node)
        self.config.version += 1

    def _set(self, depth: int, cmd: Cmd, words: Words) -> None:
        if cmd.canon is not None:
            words = cmd.canon(words)
        del self.stack[depth + 1 :]
        parent = self.stack[depth]
        text = " ".join(words)
        key = cmd.key_of(_strip_no(words))
        self.last = None
        if cmd.opens:
            children = self._index(parent)
            node = children.by_text.get(text)
            if node is None:
                same = children.blocks.get(key)
                if same is not None and cmd.key is not None:
                    raise LineError(f"Invalid input (already configured as '{same.text}')")
                node = ConfigLine(text, key, cmd.opens)
                parent.children.append(node)
                children.add(node)
            self.stack.append(node)
            return
        node = ConfigLine(text, key)
        self._put(parent, node)
        self.last = node

    def _index(self, parent: ConfigLine) -> _Children:
        """The index of ``parent``'s children, rebuilt when its list was changed behind it."""
        found = self._children.get(id(parent))
        if found is None or not found.fresh(parent):
            found = self._children[id(parent)] = _Children(parent)
        return found

    def _put(self, parent: ConfigLine, node: ConfigLine) -> None:
        children = self._index(parent)
        same = children.settings.get(node.key)
        if same is not None:  # a single-valued setting: the new value replaces the old in place
            parent.children[next(i for i, child in enumerate(parent.children) if child is same)] = node
            del self._children[id(parent)]  # same length, another line: not seen by fresh()
            return
        rank = setting_rank(parent.mode or "", node.text)
        if parent.mode == "config" or (not children.blocks and rank == _UNRANKED):
            # the printer orders top-level sections; with no block and no order table, the end
            parent.children.append(node)
            children.add(node)
            return
        place = len(parent.children)
        for i, child in enumerate(parent.children):
            # EOS prints a mode's own settings before its nested blocks (router-id before
            # address-family), and interface settings in its own order: a new setting goes
            # before the first block or the first setting that EOS prints after it.
            if (child.mode is not None and parent.mode not in _BLOCKS_FIRST) or setting_rank(
                parent.mode or "", child.text
            ) > rank:
                place = i
                break
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
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        raw = lines[number]
        number += 1
        stripped = raw.strip()
        if not stripped or stripped == "end":
            continue
        indent = (len(raw) - len(raw.lstrip(" "))) // 3
        if stripped.startswith("!!"):
            del editor.stack[indent + 1 :]
            editor.stack[-1].comments.append(stripped)
            continue
        if stripped.startswith("! boot system ") and indent == 0:
            stripped = stripped[2:]  # the boot image, which EOS shows as a comment
        elif stripped.startswith("!"):
            continue
        if indent == 0 and " ".join(stripped.split()) in HEREDOCS:
            end = next((i for i in range(number, len(lines)) if lines[i] == "EOF"), len(lines))
            editor.heredoc(stripped, "\n".join(lines[number:end]))
            number = end + 1
            continue
        if indent == len(editor.stack):
            editor.open_below_last()
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
