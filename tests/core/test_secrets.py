"""Secrets: resolved on the way to a device, reversible for backups, redacted everywhere else."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import FabricopsError
from core.secrets import load_values, redact, resolve, run_key, unresolve


def test_missing_secret_names_the_variable() -> None:
    with pytest.raises(FabricopsError, match="FABRICOPS_SECRET_ADMIN_SHA512"):
        resolve("secret sha512 <secret:admin_sha512>", {})


def test_environment_wins_over_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = tmp_path / "outside" / "secrets.yaml"
    secrets.parent.mkdir()
    secrets.write_text("admin_sha512: from-file\nother: x\n")
    monkeypatch.setenv("FABRICOPS_SECRETS_FILE", str(secrets))
    monkeypatch.setenv("FABRICOPS_SECRET_ADMIN_SHA512", "from-env")
    assert load_values(["admin_sha512", "other"]) == {"admin_sha512": "from-env", "other": "x"}


def test_secrets_file_inside_git_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "secrets.yaml").write_text("a: b\n")
    monkeypatch.setenv("FABRICOPS_SECRETS_FILE", str(tmp_path / "secrets.yaml"))
    with pytest.raises(FabricopsError, match="keep secrets outside git"):
        load_values(["a"])


def test_round_trip_for_backups() -> None:
    values = {"admin_sha512": "$6$salt$" + "x" * 86}
    text = "username admin privilege 15 role network-admin secret sha512 <secret:admin_sha512>\n"
    assert unresolve(resolve(text, values), values) == text


def test_redact_hides_unknown_secrets_but_compares_them() -> None:
    key = run_key()
    a = redact("tacacs-server host 10.0.0.1 key 7 070C285F4D06", key)
    b = redact("tacacs-server host 10.0.0.1 key 7 070C285F4D06", key)
    c = redact("tacacs-server host 10.0.0.1 key 7 1111111111", key)
    assert "070C285F4D06" not in a and a == b and a != c
