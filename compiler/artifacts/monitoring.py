"""``generated/monitoring/``: Prometheus alerting rules per switch and the counters each should show (O2, V3).

Metrics are those of **gNMIc**'s Prometheus output subscribed to the OpenConfig paths in
:data:`METRICS` (``metric-prefix: gnmic``, subscription name not appended): the metric name
is ``gnmic_`` + the path with ``/`` and ``-`` as ``_``; labels ``source`` (the switch, as
named in ``inventory/hosts.yaml``) and ``interface_name``. ``gnmic.yaml`` here is that
collector configuration, so the names in the rules and the collector cannot drift apart.

* ``rules/<device>.rules.yaml`` -- one group per switch (``promtool check rules`` format):
  PFC pause frames and ECN marks on RoCE ports, CRC and symbol errors, flaps, optic
  temperature on every cabled port, and one port-down alert per fabric port (leaf-spine,
  peer-link, management uplink), naming the device, port and far end;
* ``expected-counters.yaml`` -- per switch and port, what ``fabricops health`` should read.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from compiler.artifacts.yamltext import to_yaml
from compiler.fabric import Device, ResolvedFabric
from compiler.facts import Cable
from compiler.intent import Intent, Thresholds
from compiler.platforms import eos

FABRIC_KINDS = ("fabric", "peer-link", "mgmt-uplink")
"""Switch-to-switch links: a port down here is an alert on its own."""

ROCE_KINDS = ("fabric", "peer-link", "server")

METRICS = {
    "pause_in": "/interfaces/interface/ethernet/state/counters/in-mac-pause-frames",
    "pause_out": "/interfaces/interface/ethernet/state/counters/out-mac-pause-frames",
    "ecn_marked": "/qos/interfaces/interface/output/queues/queue/state/ecn-marked-pkts",
    "crc": "/interfaces/interface/ethernet/state/counters/in-crc-errors",
    "symbol": "/interfaces/interface/ethernet/state/counters/in-symbol-error",
    "carrier": "/interfaces/interface/state/counters/carrier-transitions",
    "oper_status": "/interfaces/interface/state/oper-status",
    "temperature": "/components/component/transceiver/state/temperature/instant",
}
"""OpenConfig paths gNMIc subscribes to, by role in the rules."""


def metric_name(path: str) -> str:
    """The gNMIc Prometheus metric of an OpenConfig path (prefix ``gnmic``).

    Example:
        >>> metric_name("/interfaces/interface/state/counters/carrier-transitions")
        'gnmic_interfaces_interface_state_counters_carrier_transitions'
    """
    return "gnmic_" + path.strip("/").replace("/", "_").replace("-", "_")


def port_regex(ports: list[str]) -> str:
    """A PromQL regex matching exactly these interface names, in port order.

    Example:
        >>> port_regex(["Ethernet10", "Ethernet9"])
        'Ethernet9|Ethernet10'
    """
    return "|".join(sorted(ports, key=lambda p: (len(p), p)))


def _m(role: str) -> str:
    return metric_name(METRICS[role])


def _ends(fabric: ResolvedFabric) -> dict[str, list[tuple[str, Cable, str]]]:
    """Per switch: (its port, the link, the far end) for every cable, Management1 excluded."""
    out: dict[str, list[tuple[str, Cable, str]]] = defaultdict(list)
    for link in fabric.links:
        for near, far in ((link.a, link.b), (link.b, link.a)):
            if near.device in fabric.devices and eos.is_front_panel(near.port):
                out[near.device].append((near.port, link, f"{far.device} {far.port}"))
    return out


def _is_roce(intent: Intent, device: Device) -> bool:
    spec = next((f for net, f in intent.fabric.fabrics.items() if net == device.network), None)
    return spec is not None and spec.qos is not None


def device_rules(intent: Intent, device: Device, ends: list[tuple[str, Cable, str]]) -> dict[str, Any]:
    """The alert group of one switch."""
    t: Thresholds = intent.fabric.thresholds
    name = device.name
    ports = [p for p, _, _ in ends]
    sel = f'source="{name}",interface_name=~"{port_regex(ports)}"'
    labels = {"device": name, "port": "{{ $labels.interface_name }}", "network": device.network}
    rules: list[dict[str, Any]] = []

    def add(alert: str, expr: str, duration: str, severity: str, summary: str) -> None:
        rules.append(
            {
                "alert": alert,
                "expr": expr,
                "for": duration,
                "labels": {"severity": severity, **labels},
                "annotations": {"summary": summary, "runbook": "generated/validation/runbook.md"},
            }
        )

    port_label = "{{ $labels.interface_name }}"
    roce = [p for p, link, _ in ends if link.kind in ROCE_KINDS] if _is_roce(intent, device) else []
    if roce:
        rsel = f'source="{name}",interface_name=~"{port_regex(roce)}"'
        pause = f"rate({_m('pause_in')}{{{rsel}}}[5m]) + rate({_m('pause_out')}{{{rsel}}}[5m])"
        add(
            "PfcPauseFramesHigh",
            f"({pause}) * 60 > {t.pfc_pause_frames_per_min}",
            "5m",
            "warning",
            f"{name} {port_label}: more than {t.pfc_pause_frames_per_min} PFC pause frames/min (PFC storm?)",
        )
        add(
            "EcnMarksHigh",
            f"sum by (source, interface_name) (rate({_m('ecn_marked')}{{{rsel}}}[5m])) * 60 > {t.ecn_marks_per_min}",
            "10m",
            "warning",
            f"{name} {port_label}: more than {t.ecn_marks_per_min} ECN marks/min (sustained congestion)",
        )
    add(
        "CrcErrors",
        f"increase({_m('crc')}{{{sel}}}[5m]) > {t.crc_errors}",
        "0m",
        "critical",
        f"{name} {{{{ $labels.interface_name }}}}: CRC errors (dirty or failing optic/cable)",
    )
    add(
        "SymbolErrors",
        f"increase({_m('symbol')}{{{sel}}}[5m]) > {t.crc_errors}",
        "0m",
        "critical",
        f"{name} {{{{ $labels.interface_name }}}}: symbol errors (signal integrity)",
    )
    add(
        "InterfaceFlapping",
        f"increase({_m('carrier')}{{{sel}}}[1h]) > {t.flaps_per_hour}",
        "0m",
        "warning",
        f"{name} {{{{ $labels.interface_name }}}}: more than {t.flaps_per_hour} link flaps in an hour",
    )
    temp_sel = f'source="{name}",component_name=~"{port_regex(ports)}"'
    rules.append(
        {
            "alert": "OpticTemperatureHigh",
            "expr": f"{_m('temperature')}{{{temp_sel}}} > {t.optic_temperature_c:g}",
            "for": "5m",
            "labels": {
                "severity": "warning",
                "device": name,
                "port": "{{ $labels.component_name }}",
                "network": device.network,
            },
            "annotations": {
                "summary": f"{name} {{{{ $labels.component_name }}}}: optic above {t.optic_temperature_c:g} C",
                "runbook": "generated/validation/runbook.md",
            },
        }
    )
    for port, link, far in ends:
        if link.kind not in FABRIC_KINDS:
            continue
        rules.append(
            {
                "alert": "FabricPortDown",
                "expr": f'{_m("oper_status")}{{source="{name}",interface_name="{port}"}} == 0',
                "for": "1m",
                "labels": {
                    "severity": "critical",
                    "device": name,
                    "port": port,
                    "peer": far,
                    "network": device.network,
                },
                "annotations": {
                    "summary": f"{name} {port} ({link.kind} to {far}) is down",
                    "runbook": "generated/validation/runbook.md",
                },
            }
        )
    return {"groups": [{"name": f"fabricops-{name}", "rules": rules}]}


def expected_counters(
    intent: Intent, fabric: ResolvedFabric, ends: dict[str, list[tuple[str, Cable, str]]]
) -> dict[str, Any]:
    """Per switch and cabled port: peer, speed, and the counter limits the alerts use."""
    t = intent.fabric.thresholds
    out: dict[str, Any] = {}
    for name, device in fabric.devices.items():
        roce = _is_roce(intent, device)
        ports: dict[str, Any] = {}
        for port, link, far in sorted(ends.get(name, []), key=lambda e: (len(e[0]), e[0])):
            expect: dict[str, Any] = {"oper_status": "UP", "in_crc_errors_max": t.crc_errors}
            if roce and link.kind in ROCE_KINDS:
                expect["pfc_pause_frames_per_min_max"] = t.pfc_pause_frames_per_min
                expect["ecn_marks_per_min_max"] = t.ecn_marks_per_min
            speed = link.a_speed if link.a.device == name else link.b_speed
            ports[port] = {"peer": far, "kind": link.kind, "speed": speed or "", "expect": expect}
        out[name] = {"network": device.network, "role": device.role, "ports": ports}
    return out


def gnmic_config(fabric: ResolvedFabric) -> dict[str, Any]:
    """The gNMIc collector: every switch as a target, the subscriptions behind :data:`METRICS`.

    Credentials stay out of the file: gNMIc reads ``GNMIC_USERNAME``/``GNMIC_PASSWORD``.
    """
    return {
        "skip-verify": True,
        "encoding": "json_ietf",
        "targets": {f"{d.mgmt_address}:6030": {"name": name} for name, d in fabric.devices.items()},
        "subscriptions": {
            "counters": {
                "paths": sorted({p for k, p in METRICS.items() if k != "oper_status"}),
                "mode": "stream",
                "stream-mode": "sample",
                "sample-interval": "30s",
            },
            "status": {"paths": [METRICS["oper_status"]], "mode": "stream", "stream-mode": "on-change"},
        },
        "outputs": {
            "prometheus": {
                "type": "prometheus",
                "listen": ":9804",
                "metric-prefix": "gnmic",
                "append-subscription-name": False,
                "event-processors": ["oper-status-to-number"],
            }
        },
        "processors": {
            "oper-status-to-number": {
                "event-strings": {
                    "value-names": [".*oper-status$"],
                    "transforms": [
                        {"replace": {"apply-on": "value", "old": "UP", "new": "1"}},
                        {"replace": {"apply-on": "value", "old": "DOWN|LOWER_LAYER_DOWN|NOT_PRESENT", "new": "0"}},
                    ],
                },
            }
        },
    }


def monitoring_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """Alert rules per switch, the expected counters, and the collector configuration."""
    ends = _ends(fabric)
    files = {
        f"monitoring/rules/{name}.rules.yaml": to_yaml(device_rules(intent, device, ends.get(name, [])))
        for name, device in fabric.devices.items()
    }
    files["monitoring/expected-counters.yaml"] = to_yaml(expected_counters(intent, fabric, ends))
    files["monitoring/gnmic.yaml"] = to_yaml(gnmic_config(fabric))
    return files
