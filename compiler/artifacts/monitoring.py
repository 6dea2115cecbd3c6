"""``generated/monitoring/``: Prometheus alerting rules per switch and the counters each should show (O2, V3).

Metrics are those of **gNMIc**'s Prometheus output subscribed to the OpenConfig paths in
:data:`METRICS` (``metric-prefix: gnmic``, subscription name not appended): gNMIc names a series
after the value's path without its keys, every run of characters outside ``[a-zA-Z0-9_]`` as
``_`` (``outputs/prometheus_output``: ``MetricName``), and labels it with each path key as
``<element>_<key>`` (``formatters/event.go``: ``TagsFromGNMIPath``; ``interface[name=...]`` is
``interface_name``, ``interface[interface-id=...]`` is ``interface_interface_id``) plus ``source``,
the target's name as in ``inventory/hosts.yaml``. :func:`produced_series` derives exactly that
from ``gnmic.yaml``, and the TEL002 rule holds every alert to it, so the rules and the collector
cannot drift apart. The collector dials every switch's gNMI server over TLS on
``services.gnmi.port`` and verifies its certificate against ``services.gnmi.ca_file``.

* ``rules/<device>.rules.yaml`` -- one group per switch (``promtool check rules`` format):
  PFC pause frames and ECN marks on RoCE ports, CRC and symbol errors, flaps, optic
  temperature on every cabled port, and one port-down alert per fabric port (leaf-spine,
  peer-link, management uplink), naming the device, port and far end;
* ``expected-counters.yaml`` -- per switch and port, what ``fabricops health`` should read;
* ``gnmic.yaml`` -- the collector: every switch a target, the subscriptions, the output.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator
from functools import partial
from typing import Any

from compiler.artifacts.units import Unit, built, digest_of, facts_digests, section_path
from compiler.artifacts.yamltext import to_yaml
from compiler.fabric import Device, ResolvedFabric
from compiler.facts import UsedPort
from compiler.intent import Intent, Thresholds
from compiler.platforms import eos

FABRIC_KINDS = ("fabric", "peer-link", "mgmt-uplink")
"""Switch-to-switch links: a port down here is an alert on its own."""

ROCE_KINDS = ("fabric", "peer-link", "server")

METRICS = {
    "pause_in": "/interfaces/interface[name=*]/ethernet/state/counters/in-mac-pause-frames",
    "pause_out": "/interfaces/interface[name=*]/ethernet/state/counters/out-mac-pause-frames",
    "ecn_marked": "/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state/ecn-marked-pkts",
    "crc": "/interfaces/interface[name=*]/ethernet/state/counters/in-crc-errors",
    "symbol": "/interfaces/interface[name=*]/ethernet/state/counters/in-symbol-error",
    "carrier": "/interfaces/interface[name=*]/state/counters/carrier-transitions",
    "oper_status": "/interfaces/interface[name=*]/state/oper-status",
    "temperature": "/components/component[name=*]/transceiver/state/temperature/instant",
}
"""OpenConfig paths gNMIc subscribes to, by role in the rules (keys as wildcards: they become labels)."""

METRIC_PREFIX = "gnmic"
TARGET_LABEL = "source"
"""The label gNMIc puts the target's name in."""
_KEYS = re.compile(r"\[([^=\]]+)=[^\]]*\]")
_NON_METRIC = re.compile(r"[^a-zA-Z0-9_]+")


def metric_name(path: str) -> str:
    """The gNMIc Prometheus metric of an OpenConfig path (prefix ``gnmic``): keys dropped.

    Example:
        >>> metric_name("/interfaces/interface[name=*]/state/counters/carrier-transitions")
        'gnmic_interfaces_interface_state_counters_carrier_transitions'
    """
    value = _NON_METRIC.sub("_", _KEYS.sub("", path)).lstrip("_")
    return f"{METRIC_PREFIX}_{value}"


def path_labels(path: str) -> frozenset[str]:
    """The labels gNMIc gives the series of ``path``: ``<element>_<key>`` per key, and ``source``.

    Example:
        >>> sorted(path_labels("/qos/interfaces/interface[interface-id=*]/output/queues/queue[name=*]/state/x"))
        ['interface_interface_id', 'queue_name', 'source']
    """
    labels = {TARGET_LABEL}
    for element, key in re.findall(r"([^/\[]+)\[([^=\]]+)=", path):
        labels.add(_NON_METRIC.sub("_", f"{element.split(':')[-1]}_{key}"))
    return frozenset(labels)


def port_regex(ports: list[str]) -> str:
    """A PromQL regex matching exactly these interface names, in port order.

    Example:
        >>> port_regex(["Ethernet10", "Ethernet9"])
        'Ethernet9|Ethernet10'
    """
    return "|".join(sorted(ports, key=lambda p: (len(p), p)))


def _m(role: str) -> str:
    return metric_name(METRICS[role])


End = tuple[str, str, str, str]
"""One cabled port of a switch: the port, the cable's kind, the speed configured at this end
(empty when none) and the far end (``device port``). Plain strings: a unit's inputs pickle
fast."""


CABLE_KINDS: dict[str, str] = {
    "uplink": "fabric",
    "downlink": "fabric",
    "peer-link": "peer-link",
    "server": "server",
    "management": "mgmt",
    "rack-uplink": "mgmt-uplink",
    "rack-downlink": "mgmt-uplink",
}
"""The kind of the cable at a used port, by the port's use (the core's ``upstream`` port, to
the site's network, has no cable in the plan)."""


def cabled_ends(fabric: ResolvedFabric, names: Collection[str] | None = None) -> dict[str, list[End]]:
    """Per switch (those ``names`` only, when given), every cabled port (:data:`End`), in EOS
    interface order, Management1 excluded.

    From the switch's facts (its used ports: each knows its use, speed and far end), not the
    fleet's cables: a switch's rules are then a function of its facts, keyed by their digest
    (:func:`rule_units`), and a switch's ends cost its ports, not a pass over the fleet's cables
    (13,000 at 16x, most to a server).

    Example:
        >>> from pathlib import Path
        >>> from compiler.fabric import resolve
        >>> from compiler.intent import load_intent
        >>> fabric = resolve(load_intent(Path("intent")))
        >>> cabled_ends(fabric, ["spine01"])["spine01"][0]
        ('Ethernet1/1', 'fabric', '400g', 'rack01-leaf-a Ethernet25/1')
    """
    devices = fabric.devices
    wanted = devices if names is None else names
    out: dict[str, list[End]] = {}
    for name in wanted:
        device = devices.get(name)
        ends = switch_ends(device.facts.ports) if device is not None else []
        if ends:
            out[name] = ends
    return out


def switch_ends(ports: Iterable[UsedPort]) -> list[End]:
    """A switch's cabled ports (:data:`End`) from its used ports, in their order.

    Example:
        >>> from compiler.facts import UsedPort
        >>> switch_ends([UsedPort("spine1", "Ethernet2", "downlink", "compute", "leaf1", "Ethernet1", "400g"),
        ...              UsedPort("core", "Ethernet9", "upstream", "management", "", "", "10g")])
        [('Ethernet2', 'fabric', '400g', 'leaf1 Ethernet1')]
    """
    kinds, front_panel = CABLE_KINDS, eos.is_front_panel
    return [
        (port.name, kinds[port.kind], port.speed or "", f"{port.peer} {port.peer_port}")
        for port in ports
        if port.kind in kinds and front_panel(port.name)
    ]


def device_rules(intent: Intent, device: Device, ends: list[End], ecn_queue: int | None = None) -> dict[str, Any]:
    """The alert group of one switch (``ecn_queue``: the lossless queue of its RoCE fabric)."""
    t: Thresholds = intent.fabric.thresholds
    name = device.name
    ports = [end[0] for end in ends]
    sel = f'source="{name}",interface_name=~"{port_regex(ports)}"'
    rules: list[dict[str, Any]] = []

    def add(alert: str, expr: str, duration: str, severity: str, summary: str, port: str = "interface_name") -> None:
        labels = {"device": name, "port": f"{{{{ $labels.{port} }}}}", "network": device.network}
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
    roce = [port for port, kind, _, _ in ends if kind in ROCE_KINDS] if ecn_queue is not None else []
    if roce and ecn_queue is not None:
        rsel = f'source="{name}",interface_name=~"{port_regex(roce)}"'
        pause = f"rate({_m('pause_in')}{{{rsel}}}[5m]) + rate({_m('pause_out')}{{{rsel}}}[5m])"
        add(
            "PfcPauseFramesHigh",
            f"({pause}) * 60 > {t.pfc_pause_frames_per_min}",
            "5m",
            "warning",
            f"{name} {port_label}: more than {t.pfc_pause_frames_per_min} PFC pause frames/min (PFC storm?)",
        )
        # The QoS tree keys interfaces by interface-id and queues by name: its own labels.
        esel = f'source="{name}",interface_interface_id=~"{port_regex(roce)}",queue_name="{ecn_queue}"'
        add(
            "EcnMarksHigh",
            f"sum by (source, interface_interface_id) (rate({_m('ecn_marked')}{{{esel}}}[5m])) * 60 "
            f"> {t.ecn_marks_per_min}",
            "10m",
            "warning",
            f"{name} {{{{ $labels.interface_interface_id }}}}: more than {t.ecn_marks_per_min} ECN marks/min "
            f"on queue {ecn_queue} (sustained congestion)",
            port="interface_interface_id",
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
    for port, kind, _, far in ends:
        if kind not in FABRIC_KINDS:
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
                    "summary": f"{name} {port} ({kind} to {far}) is down",
                    "runbook": "generated/validation/runbook.md",
                },
            }
        )
    return {"groups": [{"name": f"fabricops-{name}", "rules": rules}]}


def expected_counters(thresholds: Thresholds, device: Device, roce: bool, ends: list[End]) -> dict[str, Any]:
    """One switch's cabled ports: peer, speed, and the counter limits the alerts use
    (``roce``: the switch is in a RoCE fabric).

    A port shut on purpose (``ports.yaml`` ``shutdown``, a decommissioned server's port) is
    expected down, with its description as the reason: ``health`` reports it, not as a failure.
    """
    t = thresholds
    shut = shut_ports(device)
    ports: dict[str, Any] = {}
    for port, kind, speed, far in sorted(ends, key=lambda e: (len(e[0]), e[0])):
        expect: dict[str, Any] = {"oper_status": "UP", "in_crc_errors_max": t.crc_errors}
        if port in shut:
            expect = {"oper_status": "DOWN", "shutdown": shut[port], "in_crc_errors_max": t.crc_errors}
        if roce and kind in ROCE_KINDS:
            expect["pfc_pause_frames_per_min_max"] = t.pfc_pause_frames_per_min
            expect["ecn_marks_per_min_max"] = t.ecn_marks_per_min
        ports[port] = {"peer": far, "kind": kind, "speed": speed, "expect": expect}
    return {"network": device.network, "role": device.role, "ports": ports}


def shut_ports(device: Device) -> dict[str, str]:
    """The ports shut on purpose, with the reason: their description, else ``shutdown``."""
    return {iface.name: iface.description or "shutdown" for iface in device.config.interfaces if iface.shutdown}


def gnmic_config(intent: Intent, fabric: ResolvedFabric) -> dict[str, Any]:
    """The gNMIc collector: every switch as a target over TLS, the subscriptions behind :data:`METRICS`.

    Every switch's certificate is verified against ``services.gnmi.ca_file`` (never skipped by
    default). Credentials stay out of the file: gNMIc reads ``GNMIC_USERNAME``/``GNMIC_PASSWORD``.
    """
    gnmi = intent.fabric.services.gnmi
    return {
        "tls-ca": gnmi.ca_file,
        "skip-verify": gnmi.skip_verify,
        "encoding": "json_ietf",
        "targets": {f"{d.mgmt_address}:{gnmi.port}": {"name": name} for name, d in fabric.devices.items()},
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
                "metric-prefix": METRIC_PREFIX,
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


def ecn_queue(fabric: ResolvedFabric, device: Device) -> int | None:
    """The lossless queue of the device's RoCE fabric (None outside one)."""
    roce = fabric.facts.qos.fabrics.get(device.network)
    return roce.ecn_queue if roce is not None else None


COUNTERS = "monitoring/expected-counters.yaml"
"""Per switch and cabled port, what ``fabricops health`` should read: one section per switch."""


def rule_units(intent: Intent, fabric: ResolvedFabric) -> Iterator[Unit]:
    """One unit per switch: its alert group and its section of the expected counters, from the
    thresholds, its lossless queue, its cabled ports (from its used ports: :func:`switch_ends`)
    and the ports shut on purpose (read from its structured config): the last two are made of
    its facts, so keyed by their digest (:func:`facts_digests`)."""
    configs = facts_digests(fabric)
    thresholds = digest_of(intent.fabric.thresholds)
    roce_networks = {net for net, spec in intent.fabric.fabrics.items() if spec.qos is not None}
    for name, device in fabric.devices.items():
        queue, roce = ecn_queue(fabric, device), device.network in roce_networks
        yield Unit(
            f"rules/{name}",
            (thresholds, name, device.network, device.role, queue, roce, configs[name]),
            partial(_monitoring_files, intent, device, queue, roce),
        )


def _monitoring_files(intent: Intent, device: Device, queue: int | None, roce: bool) -> dict[str, str]:
    ends = switch_ends(device.facts.ports)
    counters = expected_counters(intent.fabric.thresholds, device, roce, ends)
    return {
        f"monitoring/rules/{device.name}.rules.yaml": to_yaml(device_rules(intent, device, ends, queue)),
        section_path(COUNTERS, device.name): to_yaml({device.name: counters}),
    }


def all_rules(intent: Intent, fabric: ResolvedFabric) -> dict[str, dict[str, Any]]:
    """The alert group of every switch, by name."""
    ends = cabled_ends(fabric)
    return {
        name: device_rules(intent, device, ends.get(name, []), ecn_queue(fabric, device))
        for name, device in fabric.devices.items()
    }


def produced_series(config: dict[str, Any]) -> dict[str, frozenset[str]]:
    """The series a gNMIc configuration produces in Prometheus: metric name -> its labels.

    Example:
        >>> config = {"subscriptions": {"s": {"paths": [METRICS["carrier"]]}}}
        >>> [(m, sorted(labels)) for m, labels in produced_series(config).items()]
        [('gnmic_interfaces_interface_state_counters_carrier_transitions', ['interface_name', 'source'])]
    """
    return {
        metric_name(path): path_labels(path)
        for subscription in config["subscriptions"].values()
        for path in subscription["paths"]
    }


_SELECTOR = re.compile(r"\b(gnmic_[a-zA-Z0-9_]+)\{([^}]*)\}")
_MATCHER = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)")
_BY = re.compile(r"\bby \(([^)]*)\)")
_TEMPLATE_LABEL = re.compile(r"\$labels\.([a-zA-Z_][a-zA-Z0-9_]*)")


def unproduced_queries(rules: dict[str, Any], config: dict[str, Any]) -> list[str]:
    """What a rule group queries that the collector does not produce: unknown metrics or labels.

    Example:
        >>> config = {"subscriptions": {"s": {"paths": [METRICS["carrier"]]}}}
        >>> metric = metric_name(METRICS["carrier"])
        >>> rule = {"alert": "A", "expr": metric + '{queue_name="3"} > 1'}
        >>> unproduced_queries({"groups": [{"rules": [rule]}]}, config)
        ['A: gnmic_interfaces_interface_state_counters_carrier_transitions has no label queue_name']
    """
    series = produced_series(config)
    problems = []
    for group in rules["groups"]:
        for rule in group["rules"]:
            expr = rule["expr"]
            labels_used: set[str] = set()
            metrics = []
            for metric, matchers in _SELECTOR.findall(expr):
                metrics.append(metric)
                if metric not in series:
                    problems.append(f"{rule['alert']}: no subscription produces {metric}")
                    continue
                labels_used |= set(_MATCHER.findall(matchers))
            for by in _BY.findall(expr):
                labels_used |= {label.strip() for label in by.split(",")}
            labels_used |= set(_TEMPLATE_LABEL.findall(str([rule.get("labels"), rule.get("annotations")])))
            for metric in metrics:
                for label in sorted(labels_used - series.get(metric, frozenset(labels_used))):
                    problems.append(f"{rule['alert']}: {metric} has no label {label}")
    return problems


def monitoring_tables(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """The collector configuration (the expected counters come in sections from :func:`rule_units`)."""
    return {"monitoring/gnmic.yaml": to_yaml(gnmic_config(intent, fabric))}


def collector_unit(intent: Intent, fabric: ResolvedFabric) -> Unit:
    """``gnmic.yaml`` as a unit, from all it reads: the gNMI service and every switch's name and
    management address (the subscriptions are the code's)."""
    targets = tuple((name, device.mgmt_address) for name, device in fabric.devices.items())
    inputs = (digest_of(intent.fabric.services.gnmi), targets)
    return Unit("fleet/gnmic", inputs, partial(monitoring_tables, intent, fabric))


def monitoring_files(intent: Intent, fabric: ResolvedFabric) -> dict[str, str]:
    """Alert rules per switch, the expected counters, and the collector configuration."""
    return {**built(rule_units(intent, fabric)), **monitoring_tables(intent, fabric)}
