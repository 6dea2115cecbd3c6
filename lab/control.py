"""The control endpoint of a background lab: faults, tamper and status from another process.

It listens on 127.0.0.1 beside the devices and answers ``POST /control`` only
with the ``X-Lab-Token`` written to ``.lab/lab.json`` at ``lab up``. Body:
``{"action": "fault"|"tamper"|"status", "device": NAME, "kind": ..., "options": {...},
"lines": [...]}``.
"""

from __future__ import annotations

import json
import urllib.request
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
    if action == "counters":
        lab.device(device).add_counters(str(request["port"]), **dict(request.get("deltas") or {}))
        return {"device": device}
    raise ValueError(f"unknown action {action!r}")


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
