"""pyeapi transports that keep their HTTP connection between requests, for NAPALM's EOS driver.

pyeapi closes its HTTP(S) connection after every request, so each NAPALM call to a switch
(``open``'s ``show version``, ``get_config``, ``get_lldp_neighbors``, a config session's
load, diff and abort) starts a new TCP connection and a new TLS handshake. Over a fleet that
handshake is most of the client's and the switch's work per request. The classes here are
pyeapi's own ``HttpsEapiConnection`` and ``HttpEapiConnection`` with one change: the
connection stays open after a complete response (HTTP/1.1 keep-alive, which EOS's eAPI server
speaks), so one device conversation is one connection. Every request and reply is still
pyeapi's code, driven by the stock NAPALM driver, which takes a transport class in its
``optional_args`` (``transport``).

A connection is reused only right after a complete response that did not ask to close it, and
only while it has been idle less than :data:`IDLE_SECONDS` (far below any server's keep-alive
timeout), so a request never meets a connection the server has already dropped. Nothing is
ever retried: a request that fails fails as it would on a fresh connection.

:func:`tls_context` is the TLS client context every connection of a run shares, made once
(pyeapi makes one per connection, and loads the system's CA store for it each time). Like
pyeapi's default it does not verify the switch's certificate: EOS serves eAPI with a
self-signed one.

Example:
    >>> transport_class("https").__name__, transport_class("http").__name__
    ('KeepAliveHttpsEapiConnection', 'KeepAliveHttpEapiConnection')
    >>> transport_class("ssh") is None
    True
"""

from __future__ import annotations

import logging
import ssl
import time
from functools import lru_cache
from http.client import HTTPConnection, HTTPResponse, HTTPSConnection
from typing import Any

from pyeapi.eapilib import HttpEapiConnection, HttpsEapiConnection

__all__ = [
    "IDLE_SECONDS",
    "KeepAliveHttpEapiConnection",
    "KeepAliveHttpsEapiConnection",
    "tls_context",
    "transport_class",
]

#: A connection idle longer than this is closed and a new one opened for the next request.
IDLE_SECONDS = 2.0


class _KeptOpen(HTTPConnection):
    """An ``http.client`` connection whose ``close()`` (called by pyeapi after every request)
    keeps the socket when the last response allows it; :meth:`shut` really closes it."""

    _reply: HTTPResponse | None = None
    _idle_since = 0.0

    def putrequest(self, method: str, url: str, skip_host: bool = False, skip_accept_encoding: bool = False) -> None:
        if self.sock is not None and time.monotonic() - self._idle_since > IDLE_SECONDS:
            self.shut()
        self._reply = None
        super().putrequest(method, url, skip_host, skip_accept_encoding)

    def getresponse(self) -> HTTPResponse:
        reply = super().getresponse()
        self._reply = reply
        return reply

    def close(self) -> None:
        reply = self._reply
        # length 0: the body was read to its end (an interrupted read leaves it unread)
        if reply is not None and reply.isclosed() and reply.length == 0 and not reply.will_close:
            self._idle_since = time.monotonic()
            return
        self.shut()

    def shut(self) -> None:
        """Close the connection for good."""
        self._reply = None
        super().close()


class _KeptOpenHttp(_KeptOpen):
    def __init__(self, path: str, host: str, port: int, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.path = path


class _KeptOpenHttps(_KeptOpen, HTTPSConnection):
    def __init__(self, path: str, host: str, port: int, context: ssl.SSLContext | None, timeout: float) -> None:
        HTTPSConnection.__init__(self, host, port, timeout=timeout, context=context)
        self.path = path


class _KeepAlive:
    """What both transports add to pyeapi's: the kept connection, closed for good by ``close``
    (NAPALM's ``close()`` calls it), and request sanitising only when it is logged: pyeapi parses
    and walks every request to hide ``enable`` input in a debug log line that it formats whether or
    not debug logging is on (the walk was a tenth of a plan's time)."""

    transport: _KeptOpen

    def close(self) -> None:
        self.transport.shut()

    def _sanitize_request(self, data: str) -> str:
        if _PYEAPI_LOG.isEnabledFor(logging.DEBUG):
            sanitised: str = super()._sanitize_request(data)  # type: ignore[misc]
            return sanitised
        return ""


_PYEAPI_LOG = logging.getLogger("pyeapi.eapilib")


class KeepAliveHttpsEapiConnection(_KeepAlive, HttpsEapiConnection):  # type: ignore[misc]  # pyeapi is untyped
    """pyeapi's HTTPS eAPI connection, kept open between requests (see the module docstring)."""

    # The parameters are pyeapi's, by name: NAPALM passes only the optional_args this signature names.
    def __init__(
        self,
        host: str,
        port: int | None = None,
        path: str | None = None,
        username: str | None = None,
        password: str | None = None,
        context: ssl.SSLContext | None = None,
        timeout: float = 60,
        **kwargs: Any,
    ) -> None:
        context = context or tls_context()
        super().__init__(host, port, path, username, password, context, timeout, **kwargs)
        old: Any = self.transport  # pyeapi's own connection: where it would connect
        self.transport = _KeptOpenHttps(old.path, old.host, old.port, context, timeout)


class KeepAliveHttpEapiConnection(_KeepAlive, HttpEapiConnection):  # type: ignore[misc]  # pyeapi is untyped
    """pyeapi's plain HTTP eAPI connection, kept open between requests."""

    def __init__(
        self,
        host: str,
        port: int | None = None,
        path: str | None = None,
        username: str | None = None,
        password: str | None = None,
        timeout: float = 60,
        **kwargs: Any,
    ) -> None:
        super().__init__(host, port, path, username, password, timeout, **kwargs)
        old: Any = self.transport  # pyeapi's own connection: where it would connect
        self.transport = _KeptOpenHttp(old.path, old.host, old.port, timeout)


def transport_class(name: str) -> type[Any] | None:
    """The keep-alive class for a NAPALM EOS ``transport`` name (None: keep NAPALM's own)."""
    return {"https": KeepAliveHttpsEapiConnection, "http": KeepAliveHttpEapiConnection}.get(name)


@lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    """The TLS client context of every eAPI connection of this process (not verifying, as pyeapi's default)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context
