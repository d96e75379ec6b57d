"""A TCP relay that counts how many connections pass through it at the same time.

Placed between the exporter and ndbsim, it sees exactly the connections the server sees.
"""

from __future__ import annotations

import contextlib
import socket
import threading


class CountingRelay:
    def __init__(self, upstream_port: int, host: str = "127.0.0.1"):
        self._upstream = (host, upstream_port)
        self._listener = socket.create_server((host, 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self.current = 0
        self.peak = 0
        self.total = 0
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def reset_peak(self) -> None:
        with self._lock:
            self.peak = self.current

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self._upstream, timeout=10)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self.current += 1
                self.total += 1
                self.peak = max(self.peak, self.current)
            pair = _Pair(client, server, self._finished)
            threading.Thread(target=pair.pump, args=(client, server), daemon=True).start()
            threading.Thread(target=pair.pump, args=(server, client), daemon=True).start()

    def _finished(self) -> None:
        with self._lock:
            self.current -= 1

    def close(self) -> None:
        self._listener.close()


class _Pair:
    def __init__(self, client: socket.socket, server: socket.socket, on_close):
        self._sockets = (client, server)
        self._on_close = on_close
        self._lock = threading.Lock()
        self._open = 2
        self._counted = True

    def pump(self, source: socket.socket, target: socket.socket) -> None:
        # OSError: either side went away; the pair is torn down below.
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                target.sendall(data)
        # One side has closed: the connection is over for the server too.
        with self._lock:
            counted, self._counted = self._counted, False
        if counted:
            self._on_close()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        with self._lock:
            self._open -= 1
            last = self._open == 0
        if last:
            for sock in self._sockets:
                sock.close()
