"""eAPI wire details, checked with raw HTTP: what pyeapi and httpx rely on."""

from __future__ import annotations

import base64
import http.client
import json
from typing import Any

import pytest

from lab import Lab
from lab.printer import strip_header

AUTH = "Basic " + base64.b64encode(b"admin:admin").decode()


def post(lab: Lab, body: Any, *, auth: str = AUTH, raw: bytes | None = None) -> tuple[int, Any]:
    host, port = lab.endpoints()["sw1"]
    conn = http.client.HTTPConnection(host, port, timeout=5)
    try:
        data = raw if raw is not None else json.dumps(body).encode()
        conn.request(
            "POST", "/command-api", body=data, headers={"Authorization": auth, "Content-Type": "application/json-rpc"}
        )
        resp = conn.getresponse()
        payload = resp.read()
        return resp.status, (json.loads(payload) if resp.status == 200 else payload)
    finally:
        conn.close()


def run(lab: Lab, cmds: list[Any], fmt: str = "json") -> Any:
    status, reply = post(
        lab, {"jsonrpc": "2.0", "method": "runCmds", "id": "t1", "params": {"version": 1, "cmds": cmds, "format": fmt}}
    )
    assert status == 200
    assert reply["id"] == "t1"
    return reply


def test_head_probe_and_auth(blank: Lab) -> None:
    host, port = blank.endpoints()["sw1"]
    conn = http.client.HTTPConnection(host, port, timeout=5)
    conn.request("HEAD", "/command-api", headers={"Authorization": AUTH})
    assert conn.getresponse().status == 200
    conn.close()
    assert post(blank, {}, auth="Basic " + base64.b64encode(b"admin:nope").decode())[0] == 401
    assert post(blank, {}, auth="")[0] == 401


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"{not json", -32700),
        (b'{"jsonrpc": "2.0", "method": "runShell", "id": 1}', -32601),
        (b'{"jsonrpc": "2.0", "method": "runCmds", "id": 1, "params": {"cmds": "show version"}}', -32602),
    ],
)
def test_json_rpc_errors(blank: Lab, raw: bytes, code: int) -> None:
    status, reply = post(blank, None, raw=raw)
    assert status == 200
    assert reply["error"]["code"] == code
    assert "data" not in reply["error"]


def test_text_format_error_carries_output(blank: Lab) -> None:
    reply = run(blank, ["enable", "show bogus"], fmt="text")
    assert reply["error"]["message"] == "CLI command 2 of 2 'show bogus' failed: invalid command"
    assert reply["error"]["data"] == [
        {"output": ""},
        {"errors": ["Invalid input (at token 1: 'bogus')"], "output": "% Invalid input (at token 1: 'bogus')\n"},
    ]


def test_dict_commands_blank_lines_and_whitespace(blank: Lab) -> None:
    reply = run(
        blank,
        [
            {"cmd": "enable", "input": "secret"},
            "",
            "show   hostname",
            {"cmd": "show lldp neighbors  detail", "revision": 1},
        ],
    )
    assert reply["result"][0] == {} and reply["result"][1] == {}
    assert reply["result"][2]["hostname"] == "sw1"
    assert reply["result"][3] == {"lldpNeighbors": {}}


def test_comment_with_input_becomes_a_mode_comment(blank: Lab) -> None:
    run(
        blank,
        [
            "configure session c1",
            "interface Ethernet1",
            {"cmd": "comment", "input": "uplink\nto spine"},
            "end",
            "configure session c1 commit",
        ],
    )
    assert "interface Ethernet1\n   !! uplink\n   !! to spine\n" in blank.device("sw1").running_config()


def test_max_open_sessions(blank: Lab) -> None:
    for i in range(5):
        assert "result" in run(blank, [f"configure session s{i}", "end"])
    reply = run(blank, ["configure session s5"])
    assert reply["error"]["code"] == 1000
    assert "Maximum number of pending sessions" in reply["error"]["data"][-1]["errors"][0]
    sessions = run(blank, ["show configuration sessions"])["result"][0]
    assert sessions["maxOpenSessions"] == 5
    assert {s["state"] for s in sessions["sessions"].values()} == {"pending"}


def test_commit_is_refused_while_a_timer_runs(blank: Lab) -> None:
    run(blank, ["configure session t1", "hostname one", "end", "configure session t1 commit timer 00:05:00"])
    run(blank, ["configure session t2", "hostname two", "end"])
    reply = run(blank, ["configure session t2 commit"])
    assert reply["error"]["code"] == 1000
    detail = run(blank, ["show configuration sessions detail"])["result"][0]["sessions"]
    assert detail["t1"]["state"] == "pendingCommitTimer" and detail["t1"]["commitBy"] > 0
    run(blank, ["configure session t1 abort"])
    assert "hostname sw1" in blank.device("sw1").running_config()


def test_copy_write_and_configure_replace(blank: Lab) -> None:
    dev = blank.device("sw1")
    assert run(blank, ["configure", "hostname changed", "end"])["result"] == [{}, {}, {}]
    assert "hostname sw1" in dev.startup_config()
    reply = run(blank, ["copy running-config startup-config"])
    assert reply["result"] == [{"messages": ["Copy completed successfully."]}]
    assert "hostname changed" in dev.startup_config()
    run(blank, ["copy startup-config flash:before", "configure", "hostname later", "end"])
    run(blank, ["configure replace flash:before"])
    assert "hostname changed" in dev.running_config()
    run(blank, ["configure replace clean-config", "write memory"])
    assert "hostname" not in strip_header(dev.startup_config())


def test_session_config_and_diff(blank: Lab) -> None:
    run(blank, ["configure session d1", "interface Ethernet2", "description NEW", "end"])
    text = run(blank, ["show session-config named d1"], fmt="text")["result"][0]["output"]
    assert "interface Ethernet2\n   description NEW\n" in text
    diff = run(blank, ["show session-config named d1 diffs"], fmt="text")["result"][0]["output"]
    assert diff.startswith("--- system:/running-config\n+++ session:/d1-session-config\n@@ ")
    assert "+   description NEW\n" in diff


def test_output_filters(blank: Lab) -> None:
    out = run(blank, ["show running-config | section management api"], fmt="text")["result"][0]["output"]
    assert out == "management api http-commands\n   no shutdown\n"
    assert run(blank, ["show running-config | include hostname"], fmt="text")["result"][0]["output"] == "hostname sw1\n"


def test_configure_mode_does_not_survive_a_request(blank: Lab) -> None:
    """Every request starts in exec mode: a config line alone is not a command."""
    reply = run(blank, ["hostname x"])
    assert reply["error"]["data"][-1]["errors"] == ["Invalid input (at token 0: 'hostname')"]


def test_abort_and_commit_inside_session_mode(blank: Lab) -> None:
    run(blank, ["configure session a1", "hostname aborted", "abort"])
    assert run(blank, ["show configuration sessions"])["result"][0]["sessions"] == {}
    run(blank, ["configure session c1", "hostname committed", "commit"])
    assert "hostname committed" in blank.device("sw1").running_config()
    states = run(blank, ["show configuration sessions"])["result"][0]["sessions"]
    assert states == {
        "c1": {
            "state": "completed",
            "completedTime": states["c1"]["completedTime"],
            "commitUser": "",
            "description": "",
            "instances": {},
        }
    }


def test_exit_walks_up_the_modes_and_leaves_config_mode(blank: Lab) -> None:
    run(
        blank,
        [
            "configure",
            "interface Ethernet1",
            "uc-tx-queue 3",
            "exit",
            "description up",
            "exit",
            "hostname walked",
            "exit",
            "show hostname",
        ],
    )
    text = blank.device("sw1").running_config()
    assert "interface Ethernet1\n   description up\n   !\n   uc-tx-queue 3\n" in text
    assert "hostname walked" in text
