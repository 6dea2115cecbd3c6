"""eAPI over HTTPS and HTTP for every device of a lab: one asyncio loop, two listeners per device.

One event loop in one thread serves all listeners, so 800 devices start and
stop in well under a second (no per-server polling threads to join). Each
device listens twice, as a switch does: HTTPS (EOS's default, with the lab's
self-signed certificate, :mod:`lab.tls`) and plain HTTP. A TLS client that
reaches the HTTP port is disconnected at its first byte instead of waiting for
its timeout.

Protocol (what pyeapi, NAPALM and ANTA's asynceapi expect):

* ``POST /command-api`` with a JSON-RPC 2.0 ``runCmds`` body; HTTP/1.1
  keep-alive (httpx) or one request per connection (pyeapi);
* ``HEAD /command-api`` answers 200 (ANTA's reachability probe);
* HTTP Basic auth: wrong credentials get 401;
* a failing command is an HTTP 200 reply whose ``error`` has code 1002 (and
  1000, 1003), the message ``CLI command K of N 'cmd' failed: ...`` and
  ``data`` = the results so far plus the failing command's ``errors``.
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import ssl
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from lab.device import RunResult

if TYPE_CHECKING:
    from lab.emulator import Lab

_SUFFIX = {1000: "could not run command", 1002: "invalid command", 1003: "unconverted command"}
_MAX_BODY = 64 * 1024 * 1024
_TLS_HANDSHAKE = 0x16  # the first byte of a TLS ClientHello

ControlHandler = Callable[[dict[str, Any]], dict[str, Any]]


def rpc_reply(req_id: Any, cmds: list[Any], fmt: str, result: RunResult) -> dict[str, Any]:
    """The JSON-RPC reply for one ``runCmds`` outcome.

    Examples:
        >>> from lab.device import CommandFailed
        >>> r = RunResult([{}], CommandFailed(["Invalid input (at token 1: 'bogus')"]), 1)
        >>> reply = rpc_reply("1", ["enable", "show bogus"], "json", r)
        >>> reply["error"]["message"]
        "CLI command 2 of 2 'show bogus' failed: invalid command"
        >>> reply["error"]["data"][-1]
        {'errors': ["Invalid input (at token 1: 'bogus')"]}
    """
    if result.error is None:
        return {"jsonrpc": "2.0", "id": req_id, "result": result.results}
    code = result.error.code
    item = cmds[result.failed_index]
    cmd = item.get("cmd", "") if isinstance(item, dict) else item
    entry: dict[str, Any] = {"errors": result.error.errors}
    if fmt == "text":
        entry["output"] = "".join(f"% {e}\n" for e in result.error.errors)
    message = (
        f"CLI command {result.failed_index + 1} of {len(cmds)} '{cmd}' failed: "
        f"{_SUFFIX.get(code, 'could not run command')}"
    )
    return {
        "jsonrpc": "2.0",
        "id": req_id,
        "error": {"code": code, "message": message, "data": [*result.results, entry]},
    }


class EapiServer:
    """Serves the devices of ``lab`` on 127.0.0.1, one port each, from one loop thread."""

    def __init__(
        self,
        lab: Lab,
        control: ControlHandler | None = None,
        control_token: str = "",
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.lab = lab
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="lab-eapi", daemon=True)
        self.servers: dict[str, asyncio.base_events.Server] = {}
        self.tls_servers: dict[str, asyncio.base_events.Server] = {}
        self.tls = tls
        self.ports: dict[str, int] = {}
        self.https_ports: dict[str, int] = {}
        self.writers: dict[str, set[asyncio.StreamWriter]] = {}
        #: Devices whose listener is being opened (the open awaits; a close may come meanwhile).
        self.opening: set[str] = set()
        self.control = control
        self.control_token = control_token
        self.control_port = 0
        auth = f"{lab.username}:{lab.password}".encode()
        self._auth = "Basic " + base64.b64encode(auth).decode()

    # ------------------------------------------------------------------ lifecycle
    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def start(self, ports: dict[str, int] | None = None) -> None:
        """Bind every device (``ports`` asks for fixed HTTP ports; 0 or absent = a free one)."""
        socks: dict[str, socket.socket] = {}
        tls_socks: dict[str, socket.socket] = {}
        try:
            for name in self.lab.devices:
                socks[name] = _listen((ports or {}).get(name, 0))
                if self.tls is not None:
                    tls_socks[name] = _listen(0)
        except OSError:
            for s in [*socks.values(), *tls_socks.values()]:
                s.close()
            raise
        self.thread.start()
        future = asyncio.run_coroutine_threadsafe(self._start_all(socks, tls_socks), self.loop)
        future.result(timeout=60)

    def add_devices(self, names: list[str]) -> None:
        """Serve devices the lab gained after the start (:meth:`lab.Lab.join`), each on new ports."""
        if not names or not self.thread.is_alive():
            return
        socks = {name: _listen(0) for name in names}
        tls_socks = {name: _listen(0) for name in names} if self.tls is not None else {}
        future = asyncio.run_coroutine_threadsafe(self._serve_devices(socks, tls_socks), self.loop)
        future.result(timeout=60)

    def remove_devices(self, names: list[str]) -> None:
        """Stop serving devices the lab dropped: listeners and open connections closed, ports forgotten."""
        if not self.thread.is_alive():
            return

        async def remove() -> None:
            for name in names:
                self._close(name, drop=True)
                self.ports.pop(name, None)
                self.https_ports.pop(name, None)
                self.writers.pop(name, None)

        asyncio.run_coroutine_threadsafe(remove(), self.loop).result(timeout=10)

    async def _start_all(self, socks: dict[str, socket.socket], tls_socks: dict[str, socket.socket]) -> None:
        await self._serve_devices(socks, tls_socks)
        if self.control is not None:
            sock = _listen(0)
            self.control_port = sock.getsockname()[1]
            self.servers["\0control"] = await asyncio.start_server(self._serve_control, sock=sock)

    async def _serve_devices(self, socks: dict[str, socket.socket], tls_socks: dict[str, socket.socket]) -> None:
        for name, sock in socks.items():
            self.ports[name] = sock.getsockname()[1]
            self.writers[name] = set()
            tls_sock = tls_socks.get(name)
            if tls_sock is not None:
                self.https_ports[name] = tls_sock.getsockname()[1]
            if self.lab.should_listen(self.lab.devices[name]):
                self.opening.add(name)
                await self._open(name, sock, tls_sock)
                self.opening.discard(name)
            else:
                sock.close()
                if tls_sock is not None:
                    tls_sock.close()

    def stop(self) -> None:
        if not self.thread.is_alive():
            return
        future = asyncio.run_coroutine_threadsafe(self._stop_all(), self.loop)
        future.result(timeout=60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()

    async def _open(self, name: str, sock: socket.socket, tls_sock: socket.socket | None) -> None:
        """Serve one device on its bound sockets, unless it was closed while this awaited.

        Each server is registered before it starts to serve, so a close from then on (a
        request it serves may turn the API off) finds it and closes it at once.
        """
        server = await asyncio.start_server(self._handler(name, tls=False), sock=sock, start_serving=False)
        tls_server = None
        if tls_sock is not None:
            tls_server = await asyncio.start_server(
                self._handler(name, tls=True), sock=tls_sock, ssl=self.tls, start_serving=False
            )
        if name not in self.opening:  # closed meanwhile: never serve
            for created in (server, tls_server):
                if created is not None:
                    created.close()
            return
        self.servers[name] = server
        if tls_server is not None:
            self.tls_servers[name] = tls_server
        await server.start_serving()
        if tls_server is not None:
            await tls_server.start_serving()

    async def _stop_all(self) -> None:
        for server in [*self.servers.values(), *self.tls_servers.values()]:
            server.close()
        for writers in self.writers.values():
            for w in list(writers):
                w.close()
        self.servers.clear()
        self.tls_servers.clear()

    def set_listening(self, name: str, listening: bool) -> None:
        """Open or close one device's listener (the ``unreachable`` fault)."""
        if not self.thread.is_alive():
            return
        future = asyncio.run_coroutine_threadsafe(self._set_listening(name, listening), self.loop)
        future.result(timeout=10)

    def set_listening_soon(self, name: str, listening: bool) -> None:
        """Like :meth:`set_listening`, without waiting (safe from the loop and under the lab lock).

        From the loop itself (a config change made over eAPI that turns the API off) the
        listener closes at once, before the reply to that change is written: the client may
        connect again the moment it reads the reply, and must find the port closed. Closed a
        moment later, the listener may already have accepted that connection, and asyncio
        drops a connection accepted for a server closed before its transport was made
        without closing it: the client would wait for its whole timeout.
        """
        if not self.thread.is_alive():
            return
        if not listening and threading.current_thread() is self.thread:
            self._close(name, drop=False)
        else:
            self.loop.call_soon_threadsafe(lambda: self.loop.create_task(self._follow(name)))

    async def _follow(self, name: str) -> None:
        """Open or close a device's listener as the device is when this runs.

        Requests queue up (a config change, a reset, a commit timer from its own thread): the
        state each was asked with may be stale by the time it runs, and an open asked before a
        close must not reopen after it.
        """
        await self._set_listening(name, self.lab.should_listen(self.lab.devices[name]), drop=False)

    def _close(self, name: str, drop: bool) -> None:
        """Stop listening for one device (``drop``: its open connections too), also one being opened."""
        self.opening.discard(name)  # an open under way sees it and never serves
        server = self.servers.pop(name, None)
        if server is not None:
            server.close()
        tls_server = self.tls_servers.pop(name, None)
        if tls_server is not None:
            tls_server.close()
        for w in list(self.writers[name]) if drop else ():
            w.close()

    async def _set_listening(self, name: str, listening: bool, drop: bool = True) -> None:
        if not listening:
            self._close(name, drop)
        elif name not in self.servers and name not in self.opening:
            # One open at a time per device, marked before it awaits: a second would bind the
            # port again, and a close meanwhile would find nothing to close.
            self.opening.add(name)
            tls_port = self.https_ports.get(name)
            await self._open(name, _listen(self.ports[name]), _listen(tls_port) if tls_port is not None else None)
            self.opening.discard(name)

    # ------------------------------------------------------------------ HTTP
    def _handler(
        self, name: str, *, tls: bool
    ) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Coroutine[Any, Any, None]]:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await self._serve(name, reader, writer, tls=tls)

        return handle

    async def _serve(
        self, name: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, tls: bool = False
    ) -> None:
        self.writers.setdefault(name, set()).add(writer)
        try:
            first = b""
            if not tls:
                first = await reader.readexactly(1)
                if first[0] == _TLS_HANDSHAKE:
                    return  # HTTPS spoken to the HTTP port: hang up now, not at the client's timeout
            while True:
                request = await _read_request(reader, first)
                first = b""
                if request is None:
                    break
                method, path, headers, body, keep_alive = request
                device = self.lab.devices.get(name)
                if device is None:
                    break  # removed from the lab meanwhile
                if device.faults.slow:
                    await asyncio.sleep(device.faults.slow)
                if device.faults.unreachable:
                    break
                status, payload, drop = self._handle(name, method, path, headers, body)
                if drop:
                    break
                _write_response(writer, status, payload, keep_alive, head=method == "HEAD")
                await writer.drain()
                if not keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, ssl.SSLError):
            pass
        finally:
            self.writers.get(name, set()).discard(writer)
            writer.close()

    def _handle(  # noqa: PLR0911 - one early reply per HTTP/JSON-RPC failure
        self, name: str, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, bytes, bool]:
        if path.split("?", maxsplit=1)[0] != "/command-api":
            return 404, b"Not Found", False
        if headers.get("authorization") != self._auth:
            return 401, b"Unauthorized", False
        if self.lab.lockout and not self.lab.devices[name].has_user(self.lab.username):
            # A strict lab, like a switch, no longer knows a user its config dropped.
            return 401, b"Unauthorized", False
        if method == "HEAD":
            return 200, b"", False
        if method != "POST":
            return 405, b"Method Not Allowed", False
        try:
            request = json.loads(body)
        except ValueError:
            return 200, _dumps(_rpc_error(None, -32700, "Parse error")), False
        if not isinstance(request, dict):
            return 200, _dumps(_rpc_error(None, -32600, "Invalid request")), False
        req_id = request.get("id")
        if request.get("method") != "runCmds":
            return 200, _dumps(_rpc_error(req_id, -32601, "Method not found")), False
        params = request.get("params")
        cmds = params.get("cmds") if isinstance(params, dict) else None
        fmt = params.get("format", "json") if isinstance(params, dict) else "json"
        if not isinstance(cmds, list) or fmt not in ("json", "text"):
            return 200, _dumps(_rpc_error(req_id, -32602, "Invalid params")), False
        device = self.lab.devices[name]
        auto_complete = bool(params.get("autoComplete", False)) if isinstance(params, dict) else False
        with self.lab.lock:
            result = device.run_cmds(cmds, fmt, auto_complete=auto_complete)
        return 200, _dumps(rpc_reply(req_id, cmds, fmt, result)), result.drop_connection

    async def _serve_control(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await _read_request(reader)
            if request is None:
                return
            _, path, headers, body, _ = request
            if headers.get("x-lab-token") != self.control_token or path != "/control":
                _write_response(writer, 403, b'{"error": "forbidden"}', False)
                return
            assert self.control is not None
            try:
                answer = await asyncio.get_running_loop().run_in_executor(None, self.control, json.loads(body))
                _write_response(writer, 200, _dumps(answer), False)
            except Exception as exc:
                _write_response(writer, 400, _dumps({"error": str(exc)}), False)
            await writer.drain()
        finally:
            writer.close()


def _listen(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


def _rpc_error(req_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": req_id, "error": {"code": code, "message": message}}


def _dumps(data: Any) -> bytes:
    return json.dumps(data).encode()


async def _read_request(
    reader: asyncio.StreamReader, first: bytes = b""
) -> tuple[str, str, dict[str, str], bytes, bool] | None:
    try:
        head = first + await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        raise ValueError("bad request line")
    method, path, version = parts
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
    length = int(headers.get("content-length", "0"))
    if length > _MAX_BODY:
        raise ValueError("body too large")
    body = await reader.readexactly(length) if length else b""
    conn = headers.get("connection", "").lower()
    keep_alive = conn == "keep-alive" if version == "HTTP/1.0" else conn != "close"
    return method, path, headers, body, keep_alive


_REASONS = {
    200: "OK",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    400: "Bad Request",
    405: "Method Not Allowed",
}


def _write_response(
    writer: asyncio.StreamWriter, status: int, body: bytes, keep_alive: bool, head: bool = False
) -> None:
    headers = [
        f"HTTP/1.1 {status} {_REASONS.get(status, 'OK')}",
        "Server: lab-eapi",
        "Content-Type: application/json" if status in (200, 400) else "Content-Type: text/plain",
        f"Content-Length: {len(body)}",
        "Connection: keep-alive" if keep_alive else "Connection: close",
    ]
    if status == 401:
        headers.append('WWW-Authenticate: Basic realm="eapi"')
    writer.write(("\r\n".join(headers) + "\r\n\r\n").encode() + (b"" if head else body))
