"""The eAPI transports NAPALM is given: one connection per device conversation, pyeapi's requests.

Driven by the stock NAPALM ``eos`` driver against a one-switch lab, over HTTPS and HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from core import eapi
from core.eapi import KeepAliveHttpEapiConnection, KeepAliveHttpsEapiConnection
from lab import Lab
from lab.emulator import DeviceSpec
from lab.testing import driver_for, running_lab


@pytest.fixture(scope="module")
def switch() -> Iterator[Lab]:
    with running_lab([DeviceSpec("sw1", None, ethernet_ports=4)]) as lab:
        yield lab


def _driver(lab: Lab, transport: type[Any]) -> Any:
    https = transport is KeepAliveHttpsEapiConnection
    return driver_for(lab, "sw1", transport=transport, port=lab.endpoints(https=https)["sw1"][1])


def _converse(driver: Any) -> list[Any]:
    """What a plan asks of a switch (open, running config, LLDP, a config session's load, diff and
    abort), noting the socket each request went out on."""
    driver.open()
    transport = driver.device.connection.transport
    sockets = [transport.sock]
    assert driver.get_config(retrieve="running")["running"].startswith("! Command: show running-config")
    sockets.append(transport.sock)
    assert isinstance(driver.get_lldp_neighbors(), dict)
    sockets.append(transport.sock)
    driver.load_replace_candidate(config="hostname renamed\n")
    assert "+hostname renamed" in driver.compare_config()
    driver.discard_config()
    sockets.append(transport.sock)
    return sockets


@pytest.mark.parametrize("transport", [KeepAliveHttpsEapiConnection, KeepAliveHttpEapiConnection])
def test_one_connection_per_conversation(switch: Lab, transport: type[Any]) -> None:
    """Every request of the conversation goes out on the connection the first one opened, and the
    switch holds exactly that one; NAPALM's close() closes it."""
    driver = _driver(switch, transport)
    sockets = _converse(driver)
    assert sockets[0] is not None and all(sock is sockets[0] for sock in sockets)
    assert switch.server is not None and len(switch.server.writers["sw1"]) == 1
    driver.close()
    assert driver.device.connection.transport.sock is None


def test_an_idle_connection_is_replaced_not_reused(switch: Lab, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the idle limit a request opens a new connection: never one the server may have dropped."""
    monkeypatch.setattr(eapi, "IDLE_SECONDS", -1.0)
    driver = _driver(switch, KeepAliveHttpsEapiConnection)
    try:
        sockets = _converse(driver)
    finally:
        driver.close()
    assert len({id(sock) for sock in sockets}) == len(sockets), "a new connection for every request"


def test_requests_are_sanitised_only_for_a_debug_line_that_is_written(switch: Lab) -> None:
    """pyeapi sanitises every request for its debug log line; with debug logging off there is no line."""
    connection = KeepAliveHttpsEapiConnection("127.0.0.1", port=switch.endpoints(https=True)["sw1"][1])
    assert connection._sanitize_request('{"params": {"cmds": [{"cmd": "enable", "input": "pw"}]}}') == ""
    connection.close()
