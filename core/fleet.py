"""Fleet access: Nornir over the inventory in ``generated/`` at a ref, for real switches or the lab.

The inventory files of the snapshot are handed to Nornir's own ``SimpleInventory``; the
transform function :func:`fabricops_transform` then sets credentials and, for ``--lab``,
points each host at its emulated switch (127.0.0.1, its port, eAPI over HTTPS with the lab's
self-signed certificate, as a switch serves it by default; plain HTTP for a lab that lists no
HTTPS port). The inventory itself is never copied or edited.

Credentials come from ``FABRICOPS_USERNAME``/``FABRICOPS_PASSWORD``, from a YAML file outside
git (``FABRICOPS_CREDENTIALS_FILE``, default ``~/.config/fabricops/credentials.yaml`` with
``username:`` and ``password:``), or from the running lab's ``.lab/lab.json``.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from core.errors import FabricopsError
from core.generated import INVENTORY_FILES, LAB_INFO, Snapshot, unknown_names

if TYPE_CHECKING:
    from nornir.core import Nornir
    from nornir.core.inventory import Host

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
    """Nornir transform: credentials on every host and, for the lab, its local endpoint.

    Options: ``username``, ``password`` and, for the lab, ``lab`` = {name: [host, port, transport]}.
    A host the lab does not serve is marked ``data["unreachable"]`` and left pointing nowhere.
    """
    from nornir.core.inventory import ConnectionOptions

    host.username = options["username"]
    host.password = options["password"]
    lab: dict[str, list[Any]] | None = options.get("lab")
    if lab is None:
        return
    endpoint = lab.get(host.name)
    transport = "http"
    if endpoint is None:
        host.data["unreachable"] = "not served by the lab"
        host.hostname, host.port = "127.0.0.1", 1
    else:
        host.hostname, host.port = str(endpoint[0]), int(endpoint[1])
        transport = str(endpoint[2]) if len(endpoint) > 2 else "http"
    host.connection_options["napalm"] = ConnectionOptions(
        extras={"optional_args": {"transport": transport, "port": host.port}, "timeout": LAB_TIMEOUT}
    )


def _lab_endpoint(lab: LabTarget, name: str) -> list[Any]:
    """[host, port, transport] of a lab device: HTTPS when the lab serves it."""
    host, port = lab.endpoints[name]
    https = lab.https_ports.get(name)
    return [host, https, "https"] if https else [host, port, "http"]


def _register() -> None:
    from nornir.core.plugins.inventory import TransformFunctionRegister

    if TRANSFORM not in TransformFunctionRegister.available:
        TransformFunctionRegister.register(TRANSFORM, fabricops_transform)


def open_fleet(
    snapshot: Snapshot,
    *,
    lab: LabTarget | None = None,
    devices: Sequence[str] = (),
    workers: int = 20,
) -> Nornir:
    """Nornir over ``generated/inventory/`` of ``snapshot``, filtered to ``devices`` when given."""
    from nornir import InitNornir

    missing = [path for path in INVENTORY_FILES if not snapshot.exists(path)]
    if missing:
        lacks = ", ".join(f"generated/{path}" for path in missing)
        raise FabricopsError(f"{lacks} missing at {snapshot.short}: run 'fabricops compile' and commit")
    credentials = Credentials(lab.username, lab.password) if lab is not None else Credentials.load()
    _register()
    with tempfile.TemporaryDirectory(prefix="fabricops-inventory-") as tmp:
        paths = {}
        for relpath in INVENTORY_FILES:
            path = Path(tmp) / Path(relpath).name
            path.write_bytes(snapshot.read_bytes(relpath))
            paths[path.name] = str(path)
        options: dict[str, Any] = {"username": credentials.username, "password": credentials.password}
        if lab is not None:
            options["lab"] = {name: _lab_endpoint(lab, name) for name in lab.endpoints}
        nornir = InitNornir(
            runner={"plugin": "threaded", "options": {"num_workers": workers}},
            inventory={
                "plugin": "SimpleInventory",
                "options": {
                    "host_file": paths["hosts.yaml"],
                    "group_file": paths["groups.yaml"],
                    "defaults_file": paths["defaults.yaml"],
                },
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
