"""A small CLI grammar: command specs, keyword abbreviations and EOS's parser errors.

A spec is a space-separated string of tokens:

* ``keyword`` matches the keyword or an unambiguous abbreviation of it
  (``int`` for ``interface``) and prints as the full keyword;
* ``<kind>`` is a placeholder (see :data:`PLACEHOLDERS`); ``<kind>...`` takes one
  or more of them;
* ``[ a b ]`` is optional and ``( a | b c )`` is a choice.

Matching a line gives its canonical tokens or an error worded as EOS words it:
``Invalid input (at token N: 'word')`` with ``N`` counted from 0,
``Incomplete command`` or ``Ambiguous command``.

Examples:
    >>> spec = compile_spec("ip address <pfx> [ secondary ]")
    >>> match_specs([spec], "ip addr 10.0.0.1/31".split()).canonical
    ('ip', 'address', '10.0.0.1/31')
    >>> match_specs([spec], "ip address bogus".split()).error
    "Invalid input (at token 2: 'bogus')"
    >>> match_specs([spec], ["ip"]).error
    'Incomplete command'
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

# --------------------------------------------------------------------------- placeholders

_INTERFACE_TYPES: tuple[tuple[str, str, str], ...] = (
    # (regex for the typed name, canonical name, shortest accepted abbreviation)
    (r"et(h(e(r(n(et?)?)?)?)?)?", "Ethernet", "et"),
    (r"po(r(t(-(c(h(a(n(n(el?)?)?)?)?)?)?)?)?)?", "Port-Channel", "po"),
    (r"lo(o(p(b(a(ck?)?)?)?)?)?", "Loopback", "lo"),
    (r"ma(n(a(g(e(m(e(nt?)?)?)?)?)?)?)?", "Management", "ma"),
    (r"vl(an?)?", "Vlan", "vl"),
    (r"vx(l(an?)?)?", "Vxlan", "vx"),
    (r"tu(n(n(el?)?)?)?", "Tunnel", "tu"),
)
_IFNAME = re.compile(
    r"^(?P<type>[A-Za-z-]+?)(?P<num>\d+(?:/\d+)*(?:\.\d+)?)$",
)


def canonical_interface(name: str) -> str | None:
    """The canonical EOS name of an interface, or None if it is not one.

    Examples:
        >>> canonical_interface("eth1/1")
        'Ethernet1/1'
        >>> canonical_interface("po31")
        'Port-Channel31'
        >>> canonical_interface("Management1")
        'Management1'
        >>> canonical_interface("bogus1") is None
        True
    """
    m = _IFNAME.match(name)
    if not m:
        return None
    typed = m.group("type").lower()
    for pattern, canonical, _ in _INTERFACE_TYPES:
        if re.fullmatch(pattern, typed):
            return canonical + m.group("num")
    return None


def _is_int(tok: str) -> bool:
    return tok.isdigit()


def _is_num(tok: str) -> bool:
    return re.fullmatch(r"\d+(\.\d+)?", tok) is not None


def _is_ipv4(tok: str) -> bool:
    if re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", tok) is None:
        return False
    return all(int(p) < 256 for p in tok.split("."))


def _is_pfx(tok: str) -> bool:
    if "/" not in tok:
        return False
    addr, _, length = tok.partition("/")
    return _is_ipv4(addr) and length.isdigit() and int(length) <= 32


def _is_ipv6(tok: str) -> bool:
    try:
        ipaddress.IPv6Address(tok)
    except ValueError:
        return False
    return True


def _is_pfx6(tok: str) -> bool:
    try:
        ipaddress.IPv6Interface(tok)
    except ValueError:
        return False
    return "/" in tok


def _is_word(tok: str) -> bool:
    # Angle brackets never survive EOS's parsers for names, keys or hashes: an
    # unresolved template placeholder such as <secret:admin> is invalid input.
    return "<" not in tok and ">" not in tok


def _is_vlanlist(tok: str) -> bool:
    return re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", tok) is not None


def _is_asn(tok: str) -> bool:
    return re.fullmatch(r"\d+(\.\d+)?", tok) is not None


def _is_mac(tok: str) -> bool:
    return (
        re.fullmatch(r"[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}", tok) is not None
        or re.fullmatch(r"([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}", tok) is not None
    )


def _is_speed(tok: str) -> bool:
    return re.fullmatch(r"(auto|forced|\d+(g|m|full|half)?(-\d)?)", tok) is not None


def _is_time(tok: str) -> bool:
    return re.fullmatch(r"\d{1,2}:\d{2}:\d{2}", tok) is not None


def _is_asplain_or_ip(tok: str) -> bool:
    return _is_ipv4(tok) or _is_ipv6(tok) or _is_word(tok)


#: Placeholder kind -> validator. ``ifname`` is canonicalised; ``line`` takes the rest.
PLACEHOLDERS: dict[str, Callable[[str], bool]] = {
    "int": _is_int,
    "num": _is_num,
    "ip": _is_ipv4,
    "pfx": _is_pfx,
    "ipv6": _is_ipv6,
    "pfx6": _is_pfx6,
    "word": _is_word,
    "vlans": _is_vlanlist,
    "asn": _is_asn,
    "mac": _is_mac,
    "speed": _is_speed,
    "time": _is_time,
    "peer": _is_asplain_or_ip,
    "any": lambda tok: True,
}

# --------------------------------------------------------------------------- spec tree


@dataclass(frozen=True)
class Lit:
    word: str


@dataclass(frozen=True)
class Ph:
    kind: str
    repeat: bool = False


@dataclass(frozen=True)
class Rest:
    """``<line>``: free text to the end of the line (descriptions, contacts)."""


@dataclass(frozen=True)
class Opt:
    body: Seq


@dataclass(frozen=True)
class Alt:
    choices: tuple[Seq, ...]


@dataclass(frozen=True)
class Seq:
    items: tuple[Lit | Ph | Rest | Opt | Alt, ...]


@dataclass(frozen=True)
class Spec:
    """A compiled command spec; ``text`` is the source string."""

    text: str
    seq: Seq
    #: Keywords a line can start with (empty when it starts with a placeholder).
    firsts: frozenset[str] = frozenset()

    def first_words(self) -> frozenset[str]:
        """Keywords a line can start with (empty when it starts with a placeholder)."""
        return self.firsts


def _first(seq: Seq) -> frozenset[str]:
    out: set[str] = set()
    for item in seq.items:
        if isinstance(item, Lit):
            out.add(item.word)
            return frozenset(out)
        if isinstance(item, Alt):
            for choice in item.choices:
                out |= _first(choice)
            return frozenset(out)
        if isinstance(item, Opt):
            out |= _first(item.body)
            continue
        return frozenset()
    return frozenset(out)


def compile_spec(text: str) -> Spec:
    """Compile a spec string (see the module docstring)."""
    toks = text.split()
    seq, pos = _parse_seq(toks, 0, stop=())
    if pos != len(toks):
        raise ValueError(f"bad spec {text!r} at {pos}")
    return Spec(text, seq, _first(seq))


def _parse_seq(toks: list[str], pos: int, stop: tuple[str, ...]) -> tuple[Seq, int]:
    items: list[Lit | Ph | Rest | Opt | Alt] = []
    while pos < len(toks) and toks[pos] not in stop:
        tok = toks[pos]
        if tok == "[":
            body, pos = _parse_seq(toks, pos + 1, stop=("]",))
            items.append(Opt(body))
            pos += 1
        elif tok == "(":
            choices: list[Seq] = []
            pos += 1
            while True:
                choice, pos = _parse_seq(toks, pos, stop=("|", ")"))
                choices.append(choice)
                if toks[pos] == ")":
                    pos += 1
                    break
                pos += 1
            items.append(Alt(tuple(choices)))
        elif tok == "<line>":
            items.append(Rest())
            pos += 1
        elif tok.startswith("<"):
            repeat = tok.endswith("...")
            kind = tok.removesuffix("...").strip("<>")
            if kind not in PLACEHOLDERS and kind != "ifname":
                raise ValueError(f"unknown placeholder {tok}")
            items.append(Ph(kind, repeat))
            pos += 1
        else:
            items.append(Lit(tok))
            pos += 1
    return Seq(tuple(items)), pos


# --------------------------------------------------------------------------- matching


@dataclass
class _Progress:
    """How far the best failed attempt got, for the error message."""

    furthest: int = 0
    incomplete: bool = False
    #: eAPI's ``autoComplete``: without it, keywords must be typed in full.
    abbreviations: bool = True


def _match_ph(ph: Ph, tok: str) -> str | None:
    if ph.kind == "ifname":
        return canonical_interface(tok)
    return tok if PLACEHOLDERS[ph.kind](tok) else None


def _match_item(  # noqa: PLR0911, PLR0912 - one branch per spec element kind
    item: Lit | Ph | Rest | Opt | Alt,
    toks: Sequence[str],
    i: int,
    prog: _Progress,
) -> Iterator[tuple[int, tuple[str, ...], bool]]:
    """Yield (next index, canonical tokens, used-an-abbreviation) for each way to match."""
    if isinstance(item, Opt):
        yield i, (), False
        yield from _match_seq(item.body.items, toks, i, prog)
        return
    if isinstance(item, Alt):
        for choice in item.choices:
            yield from _match_seq(choice.items, toks, i, prog)
        return
    if i >= len(toks):
        prog.incomplete = True
        prog.furthest = max(prog.furthest, i)
        return
    if isinstance(item, Rest):
        yield len(toks), tuple(toks[i:]), False
        return
    tok = toks[i]
    if isinstance(item, Lit):
        low = tok.lower()
        if low == item.word:
            yield i + 1, (item.word,), False
        elif prog.abbreviations and item.word.startswith(low) and not low.isdigit():
            yield i + 1, (item.word,), True
        else:
            prog.furthest = max(prog.furthest, i)
        return
    got = _match_ph(item, tok)
    if got is None:
        prog.furthest = max(prog.furthest, i)
        return
    if not item.repeat:
        yield i + 1, (got,), False
        return
    canon: list[str] = [got]
    j = i + 1
    yield j, tuple(canon), False
    while j < len(toks):
        more = _match_ph(item, toks[j])
        if more is None:
            prog.furthest = max(prog.furthest, j)
            return
        canon.append(more)
        j += 1
        yield j, tuple(canon), False


def _match_seq(
    items: Sequence[Lit | Ph | Rest | Opt | Alt],
    toks: Sequence[str],
    i: int,
    prog: _Progress,
) -> Iterator[tuple[int, tuple[str, ...], bool]]:
    if not items:
        yield i, (), False
        return
    head, tail = items[0], items[1:]
    for j, canon, abbr in _match_item(head, toks, i, prog):
        for k, rest, abbr2 in _match_seq(tail, toks, j, prog):
            yield k, canon + rest, abbr or abbr2


@dataclass(frozen=True)
class MatchResult:
    """A full match (``spec`` and ``canonical`` set) or an EOS parser ``error``."""

    spec: Spec | None = None
    canonical: tuple[str, ...] = ()
    error: str = ""
    #: The token index the error points at (-1 for Incomplete/Ambiguous).
    error_token: int = -1


def match_specs(specs: Sequence[Spec], toks: Sequence[str], *, abbreviations: bool = True) -> MatchResult:
    """Match tokens against specs: the first exact match wins, then the only abbreviated one.

    ``abbreviations=False`` is eAPI without ``autoComplete``: only full keywords match.
    """
    prog = _Progress(abbreviations=abbreviations)
    exact: list[tuple[Spec, tuple[str, ...]]] = []
    abbreviated: list[tuple[Spec, tuple[str, ...]]] = []
    low0 = toks[0].lower() if toks else ""
    for spec in specs:
        firsts = spec.firsts
        if firsts and toks and not any(w.startswith(low0) for w in firsts):
            continue  # cannot match the first word: skip the full match (most specs, most lines)
        for end, canon, abbr in _match_seq(spec.seq.items, toks, 0, prog):
            if end == len(toks):
                (abbreviated if abbr else exact).append((spec, canon))
                break
            prog.furthest = max(prog.furthest, end)
    if exact:
        return MatchResult(spec=exact[0][0], canonical=exact[0][1])
    if abbreviated:
        if len({canon for _, canon in abbreviated}) > 1:
            return MatchResult(error="Ambiguous command")
        return MatchResult(spec=abbreviated[0][0], canonical=abbreviated[0][1])
    if toks and abbreviations:
        low = toks[0].lower()
        starts = {w for spec in specs for w in spec.first_words() if w.startswith(low)}
        if low not in starts and len(starts) > 1:
            return MatchResult(error="Ambiguous command")
    if prog.incomplete and prog.furthest >= len(toks):
        return MatchResult(error="Incomplete command")
    n = min(prog.furthest, len(toks) - 1) if toks else 0
    word = toks[n] if toks else ""
    return MatchResult(error=f"Invalid input (at token {n}: '{word}')", error_token=n)
