"""Secrets: resolved into configs only on their way to a device, never written or printed.

``generated/`` holds references such as ``<secret:admin_sha512>``. Deploy resolves them from
the environment (``FABRICOPS_SECRET_ADMIN_SHA512``), from a YAML file outside git
(``FABRICOPS_SECRETS_FILE``, default ``~/.config/fabricops/secrets.yaml``), or, for the lab,
from values derived from the lab's own password. Anything that leaves the process
(backups, reports, logs) goes through :func:`core.masking.mask` first, under
:func:`mask_key` where the masked text must be matched again later (backups).

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
from collections.abc import Mapping
from pathlib import Path

from core.errors import FabricopsError

PLACEHOLDER = re.compile(r"<secret:([a-z0-9_]+)>")
ENV_PREFIX = "FABRICOPS_SECRET_"
ENV_FILE = "FABRICOPS_SECRETS_FILE"
DEFAULT_FILE = Path("~/.config/fabricops/secrets.yaml")
#: The store's entry for the key of masked secrets (:func:`mask_key`).
MASK_KEY = "mask_key"

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
    from_file = _file_values()
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


def store_values() -> dict[str, str]:
    """Every value of the secret store (``FABRICOPS_SECRET_*`` and the secrets file), by name.

    A masked backup is restored from these when the live device no longer holds a secret.
    """
    values = _file_values()
    for variable, value in os.environ.items():
        if variable.startswith(ENV_PREFIX) and value:
            values[variable[len(ENV_PREFIX) :].lower()] = value
    return values


def mask_key(password: str) -> bytes:
    """The persistent key of masked secrets (backups, plan fingerprints).

    It must outlive a run, for a backup to be matched against the live device or the store at
    restore time, and stay out of git: ``FABRICOPS_SECRET_MASK_KEY`` (or ``mask_key`` in the
    secrets file) when set, else derived from the device password every run already has.

    Example:
        >>> mask_key("pw") == mask_key("pw") != mask_key("other")
        True
    """
    explicit = load_values([MASK_KEY]).get(MASK_KEY)
    secret = explicit if explicit else password
    return hmac.new(secret.encode(), b"fabricops masked secrets v1", hashlib.sha256).digest()


def run_key() -> bytes:
    """A fresh key for one comparison: fingerprints never outlive the run that made them."""
    return os.urandom(32)  # what secrets.token_bytes does, without importing its module


def _file_values() -> dict[str, str]:
    path = Path(os.environ.get(ENV_FILE, str(DEFAULT_FILE))).expanduser()
    if not path.is_file():
        return {}
    _refuse_inside_git(path)
    import yaml  # here: every command starts by importing this module, few read the file

    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise FabricopsError(f"{path}: expected a mapping of secret name to value")
    return {str(k): str(v) for k, v in data.items()}


def _refuse_inside_git(path: Path) -> None:
    """Secrets must not live in a repository: refuse a file inside a git work tree."""
    for parent in path.resolve().parents:
        if (parent / ".git").exists():
            raise FabricopsError(f"{path} is inside the git repository {parent}: keep secrets outside git")
