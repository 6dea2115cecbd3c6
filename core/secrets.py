"""Secrets: resolved into configs only on their way to a device, never written or printed.

``generated/`` holds references such as ``<secret:admin_sha512>``. Deploy resolves them from
the environment (``FABRICOPS_SECRET_ADMIN_SHA512``), from a YAML file outside git
(``FABRICOPS_SECRETS_FILE``, default ``~/.config/fabricops/secrets.yaml``), or, for the lab,
from values derived from the lab's own password. Anything that leaves the process
(backups, reports, logs) goes through :func:`redact` first.

Example:
    >>> text = "username admin privilege 15 role network-admin secret sha512 <secret:admin_sha512>"
    >>> placeholders(text)
    ['admin_sha512']
    >>> resolve(text, {"admin_sha512": "$6$salt$hash"})
    'username admin privilege 15 role network-admin secret sha512 $6$salt$hash'
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets as _random
from collections.abc import Mapping
from pathlib import Path

import yaml

from core.errors import FabricopsError

PLACEHOLDER = re.compile(r"<secret:([a-z0-9_]+)>")
ENV_PREFIX = "FABRICOPS_SECRET_"
ENV_FILE = "FABRICOPS_SECRETS_FILE"
DEFAULT_FILE = Path("~/.config/fabricops/secrets.yaml")

# Lines whose last words are a secret, as EOS prints them; the secret itself is group 2.
SECRET_LINE = re.compile(
    r"^(\s*(?:username \S+ .*?secret (?:sha512|5|0|7)|enable (?:password|secret) (?:sha512|5|0|7)"
    r"|.*\b(?:key|password) (?:0|7|8a)|snmp-server user \S+ \S+ v3 .*?(?:auth \S+|priv \S+)))\s+(\S+)(.*)$"
)
_CRYPT64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def placeholders(text: str) -> list[str]:
    """The distinct secret names referenced in ``text``, sorted."""
    return sorted(set(PLACEHOLDER.findall(text)))


def resolve(text: str, values: Mapping[str, str]) -> str:
    """``text`` with every ``<secret:NAME>`` replaced; a missing value is an error naming it."""
    missing = [name for name in placeholders(text) if name not in values]
    if missing:
        env = ", ".join(ENV_PREFIX + name.upper() for name in missing)
        raise FabricopsError(f"secret(s) {', '.join(missing)} not set: export {env} or add them to {DEFAULT_FILE}")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def load_values(names: list[str], lab_password: str | None = None) -> dict[str, str]:
    """Values for ``names``: the environment first, then the secrets file; the lab derives its own."""
    if lab_password is not None:
        return {name: lab_secret(name, lab_password) for name in names}
    path = Path(os.environ.get(ENV_FILE, str(DEFAULT_FILE))).expanduser()
    from_file: dict[str, str] = {}
    if path.is_file():
        _refuse_inside_git(path)
        data = yaml.safe_load(path.read_text()) or {}
        if not isinstance(data, dict):
            raise FabricopsError(f"{path}: expected a mapping of secret name to value")
        from_file = {str(k): str(v) for k, v in data.items()}
    values = {}
    for name in names:
        value = os.environ.get(ENV_PREFIX + name.upper(), from_file.get(name))
        if value is not None:
            values[name] = value
    return values


def lab_secret(name: str, lab_password: str) -> str:
    """A well-formed sha512-crypt string for the lab, stable for one lab password.

    The lab cannot verify a crypt hash any more than a switch can check where one came from;
    it only has to look like one.

    Example:
        >>> value = lab_secret("admin_sha512", "pw")
        >>> value.startswith("$6$") and len(value.split("$")[3]) == 86
        True
    """
    digest = hashlib.sha512(f"{name}:{lab_password}".encode()).digest()
    salt = "".join(_CRYPT64[b % 64] for b in digest[:16])
    body = "".join(_CRYPT64[b % 64] for b in (digest + hashlib.sha512(digest).digest())[:86])
    return f"$6${salt}${body}"


def unresolve(text: str, values: Mapping[str, str]) -> str:
    """The reverse of :func:`resolve`: known secret values become their ``<secret:NAME>`` again.

    A backup taken this way can be restored later by resolving it like ``generated/``.

    Example:
        >>> unresolve("secret sha512 $6$s$h", {"admin_sha512": "$6$s$h"})
        'secret sha512 <secret:admin_sha512>'
    """
    for name, value in sorted(values.items(), key=lambda item: -len(item[1])):
        if value:
            text = text.replace(value, f"<secret:{name}>")
    return text


def redact(text: str, key: bytes) -> str:
    """``text`` with every secret value replaced by a keyed fingerprint.

    Two equal secrets get the same fingerprint under one key, so configs can be compared
    without showing either value.

    Example:
        >>> line = "username admin privilege 15 role network-admin secret sha512 $6$abc$def"
        >>> redact(line, b"k")
        'username admin privilege 15 role network-admin secret sha512 <redacted:0c550184f4>'
    """
    return "\n".join(_redact_line(line, key) for line in text.split("\n"))


def _redact_line(line: str, key: bytes) -> str:
    match = SECRET_LINE.match(line)
    if match is None or match.group(2).startswith("<"):
        return line
    return f"{match.group(1)} <redacted:{fingerprint(match.group(2), key)}>{match.group(3)}"


def fingerprint(value: str, key: bytes) -> str:
    """A short keyed hash of a secret value.

    Example:
        >>> fingerprint("x", b"k") == fingerprint("x", b"k") != fingerprint("y", b"k")
        True
    """
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:10]


def run_key() -> bytes:
    """A fresh key for one comparison: fingerprints never outlive the run that made them."""
    return _random.token_bytes(32)


def _refuse_inside_git(path: Path) -> None:
    """Secrets must not live in a repository: refuse a file inside a git work tree."""
    for parent in path.resolve().parents:
        if (parent / ".git").exists():
            raise FabricopsError(f"{path} is inside the git repository {parent}: keep secrets outside git")
