"""Can the intent schema say this EOS config line, and how: the one classifier of raw lines.

It lives in ``core`` because the compiler (``extra_config``) asks it and the drift report's "keep"
path and ``fabricops adopt`` must give the same answer, and drift knows ``core`` only.

``extra_config`` (``fabric.yaml``) takes only what the schema cannot say; a drifted line kept
in intent belongs in the structured entry when there is one. Both ask :func:`structured_form`:
given the device, the section path a line sits in (``("interface Ethernet1/3",)``, ``()`` at
the top level) and the line, it names the intent file, the YAML path and the value that write
it, or ``None`` when only ``extra_config`` can:

* ``ports.yaml`` (front-panel ``Ethernet`` ports): ``description``, ``shutdown`` (a reason),
  ``speed``, FEC (``error-correction encoding``), LLDP, storm-control;
* ``vlans.yaml``: a ``vlan`` definition, a port's access, native or trunk VLANs and its
  switchport mode (a VLAN's members are servers or racks, so the entry is the VLAN's);
* ``devices.yaml``: ``ip route``, ``ntp server``, ``logging host``.

Examples:
    >>> form = structured_form("rack03-leaf-a", ("interface Ethernet1/3",), "description to rack05")
    >>> form.file, form.path, form.value
    ('ports.yaml', ('ports', 'rack03-leaf-a', 'Ethernet1/3', 'description'), 'to rack05')
    >>> str(form)
    "intent/ports.yaml: ports.rack03-leaf-a.Ethernet1/3.description: 'to rack05'"
    >>> str(structured_form("spine01", (), "ip route vrf MGMT 10.99.0.0/16 172.16.13.1"))
    'intent/devices.yaml: devices.spine01.static_routes: [{prefix: 10.99.0.0/16, next_hop: 172.16.13.1, vrf: MGMT}]'
    >>> str(structured_form("rack03-leaf-a", (), "vlan 300"))
    'intent/vlans.yaml: vlans.<name>: {id: 300, network: compute|storage, access: [...], tagged: [...]}'
    >>> structured_form("spine01", ("interface Ethernet1/1",), "mtu 1500") is None
    True
    >>> structured_form("rack03-leaf-a", ("interface Port-Channel1000",), "description x") is None
    True
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = [
    "ACCESS",
    "ETHERNET",
    "FEC",
    "NTP",
    "ROUTE",
    "SPEED",
    "STORM",
    "SYSLOG",
    "Structured",
    "fec_value",
    "structured_form",
]

PathItem = str | int

# The line patterns: the classifier below and ``compiler.adoption`` (which writes the edit) read
# these, so a line is recognised the same way by both.
ETHERNET = re.compile(r"^interface (Ethernet\d+(?:/\d+){0,2})$")
SPEED = re.compile(r"^speed (?:forced )?(\d+g)(?:full)?$")
_LANE_SPEED = re.compile(r"^speed (\d+g)-\d+$")
FEC = re.compile(r"^(no )?error-correction encoding ?(reed-solomon|fire-code)?$")
STORM = re.compile(r"^storm-control (broadcast|multicast|unknown-unicast) level (\d+(?:\.\d+)?)$")
_LLDP = re.compile(r"^(no )?lldp (transmit|receive)$")
ACCESS = re.compile(r"^switchport access vlan (\d+)$")
_VLAN_LINE = re.compile(r"^switchport (access vlan|trunk native vlan|trunk allowed vlan|mode) (.+)$")
_IP = r"\d+\.\d+\.\d+\.\d+"
# Only what the entries hold: an NTP key, a syslog port or a route's distance has no key in the
# schema, so such a line stays extra_config's.
ROUTE = re.compile(rf"^ip route (?:vrf (?P<vrf>\S+) )?(?P<prefix>{_IP}/\d+) (?P<hop>{_IP})$")
NTP = re.compile(rf"^ntp server (?:vrf (?P<vrf>\S+) )?(?P<addr>{_IP})(?P<rest>(?: prefer)?(?: iburst)?)$")
SYSLOG = re.compile(rf"^logging (?:vrf (?P<vrf>\S+) )?host (?P<addr>{_IP})$")
_VLAN = re.compile(r"^vlan (\d+(?:[-,]\d+)*)$")


class Structured(NamedTuple):
    """Where the schema holds a line: an intent file, the YAML path of the entry, its value.

    ``value`` is ``None`` where the entry needs a choice the line does not carry (a VLAN's
    key, network and members); ``str()`` is the entry to write, as one line.
    """

    file: str
    path: tuple[PathItem, ...]
    value: object = None

    def __str__(self) -> str:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.path).lstrip(".")
        return f"intent/{self.file}: {path}: {_flow(self.value)}"


def structured_form(device: str, section: tuple[str, ...], line: str) -> Structured | None:
    """The intent entry that writes ``line`` (in ``section`` of ``device``), or ``None``.

    ``section`` is the path of headers above the line (empty at the top level); ``line`` is
    stripped of indentation. A section header itself (``vlan 300``) is classified with the
    section path above it.
    """
    text = " ".join(line.split())
    if not section:
        return _top_level(device, text)
    match = ETHERNET.match(section[0])
    if match is not None and len(section) == 1:
        return _port_line(device, match.group(1), text)
    if _VLAN.match(section[0]) is not None and len(section) == 1:
        return _vlan_entry(section[0])
    return None


def _top_level(device: str, text: str) -> Structured | None:
    devices = ("devices", device)
    if (route := ROUTE.match(text)) is not None:
        entry: dict[str, str] = {"prefix": route["prefix"], "next_hop": route["hop"]}
        if route["vrf"]:
            entry["vrf"] = route["vrf"]
        return Structured("devices.yaml", (*devices, "static_routes"), [entry])
    if (ntp := NTP.match(text)) is not None:
        return Structured("devices.yaml", (*devices, "ntp"), [ntp["addr"]])
    if (host := SYSLOG.match(text)) is not None:
        return Structured("devices.yaml", (*devices, "syslog"), [host["addr"]])
    if _VLAN.match(text) is not None:
        return _vlan_entry(text)
    return None


def _vlan_entry(header: str) -> Structured:
    vlan = header.split()[1]
    shape = {
        "id": int(vlan) if vlan.isdigit() else vlan,
        "network": "compute|storage",
        "access": "[...]",
        "tagged": "[...]",
    }
    return Structured("vlans.yaml", ("vlans", "<name>"), shape)


def _port_line(device: str, port: str, text: str) -> Structured | None:  # noqa: PLR0911 - a return per kind of line
    entry = ("ports", device, port)
    if text.startswith("description "):
        return Structured("ports.yaml", (*entry, "description"), text.split(" ", 1)[1])
    if text == "shutdown":
        return Structured("ports.yaml", (*entry, "shutdown"), "<why it is shut>")
    if (speed := SPEED.match(text)) is not None:
        return Structured("ports.yaml", (*entry, "speed"), speed.group(1))
    if (lane := _LANE_SPEED.match(text)) is not None:  # a breakout lane: the cage's mode says it
        return Structured("ports.yaml", (*entry, "breakout"), f"<Nx{lane.group(1)}: a mode of the cage>")
    if (fec := FEC.match(text)) is not None:
        return Structured("ports.yaml", (*entry, "fec"), fec_value(fec))
    if (lldp := _LLDP.match(text)) is not None:
        return Structured("ports.yaml", (*entry, "lldp"), {lldp.group(2): not lldp.group(1)})
    if (storm := STORM.match(text)) is not None:
        kind = storm.group(1).replace("-", "_")
        return Structured("ports.yaml", (*entry, "storm_control"), {kind: float(storm.group(2))})
    if text.startswith("no storm-control "):
        kind = text.split()[2].replace("-", "_")
        return Structured("ports.yaml", (*entry, "storm_control"), {kind: None})
    if (vlan := _VLAN_LINE.match(text)) is not None:
        members = "tagged" if vlan.group(1) in ("trunk allowed vlan", "mode") else "access"
        return Structured("vlans.yaml", ("vlans", "<name>", members), [{"server": f"<server on {device} {port}>"}])
    return None


def fec_value(match: re.Match[str]) -> str:
    """The ``ports.yaml`` ``fec`` value of a matched :data:`FEC` line.

    Examples:
        >>> lines = ("error-correction encoding fire-code", "no error-correction encoding")
        >>> [fec_value(FEC.match(line)) for line in lines]
        ['fire-code', 'disabled']
    """
    return "disabled" if match.group(1) else match.group(2) or "disabled"


def _flow(value: object) -> str:  # noqa: PLR0911 - a return per kind of value
    """A value as YAML flow text, on one line (strings quoted only when YAML needs it).

    Examples:
        >>> _flow({"transmit": False}), _flow([{"prefix": "10.0.0.0/8"}]), _flow(None)
        ('{transmit: false}', '[{prefix: 10.0.0.0/8}]', 'null')
    """
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    text = str(value)
    if isinstance(value, str) and ((" " in text and not text.startswith(("[", "<"))) or ":" in text):
        return repr(text)
    return text
