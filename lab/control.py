"""The control endpoint of a background lab: faults, tamper and status from another process.

It listens on 127.0.0.1 beside the devices and answers ``POST /control`` only
with the ``X-Lab-Token`` written to ``.lab/lab.json`` at ``lab up``. Body:
``{"action": "fault"|"tamper"|"status", "device": NAME, "kind": ..., "options": {...},
"lines": [...]}``; ``{"action": "join", "devices": [DeviceSpec fields...], "links": [...]}`` adds
switches to the running lab (``fabricops lab up`` on a running lab); ``{"action": "replace",
"device": NAME, "serial": S, "base_mac": M}`` swaps a unit for a factory-default one.
"""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lab.emulator import Lab


def handle_control(lab: Lab, request: dict[str, Any]) -> dict[str, Any]:
    """Run one control request against ``lab`` (raises on a bad request)."""
    action = request.get("action")
    if action == "status":
        return {"devices": lab.status()}
    device = str(request.get("device", ""))
    if action == "fault":
        return lab.fault(device, str(request.get("kind", "")), **dict(request.get("options") or {}))
    if action == "tamper":
        lines = [str(x) for x in request.get("lines") or []]
        return {"device": device, "errors": lab.tamper(device, lines)}
    if action == "join":
        return join_devices(lab, request)
    if action == "replace":
        lab.replace(device, str(request["serial"]), str(request["base_mac"]))
        return {"device": device}
    if action == "counters":
        lab.device(device).add_counters(str(request["port"]), **dict(request.get("deltas") or {}))
        return {"device": device}
    raise ValueError(f"unknown action {action!r}")


def join_devices(lab: Lab, request: dict[str, Any]) -> dict[str, Any]:
    """``join``: add the devices of ``request["devices"]`` (DeviceSpec fields but the catalog)
    that the lab lacks, with the cables of ``request["links"]`` that reach them; answer their
    endpoints. The catalog is the one of ``generated/`` in ``request["root"]`` at
    ``request["ref"]`` (with the repository's own models), as ``lab up`` reads it."""
    from core.generated import open_snapshot
    from lab.emulator import DeviceSpec
    from lab.topology import Link

    catalog = open_snapshot(Path(request["root"]), request.get("ref")).catalog() if request.get("root") else None
    specs = [
        DeviceSpec(
            **{**item, "linecards": tuple((int(slot), str(card)) for slot, card in item.get("linecards", ()))},
            catalog=catalog,
        )
        for item in request.get("devices") or []
    ]
    added = lab.join(specs, [Link(**item) for item in request.get("links") or []])
    http, https = lab.endpoints(), lab.endpoints(https=True)
    endpoints = {name: {"host": http[name][0], "port": http[name][1], "https_port": https[name][1]} for name in added}
    return {"joined": added, "endpoints": endpoints}


def call(port: int, token: str, request: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
    """Send one control request to a lab listening on ``port``."""
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/control",
        data=json.dumps(request).encode(),
        headers={"X-Lab-Token": token, "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            answer: dict[str, Any] = json.loads(resp.read())
            return answer
    except urllib.error.HTTPError as exc:
        body = exc.read().decode(errors="replace")
        try:
            message = json.loads(body).get("error", body)
        except ValueError:
            message = body
        raise RuntimeError(str(message)) from None
