"""Where EOS prints a secret, and the one way fabricops writes or prints text that may hold one.

:data:`SECRET_RULES` is data: for each form of secret EOS prints (user and ``aaa root`` secrets,
``enable`` passwords, SNMP communities and v3 keys, NTP/TACACS/RADIUS keys, BGP/OSPF/IS-IS
passwords and keys, shared-secret and key-chain strings, the TerminAttr ingest key), a regex
whose group ``secret`` is the value. Everything that leaves a process (backups on the state
branch, ``plan.json``, deploy/drift/health output, reports, issues, logs, error messages) goes
through :func:`mask` first:

* a value the secret store holds becomes its ``<secret:NAME>`` placeholder, as in ``generated/``;
* any other secret becomes ``<masked:HASH>``, a keyed hash (HMAC-SHA256, 16 hex digits): equal
  values give equal hashes under one key, and without the key nothing can be learnt from it.

A backup masked with the persistent key (:func:`core.secrets.mask_key`) can be restored:
:func:`unmask` puts back each value found among candidates (the live device's secrets, the
secret store) whose keyed hash matches, and names the lines it could not restore.

Examples:
    >>> line = "snmp-server community n0tpublic ro"
    >>> mask(line, b"k")
    'snmp-server community <masked:a4357527c66193cc> ro'
    >>> mask(line, b"k", {"snmp_ro": "n0tpublic"})
    'snmp-server community <secret:snmp_ro> ro'
    >>> unmask(mask(line, b"k"), ["other", "n0tpublic"], b"k")
    ('snmp-server community n0tpublic ro', [])
    >>> unmask(mask(line, b"k"), [], b"k")[1]
    ['snmp-server community <masked:a4357527c66193cc> ro']
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "MASKED",
    "SECRET_RULES",
    "MaskingFilter",
    "SecretRule",
    "keyed_hash",
    "mask",
    "mask_logging",
    "secret_hint",
    "secret_spans",
    "secret_values",
    "unmask",
]

#: A masked secret: its keyed hash.
MASKED = re.compile(r"<masked:([0-9a-f]{16})>")
_VALUE = r"(?P<secret>[^\s'\"]+)"
#: The encryption type EOS may print before a value (clear, md5-crypt, type 7, 8a, sha512).
_TYPE = r"(?:(?:0|5|7|8a|sha512) )?"
#: Where a command starts: not inside a word or a hyphenated keyword (``authentication-key``).
_START = r"(?<!\w)(?<!\w-)"


@dataclass(frozen=True)
class SecretRule:
    """One form of secret: ``pattern`` finds it in a line (anywhere: also inside a diff line or
    an error message quoting the line); its group ``secret`` is the value. Every line it matches
    holds one of ``hints`` (words of the pattern), a cheap first test."""

    form: str
    pattern: re.Pattern[str]
    hints: tuple[str, ...]


def _rule(form: str, regex: str, *hints: str) -> SecretRule:
    return SecretRule(form, re.compile(regex), hints)


SECRET_RULES: tuple[SecretRule, ...] = (
    _rule("user secret", rf"{_START}username \S+ (?:\S+ )*?secret {_TYPE}{_VALUE}", "secret"),
    _rule("enable password", rf"{_START}enable (?:password|secret) {_TYPE}{_VALUE}", "password", "secret"),
    _rule("aaa root secret", rf"{_START}aaa root secret {_TYPE}{_VALUE}", "secret"),
    _rule("SNMP community", rf"{_START}snmp-server community {_VALUE}", "snmp-server"),
    _rule("SNMP host community", rf"{_START}snmp-server host \S+ (?:\S+ )*?version (?:1|2c) {_VALUE}", "snmp-server"),
    _rule("SNMPv3 auth key", rf"{_START}snmp-server user \S+ \S+ v3 (?:\S+ )*?auth \S+ {_VALUE}", "snmp-server"),
    _rule("SNMPv3 priv key", rf"{_START}snmp-server user \S+ \S+ v3 (?:\S+ )*?priv \S+ {_VALUE}", "snmp-server"),
    _rule("NTP key", rf"{_START}ntp authentication-key \d+ \S+ {_TYPE}{_VALUE}", "key"),
    _rule("TACACS key", rf"{_START}tacacs-server (?:host \S+ (?:\S+ )*?)?key {_TYPE}{_VALUE}", "key"),
    _rule("RADIUS key", rf"{_START}radius-server (?:host \S+ (?:\S+ )*?)?key {_TYPE}{_VALUE}", "key"),
    _rule("BGP password", rf"{_START}neighbor \S+ password {_TYPE}{_VALUE}", "password"),
    _rule(
        "OSPF key",
        rf"{_START}ip(?:v6)? ospf (?:authentication-key|message-digest-key \d+ \S+) {_TYPE}{_VALUE}",
        "key",
    ),
    _rule("IS-IS key", rf"{_START}(?:isis )?authentication key {_TYPE}{_VALUE}", "key"),
    _rule("key-chain string", rf"{_START}key-string {_TYPE}{_VALUE}", "key"),
    _rule("shared secret", rf"{_START}secret \d+ (?:0|7|8a) {_VALUE}", "secret"),
    _rule(
        "VRRP key",
        rf"{_START}vrrp \d+ (?:session )?authentication (?:text|ietf-md5 key-string) {_TYPE}{_VALUE}",
        "vrrp",
    ),
    _rule("MACsec key", rf"{_START}key [0-9a-fA-F]+ (?:0|7|8a) {_VALUE}", "key"),
    _rule("TerminAttr key", r"-(?:cv|ingest)auth=key,(?P<secret>[^\s,'\"]+)", "key"),
    # Any other password or key given with its type: the form EOS prints them in.
    _rule("typed password or key", rf"{_START}(?:password|key|passphrase) (?:0|7|8a) {_VALUE}", "password", "key"),
)


def _any(rules: tuple[SecretRule, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The hints of ``rules`` as one alternation of words (the first test) and their patterns as one
    (the second): a line holding none of the words is searched no further, in a fraction of a
    microsecond.

    Keyed by identity: hashing a tuple of rules hashes every rule and its pattern, which cost
    more than the search itself when it was done once per line.
    """
    found = _ANY.get(id(rules))
    if found is None or found[0] is not rules:
        words = sorted({hint for rule in rules for hint in rule.hints}, key=lambda w: (-len(w), w))
        hint = re.compile("|".join(re.escape(word) for word in words))
        pattern = re.compile("|".join(f"(?:{r.pattern.pattern.replace('?P<secret>', '')})" for r in rules))
        found = _ANY[id(rules)] = (rules, hint, pattern)
    return found[1], found[2]


_ANY: dict[int, tuple[tuple[SecretRule, ...], re.Pattern[str], re.Pattern[str]]] = {}


def secret_hint(rules: tuple[SecretRule, ...] = SECRET_RULES) -> re.Pattern[str]:
    """The first test of :func:`secret_spans`: a line it does not find a word of holds no secret.

    For a parser that reads many lines: the test without a call per line.

    Example:
        >>> secret_hint().search("   mtu 9214") is None, secret_hint().search("aaa root secret 0 x") is None
        (True, False)
    """
    return _any(rules)[0]


def secret_spans(line: str, rules: tuple[SecretRule, ...] = SECRET_RULES) -> list[tuple[int, int]]:
    """The (start, end) of every secret value in ``line``, in order, without overlaps.

    Examples:
        >>> line = "snmp-server user u g v3 auth sha AUTHKEY priv aes PRIVKEY"
        >>> [line[a:b] for a, b in secret_spans(line)]
        ['AUTHKEY', 'PRIVKEY']
        >>> secret_spans("description no secret here")
        []
    """
    hint, pattern = _any(rules)
    if hint.search(line) is None or pattern.search(line) is None:  # almost every line: no word of a rule
        return []
    spans: set[tuple[int, int]] = set()
    for rule in rules:
        for match in rule.pattern.finditer(line):
            spans.add(match.span("secret"))
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            continue
        out.append((start, end))
    return out


def secret_values(text: str) -> list[str]:
    """Every secret value in ``text`` (placeholders and masks excluded), in order."""
    found = []
    for line in text.splitlines():
        for start, end in secret_spans(line):
            value = line[start:end]
            if not value.startswith("<"):
                found.append(value)
    return found


def keyed_hash(value: str, key: bytes) -> str:
    """HMAC-SHA256 of a secret value, 16 hex digits.

    Example:
        >>> keyed_hash("x", b"k") == keyed_hash("x", b"k") != keyed_hash("y", b"k")
        True
    """
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:16]


def mask(text: str, key: bytes, known: Mapping[str, str] | None = None) -> str:
    """``text`` with no secret value left: known values as ``<secret:NAME>``, others keyed-hashed.

    ``known`` maps placeholder names to values (the secret store); a known value is replaced
    wherever it appears, also outside a secret's usual place.
    """
    if not text:  # most errors and diffs of a fleet in sync: nothing to build the patterns for
        return text
    for name, value in sorted((known or {}).items(), key=lambda item: -len(item[1])):
        if len(value) >= 4:  # a value as short as a word would replace words
            text = text.replace(value, f"<secret:{name}>")
    # A config quoted in JSON or a repr() has its line breaks as "\n": those break lines too.
    pieces = _BREAKS.split(text)
    hint = secret_hint().search
    for index in range(0, len(pieces), 2):
        line = pieces[index]
        if hint(line) is None:  # most lines of a config: no call per line
            continue
        for start, end in reversed(secret_spans(line)):
            value = line[start:end]
            if not value.startswith("<"):
                line = f"{line[:start]}<masked:{keyed_hash(value, key)}>{line[end:]}"
        pieces[index] = line
    return "".join(pieces)


_BREAKS = re.compile(r"(\n|\\n|\\r)")


def unmask(text: str, candidates: Iterable[str], key: bytes) -> tuple[str, list[str]]:
    """``text`` with each ``<masked:HASH>`` replaced by the candidate whose keyed hash it is.

    Returns the text and the lines (still masked) whose secret no candidate matched.
    """
    by_hash = {keyed_hash(value, key): value for value in candidates}
    unrestored: list[str] = []
    lines = text.split("\n")
    for index, line in enumerate(lines):
        missing = False

        def restore(match: re.Match[str]) -> str:
            nonlocal missing
            value = by_hash.get(match.group(1))
            if value is None:
                missing = True
                return match.group(0)
            return value

        lines[index] = MASKED.sub(restore, line)
        if missing:
            unrestored.append(lines[index].strip())
    return "\n".join(lines), unrestored


class MaskingFilter(logging.Filter):
    """A logging filter that masks every record's message (with a key that lives for the process).

    Attached to a handler, it covers every record that handler writes, whatever logger made it.
    """

    def __init__(self, key: bytes, known: Mapping[str, str] | None = None) -> None:
        super().__init__()
        self.key = key
        self.known = dict(known or {})

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask(message, self.key, self.known)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and record.exc_info[1] is not None:
            formatted = logging.Formatter().formatException(record.exc_info)
            record.exc_text = mask(formatted, self.key, self.known)
        return True


def mask_logging(key: bytes) -> MaskingFilter:
    """Mask every log record the process writes: the filter goes on Python's last-resort handler
    (used while nothing else is configured) and on every handler of the root logger."""
    found = MaskingFilter(key)
    handlers = [*logging.getLogger().handlers, *([logging.lastResort] if logging.lastResort else [])]
    for handler in handlers:
        if not any(isinstance(f, MaskingFilter) for f in handler.filters):
            handler.addFilter(found)
    return found
