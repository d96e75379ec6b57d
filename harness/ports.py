"""Where the harness's processes listen: 127.0.0.1, on ports the system hands out."""

from __future__ import annotations

import socket

HOST = "127.0.0.1"


def free_port() -> int:
    """A port of 127.0.0.1 free at the time of the call, for a program that cannot be told to
    pick one itself (port 0) and report it."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]
