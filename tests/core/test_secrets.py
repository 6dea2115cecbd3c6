"""Secrets: resolved on the way to a device, read from the store, and the key of masked secrets."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import FabricopsError
from core.secrets import load_values, mask_key, resolve, store_values


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


def test_the_store_lists_every_value_for_restores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secrets = tmp_path / "outside" / "secrets.yaml"
    secrets.parent.mkdir()
    secrets.write_text("snmp_ro: from-file\n")
    monkeypatch.setenv("FABRICOPS_SECRETS_FILE", str(secrets))
    monkeypatch.setenv("FABRICOPS_SECRET_NTP_KEY", "from-env")
    assert {"snmp_ro": "from-file", "ntp_key": "from-env"}.items() <= store_values().items()


def test_the_mask_key_outlives_a_run_and_an_explicit_one_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FABRICOPS_SECRET_MASK_KEY", raising=False)
    assert mask_key("device-password") == mask_key("device-password") != mask_key("another")
    monkeypatch.setenv("FABRICOPS_SECRET_MASK_KEY", "team-key")
    assert mask_key("device-password") == mask_key("another")
