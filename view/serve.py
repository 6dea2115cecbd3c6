"""``fabricops view --serve``: the built site over HTTP on 127.0.0.1, for a browser that will
not open files from disk. Local use only: never another interface."""

from __future__ import annotations

import http.server
from functools import partial
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """Serves files; one line per request would bury the URL the user needs."""

    def log_message(self, format: str, *args: Any) -> None:
        return


def server(directory: Path, port: int = 0) -> http.server.ThreadingHTTPServer:
    """A server for ``directory`` on 127.0.0.1 (``port`` 0: the system picks a free one)."""
    return http.server.ThreadingHTTPServer((HOST, port), partial(_Quiet, directory=str(directory)))


def url_of(httpd: http.server.ThreadingHTTPServer) -> str:
    return f"http://{HOST}:{httpd.server_address[1]}/index.html"
