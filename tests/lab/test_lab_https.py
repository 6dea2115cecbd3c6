"""eAPI over HTTPS, as EOS serves it by default: a self-signed certificate the stock clients accept.

NAPALM passes ``transport: https`` to pyeapi's ``HttpsEapiConnection``, which does not verify the
certificate unless given ``enforce_verification`` or an ``ssl.SSLContext`` (``context``); the
lab works with each of these as a switch does.
"""

from __future__ import annotations

import ssl
import time

import pytest
from napalm.base.exceptions import ConnectionException
from pyeapi.eapilib import ConnectionError as EapiConnectionError

from lab import Lab
from lab.testing import TIMEOUT, napalm_driver


def test_napalm_over_https_replaces_and_commits(blank: Lab) -> None:
    with napalm_driver(blank, "sw1", transport="https") as driver:
        assert driver.get_facts()["hostname"] == "sw1"
        driver.load_replace_candidate(config=blank.device("sw1").running_config().replace("hostname sw1", "hostname x"))
        assert "+hostname x" in driver.compare_config()
        driver.commit_config()
        assert driver.get_facts()["hostname"] == "x"


def test_a_client_that_trusts_the_lab_certificate_verifies_it(blank: Lab) -> None:
    context = ssl.create_default_context(cadata=blank.tls_certificate.decode())
    with napalm_driver(blank, "sw1", transport="https", context=context) as driver:
        assert driver.get_facts()["hostname"] == "sw1"


def test_a_client_that_enforces_verification_refuses_the_self_signed_certificate(blank: Lab) -> None:
    from lab.testing import driver_for

    driver = driver_for(blank, "sw1", transport="https", enforce_verification=True)
    with pytest.raises((EapiConnectionError, ConnectionException), match="CERTIFICATE_VERIFY_FAILED"):
        driver.open()


def test_https_spoken_to_the_http_port_fails_at_once(blank: Lab) -> None:
    """A TLS client that reaches the plain-HTTP port is disconnected, not left to its timeout."""
    from napalm import get_network_driver

    host, port = blank.endpoints()["sw1"]
    driver = get_network_driver("eos")(
        host, blank.username, blank.password, timeout=TIMEOUT, optional_args={"transport": "https", "port": port}
    )
    clock = time.perf_counter()
    with pytest.raises((EapiConnectionError, ConnectionException)):
        driver.open()
    assert time.perf_counter() - clock < 1


def test_an_unreachable_device_closes_both_ports(blank: Lab) -> None:
    from napalm import get_network_driver

    blank.fault("sw1", "unreachable")
    for https in (False, True):
        host, port = blank.endpoints(https=https)["sw1"]
        driver = get_network_driver("eos")(
            host,
            blank.username,
            blank.password,
            timeout=TIMEOUT,
            optional_args={"transport": "https" if https else "http", "port": port},
        )
        with pytest.raises((EapiConnectionError, ConnectionException), match=r"(?i)refused"):
            driver.open()
    blank.fault("sw1", "unreachable", on=False)
    with napalm_driver(blank, "sw1", transport="https") as driver:
        assert driver.get_facts()["hostname"] == "sw1"
