"""One process serves the 16x fabric (about 800 switches) and starts and stops in seconds."""

from __future__ import annotations

import time

import pyeapi

from lab import DeviceSpec, Lab

DEVICES = 800


def test_800_devices_start_serve_and_stop_quickly() -> None:
    lab = Lab([DeviceSpec(f"sw{i:03d}", None, ethernet_ports=8) for i in range(DEVICES)])
    started = time.monotonic()
    lab.start()
    start_s = time.monotonic() - started
    try:
        ports = {port for _, port in lab.endpoints().values()}
        assert len(ports) == DEVICES
        for name in ("sw000", "sw399", "sw799"):
            host, port = lab.endpoints()[name]
            node = pyeapi.connect(
                transport="http", host=host, port=port, username="admin", password="admin", timeout=5, return_node=True
            )
            assert node.run_commands(["show hostname"])[0]["hostname"] == name
    finally:
        stopping = time.monotonic()
        lab.stop()
        stop_s = time.monotonic() - stopping
    assert start_s < 5, start_s
    assert stop_s < 5, stop_s
