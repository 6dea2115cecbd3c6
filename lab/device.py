"""One emulated EOS switch: running/startup configs, configure sessions, exec commands, faults.

:meth:`EmulatedDevice.run_cmds` executes one eAPI ``runCmds`` request. Every
request starts in exec mode (modes do not survive across requests); commands
run in order and the first failure stops the request, without undoing the
commands before it (EOS semantics: only a configure session protects a change).

Configure sessions follow EOS 4.31 (the "legacy" session-detail format):
``pending`` until committed or aborted; ``commit timer HH:MM:SS`` commits,
keeps the previous running-config as a checkpoint and sets the state to
``pendingCommitTimer`` with an epoch ``commitBy``; a real timer restores the
checkpoint when it expires unless ``configure session X commit`` confirms it
first; ``abort`` on a timer session rolls back at once. At most
:data:`MAX_OPEN_SESSIONS` sessions may be pending.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.hardware import Catalog, Model, match_model
from lab.configtree import Config, Editor, LineError
from lab.faults import Faults
from lab.hardware import active_ports, default_bandwidth, port_error
from lab.modes import HEREDOCS
from lab.printer import DEFAULT_MODEL, EOS_VERSION, body_lines, header
from lab.shows import ShowError, run_show
from lab.topology import Fabric, hostname, interface_blocks

MAX_OPEN_SESSIONS = 5
MAX_SAVED_SESSIONS = 1
Json = dict[str, Any]


class CommandFailed(Exception):
    """A command failed; ``errors`` are EOS's error strings, ``code`` the eAPI code."""

    def __init__(self, errors: list[str], code: int = 1002) -> None:
        super().__init__(errors[0] if errors else "")
        self.errors = errors
        self.code = code


@dataclass
class Session:
    """A configure session."""

    name: str
    config: Config
    state: str = "pending"
    created: float = field(default_factory=time.time)
    completed_time: float = 0.0
    commit_by: float = 0.0
    checkpoint: Config | None = None
    timer: threading.Timer | None = None


@dataclass
class RunResult:
    """Outcome of one request: results so far, and the error of the failing command."""

    results: list[Json]
    error: CommandFailed | None = None
    failed_index: int = -1
    drop_connection: bool = False


def unit_identity(name: str) -> tuple[str, str]:
    """The serial number and base MAC of the lab's unit for ``name`` (stable across starts).

    Examples:
        >>> unit_identity("spine01")[1].startswith("00:1c:73:")
        True
    """
    digest = hashlib.sha256(name.encode()).hexdigest()
    return "LAB" + digest[:9].upper(), "00:1c:73:" + ":".join(digest[i : i + 2] for i in (10, 12, 14))


class EmulatedDevice:
    """An emulated switch. All methods expect the lab lock to be held by the caller."""

    def __init__(
        self,
        name: str,
        *,
        model: str = DEFAULT_MODEL,
        linecards: tuple[tuple[int, str], ...] = (),
        ethernet_ports: int = 64,
        version: str = EOS_VERSION,
        catalog: Catalog | None = None,
        lock: threading.RLock | None = None,
        on_change: Callable[[EmulatedDevice], None] | None = None,
    ) -> None:
        self.name = name
        #: The catalog model (None outside the catalog: generic ports ``Ethernet1..N``).
        self.hardware: Model | None = match_model(model) if catalog is None else catalog.match(model)
        if self.hardware is not None and linecards:
            self.hardware = self.hardware.with_linecards(dict(linecards))
        #: ``modelName`` of ``show version``: a catalog model with its airflow suffix.
        self.model = self.hardware.show_version_model() if self.hardware and self.hardware.id == model else model
        self.version = version
        self.build = "35431657.4312F"
        self.serial, self.system_mac = unit_identity(name)
        self.ethernet_ports = ethernet_ports
        self.slash_ports = False
        self.boot_time = time.time()
        self.running = Config()
        self.startup = Config()
        self.files: dict[str, Config] = {}
        self.sessions: dict[str, Session] = {}
        self.faults = Faults()
        self.counters: dict[str, dict[str, int]] = {}
        self.last_change: dict[str, float] = {}
        self.lock = lock or threading.RLock()
        self._on_change = on_change
        self._fabric: Fabric | None = None
        self._ports: tuple[tuple[bool, int], list[str]] | None = None
        self._model_ports: tuple[Config, int, list[str]] | None = None
        self._port_set: tuple[list[str], frozenset[str]] | None = None
        self._clean_mark: tuple[object, ...] = ()
        self._printed: dict[int, tuple[Config, tuple[int, str, tuple[str, ...]], str]] = {}

    # ------------------------------------------------------------------ wiring
    def attach(self, fabric: Fabric) -> None:
        self._fabric = fabric

    def fabric(self) -> Fabric:
        if self._fabric is None:
            self._fabric = Fabric({self.name: self})
        return self._fabric

    def physical_ports(self, config: Config | None = None) -> list[str]:
        """Front-panel ports, then the management ports: a catalog model's under the breakouts
        ``config`` (default: running-config) sets, else ``Ethernet1..N`` and ``Management1``."""
        return list(self._physical(self.running if config is None else config))

    def has_physical_port(self, port: str) -> bool:
        """Whether ``port`` is one of :meth:`physical_ports` (of running-config): a set look-up,
        as link state asks it for every cabled port of both ends."""
        ports = self._physical(self.running)
        if self._port_set is None or self._port_set[0] is not ports:
            self._port_set = (ports, frozenset(ports))
        return port in self._port_set[1]

    def _physical(self, config: Config) -> list[str]:
        """:meth:`physical_ports`, the cached list itself (never handed out: callers get a copy)."""
        if self.hardware is not None:
            # Keyed by the config object itself (held, so its id cannot be reused) and its version.
            cached = self._model_ports
            if cached is None or cached[0] is not config or cached[1] != config.version:
                cached = (config, config.version, active_ports(self.hardware, config))
                self._model_ports = cached
            return cached[2]
        shape = (self.slash_ports, self.ethernet_ports)
        if self._ports is None or self._ports[0] != shape:
            if self.slash_ports:
                ports = [*(f"Ethernet{i}/1" for i in range(1, self.ethernet_ports + 1)), "Management1"]
            else:
                ports = [*(f"Ethernet{i}" for i in range(1, self.ethernet_ports + 1)), "Management1"]
            self._ports = (shape, ports)
        return self._ports[1]

    def default_bandwidth(self, port: str, fallback: int = 100_000_000_000) -> int:
        """Bits per second of a port without a ``speed`` line (the catalog's speed of its lane)."""
        return default_bandwidth(self.hardware, port, fallback)

    def api_enabled(self) -> bool:
        """Whether running-config enables eAPI (``management api http-commands`` / ``no shutdown``)."""
        block = self.running.block("management api http-commands")
        return block is not None and any(c.text == "no shutdown" for c in block.children)

    def has_user(self, username: str) -> bool:
        """Whether running-config defines ``username`` (any password form)."""
        prefix = f"username {username} "
        return any(n.text.startswith(prefix) for n in self.running.root.children)

    def is_reachable(self) -> bool:
        return not self.faults.unreachable

    def links_down(self) -> set[str]:
        return self.faults.links_down

    def changed(self) -> None:
        self.fabric().bump()
        if self._on_change is not None:
            self._on_change(self)

    # ------------------------------------------------------------------ texts
    def render(self, config: Config, command: str = "show running-config") -> str:
        extra = []
        if command.startswith("show startup-config"):
            stamp = time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(self.boot_time))
            extra.append(f"! Startup-config last modified at {stamp} by admin")
        # The header names the model without its airflow suffix (as the captures show).
        model = self.hardware.id if self.hardware is not None else self.model
        top = header(command, hostname(config, self.name), model, self.version, extra)
        return top + self._body(config)

    def _body(self, config: Config) -> str:
        """The config's text below the header, printed once per change of the config.

        Keyed by the config object itself (held, so its id cannot be reused), its version (every
        edit bumps it), the release and the physical ports: a fleet read over and over prints
        each config once.
        """
        physical = tuple(self.physical_ports(config))
        mark = (config.version, self.version, physical)
        cached = self._printed.get(id(config))
        if cached is None or cached[0] is not config or cached[1] != mark:
            text = "\n".join(body_lines(config, physical, self.version)) + "\n"
            cached = (config, mark, text)
            self._printed[id(config)] = cached
            while len(self._printed) > 4:  # running, startup, a session: a few configs at a time
                del self._printed[next(iter(self._printed))]
        return cached[2]

    def running_config(self) -> str:
        """``show running-config`` as EOS prints it."""
        with self.lock:
            return self.render(self.running)

    def startup_config(self) -> str:
        with self.lock:
            return self.render(self.startup, "show startup-config")

    def show_text(self, cmd: str) -> str | None:
        """Text-only show commands (configs, diffs); None for the others."""
        m = re.fullmatch(r"show (running-config|startup-config)((?: all| sanitized)*)", cmd)
        if m:
            config = self.running if m.group(1) == "running-config" else self.startup
            text = self.render(config, cmd)  # EOS echoes the command as typed in the header
            return sanitize(text) if "sanitized" in m.group(2) else text
        m = re.fullmatch(r"show session-config named (\S+)( diffs)?( sanitized)?", cmd)
        if m:
            session = self.sessions.get(m.group(1))
            if session is None:
                raise ShowError(f"Session {m.group(1)} not found", code=1000)
            if m.group(2):
                return self._diff(session)
            return self.render(session.config, "show session-config")
        m = re.fullmatch(r"show session-config( diffs)?", cmd)
        if m:
            raise ShowError("Not in a configure session", code=1000)
        return None

    def _diff(self, session: Session) -> str:
        before, after = self.render(self.running), self.render(session.config)
        if before == after:  # what a plan of a fleet in sync asks most: no difflib over equal texts
            return ""
        lines = list(
            difflib.unified_diff(
                before.splitlines()[1:],
                after.splitlines()[1:],
                fromfile="system:/running-config",
                tofile=f"session:/{session.name}-session-config",
                lineterm="",
            )
        )
        return "\n".join(lines) + "\n" if lines else ""

    # ------------------------------------------------------------------ sessions
    def sessions_json(self) -> Json:
        sessions = {}
        for s in self.sessions.values():
            entry: Json = {
                "state": s.state,
                "completedTime": s.completed_time,
                "commitUser": "",
                "description": "",
                "instances": {},
            }
            if s.state == "pendingCommitTimer":
                entry["commitBy"] = s.commit_by
            sessions[s.name] = entry
        return {
            "sessions": sessions,
            "maxSavedSessions": MAX_SAVED_SESSIONS,
            "maxOpenSessions": MAX_OPEN_SESSIONS,
            "mergeOnCommit": False,
            "saveToStartupConfigOnCommit": False,
        }

    def _open_session(self, name: str) -> Session:
        existing = self.sessions.get(name)
        if existing is not None and existing.state == "pending":
            return existing
        if existing is not None and existing.state == "pendingCommitTimer":
            raise CommandFailed([f"Cannot enter session {name} (commit timer pending)"], 1000)
        pending = [s for s in self.sessions.values() if s.state == "pending"]
        if len(pending) >= MAX_OPEN_SESSIONS:
            raise CommandFailed(
                ["Maximum number of pending sessions has been reached. Please commit or abort some sessions first."],
                1000,
            )
        session = Session(name, self.running.copy())
        self.sessions[name] = session
        return session

    def _commit(self, name: str, timer: str | None) -> None:
        session = self.sessions.get(name)
        if session is None:
            raise CommandFailed([f"Session {name} does not exist"], 1000)
        if session.state == "pendingCommitTimer":
            if timer is not None:
                raise CommandFailed([f"Commit timer already running for session {name}"], 1000)
            self._cancel_timer(session)
            session.state = "completed"
            session.checkpoint = None
            self.changed()
            return
        if session.state != "pending":
            raise CommandFailed([f"Session {name} has already been committed"], 1000)
        others = [s.name for s in self.sessions.values() if s.state == "pendingCommitTimer"]
        if others:
            raise CommandFailed(
                [f"Cannot commit session {name}: session {others[0]} has a commit timer pending"],
                1000,
            )
        previous = self.running
        self.running = session.config.copy()
        session.completed_time = time.time()
        if timer is None:
            session.state = "completed"
        else:
            h, mi, s = (int(x) for x in timer.split(":"))
            seconds = h * 3600 + mi * 60 + s
            session.state = "pendingCommitTimer"
            session.checkpoint = previous
            session.commit_by = time.time() + seconds
            session.timer = threading.Timer(seconds, self._expire, args=(name,))
            session.timer.daemon = True
            session.timer.start()
        self._prune_completed()
        self.changed()

    def _expire(self, name: str) -> None:
        """The commit timer fired: restore the checkpoint (EOS: COMMIT_TIMER_CANCELED)."""
        with self.lock:
            session = self.sessions.get(name)
            if session is None or session.state != "pendingCommitTimer":
                return
            if session.checkpoint is not None:
                self.running = session.checkpoint
            session.checkpoint = None
            session.state = "completed"
            session.timer = None
            self.changed()

    @staticmethod
    def _cancel_timer(session: Session) -> None:
        if session.timer is not None:
            session.timer.cancel()
            session.timer = None

    def _abort(self, name: str) -> None:
        session = self.sessions.pop(name, None)
        if session is None:
            return
        if session.state == "pendingCommitTimer":
            self._cancel_timer(session)
            if session.checkpoint is not None:
                self.running = session.checkpoint
            self.changed()

    def _prune_completed(self) -> None:
        done = [s for s in self.sessions.values() if s.state == "completed"]
        done.sort(key=lambda s: s.completed_time)
        for s in done[:-MAX_SAVED_SESSIONS] if MAX_SAVED_SESSIONS else done:
            del self.sessions[s.name]

    def cancel_timers(self) -> None:
        for s in self.sessions.values():
            self._cancel_timer(s)

    # ------------------------------------------------------------------ files
    def _source(self, name: str) -> Config:
        if name in ("startup-config", "flash:startup-config"):
            return self.startup
        if name in ("running-config", "system:running-config"):
            return self.running
        if name in ("clean-config", "flash:clean-config"):
            return Config()
        if name in self.files:
            return self.files[name]
        raise CommandFailed([f"Error copying {name}: No such file or directory"], 1000)

    # ------------------------------------------------------------------ requests
    def run_cmds(self, cmds: list[Any], fmt: str = "json", *, auto_complete: bool = False) -> RunResult:
        """Run one eAPI request (the lab lock must be held).

        Without ``auto_complete`` (eAPI's ``autoComplete``, off by default) configuration
        keywords must be typed in full, as on a switch: ``int eth1`` is invalid input.
        """
        results: list[Json] = []
        ctx = _Context(auto_complete)
        drop = False
        for index, item in enumerate(cmds):
            try:
                cmd, data = _split(item)
                out, committed = self._run_one(ctx, cmd, data, fmt)
            except CommandFailed as exc:
                return RunResult(results, exc, index)
            except ShowError as exc:
                return RunResult(results, CommandFailed([str(exc)], exc.code), index)
            results.append(out)
            if committed and self.faults.drop_after_commit > 0:
                drop = True
        if drop:
            self.faults.drop_after_commit -= 1
        return RunResult(results, drop_connection=drop)

    def _run_one(self, ctx: _Context, cmd: str, data: str | None, fmt: str) -> tuple[Json, bool]:
        empty: Json = {} if fmt == "json" else {"output": ""}
        if not cmd:
            return empty, False
        if ctx.editor is not None:
            in_session = ctx.session is not None
            out = self._config_line(ctx, cmd, data, fmt, empty)
            return out, in_session and cmd.lower() == "commit"
        return self._exec(ctx, cmd, data, fmt, empty)

    def _config_line(  # noqa: PLR0911, PLR0912 - one branch per config-mode verb
        self, ctx: _Context, cmd: str, data: str | None, fmt: str, empty: Json
    ) -> Json:
        assert ctx.editor is not None
        low = cmd.lower()
        if cmd.startswith("show "):
            return run_show(self, cmd, fmt)
        if low == "end":
            ctx.leave()
            return empty
        if low == "exit":
            if not ctx.editor.exit():
                ctx.leave()
            return empty
        if low == "comment" and data is not None:
            try:
                ctx.editor.comment(data)
            except LineError as exc:
                raise CommandFailed([str(exc)]) from None
            return empty
        if data is not None and " ".join(low.split()) in HEREDOCS:
            ctx.editor.heredoc(cmd, data)  # banner text, sent as the command's input
            if ctx.session is None:
                self.changed()
            return empty
        if ctx.session is not None:
            if low == "rollback clean-config":
                # The boot image lives in boot-config, not in the running config a replace clears.
                boot = [n for n in ctx.session.config.root.children if n.text.startswith("boot system ")]
                ctx.session.config = Config()
                ctx.session.config.root.children = boot
                ctx.editor = ctx.editor_for(ctx.session.config)
                return empty
            if low == "abort":
                self._abort(ctx.session.name)
                ctx.leave()
                return empty
            if low == "commit":
                name = ctx.session.name
                ctx.leave()
                self._commit(name, None)
                return empty
        if self.faults.rejects(cmd):
            raise CommandFailed(["Unavailable command (not supported on this hardware platform)"])
        missing = port_error(self.hardware, cmd, abbreviations=ctx.auto_complete)
        if missing is not None:
            raise CommandFailed([missing])
        try:
            ctx.editor.apply(cmd)
        except LineError as exc:
            raise CommandFailed([str(exc)]) from None
        if ctx.session is None:
            self.changed()
        return empty

    def _exec(  # noqa: PLR0911, PLR0912 - one branch per exec command
        self, ctx: _Context, cmd: str, data: str | None, fmt: str, empty: Json
    ) -> tuple[Json, bool]:
        copied: Json = (
            {"messages": ["Copy completed successfully."]}
            if fmt == "json"
            else {"output": "Copy completed successfully.\n"}
        )
        if cmd.startswith("show "):
            return run_show(self, cmd, fmt), False
        if re.fullmatch(r"enable", cmd):
            return empty, False
        if re.fullmatch(r"configure( terminal)?", cmd):
            ctx.enter(ctx.editor_for(self.running), None)
            return empty, False
        m = re.fullmatch(r"configure session (\S+)( commit( timer (\d{1,2}:\d{2}:\d{2}))?| abort)?", cmd)
        if m:
            name = m.group(1)
            if m.group(2) is None:
                session = self._open_session(name)
                ctx.enter(ctx.editor_for(session.config), session)
                return empty, False
            if m.group(2) == " abort":
                self._abort(name)
                return empty, False
            self._commit(name, m.group(4))
            return empty, True
        m = re.fullmatch(r"copy (\S+) (\S+)", cmd)
        if m:
            source = self._source(m.group(1)).copy()
            dest = m.group(2)
            if dest in ("startup-config", "flash:startup-config"):
                self.startup = source
            elif dest in ("running-config", "system:running-config"):
                self.running = source
            elif dest.startswith("flash:"):
                self.files[dest] = source
            else:
                raise CommandFailed([f"Invalid input (at token 2: '{dest}')"])
            self.changed()
            return copied, False
        if re.fullmatch(r"write( memory)?", cmd):
            self.startup = self.running.copy()
            self.changed()
            return copied, False
        m = re.fullmatch(r"configure replace (\S+)( force)?", cmd)
        if m:
            self.running = self._source(m.group(1)).copy()
            self.changed()
            return empty, False
        words = cmd.split()
        known = ("enable", "configure", "copy", "write", "show", "ping", "bash", "reload")
        if words[0] in known:
            bad = min(1, len(words) - 1)
            if len(words) == 1:
                raise CommandFailed(["Incomplete command"])
            raise CommandFailed([f"Invalid input (at token {bad}: '{words[bad]}')"])
        raise CommandFailed([f"Invalid input (at token 0: '{words[0]}')"])

    # ------------------------------------------------------------------ fault actions
    def tamper(self, lines: list[str]) -> list[str]:
        """Apply lines through a plain ``configure``, as an engineer on the console would.

        Lines before a failing one stay applied (a console session is not a
        transaction). Returns the error of the failing line, if any.
        """
        with self.lock:
            result = self.run_cmds(["enable", "configure", *lines, "end"], "json", auto_complete=True)
            if result.error is None:
                return []
            bad = lines[result.failed_index - 2] if result.failed_index >= 2 else ""
            return [f"{bad}: {e}" for e in result.error.errors]

    def reboot(self) -> None:
        """Power-cycle: running := startup, sessions and counters gone."""
        with self.lock:
            self.cancel_timers()
            self.sessions.clear()
            self.running = self.startup.copy()
            self.counters.clear()
            self.boot_time = time.time()
            self.last_change.clear()
            self.changed()

    def reload(self, running: Config, startup: Config, files: dict[str, Config]) -> None:
        """Boot afresh with these configs (copied): no sessions, timers, faults or counters."""
        with self.lock:
            self.cancel_timers()
            self.sessions.clear()
            self.running, self.startup = running.copy(), startup.copy()
            self.files = {name: config.copy() for name, config in files.items()}
            self.faults = Faults()
            self.counters.clear()
            self.boot_time = time.time()
            self.last_change.clear()
            self.changed()
            self.mark_clean()

    def _mark(self) -> tuple[object, ...]:
        files = tuple((k, id(c), c.version) for k, c in self.files.items())
        configs = (id(self.running), self.running.version, id(self.startup), self.startup.version)
        return (*configs, files)

    def mark_clean(self) -> None:
        """Remember the device as it is now, for :meth:`is_clean`."""
        self._clean_mark = self._mark()

    def is_clean(self) -> bool:
        """Nothing happened since :meth:`mark_clean`: same configs and files, no sessions,
        faults, counters or link events."""
        with self.lock:
            quiet = not (self.sessions or self.faults.active() or self.counters or self.last_change)
            return quiet and self._mark() == self._clean_mark

    def flap(self, port: str) -> None:
        """Bounce a port: its link goes down and up again (one more status change)."""
        with self.lock:
            counters = self.counters.setdefault(port, {})
            counters["linkStatusChanges"] = counters.get("linkStatusChanges", 1) + 2
            self.last_change[port] = time.time()

    def set_link_down(self, port: str, down: bool = True) -> None:
        with self.lock:
            if down:
                self.faults.links_down.add(port)
            else:
                self.faults.links_down.discard(port)
            self.last_change[port] = time.time()

    def leave_pending_session(self, name: str = "console_abandoned", lines: tuple[str, ...] = ()) -> None:
        """A session left ``pending`` by a client that died between load and commit."""
        with self.lock:
            session = self._open_session(name)
            editor = Editor(session.config)
            for line in lines:
                editor.apply(line)

    def add_counters(self, port: str, **deltas: int) -> None:
        """Raise counters: ``inOctets``, ``outOctets``, ``fcsErrors``, ``inErrors``,
        ``symbolErrors``, ``outErrors``, ``pfcRx``, ``pfcTx``, ``ecnMarked``, ...
        """
        with self.lock:
            counters = self.counters.setdefault(port, {})
            for key, value in deltas.items():
                counters[key] = counters.get(key, 0) + value

    def status(self) -> Json:
        """What ``lab status`` shows for this device."""
        with self.lock:
            return {
                "hostname": hostname(self.running, self.name),
                "model": self.model,
                "running_lines": sum(1 for _ in self.running.root.walk()),
                "interfaces_configured": len(interface_blocks(self.running)),
                "sessions": {n: s.state for n, s in self.sessions.items()},
                "faults": self.faults.active(),
            }


class _Context:
    """The mode of one request: exec, or config mode on running or a session."""

    def __init__(self, auto_complete: bool = False) -> None:
        self.editor: Editor | None = None
        self.session: Session | None = None
        self.auto_complete = auto_complete

    def editor_for(self, config: Config) -> Editor:
        return Editor(config, abbreviations=self.auto_complete)

    def enter(self, editor: Editor, session: Session | None) -> None:
        self.editor = editor
        self.session = session

    def leave(self) -> None:
        self.editor = None
        self.session = None


_SECRET = re.compile(r"(\b(?:secret|password|key)(?: (?:sha512|0|5|7|8a))?) \S+")


def sanitize(text: str) -> str:
    """``show running-config sanitized``: secrets replaced by ``<removed>``.

    Examples:
        >>> sanitize("username a privilege 15 secret sha512 $6$x$y\\n")
        'username a privilege 15 secret sha512 <removed>\\n'
    """
    return "".join(
        _SECRET.sub(r"\1 <removed>", line) if not line.lstrip().startswith(("description", "!")) else line
        for line in text.splitlines(keepends=True)
    )


def _split(item: Any) -> tuple[str, str | None]:
    """A command string (whitespace normalised) and its ``input``, from either form."""
    if isinstance(item, dict):
        cmd = item.get("cmd", "")
        data = item.get("input")
    else:
        cmd, data = item, None
    if not isinstance(cmd, str):
        raise CommandFailed(["Invalid command format"], -32602)
    return " ".join(cmd.split()), data if isinstance(data, str) else None
