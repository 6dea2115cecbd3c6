"""Fleet access: Nornir over the inventory in ``generated/`` at a ref, for real switches or the lab.

The inventory files of the snapshot, in Nornir's SimpleInventory format, are read by
:class:`GeneratedInventory` (the same hosts, groups and defaults SimpleInventory builds, parsed
with libyaml: SimpleInventory's pure-Python YAML took a second for 683 hosts); the transform
function :func:`fabricops_transform` then sets credentials, hands NAPALM the eAPI transport that
keeps one connection per device (:mod:`core.eapi`) and, for ``--lab``, points each host at its
emulated switch (127.0.0.1, its port, eAPI over HTTPS with the lab's self-signed certificate,
as a switch serves it by default; plain HTTP for a lab that lists no HTTPS port). The
inventory itself is never copied or edited.

Credentials come from ``FABRICOPS_USERNAME``/``FABRICOPS_PASSWORD``, from a YAML file outside
git (``FABRICOPS_CREDENTIALS_FILE``, default ``~/.config/fabricops/credentials.yaml`` with
``username:`` and ``password:``), or from the running lab's ``.lab/lab.json``.

Start-up: ``import napalm`` imports every driver NAPALM ships (netmiko, paramiko, ncclient...:
half a second of one core). :func:`preload_drivers` starts that import in a thread while the
caller reads git (a subprocess: the interpreter is idle meanwhile), so opening the fleet does
not wait for it. NAPALM is named ``napalm.eos`` (its own dotted form), not ``eos``: the plain
name makes NAPALM look for a ``custom_napalm.eos`` module first, a failed search of the whole
import path (under the import lock every worker shares) for every device opened.
"""

from __future__ import annotations

import copy
import json
import os
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from core.errors import FabricopsError
from core.generated import INVENTORY_FILES, LAB_INFO, Snapshot, unknown_names

if TYPE_CHECKING:
    from nornir.core import Nornir
    from nornir.core.inventory import Host, Inventory

_UNAUTHORIZED = re.compile(r"\bUnauthorized\b|\b401\b|authentication failed", re.IGNORECASE)
_CLI_ERROR = re.compile(r"CLI command \d+ of \d+ '(?P<line>.*?)' failed: (?P<why>.*?)(?: \[errors: (?P<errors>.*)\])?$")
#: Connection failures, as a person names them (matched in the lowercased error text).
_CONNECTION_ERRORS = (
    ("connection refused", "connection refused"),
    ("timed out", "timed out"),
    ("no route to host", "no route to host"),
    ("name or service not known", "unknown host name"),
    ("certificate verify failed", "TLS certificate not trusted"),
)
TRANSFORM = "fabricops"
INVENTORY = "fabricops-generated"
ENV_USERNAME = "FABRICOPS_USERNAME"
ENV_PASSWORD = "FABRICOPS_PASSWORD"
ENV_CREDENTIALS_FILE = "FABRICOPS_CREDENTIALS_FILE"
DEFAULT_CREDENTIALS_FILE = Path("~/.config/fabricops/credentials.yaml")
LAB_TIMEOUT = 10


@dataclass(frozen=True)
class LabTarget:
    """Where the running lab serves each device, and its credentials (from ``.lab/lab.json``)."""

    username: str
    password: str = field(repr=False)
    endpoints: dict[str, tuple[str, int]]
    #: Device -> its HTTPS port, when the lab serves HTTPS (``fabricops lab up`` does).
    https_ports: dict[str, int] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path) -> LabTarget:
        """The lab started by ``fabricops lab up`` in ``root``; an error says how to start one."""
        path = root / LAB_INFO
        try:
            info = json.loads(path.read_text())
        except FileNotFoundError:
            raise FabricopsError(f"no lab is running in {root}: start one with 'fabricops lab up'") from None
        except json.JSONDecodeError as exc:
            restart = "restart the lab with 'fabricops lab down; fabricops lab up'"
            raise FabricopsError(f"{path} is unreadable ({exc}): {restart}") from exc
        devices = info.get("devices", {})
        endpoints = {name: (str(d["host"]), int(d["port"])) for name, d in devices.items()}
        https = {name: int(d["https_port"]) for name, d in devices.items() if d.get("https_port")}
        return cls(str(info["username"]), str(info["password"]), endpoints, https)


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str = field(repr=False)

    @classmethod
    def load(cls) -> Credentials:
        """From the environment, else from the credentials file outside git."""
        user, password = os.environ.get(ENV_USERNAME), os.environ.get(ENV_PASSWORD)
        if user and password:
            return cls(user, password)
        path = Path(os.environ.get(ENV_CREDENTIALS_FILE, str(DEFAULT_CREDENTIALS_FILE))).expanduser()
        if path.is_file():
            data = yaml.safe_load(path.read_text()) or {}
            if isinstance(data, dict) and data.get("username") and data.get("password"):
                return cls(str(data["username"]), str(data["password"]))
            raise FabricopsError(f"{path}: expected 'username:' and 'password:'")
        raise FabricopsError(
            f"no device credentials: export {ENV_USERNAME} and {ENV_PASSWORD}, or write {DEFAULT_CREDENTIALS_FILE}"
        )


def device_errors() -> tuple[type[BaseException], ...]:
    """Exceptions that mean "the device or the connection failed", not "fabricops has a bug"."""
    from napalm.base.exceptions import NapalmException
    from pyeapi.eapilib import EapiError

    return (NapalmException, EapiError, OSError, TimeoutError)


def describe_error(exc: BaseException) -> str:
    """One line for a device error: what a person needs to act on, without the library's wording.

    Examples:
        >>> msg = "Error [1002]: CLI command 5 of 9 'ntp server 10.0.0.1' failed: invalid command"
        >>> describe_error(Exception(msg + ' [errors: ["Unavailable command"]]'))
        "line 'ntp server 10.0.0.1' rejected: Unavailable command"
        >>> describe_error(ConnectionError("Unauthorized. Unauthorized"))
        'authentication failed'
        >>> describe_error(ConnectionError("Socket error during eAPI connection: [Errno 111] Connection refused"))
        'connection refused'
        >>> describe_error(KeyError("x"))
        "KeyError: 'x'"
    """
    text = " ".join(str(exc).split())
    match = _CLI_ERROR.search(text)
    if match:
        why = match.group("errors") or match.group("why")
        why = why.strip("[]").strip().strip('"').strip("'")
        return f"line {match.group('line')!r} rejected: {why}"
    if _UNAUTHORIZED.search(text):
        return "authentication failed"
    for pattern, said in _CONNECTION_ERRORS:
        if pattern in text.lower():
            return said
    if type(exc).__name__ == "SessionLockedException":
        return "configuration locked: another config session is pending on the device ('show configuration sessions')"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def fabricops_transform(host: Host, **options: Any) -> None:
    """Nornir transform: credentials and the keep-alive eAPI transport on every host and, for
    the lab, its local endpoint.

    Options: ``username``, ``password`` and, for the lab, ``lab`` = {name: [host, port, transport]}.
    A host the lab does not serve is marked ``data["unreachable"]`` and left pointing nowhere.
    """
    from nornir.core.inventory import ConnectionOptions

    from core.eapi import transport_class

    host.username = options["username"]
    host.password = options["password"]
    lab: dict[str, list[Any]] | None = options.get("lab")
    if lab is None:
        extras = dict(host.get_connection_parameters("napalm").extras or {})
        optional = dict(extras.get("optional_args") or {})
    else:
        endpoint = lab.get(host.name)
        transport = "http"
        if endpoint is None:
            host.data["unreachable"] = "not served by the lab"
            host.hostname, host.port = "127.0.0.1", 1
        else:
            host.hostname, host.port = str(endpoint[0]), int(endpoint[1])
            transport = str(endpoint[2]) if len(endpoint) > 2 else "http"
        extras = {"timeout": LAB_TIMEOUT}
        optional = {"transport": transport, "port": host.port}
    keep_alive = transport_class(str(optional.get("transport", "https")))
    if keep_alive is not None:
        optional["transport"] = keep_alive
    # One dict per host: NAPALM pops its own keys out of optional_args.
    host.connection_options["napalm"] = ConnectionOptions(
        platform=napalm_driver(host.platform), extras={**extras, "optional_args": optional}
    )


def napalm_driver(platform: str | None) -> str | None:
    """The NAPALM driver name of a platform: NAPALM's own drivers by their module path.

    Examples:
        >>> napalm_driver("eos"), napalm_driver("napalm_custom"), napalm_driver(None)
        ('napalm.eos', 'napalm_custom', None)
    """
    return f"napalm.{platform}" if platform in NAPALM_DRIVERS else platform


#: NAPALM's own drivers (``napalm/<name>/``), named by module path so NAPALM imports no other.
NAPALM_DRIVERS = frozenset({"eos", "ios", "iosxr", "iosxr_netconf", "junos", "nxos", "nxos_ssh"})


def preload_drivers() -> threading.Thread:
    """Import NAPALM and Nornir's NAPALM plugin in a thread; returns it (joined by :func:`open_fleet`).

    An import that fails here fails again, with its error, where the module is used.
    """
    thread = threading.Thread(target=_import_drivers, name="fabricops-preload", daemon=True)
    thread.start()
    _PRELOADS.append(thread)
    return thread


_PRELOADS: list[threading.Thread] = []


def _import_drivers() -> None:
    try:
        import napalm.eos  # noqa: F401 - imported for its side effect: every driver loaded
        import nornir_napalm.plugins.connections  # noqa: F401
        from nornir import InitNornir  # noqa: F401
        from nornir.plugins.runners import ThreadedRunner  # noqa: F401

        from core.eapi import transport_class  # noqa: F401
    except Exception:  # the same import in the caller's thread reports it
        pass


def _lab_endpoint(lab: LabTarget, name: str) -> list[Any]:
    """[host, port, transport] of a lab device: HTTPS when the lab serves it."""
    host, port = lab.endpoints[name]
    https = lab.https_ports.get(name)
    return [host, https, "https"] if https else [host, port, "http"]


class GeneratedInventory:
    """A Nornir inventory plugin: the hosts, groups and defaults of ``generated/inventory/``
    (Nornir's SimpleInventory format), from mappings already parsed, built as SimpleInventory
    builds them (each element with its own copy of what Nornir may change: data, options).

    Example:
        >>> inventory = GeneratedInventory(
        ...     {"leaf1": {"hostname": "10.0.0.1", "groups": ["leaves"], "data": {"role": "leaf"}}},
        ...     {"leaves": {"data": {"network": "compute"}}},
        ...     {"platform": "eos"},
        ... ).load()
        >>> leaf = inventory.hosts["leaf1"]
        >>> leaf.hostname, leaf.platform, leaf["role"], leaf["network"]
        ('10.0.0.1', 'eos', 'leaf', 'compute')
    """

    def __init__(self, hosts: dict[str, Any], groups: dict[str, Any], defaults: dict[str, Any]) -> None:
        self.hosts, self.groups, self.defaults = hosts, groups, defaults

    def load(self) -> Inventory:
        from nornir.core.inventory import Defaults, Group, Groups, Host, Hosts, Inventory, ParentGroups

        d = self.defaults
        defaults = Defaults(
            hostname=d.get("hostname"),
            port=d.get("port"),
            username=d.get("username"),
            password=d.get("password"),
            platform=d.get("platform"),
            data=copy.deepcopy(d.get("data") or {}),
            connection_options=_connection_options(d.get("connection_options") or {}),
        )
        hosts = Hosts({name: _element(Host, name, entry or {}, defaults) for name, entry in self.hosts.items()})
        groups = Groups({name: _element(Group, name, entry or {}, defaults) for name, entry in self.groups.items()})
        for elements, raw in ((groups, self.groups), (hosts, self.hosts)):
            for name, element in elements.items():
                element.groups = ParentGroups([groups[parent] for parent in (raw[name] or {}).get("groups") or ()])
        return Inventory(hosts=hosts, groups=groups, defaults=defaults)


def _element(kind: Any, name: str, data: dict[str, Any], defaults: Any) -> Any:
    """A Host or Group as SimpleInventory makes it (its parent groups are set by the caller)."""
    return kind(
        name=name,
        hostname=data.get("hostname"),
        port=data.get("port"),
        username=data.get("username"),
        password=data.get("password"),
        platform=data.get("platform"),
        data=dict(data.get("data") or {}),
        defaults=defaults,
        connection_options=_connection_options(data.get("connection_options") or {}),
    )


def _connection_options(data: dict[str, Any]) -> dict[str, Any]:
    from nornir.core.inventory import ConnectionOptions

    return {
        name: ConnectionOptions(
            hostname=c.get("hostname"),
            port=c.get("port"),
            username=c.get("username"),
            password=c.get("password"),
            platform=c.get("platform"),
            extras=copy.deepcopy(c.get("extras")),
        )
        for name, c in data.items()
    }


def _register() -> None:
    from nornir.core.plugins.inventory import InventoryPluginRegister, TransformFunctionRegister

    if TRANSFORM not in TransformFunctionRegister.available:
        TransformFunctionRegister.register(TRANSFORM, fabricops_transform)
    if INVENTORY not in InventoryPluginRegister.available:
        InventoryPluginRegister.register(INVENTORY, GeneratedInventory)


def open_fleet(
    snapshot: Snapshot,
    *,
    lab: LabTarget | None = None,
    devices: Sequence[str] = (),
    workers: int = 20,
    also: Mapping[str, Snapshot] | None = None,
) -> Nornir:
    """Nornir over ``generated/inventory/`` of ``snapshot``, filtered to ``devices`` when given.

    ``also``: devices ``snapshot`` lacks, each with the snapshot whose inventory has it (a device
    deployed alone from a later commit, whose fleet version is not tagged yet).
    """
    while _PRELOADS:  # the imports it started, done (never two threads importing one module)
        _PRELOADS.pop().join()
    from nornir import InitNornir

    missing = [path for path in INVENTORY_FILES if not snapshot.exists(path)]
    if missing:
        lacks = ", ".join(f"generated/{path}" for path in missing)
        raise FabricopsError(f"{lacks} missing at {snapshot.short}: run 'fabricops compile' and commit")
    credentials = Credentials(lab.username, lab.password) if lab is not None else Credentials.load()
    _register()
    options: dict[str, Any] = {"username": credentials.username, "password": credentials.password}
    if lab is not None:
        options["lab"] = {name: _lab_endpoint(lab, name) for name in lab.endpoints}
    hosts, groups, defaults = snapshot.inventory()
    if also:
        hosts = {**hosts, **{name: at.inventory()[0][name] for name, at in also.items() if name not in hosts}}
    nornir = InitNornir(
        runner={"plugin": "threaded", "options": {"num_workers": workers}},
        inventory={
            "plugin": INVENTORY,
            "options": {"hosts": hosts, "groups": groups, "defaults": defaults},
            "transform_function": TRANSFORM,
            "transform_function_options": options,
        },
        logging={"enabled": False},
    )
    if devices:
        unknown = set(devices) - set(nornir.inventory.hosts)
        if unknown:
            raise unknown_names("device", unknown, nornir.inventory.hosts, f"generated/ at {snapshot.short}")
        wanted = set(devices)
        nornir = nornir.filter(filter_func=lambda host: host.name in wanted)
    return nornir
