"""Every form of secret EOS prints is found, masked by a keyed hash, and restored by it."""

from __future__ import annotations

import logging

import pytest

from core.masking import (
    MASKED,
    SECRET_RULES,
    MaskingFilter,
    SecretRule,
    keyed_hash,
    mask,
    secret_hint,
    secret_spans,
    secret_values,
    unmask,
)

#: (a line as EOS prints it, the secret values in it): one row per form of SECRET_RULES.
FORMS = [
    ("username admin privilege 15 role network-admin secret sha512 $6$salt$hashhash", ["$6$salt$hashhash"]),
    ("username ops secret 5 $1$5O85YVVn$HrXcfOivJEnISTMb6xrJc.", ["$1$5O85YVVn$HrXcfOivJEnISTMb6xrJc."]),
    ("username bob secret 0 hunter2", ["hunter2"]),
    ("enable password sha512 $6$enable$hash", ["$6$enable$hash"]),
    ("aaa root secret sha512 $6$root$hash", ["$6$root$hash"]),
    ("snmp-server community n0tpublic ro", ["n0tpublic"]),
    ("snmp-server host 10.0.0.9 vrf MGMT version 2c c0mmunity", ["c0mmunity"]),
    ("snmp-server user ops grp v3 localized 0123 auth sha AUTHKEY1 priv aes PRIVKEY1", ["AUTHKEY1", "PRIVKEY1"]),
    ("ntp authentication-key 1 md5 7 0207165218120E", ["0207165218120E"]),
    ("tacacs-server host 10.0.0.5 vrf MGMT key 7 070C285F4D06", ["070C285F4D06"]),
    ("tacacs-server key 7 121A0C041104", ["121A0C041104"]),
    ("radius-server host 192.168.0.1 key 7 0207165218120E", ["0207165218120E"]),
    ("   neighbor EVPN-OVERLAY-PEERS password 7 q+VNViP5i4rVjW1cxFv2wA==", ["q+VNViP5i4rVjW1cxFv2wA=="]),
    ("   ip ospf authentication-key 7 094F471A1A0A", ["094F471A1A0A"]),
    ("   ip ospf message-digest-key 1 md5 7 02050D480809", ["02050D480809"]),
    ("   isis authentication key 7 j4Dubk9Vcnjaq8//RS41uw== level-2", ["j4Dubk9Vcnjaq8//RS41uw=="]),
    ("   authentication key 7 j4Dubk9Vcnjaq8//RS41uw== level-2", ["j4Dubk9Vcnjaq8//RS41uw=="]),
    ("      key-string 7 06070E2F4D1E", ["06070E2F4D1E"]),
    ("      secret 1 7 070E33455D1D18544541 receive-lifetime infinite", ["070E33455D1D18544541"]),
    ("   vrrp 1 session authentication text 0 vrrpkey", ["vrrpkey"]),
    ("      key 1234abcd 7 0A2B3C4D5E", ["0A2B3C4D5E"]),
    ("   exec /usr/bin/TerminAttr -cvaddr=1.2.3.4:9910 -cvauth=key,qwerty -cvvrf=MGMT", ["qwerty"]),
    ("   exec /usr/bin/TerminAttr -ingestauth=key,eossuper -taillogs", ["eossuper"]),
    ("   mpls ldp password 7 110A1016141D", ["110A1016141D"]),
]


@pytest.mark.parametrize(("line", "values"), FORMS)
def test_every_form_is_found_and_masked(line: str, values: list[str]) -> None:
    assert secret_values(line) == values
    masked = mask(line, b"k")
    assert not any(value in masked for value in values)
    assert len(MASKED.findall(masked)) == len(values)


@pytest.mark.parametrize("rule", SECRET_RULES, ids=[rule.form for rule in SECRET_RULES])
def test_every_rule_names_words_of_its_own_pattern_as_hints(rule: SecretRule) -> None:
    """A line without any hint is never searched: each hint is a word the rule's pattern spells
    out, and every example line of the rules passes the first test."""
    assert rule.hints and all(hint in rule.pattern.pattern for hint in rule.hints)
    assert all(secret_hint().search(line) for line, _ in FORMS)


@pytest.mark.parametrize(("line", "values"), FORMS)
def test_a_masked_line_is_restored_exactly_by_its_keyed_hash(line: str, values: list[str]) -> None:
    assert unmask(mask(line, b"k"), ["decoy", *values], b"k") == (line, [])
    assert unmask(mask(line, b"k"), values, b"another key")[1] == [mask(line, b"k").strip()]


@pytest.mark.parametrize(
    "line",
    [
        "username arista ssh-key ssh-rsa AAAAB3NzaC1yc2E arista@host",
        "username admin privilege 15 role network-admin nopassword",
        "aaa authentication policy local allow-nopassword-remote-login",
        "   password encryption-key common",
        "   exec /usr/bin/TerminAttr -cvauth=token,/tmp/token",
        "   neighbor 10.0.0.1 send-community extended",
        "username admin privilege 15 role network-admin secret sha512 <secret:admin_sha512>",
    ],
)
def test_lines_without_a_value_are_left_alone(line: str) -> None:
    assert mask(line, b"k") == line


def test_diff_lines_and_error_messages_quoting_a_line_are_masked() -> None:
    text = "-snmp-server community old0ne ro\n+snmp-server community new0ne ro"
    error = "line 'tacacs-server host 10.0.0.5 key 7 070C285F4D06' rejected: Unavailable command"
    masked = mask(f"{text}\n{error}", b"k")
    assert not {"old0ne", "new0ne", "070C285F4D06"} & set(masked.replace("'", " ").split())
    assert masked.count("<masked:") == 3


def test_a_config_quoted_in_json_is_masked() -> None:
    """pyeapi logs requests and replies as JSON: lines end in an escaped newline, or sit in quotes."""
    text = '{"cmds": ["secret 1 7 0A0B0C0D0E0F"], "output": "!\\nsnmp-server community abc ro\\n"}'
    masked = mask(text, b"k")
    assert "0A0B0C0D0E0F" not in masked and "abc" not in masked
    assert masked.count("<masked:") == 2


def test_known_values_become_placeholders_anywhere() -> None:
    text = "secret sha512 $6$salt$known\nsomething quoting $6$salt$known"
    assert mask(text, b"k", {"admin_sha512": "$6$salt$known"}) == (
        "secret sha512 <secret:admin_sha512>\nsomething quoting <secret:admin_sha512>"
    )


def test_equal_values_mask_equal_under_one_key() -> None:
    a, b = mask("snmp-server community same ro", b"k"), mask("snmp-server community same ro", b"k")
    assert a == b != mask("snmp-server community other ro", b"k")
    assert keyed_hash("same", b"k") in a


def test_spans_never_overlap() -> None:
    line = "   neighbor X password 7 070C285F4D06"
    assert [line[a:b] for a, b in secret_spans(line)] == ["070C285F4D06"]


def test_the_log_filter_masks_messages_and_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("fabricops.test.masking")
    handler = caplog.handler
    handler.addFilter(MaskingFilter(b"k"))
    try:
        logger.warning("pushing %s", "snmp-server community s3cret ro")
        try:
            raise ValueError("'ntp authentication-key 1 md5 7 0207165218120E' failed")
        except ValueError:
            logger.exception("load failed")
    finally:
        handler.filters.clear()
    assert "s3cret" not in caplog.text and "0207165218120E" not in caplog.text
    assert caplog.text.count("<masked:") >= 2
