"""Compare one device's running config with its generated config, by meaning.

Both texts go through the same steps (:mod:`core.configtree` with the platform's rules from
:mod:`core.platforms`): parse into a tree, mask volatile lines and secrets, drop the lines the
device prints as defaults, then diff per section path.

Secrets. ``generated/`` holds ``<secret:NAME>``; the device prints the stored form (a
``$6$`` sha512-crypt string for ``username ... secret``). Each side's secret is replaced by a
keyed hash (``core.masking.keyed_hash`` under a key that lives for one run), so the
tree, the diff and the report never hold a value. When the value behind a placeholder is known
(``--lab`` always; otherwise the environment or the secrets file), the fingerprints are
compared and a difference is a change of kind ``secret``. A crypt string re-hashed with another
salt is a different string, and without the clear password nobody can tell it still hashes the
same password, so it is reported as ``secret`` too: the rollback restores the reviewed value.
When the value is not known, the line is compared without its secret and the device carries
the note "secret not compared (not set)" instead of drift.

Examples:
    >>> gen = "hostname a\\nusername admin privilege 15 role network-admin secret sha512 <secret:admin>\\n"
    >>> run = "! device: a\\nhostname a\\nusername admin privilege 15 role network-admin secret sha512 $6$x$y\\nend\\n"
    >>> result = compare_config(gen, run, values={"admin": "$6$x$y"}, key=b"k")
    >>> result.changes, result.notes
    ((), ())
    >>> [c.kind for c in compare_config(gen, run, values={"admin": "$6$z$w"}, key=b"k").changes]
    ['secret']
    >>> compare_config(gen, run, values={}, key=b"k").notes
    ('username admin privilege 15 role network-admin secret sha512 <secret>: secret not compared (not set)',)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from core.configtree import Change, Node, diff, normalise, parse, remediation, unverified_secrets
from core.errors import FabricopsError
from core.masking import keyed_hash, mask
from core.platforms import PlatformRules, get_rules
from core.platforms.versions import version_from_header
from core.secrets import PLACEHOLDER, load_values, placeholders, run_key

__all__ = ["Comparison", "FileComparison", "compare_config", "compare_files"]

NOT_SET = "secret not compared (not set)"


@dataclass(frozen=True)
class Comparison:
    """What differs on one device: changes, notes, and the lines that would restore git."""

    changes: tuple[Change, ...]
    notes: tuple[str, ...]
    #: Config lines that turn the running config back into git's (secrets as ``<secret:NAME>``
    #: or ``<masked:HASH>``): informative, the rollback command is the supported way back.
    remediation: tuple[str, ...]


def compare_config(
    generated: str,
    running: str,
    *,
    values: Mapping[str, str],
    key: bytes,
    platform: str = "eos",
    version: str | None = None,
    table: Path | None = None,
) -> Comparison:
    """Compare ``generated`` (git, with placeholders) with ``running`` (the device's text).

    The device's default lines are those of its release: ``version`` (from ``show version``),
    else the one its running config's ``! device:`` header names; ``table`` is a repository's
    own defaults table (``platforms/eos.yaml``), added to the built-in one.
    """
    rules = get_rules(platform, version or version_from_header(running), table)

    def expected_fp(secret: str) -> str | None:
        match = PLACEHOLDER.fullmatch(secret)
        if match is None:
            return keyed_hash(secret, key)
        value = values.get(match.group(1))
        return None if value is None else keyed_hash(value, key)

    want = normalise(parse(generated, rules, expected_fp), rules)
    have = normalise(parse(running, rules, lambda secret: keyed_hash(secret, key)), rules)
    changes = tuple(diff(want, have, rules))
    notes = tuple(f"{' > '.join((*path, line))}: {NOT_SET}" for path, line in unverified_secrets(want, have))
    # Nothing differs, nothing to restore: every line remediation writes is a change diff lists
    # (the device side's secrets always have a fingerprint here, so a secret is never "unknown").
    remedy = _safe_remediation(want, have, rules, key, values) if changes else ()
    return Comparison(changes, notes, remedy)


def _safe_remediation(
    want: Node, have: Node, rules: PlatformRules, key: bytes, values: Mapping[str, str]
) -> tuple[str, ...]:
    lines = remediation(want, have, rules)
    # Lines from the device side may carry its secret (a negated 'snmp-server user ...'):
    # only placeholders and keyed hashes leave this module.
    return tuple(mask("\n".join(lines), key, values).split("\n")) if lines else ()


@dataclass(frozen=True)
class FileComparison:
    """``fabricops drift --compare``: two config files compared offline, as the audit compares."""

    intended: str
    live: str
    #: The release whose default lines were dropped (``None``: unknown, only those of every release).
    version: str | None
    comparison: Comparison

    def text(self) -> str:
        """One line per change, then a summary (no secret value: they are masked)."""
        release = f"EOS {self.version}" if self.version else "an unknown EOS release (--eos-version to name one)"
        lines = [f"compare {self.intended} (intended) with {self.live} (live) as {release}"]
        lines += [f"  {change}" for change in self.comparison.changes]
        lines += [f"  note: {note}" for note in self.comparison.notes]
        count = len(self.comparison.changes)
        lines.append(f"{count} change(s)" if count else "in sync")
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, object]:
        return {
            "intended": self.intended,
            "live": self.live,
            "eos_version": self.version,
            "changes": [asdict(change) for change in self.comparison.changes],
            "notes": list(self.comparison.notes),
            "remediation": list(self.comparison.remediation),
        }


def compare_files(
    intended: Path, live: Path, *, version: str | None = None, table: Path | None = None
) -> FileComparison:
    """Compare two config files offline: ``intended`` (e.g. ``generated/configs/X.cfg``) and
    ``live`` (a device's ``show running-config``).

    The release is ``version``, else the one the ``! device:`` header of ``live`` (then of
    ``intended``) names. Placeholders ``<secret:NAME>`` are compared when their value is in the
    environment or the secrets file, else noted as not compared.
    """
    texts = {}
    for path in (intended, live):
        try:
            texts[path] = path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise FabricopsError(f"{path}: cannot read it as a config file: {exc}") from None
    want, have = texts[intended], texts[live]
    version = version or version_from_header(have) or version_from_header(want)
    values = load_values(placeholders(want))
    comparison = compare_config(want, have, values=values, key=run_key(), version=version, table=table)
    return FileComparison(str(intended), str(live), version, comparison)
