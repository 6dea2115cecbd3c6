"""The in-process lab: N emulated switches, their cabling and the eAPI server in front.

Examples:
    >>> with Lab([DeviceSpec("leaf1", None)]) as lab:
    ...     "hostname leaf1" in lab.device("leaf1").running_config()
    True
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from core.hardware import Catalog
from lab.configtree import Config, load_text
from lab.device import EmulatedDevice, unit_identity
from lab.hardware import drop_missing_ports
from lab.hashing import sha512_crypt
from lab.printer import DEFAULT_MODEL, EOS_VERSION
from lab.server import EapiServer
from lab.state import device_state, read_state, write_json_atomic
from lab.topology import Fabric, Link


@dataclass(frozen=True)
class DeviceSpec:
    """One switch of the lab; ``config=None`` starts it at factory default.

    ``model``: a model of ``catalog`` (``DCS-7060DX5-32``, or with its airflow ``DCS-7060DX5-32-R``)
    gives the device exactly that model's ports (:mod:`lab.hardware`), a chassis with its
    ``linecards`` (slot, card); any other string is only reported by ``show version``, and the
    device has ``ethernet_ports`` generic ports. ``catalog``: the shipped one unless given (a
    repository's own models, :meth:`core.generated.Snapshot.catalog`).
    """

    name: str
    config: str | None
    model: str = DEFAULT_MODEL
    ethernet_ports: int = 64
    linecards: tuple[tuple[int, str], ...] = ()
    #: The EOS release it runs: ``show version`` and the lines the release prints by itself.
    eos_version: str = EOS_VERSION
    catalog: Catalog | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class SavedDevice:
    """One device's configs and files as :meth:`Lab.save` found them."""

    running: Config
    startup: Config
    files: dict[str, Config]


class LabError(Exception):
    """A lab operation that cannot be done (unknown device, bad fault)."""


def factory_default(name: str, username: str, password_hash: str) -> list[str]:
    """What a freshly provisioned switch has: a hostname, a user, the management API."""
    return [
        f"hostname {name}",
        f"username {username} privilege 15 role network-admin secret sha512 {password_hash}",
        "management api http-commands",
        "   no shutdown",
    ]


_SLASH_PORT = re.compile(r"\bEthernet\d+/\d+")


def slash_devices(links: Iterable[Link]) -> set[str]:
    """The devices a cable names a ``EthernetN/M`` port of."""
    return {
        end
        for link in links
        for end, port in ((link.a_device, link.a_port), (link.b_device, link.b_port))
        if "/" in port
    }


class Lab:
    """Emulated EOS switches on 127.0.0.1, one port each, served by one event loop.

    ``state_dir`` keeps each device's running/startup config in
    ``<state_dir>/<device>.json`` (rewritten on every change); a lab started
    on an existing state directory resumes from it instead of the specs.

    ``lockout=True`` makes a device whose running-config does not enable
    ``management api http-commands`` (block with ``no shutdown``) refuse
    connections, as a real switch does after a replace that drops it; it comes
    back when the config does (a commit timer that reverts, a reboot); requests
    are also refused (401) while the config no longer defines the lab's user.
    """

    def __init__(
        self,
        devices: Sequence[DeviceSpec],
        links: Iterable[Link] = (),
        *,
        username: str = "admin",
        password: str = "admin",
        state_dir: Path | None = None,
        lockout: bool = False,
    ) -> None:
        self.username = username
        self.lockout = lockout
        self.password = password
        self.state_dir = state_dir
        self.lock = threading.RLock()
        self.devices: dict[str, EmulatedDevice] = {}
        self.links = list(links)
        self.load_errors: dict[str, list[str]] = {}
        self._loaded: dict[str, object] = {}  # what each device was last booted with (reset skips it)
        self._persist = False
        self._specs = {spec.name: spec for spec in devices}
        self._password_hash = sha512_crypt(password, salt="fabricopslab")
        #: Devices and cables added by :meth:`join` after the start (a reset removes them).
        self._joined: set[str] = set()
        slash = slash_devices(self.links)
        for spec in devices:
            if spec.name in self.devices:
                raise LabError(f"device {spec.name} is listed twice")
            self.devices[spec.name] = self._new_device(spec, spec.name in slash)
        self.fabric = Fabric(self.devices, self.links)
        for dev in self.devices.values():
            dev.attach(self.fabric)
        self.server: EapiServer | None = None
        self.control_token = ""
        self.tls_certificate = b""

    def _new_device(self, spec: DeviceSpec, slash: bool) -> EmulatedDevice:
        """One device of ``spec``, booted from its saved state if there is one, else from the spec
        (``slash``: a cable names one of its ports ``EthernetN/M``)."""
        dev = EmulatedDevice(
            spec.name,
            model=spec.model,
            linecards=spec.linecards,
            ethernet_ports=spec.ethernet_ports,
            version=spec.eos_version,
            catalog=spec.catalog,
            lock=self.lock,
            on_change=self._changed,
        )
        dev.slash_ports = slash or bool(spec.config and _SLASH_PORT.search(spec.config))
        saved = read_state(self.state_dir / f"{spec.name}.json") if self.state_dir else None
        if saved is not None:
            dev.running, dev.startup, dev.files, unit = saved
            if unit is not None:
                dev.serial, dev.system_mac = unit
        else:
            dev.running, errors = self._boot_config(dev, spec)
            if errors:
                self.load_errors[spec.name] = errors
            dev.startup = dev.running.copy()
            self._loaded[spec.name] = spec
        dev.mark_clean()
        return dev

    # ------------------------------------------------------------------ lifecycle
    def start(self, ports: dict[str, int] | None = None, *, control_token: str = "") -> None:
        """Bind two ports per device on 127.0.0.1, HTTP (free unless ``ports`` says) and HTTPS.

        The HTTPS certificate is made here, self-signed, as a switch makes its own
        (:attr:`tls_certificate` holds it, PEM, for a client that wants to verify it).
        """
        from lab.control import handle_control
        from lab.tls import server_context

        self.control_token = control_token
        control = (lambda req: handle_control(self, req)) if control_token else None
        context, self.tls_certificate = server_context()
        self.server = EapiServer(self, control, control_token, tls=context)
        self.server.start(ports)
        if self.state_dir is not None:
            self._persist = True
            for dev in self.devices.values():
                self._changed(dev)

    def stop(self) -> None:
        with self.lock:
            for dev in self.devices.values():
                dev.cancel_timers()
        if self.server is not None:
            self.server.stop()
            self.server = None

    def __enter__(self) -> Lab:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # ------------------------------------------------------------------ access
    def endpoints(self, *, https: bool = False) -> dict[str, tuple[str, int]]:
        """Device name -> (host, port) of eAPI over HTTP, or over HTTPS."""
        if self.server is None:
            raise LabError("the lab is not started")
        ports = self.server.https_ports if https else self.server.ports
        return {name: ("127.0.0.1", port) for name, port in ports.items()}

    def device(self, name: str) -> EmulatedDevice:
        try:
            return self.devices[name]
        except KeyError:
            raise LabError(f"no device {name!r} in the lab") from None

    def should_listen(self, dev: EmulatedDevice) -> bool:
        """Whether the device accepts connections (no unreachable fault, API on under lockout)."""
        return not dev.faults.unreachable and (not self.lockout or dev.api_enabled())

    def _changed(self, dev: EmulatedDevice) -> None:
        if self.lockout and self.server is not None:
            # Called with the lab lock held, maybe from the event loop itself: never wait on it.
            self.server.set_listening_soon(dev.name, self.should_listen(dev))
        if self._persist and self.state_dir is not None:
            replaced = (dev.serial, dev.system_mac) != unit_identity(dev.name)
            state = device_state(
                dev.running, dev.startup, dev.files, (dev.serial, dev.system_mac) if replaced else None
            )
            # Compact: rewritten on every change, read only by a restarted lab.
            write_json_atomic(self.state_dir / f"{dev.name}.json", state, indent=None)

    def _boot_config(self, dev: EmulatedDevice, spec: DeviceSpec) -> tuple[Config, list[str]]:
        """The running config ``spec`` starts with (factory default without a config), and the
        lines the device refused."""
        text = spec.config
        if text is None:
            text = "\n".join(factory_default(spec.name, self.username, self._password_hash))
        text, errors = drop_missing_ports(dev.hardware, text)
        config = Config()
        errors += load_text(config, text)
        return config, errors

    # ------------------------------------------------------------------ new and replaced switches
    def join(self, specs: Sequence[DeviceSpec], links: Iterable[Link] = ()) -> list[str]:
        """Add the devices of ``specs`` the lab does not have yet, with the cables that reach
        them, and serve them; the devices it has stay exactly as they are (configs, sessions,
        counters, faults, credentials, endpoints). Returns the names added, sorted.

        A switch racked and cabled into a running fabric: its neighbours see its links come up.

        Examples:
            >>> with Lab([DeviceSpec("spine1", None)]) as lab:
            ...     lab.join([DeviceSpec("spine1", "hostname other"), DeviceSpec("leaf1", None)],
            ...              [Link("leaf1", "Ethernet1", "spine1", "Ethernet1")])
            ...     sorted(lab.endpoints()), lab.fabric.peer_of("spine1", "Ethernet1")
            ['leaf1']
            (['leaf1', 'spine1'], ('leaf1', 'Ethernet1'))
        """
        with self.lock:
            new = [spec for spec in specs if spec.name not in self.devices]
            names = {spec.name for spec in new}
            cables = [
                link for link in links if (link.a_device in names or link.b_device in names) and link not in self.links
            ]
            self.links += cables
            slash = slash_devices(cables)
            for spec in new:
                dev = self._new_device(spec, spec.name in slash)
                dev.attach(self.fabric)
                self.devices[spec.name] = dev
                self._specs[spec.name] = spec
            self._joined |= names
            self.fabric.set_links([*self.fabric.links, *cables])
            self.fabric.bump()
        if self.server is not None:
            self.server.add_devices(sorted(names))
        if self._persist:
            for name in sorted(names):
                self._changed(self.devices[name])
        return sorted(names)

    def replace(self, name: str, serial: str, base_mac: str) -> None:
        """Swap the unit of ``name`` for a new one (RMA): factory default, with its own serial
        number and base MAC, on the same endpoints and cables; nothing of the old unit stays
        (configs, files, sessions, counters, faults).

        Examples:
            >>> with Lab([DeviceSpec("leaf1", "hostname leaf1\\ninterface Ethernet1\\n   description x")]) as lab:
            ...     lab.replace("leaf1", "JPE2133ABCD", "00:1c:73:aa:bb:cc")
            ...     dev = lab.device("leaf1")
            ...     dev.serial, "description x" in dev.running_config()
            ('JPE2133ABCD', False)
        """
        dev = self.device(name)
        was_unreachable = dev.faults.unreachable
        with self.lock:
            running, _ = self._boot_config(dev, dataclasses.replace(self._specs[name], config=None))
            dev.serial, dev.system_mac = serial, base_mac
            dev.reload(running, running, {})
            self._loaded[name] = None  # a reset boots the device of its spec again
        if was_unreachable and self.server is not None:
            self.server.set_listening(name, self.should_listen(dev))

    # ------------------------------------------------------------------ reset
    def save(self) -> dict[str, SavedDevice]:
        """Every device's running and startup config and files as they are now (copies)."""
        with self.lock:
            return {
                name: SavedDevice(dev.running.copy(), dev.startup.copy(), {k: c.copy() for k, c in dev.files.items()})
                for name, dev in self.devices.items()
            }

    def reset(self, names: Iterable[str] | None = None, *, to: Mapping[str, SavedDevice] | None = None) -> None:
        """Devices (default: all) booted afresh with the configs of their specs (factory default
        or preloaded, as a fresh lab starts them), or with those saved in ``to``: no sessions,
        commit timers, faults or counters; every cable as first laid.

        A test that shares one lab resets it in milliseconds instead of starting another.

        Examples:
            >>> with Lab([DeviceSpec("leaf1", None)]) as lab:
            ...     _ = lab.tamper("leaf1", ["hostname edited"])
            ...     lab.set_unreachable("leaf1")
            ...     lab.reset()
            ...     lab.device("leaf1").status()["hostname"], lab.device("leaf1").faults.active()
            ('leaf1', [])
        """
        if names is None:
            self._drop_joined(set(to or ()))
        with self.lock:
            self.fabric.set_links(self.links)
            self.fabric.bump()
        for name in self.devices if names is None else names:
            dev = self.device(name)
            source: object = self._specs[name] if to is None else to[name]
            if self._loaded.get(name) is source and dev.is_clean():
                continue  # untouched since it was booted with these configs: nothing to do
            was_unreachable = dev.faults.unreachable
            dev.serial, dev.system_mac = unit_identity(name)
            if isinstance(source, SavedDevice):
                dev.reload(source.running, source.startup, source.files)
            else:
                running, _ = self._boot_config(dev, self._specs[name])
                dev.reload(running, running, {})
            self._loaded[name] = source
            if was_unreachable and self.server is not None:
                self.server.set_listening(name, self.should_listen(dev))

    def _drop_joined(self, keep: set[str]) -> None:
        """Remove the devices :meth:`join` added (but those in ``keep``) and their cables."""
        gone = sorted(self._joined - keep)
        if not gone:
            return
        with self.lock:
            for name in gone:
                self.devices.pop(name).cancel_timers()
                del self._specs[name]
                self._loaded.pop(name, None)
                self.load_errors.pop(name, None)
            self._joined -= set(gone)
            self.links = [link for link in self.links if link.a_device not in gone and link.b_device not in gone]
        if self.server is not None:
            self.server.remove_devices(gone)

    # ------------------------------------------------------------------ faults
    def set_unreachable(self, name: str, unreachable: bool = True) -> None:
        """Connection refused (listener closed) until cleared."""
        dev = self.device(name)
        with self.lock:
            dev.faults.unreachable = unreachable
            listening = self.should_listen(dev)
        if self.server is not None:
            self.server.set_listening(name, listening)

    def clear_faults(self, name: str) -> None:
        dev = self.device(name)
        self.set_unreachable(name, False)
        with self.lock:
            dev.faults.slow = 0.0
            dev.faults.reject = None
            dev.faults.drop_after_commit = 0
            dev.faults.links_down.clear()

    def fault(self, name: str, kind: str, **options: Any) -> dict[str, Any]:  # noqa: PLR0912 - a branch per kind
        """Apply one fault by kind (see :data:`lab.faults.FAULT_KINDS`)."""
        dev = self.device(name)
        if kind == "unreachable":
            self.set_unreachable(name, bool(options.get("on", True)))
        elif kind == "slow":
            with self.lock:
                dev.faults.slow = float(options.get("seconds", 2.0))
        elif kind == "reject":
            pattern = str(options.get("pattern", ""))
            try:
                re.compile(pattern)
            except re.error as exc:
                raise LabError(f"bad pattern {pattern!r}: {exc}") from None
            with self.lock:
                dev.faults.reject = pattern or None
        elif kind == "drop-after-commit":
            with self.lock:
                dev.faults.drop_after_commit = int(options.get("times", 1))
        elif kind == "reboot":
            dev.reboot()
        elif kind == "flap":
            dev.flap(self._port(options))
        elif kind == "link-down":
            dev.set_link_down(self._port(options), bool(options.get("on", True)))
        elif kind == "miscable":
            other = options.get("other_port")
            if not other:
                raise LabError("miscable needs --port and --other-port (their cables swap)")
            with self.lock:
                self.fabric.swap_cables(name, self._port(options), str(other))
        elif kind == "pending-session":
            dev.leave_pending_session(str(options.get("session", "console_abandoned")))
        elif kind == "clear":
            self.clear_faults(name)
        else:
            raise LabError(f"unknown fault {kind!r}")
        return {"device": name, "faults": dev.faults.active()}

    @staticmethod
    def _port(options: dict[str, Any]) -> str:
        port = options.get("port")
        if not port:
            raise LabError("this fault needs a port (e.g. Ethernet1)")
        return str(port)

    def tamper(self, name: str, lines: list[str]) -> list[str]:
        """Console-style change of one device (see :meth:`EmulatedDevice.tamper`)."""
        return self.device(name).tamper(lines)

    def status(self) -> dict[str, Any]:
        """Per device: host, port, hostname, model, config size, sessions, faults, and the
        preloaded lines the device refused (``load_errors``)."""
        eps = self.endpoints() if self.server is not None else {}
        return {
            name: {
                "host": eps.get(name, ("127.0.0.1", 0))[0],
                "port": eps.get(name, ("", 0))[1],
                **dev.status(),
                "load_errors": list(self.load_errors.get(name, [])),
            }
            for name, dev in self.devices.items()
        }
