"""The served classroom's origin check, over plain HTTP (no browser): a websocket whose
Origin is not allowed is refused even when its Host header matches it (DNS rebinding)."""

from __future__ import annotations

import base64
import os
import socket
import urllib.parse

from ..browser import running_server


def upgrade_status(url: str, host: str, origin: str) -> int:
    """The HTTP status of a websocket upgrade of ``url``'s /bootstrap/ws with these
    Host and Origin headers (101 if it was accepted)."""
    parts = urllib.parse.urlsplit(url)
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET /bootstrap/ws HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
               f"Sec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n")
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(request.encode())
        status_line = sock.recv(4096).split(b"\r\n", 1)[0].decode()
    return int(status_line.split()[1])


def test_a_foreign_origin_is_refused_even_when_host_matches_it():
    with running_server() as url:
        port = urllib.parse.urlsplit(url).port
        evil = f"evil.example:{port}"
        assert upgrade_status(url, evil, f"http://{evil}") == 403  # DNS rebinding
        assert upgrade_status(url, f"127.0.0.1:{port}", f"http://{evil}") == 403
        assert upgrade_status(url, f"127.0.0.1:{port}", f"http://127.0.0.1:{port}") == 101
