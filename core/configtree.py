"""Config text as a tree of sections, compared by meaning under per-platform rules.

Why a small tree of our own rather than hier_config or deepdiff (measured in
``bench/configtree.py``): hier_config 3.7 parses as fast and as completely and answers "which
commands fix this", but a drift audit must also say *what kind* of difference each one is (a
changed value, a secret whose keyed hash differs, a reordered sequence), drop the lines a
device's release prints by itself, and compare secrets without holding their values; and
hier_config's ``future()`` keeps the old value of an EOS single-valued command where the switch
replaces it. Those are a few dozen lines on a plain tree, driven by the same rule data
(:mod:`core.platforms`) that remediation reads; deepdiff compares generic objects and knows
nothing of sections or negation.

The model:

* :func:`parse` builds a :class:`Node` tree from indentation, masking volatile lines,
  replacing each secret by ``<secret>`` (its keyed fingerprint kept on the node), merging
  repeated sections (EOS merges them too) and letting a later single-valued line replace an
  earlier one with the same key (``no shutdown`` after ``shutdown``);
* :func:`normalise` removes the device's default lines (:class:`core.platforms.DefaultLine`);
* :func:`diff` lists :class:`Change` values per section path; children are a set except in
  ordered sections (ACLs), where order is compared too;
* :func:`remediation` gives the lines that turn one tree into the other, and :func:`future`
  applies lines to a tree, so ``future(running, remediation(generated, running)) == generated``
  can be tested (hier_config's circular test).

Examples:
    >>> from core.platforms import get_rules
    >>> eos = get_rules("eos")
    >>> want = parse("interface Ethernet1\\n   description a\\n   shutdown\\n", eos)
    >>> have = parse("! device: x\\ninterface Ethernet1\\n   description b\\n   shutdown\\nend\\n", eos)
    >>> [str(c) for c in diff(want, have, eos)]
    ["interface Ethernet1: changed 'description a' -> 'description b'"]
    >>> remediation(want, have, eos)
    ['interface Ethernet1', '   description a']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

from core.masking import secret_hint, secret_spans
from core.platforms import PlatformRules

__all__ = [
    "SECRET_MASK",
    "Change",
    "ChangeKind",
    "Node",
    "diff",
    "future",
    "line_key",
    "negate",
    "normalise",
    "parse",
    "remediation",
    "render",
]

SECRET_MASK = "<secret>"

#: What a change means, from git's point of view: ``added`` is on the device and not in git,
#: ``removed`` is in git and missing on the device, ``changed`` is one single-valued command
#: with another value, ``secret`` a secret whose keyed fingerprints differ, ``order`` the same
#: entries of an ordered section in another order.
ChangeKind = Literal["added", "removed", "changed", "secret", "order"]

#: Maps a secret as written (``$6$...`` or ``<secret:NAME>``) to its keyed fingerprint, or
#: ``None`` when its value is not known (then it cannot be compared).
Fingerprinter = Callable[[str], str | None]


@dataclass(slots=True)
class Node:
    """One line and its sub-block.

    ``text`` is the line as compared (secret masked, whitespace trimmed); ``raw`` the line as
    written, used for remediation only; ``secret`` the keyed fingerprint of its secret, ``None``
    when the line holds no secret, ``""`` when the secret's value is unknown.
    """

    text: str
    raw: str = ""
    secret: str | None = None
    children: dict[str, Node] = field(default_factory=dict)

    def add(self, child: Node, rules: PlatformRules) -> Node:
        """Add ``child`` as EOS would: a repeated section is merged, a single value replaced."""
        children, text = self.children, child.text
        same = children.get(text)
        if same is not None:
            if child.secret is not None:
                same.secret, same.raw = child.secret, child.raw
            return same
        keys = _KEYS.get(rules.name)
        key = keys[text] if keys is not None and text in keys else line_key(text, rules)
        if key is not None:
            # At most one sibling holds a key (this method is the only way in), but trees
            # edited by hand may not: look at all of them (their keys are cached by now).
            keys = _KEYS[rules.name]
            for sibling in [t for t in children if (keys[t] if t in keys else line_key(t, rules)) == key]:
                del children[sibling]
        children[text] = child
        return child

    def walk(self, depth: int = 0) -> Iterator[tuple[int, Node]]:
        """Every descendant with its depth (children of the root at 0), in order."""
        for child in self.children.values():
            yield depth, child
            yield from child.walk(depth + 1)

    def body(self, rules: PlatformRules, *, raw: bool = False) -> list[str]:
        """The indented lines below this node (for the root: the whole config)."""
        return [" " * rules.indent * d + (n.raw if raw else n.text) for d, n in self.walk()]

    def lines(self, rules: PlatformRules, *, raw: bool = False) -> list[str]:
        """This node's sub-block as indented lines (the node itself at indentation 0)."""
        out = [self.raw if raw else self.text]
        out += [" " * rules.indent * (d + 1) + (n.raw if raw else n.text) for d, n in self.walk()]
        return out


@dataclass(frozen=True)
class Change:
    """One difference at a section path (the headers above the line, outermost first)."""

    path: tuple[str, ...]
    kind: ChangeKind
    line: str
    #: For ``changed``: git's line (``line`` is the device's); for ``order``: unused.
    expected: str | None = None
    #: The lines of a whole section that was added or removed, indented below ``line``.
    block: tuple[str, ...] = ()

    def __str__(self) -> str:
        where = " > ".join(self.path) or "(top level)"
        if self.kind == "changed":
            return f"{where}: changed {self.expected!r} -> {self.line!r}"
        if self.kind == "secret":
            return f"{where}: secret changed in {self.line!r}"
        if self.kind == "order":
            return f"{where}: entries reordered"
        return f"{where}: {self.kind} {self.line!r}"


def line_key(text: str, rules: PlatformRules) -> str | None:
    """The key of a single-valued command (``no`` stripped), or ``None`` for any other line.

    Examples:
        >>> from core.platforms import get_rules
        >>> eos = get_rules("eos")
        >>> line_key("switchport access vlan 100", eos), line_key("no shutdown", eos)
        ('switchport access vlan', 'shutdown')
        >>> line_key("ntp server 10.0.0.1", eos) is None
        True
    """
    cache = _KEYS.get(rules.name)
    if cache is None:
        cache = _KEYS.setdefault(rules.name, {})
    elif text in cache:
        return cache[text]
    body = text[3:] if text.startswith("no ") else text
    match = _idempotent_rx(rules).match(body)
    key = match.group(0).strip() if match else None
    if len(cache) < _KEY_CACHE_SIZE:
        cache[text] = key
    return key


#: Lines repeat across a fleet ("mtu 9214" on every port): their keys are computed once.
_KEYS: dict[str, dict[str, str | None]] = {}
_KEY_CACHE_SIZE = 200_000


def _idempotent_rx(rules: PlatformRules) -> re.Pattern[str]:
    """One alternation of the platform's single-valued commands (the first that matches wins, as in a loop)."""
    return _alternation(rules.idempotent)


def _alternation(patterns: tuple[re.Pattern[str], ...]) -> re.Pattern[str]:
    """One compiled alternation of ``patterns``: one regex call per line instead of one per rule.

    Keyed by identity (the rules hold their tuples for good): hashing forty patterns on every
    call cost more than the match.
    """
    found = _ALTERNATIONS.get(id(patterns))
    if found is None or found[0] is not patterns:
        found = (patterns, re.compile("|".join(f"(?:{p.pattern})" for p in patterns)))
        _ALTERNATIONS[id(patterns)] = found
    return found[1]


_ALTERNATIONS: dict[int, tuple[tuple[re.Pattern[str], ...], re.Pattern[str]]] = {}


def negate(text: str, rules: PlatformRules) -> str:
    """The command that removes ``text``.

    Examples:
        >>> from core.platforms import get_rules
        >>> eos = get_rules("eos")
        >>> negate("description uplink", eos), negate("no autostate", eos), negate("ntp server a", eos)
        ('no description', 'autostate', 'no ntp server a')
    """
    for rx, template in rules.negations:
        match = rx.fullmatch(text)
        if match:
            return match.expand(template)
    return f"no {text}"


def _mask(line: str, rules: PlatformRules, fingerprint: Fingerprinter | None) -> tuple[str, str | None]:
    """The line with each secret as ``<secret>``, and their keyed fingerprint ("" if one is unknown)."""
    spans = secret_spans(line, rules.secrets)
    if not spans:
        return line, None
    text = line
    for start, end in reversed(spans):
        text = text[:start] + SECRET_MASK + text[end:]
    if fingerprint is None:
        return text, ""
    prints = [fingerprint(line[start:end]) for start, end in spans]
    return text, "" if any(p is None for p in prints) else "-".join(p for p in prints if p)


def parse(text: str, rules: PlatformRules, fingerprint: Fingerprinter | None = None) -> Node:
    """The tree of a config text; secrets are masked and fingerprinted with ``fingerprint``.

    Examples:
        >>> from core.platforms import get_rules
        >>> tree = parse("interface Ethernet1\\n   shutdown\\n   no shutdown\\n!\\nend\\n", get_rules("eos"))
        >>> tree.body(get_rules("eos"))
        ['interface Ethernet1', '   no shutdown']
    """
    root = Node("")
    stack: list[tuple[int, Node]] = [(-1, root)]
    seen = _line_shapes(rules)
    keyed: dict[int, dict[str, str]] = {}  # section (by id) -> key of a single-valued command -> its line
    keys = _KEYS.setdefault(rules.name, {})  # line -> its key, as line_key caches them
    heredoc: Node | None = None
    for raw_line in text.splitlines():
        if heredoc is not None:  # free text up to EOF (NAPALM sends it without indentation)
            line = raw_line.strip()
            if line == "EOF":
                heredoc = None
            elif line:
                heredoc.children.setdefault(line, Node(line, raw_line.rstrip()))
            continue
        shape = seen.get(raw_line)
        if shape is None:
            shape = _line_shape(raw_line, rules)
            if len(seen) < _LINE_CACHE_SIZE:
                seen[raw_line] = shape
        if not shape:  # volatile
            continue
        indent, stripped, hint, opens_heredoc = shape
        while stack[-1][0] >= indent:
            stack.pop()
        masked, secret = _mask(stripped, rules, fingerprint) if hint else (stripped, None)
        parent = stack[-1][1]
        if masked in parent.children or keys.get(masked, masked) is not None:
            node = _add(parent, Node(masked, stripped, secret), rules, keyed)
        else:  # known to be no single-valued command, new in its section: nothing to replace
            node = parent.children[masked] = Node(masked, stripped, secret)
        stack.append((indent, node))
        if opens_heredoc:
            heredoc = node
    return root


#: What parse needs of a line, before its section: (indentation, text, may hold a secret,
#: opens a heredoc), or () for a volatile line.
_Shape = tuple[int, str, bool, bool] | tuple[()]


def _line_shape(raw_line: str, rules: PlatformRules) -> _Shape:
    line = raw_line.rstrip()
    if _alternation(rules.volatile).match(line):
        return ()
    unindented = line.lstrip(" ")
    indent = len(line) - len(unindented)
    stripped = unindented.lstrip()
    opens = indent == 0 and bool(rules.heredocs) and _alternation(rules.heredocs).match(stripped) is not None
    return indent, stripped, secret_hint(rules.secrets).search(stripped) is not None, opens


def _line_shapes(rules: PlatformRules) -> dict[str, _Shape]:
    """The shapes of the lines parsed so far under these rules' volatile, secret and heredoc
    patterns (keyed by identity, as :func:`_alternation`): most lines of a fleet's configs
    repeat across its switches (``   mtu 9214``, ``   no shutdown``), each is shaped once."""
    mark = (rules.volatile, rules.secrets, rules.heredocs)
    found = _SHAPES.get(id(rules.volatile))
    if found is None or any(a is not b for a, b in zip(found[0], mark, strict=True)):
        found = _SHAPES[id(rules.volatile)] = (mark, {})
    return found[1]


_SHAPES: dict[int, tuple[tuple[object, object, object], dict[str, _Shape]]] = {}
_LINE_CACHE_SIZE = 200_000


def _add(parent: Node, child: Node, rules: PlatformRules, keyed: dict[int, dict[str, str]]) -> Node:
    """:meth:`Node.add` for a tree being parsed: the single-valued commands of each section are
    kept in ``keyed`` as they are added, so a new one finds the line it replaces without looking
    at every sibling (a parse is the only way into that tree: the index is exact)."""
    same = parent.children.get(child.text)
    if same is not None:
        if child.secret is not None:
            same.secret, same.raw = child.secret, child.raw
        return same
    key = line_key(child.text, rules)
    if key is not None:
        section = keyed.setdefault(id(parent), {})
        replaced = section.get(key)
        if replaced is not None:
            del parent.children[replaced]
        section[key] = child.text
    parent.children[child.text] = child
    return child


def normalise(tree: Node, rules: PlatformRules) -> Node:
    """``tree`` without the platform's default lines and empty default sections (in place).

    Examples:
        >>> from core.platforms import get_rules
        >>> eos = get_rules("eos")
        >>> text = "no aaa root\\ninterface Ethernet1\\ninterface Ethernet2\\n   no shutdown\\nhostname a\\n"
        >>> normalise(parse(text, eos), eos).body(eos)
        ['hostname a']
    """
    _normalise(tree, (), rules)
    return tree


def _normalise(node: Node, path: tuple[str, ...], rules: PlatformRules) -> None:
    for text, child in list(node.children.items()):
        if child.children:
            _normalise(child, (*path, text), rules)
            if child.children:
                continue
        if rules.defaults.matches(path, text) or (not path and _empty_default(text, rules)):
            del node.children[text]


def _with_empty_defaults(expected: Node, actual: Node, rules: PlatformRules) -> tuple[Node, Node]:
    """Both nodes, each given an empty block for a default section only the other one has.

    :func:`normalise` drops empty physical ports, so a port whose only line was removed
    (``shutdown``) is absent on one side: it is compared with an empty block, not as a
    missing section.
    """
    if expected.children.keys() == actual.children.keys():
        return expected, actual
    lone = [t for t in expected.children if t not in actual.children and _empty_default(t, rules)]
    extra = [t for t in actual.children if t not in expected.children and _empty_default(t, rules)]
    if not lone and not extra:
        return expected, actual
    if lone:
        actual = Node(actual.text, actual.raw, actual.secret, {**actual.children, **{t: Node(t, t) for t in lone}})
    if extra:
        expected = Node(
            expected.text, expected.raw, expected.secret, {**expected.children, **{t: Node(t, t) for t in extra}}
        )
    return expected, actual


def _empty_default(text: str, rules: PlatformRules) -> bool:
    return bool(rules.empty_sections) and _alternation(rules.empty_sections).match(text) is not None


def _is_ordered(header: str, rules: PlatformRules) -> bool:
    return bool(rules.ordered) and _alternation(rules.ordered).match(header) is not None


def diff(expected: Node, actual: Node, rules: PlatformRules, path: tuple[str, ...] = ()) -> list[Change]:
    """Differences from ``expected`` (git) to ``actual`` (the device), per section path."""
    expected, actual = _with_empty_defaults(expected, actual, rules)
    changes: list[Change] = []
    missing = [t for t in expected.children if t not in actual.children]
    extra = [t for t in actual.children if t not in expected.children]
    same_set = not missing and not extra
    if same_set and path and _is_ordered(path[-1], rules) and list(expected.children) != list(actual.children):
        changes.append(Change(path, "order", path[-1]))
    extra_by_key = {line_key(t, rules): t for t in extra if not actual.children[t].children}
    extra_by_key.pop(None, None)
    for text in missing:
        node = expected.children[text]
        key = line_key(text, rules)
        other = extra_by_key.pop(key, None) if key is not None and not node.children else None
        if other is not None:
            extra.remove(other)
            changes.append(Change(path, "changed", other, expected=text))
        else:
            changes.append(Change(path, "removed", text, block=tuple(node.lines(rules)[1:])))
    changes += [Change(path, "added", t, block=tuple(actual.children[t].lines(rules)[1:])) for t in extra]
    for text, want in expected.children.items():
        have = actual.children.get(text)
        if have is None:
            continue
        if want.secret and have.secret and want.secret != have.secret:
            changes.append(Change(path, "secret", text))
        if want.children or have.children:  # two bare lines have nothing below them to differ
            changes += diff(want, have, rules, (*path, text))
    return changes


def unverified_secrets(expected: Node, actual: Node, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], str]]:
    """Lines present on both sides whose secret could not be compared (its value is not known)."""
    found: list[tuple[tuple[str, ...], str]] = []
    for text, want in expected.children.items():
        have = actual.children.get(text)
        if have is None:
            continue
        if want.secret == "" or have.secret == "":
            found.append((path, text))
        if want.children and have.children:
            found += unverified_secrets(want, have, (*path, text))
    return found


def remediation(expected: Node, actual: Node, rules: PlatformRules) -> list[str]:
    """The config lines (indented, raw) that turn ``actual`` into ``expected``."""
    return _remediation(expected, actual, rules, 0)


def _remediation(expected: Node, actual: Node, rules: PlatformRules, depth: int) -> list[str]:
    pad = " " * rules.indent * depth
    expected, actual = _with_empty_defaults(expected, actual, rules)
    missing = [n for t, n in expected.children.items() if t not in actual.children]
    setting = {line_key(n.text, rules) for n in missing if not n.children}
    out: list[str] = []
    for text, node in actual.children.items():
        if text in expected.children:
            continue
        key = line_key(text, rules)
        if node.children or key is None or key not in setting:
            out.append(pad + negate(node.raw, rules))
    for node in missing:
        out += [pad + line for line in node.lines(rules, raw=True)]
    for text, want in expected.children.items():
        have = actual.children.get(text)
        if have is None:
            continue
        if want.children and _is_ordered(text, rules) and list(want.children) != list(have.children):
            out.append(pad + negate(want.raw, rules))
            out += [pad + line for line in want.lines(rules, raw=True)]
            continue
        inner = _remediation(want, have, rules, depth + 1) if want.children or have.children else []
        if want.secret and have.secret != want.secret:
            out.append(pad + want.raw)
        elif inner:
            out += [pad + want.raw, *inner]
    return out


def future(tree: Node, lines: list[str], rules: PlatformRules, fingerprint: Fingerprinter | None = None) -> Node:
    """A copy of ``tree`` with config ``lines`` (indented as :func:`remediation` gives them) applied.

    The result is normalised, so it compares with a normalised tree directly.

    Examples:
        >>> from core.platforms import get_rules
        >>> eos = get_rules("eos")
        >>> tree = parse("interface Ethernet1\\n   description a\\n   shutdown\\n", eos)
        >>> future(tree, ["interface Ethernet1", "   no description", "   no shutdown"], eos).body(eos)
        []
    """
    result = _copy(tree)
    _apply(result, _nest(lines), rules, fingerprint)
    return normalise(result, rules)


@dataclass
class _Command:
    line: str
    children: list[_Command] = field(default_factory=list)


def _nest(lines: list[str]) -> list[_Command]:
    """Config lines as nested commands, in the order given (no merging)."""
    root = _Command("")
    stack: list[tuple[int, _Command]] = [(-1, root)]
    for line in lines:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        while stack[-1][0] >= indent:
            stack.pop()
        command = _Command(line.strip())
        stack[-1][1].children.append(command)
        stack.append((indent, command))
    return root.children


def _apply(node: Node, commands: list[_Command], rules: PlatformRules, fp: Fingerprinter | None) -> None:
    """Apply commands the way EOS does: ``no X`` unsets a value or deletes ``X`` and its block."""
    for command in commands:
        line = command.line
        if line.startswith("no ") and not command.children and line_key(line, rules) is None:
            target = line[3:]
            doomed = [t for t in node.children if t == target or t.startswith(target + " ")]
            for text in doomed:
                del node.children[text]
            if doomed:
                continue
        elif not line.startswith("no ") and not command.children and f"no {line}" in node.children:
            # ``X`` undoes a printed ``no X`` (``autostate``, ``passive-interface EthernetN``): back to
            # the default, which EOS does not print.
            del node.children[f"no {line}"]
            continue
        masked, secret = _mask(line, rules, fp)
        existing = node.children.get(masked)
        if existing is None:
            existing = node.add(Node(masked, line, secret), rules)
        elif secret is not None:
            existing.secret, existing.raw = secret, line
        _apply(existing, command.children, rules, fp)


def _copy(node: Node) -> Node:
    return Node(node.text, node.raw, node.secret, {t: _copy(c) for t, c in node.children.items()})


def render(tree: Node, rules: PlatformRules, *, raw: bool = False) -> str:
    """The tree as config text, ``!`` between top-level sections.

    Examples:
        >>> from core.platforms import get_rules
        >>> eos = get_rules("eos")
        >>> print(render(parse("hostname a\\ninterface Ethernet1\\n   mtu 9214\\n", eos), eos), end="")
        hostname a
        !
        interface Ethernet1
           mtu 9214
    """
    blocks = ["\n".join(child.lines(rules, raw=raw)) for child in tree.children.values()]
    return "\n!\n".join(blocks) + "\n" if blocks else ""
