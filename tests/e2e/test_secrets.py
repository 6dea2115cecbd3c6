"""No secret value anywhere outside the device, through the whole loop.

A leaf of the lab is given every form of secret EOS prints, out of band; then plan, deploy,
drift (text, markdown, JSON and the report files), health, and rollbacks to a backup taken
while those secrets were on the device run as a user runs them. Afterwards no value is in any
output, any file the loop wrote, any object of any git ref (the state branch's backups and
records, tags) or any log record. The rollbacks restore the device exactly: its secrets come
back from the live device, or from the secret store matched by keyed hash, and a secret neither
holds is named and nothing is applied.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from core.masking import secret_values
from core.secrets import lab_secret
from lab import Lab
from tests.conftest import git, make_repo, start_factory_lab

DEVICE = "rack01-leaf-a"
FAST = ("--lab", "--revert-in", "15", "--settle", "0", "--workers", "4")
PLAN = ("--lab", "--workers", "4")
CLEAR = "Cl3ar-Passw0rd"
#: Every form of secret EOS prints, as an engineer would type it on the console.
SEEDS = [
    "aaa root secret sha512 $6$r00tSalt$" + "R" * 86,
    "enable password sha512 $6$enabSalt$" + "E" * 86,
    "username ops privilege 15 role network-admin secret sha512 $6$opsSalt1$" + "O" * 86,
    "username legacy privilege 1 role network-operator secret 5 $1$md5Salt$Md5HashValue0123456789",
    f"username clear privilege 1 role network-operator secret 0 {CLEAR}",
    "snmp-server community S3cretCommunity ro",
    "snmp-server host 10.9.9.9 version 2c H0stCommunity",
    "snmp-server user v3user v3group v3 auth sha Auth0Key0001 priv aes Priv0Key0001",
    "ntp authentication-key 7 md5 7 0822455D0A16544541",
    "tacacs-server host 10.9.9.8 key 7 070C285F4D0611",
    "radius-server host 10.9.9.7 key 7 02050D48080922",
    "router ospf 100",
    "area 0.0.0.0 authentication message-digest",
    "interface Ethernet25/1",
    "ip ospf authentication-key 7 094F471A1A0A11",
    "ip ospf message-digest-key 1 md5 7 121A0C04110433",
    "isis authentication key 7 IsisIfaceKey00== level-2",
    "router isis 1",
    "authentication key 7 IsisProcKey000== level-2",
    "management security",
    "session shared-secret profile KEYS",
    "secret 1 7 0A0B0C0D0E0F1011 receive-lifetime infinite transmit-lifetime infinite",
    "daemon TerminAttr",
    "exec /usr/bin/TerminAttr -cvaddr=10.0.0.1:9910 -cvauth=key,T3rmAttrKey -taillogs",
    "no shutdown",
]


@dataclass
class Loop:
    root: Path
    lab: Lab
    outputs: list[str]

    def run(self, *args: str, expect: int = 0) -> str:
        """``fabricops ARGS --root ROOT`` in process (the lab lives here); both streams kept."""
        from fabricops.cli import main

        out, err = io.StringIO(), io.StringIO()
        code = 0
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main([*args, "--root", str(self.root)])
            except SystemExit as exc:
                code = int(exc.code or 0)
        self.outputs += [out.getvalue(), err.getvalue()]
        assert code == expect, f"fabricops {' '.join(args)} -> {code}\n{out.getvalue()}\n{err.getvalue()}"
        return out.getvalue() + err.getvalue()

    def running(self) -> str:
        return self.lab.device(DEVICE).running_config()

    def secret_lines(self) -> list[str]:
        return sorted(line for line in self.running().splitlines() if secret_values(line))


@pytest.fixture
def loop(tmp_path: Path, compiled_example: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Loop]:
    monkeypatch.setenv("FABRICOPS_SECRETS_FILE", str(tmp_path / "no-secrets.yaml"))
    for variable in [v for v in os.environ if v.startswith("FABRICOPS_SECRET_")]:
        monkeypatch.delenv(variable)
    root = make_repo(tmp_path / "repo", compiled_example, ".lab/\n/plan.json\ndrift/reports/\n")
    monkeypatch.chdir(root)
    lab = start_factory_lab(root)
    try:
        yield Loop(root, lab, [])
    finally:
        lab.stop()


def test_no_secret_value_leaves_the_device(
    loop: Loop, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.DEBUG)
    loop.run("plan", *PLAN, "--devices", DEVICE, "--out", "plan.json", expect=3)
    loop.run("deploy", *FAST, "--devices", DEVICE, "--plan", "plan.json")

    deployed = set(secret_values(loop.running()))
    assert loop.lab.device(DEVICE).tamper(SEEDS) == []
    seeded = loop.secret_lines()
    values = set(secret_values(loop.running())) - deployed
    assert len(values) == 18  # every form is on the device now (the SNMPv3 line holds two)

    loop.run("plan", *PLAN, "--devices", DEVICE, "--out", "plan.json", "--format", "json", expect=3)
    for fmt in ("text", "markdown", "json"):
        loop.run("drift", "--lab", "--devices", DEVICE, "--format", fmt, "--report-dir", f"reports/{fmt}", expect=3)
    loop.run("health", "--lab", "--devices", DEVICE)
    loop.run("health", "--lab", "--devices", DEVICE, "--format", "json")

    # The deploy backs the seeded config up (masked) and returns the device to git's config.
    loop.run("deploy", *FAST, "--devices", DEVICE, "--format", "json")
    assert not set(secret_values(loop.running())) & values
    state = git(loop.root, "ls-tree", "-r", "--name-only", "fabricops-state", "--").split()
    seeded_backup = sorted(p for p in state if p.startswith(f"backups/{DEVICE}/"))[-1]
    stamp = Path(seeded_backup).stem

    # Neither the device nor the store holds them: each is named, nothing is applied.
    before = loop.running()
    refused = loop.run("rollback", "--to-backup", f"{DEVICE}@{stamp}", *FAST, expect=1)
    assert re.search(r"\d+ secret\(s\) cannot be restored", refused)
    assert "snmp-server community <masked:" in refused
    assert loop.running() == before

    # From the live device: the secrets are there again (with another hostname); restored exactly.
    # (A clear secret typed again would be hashed with another salt: type the stored hash.)
    stored = next(line for line in seeded if line.startswith("username clear "))
    again = [stored if line.startswith("username clear ") else line for line in SEEDS]
    assert loop.lab.device(DEVICE).tamper([*again, f"hostname {DEVICE}-by-hand"]) == []
    loop.run("rollback", "--to-backup", f"{DEVICE}@{stamp}", *FAST)
    assert loop.secret_lines() == seeded
    assert f"hostname {DEVICE}\n" in loop.running()

    # From the secret store, matched by keyed hash: the device no longer has them.
    loop.run("deploy", *FAST, "--devices", DEVICE)
    for index, value in enumerate(sorted(values)):
        monkeypatch.setenv(f"FABRICOPS_SECRET_RESTORE_{index}", value)
    loop.run("rollback", "--to-backup", DEVICE, *FAST)
    assert loop.secret_lines() == seeded
    loop.run("drift", "--lab", "--devices", DEVICE, "--report-dir", "reports/after", expect=3)

    values |= {CLEAR, lab_secret("admin_sha512", loop.lab.password)}  # and a <secret:NAME> resolved at deploy
    leaks = _leaks(loop, caplog.text, values)
    assert leaks == [], leaks


def _leaks(loop: Loop, logs: str, values: set[str]) -> list[str]:
    """Where any value appears: outputs, logs, files of the repository, objects of every git ref."""
    found = []
    places = {f"output {i}": text for i, text in enumerate(loop.outputs)}
    places["logs"] = logs
    for path in loop.root.rglob("*"):
        if path.is_file() and not {".git", ".lab"} & set(path.relative_to(loop.root).parts):
            places[str(path.relative_to(loop.root))] = path.read_text(errors="replace")
    places["git: messages of every ref"] = git(loop.root, "log", "--all", "--format=%B%n%N")
    places["git: tags"] = git(loop.root, "for-each-ref", "--format=%(contents)", "refs/tags")
    for value in values:
        found += [f"{value!r} in {where}" for where, text in places.items() if value in text]
        grep = subprocess.run(
            ["git", "grep", "-l", "-F", "-e", value, *git(loop.root, "rev-list", "--all").split()],
            cwd=loop.root,
            capture_output=True,
            text=True,
            check=False,
        )
        found += [f"{value!r} in git {hit}" for hit in grep.stdout.split()]
    return found
