"""Local stand-ins for what sits between a client and Slipway: a server that accepts connections and
never answers, and a proxy that answers every request with the same status and body."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Stub:
    base_url: str
    connections: list[socket.socket] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)


@contextmanager
def silent_server() -> Iterator[Stub]:
    """Accepts every connection, reads nothing, answers nothing."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.05)
    stub = Stub(f"http://127.0.0.1:{listener.getsockname()[1]}")
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                stub.connections.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in stub.connections:
            conn.close()
        listener.close()


@contextmanager
def static_server(status: int, content_type: str, body: str) -> Iterator[Stub]:
    """Answers every request with ``status``, ``content_type`` and ``body`` (a proxy's error page)."""
    stub_requests: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            stub_requests.append(f"{self.command} {self.path}")
            length = int(self.headers.get("content-length") or 0)
            if length:
                self.rfile.read(length)
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stub = Stub(f"http://127.0.0.1:{server.server_address[1]}", requests=stub_requests)
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=2)
