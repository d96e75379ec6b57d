"""The exporter's HTTP server against idle, slow and too many clients (loopback only)."""

from __future__ import annotations

import resource
import socket
import ssl
import time

import httpx
import pytest
from ndb_harness import running_exporter
from ndbinfo_exporter import httpserver

from tests.support.web_credentials import make_cert

pytestmark = pytest.mark.integration

DESCRIPTORS = 256
# A SQL node that refuses connections: every scrape answers ndb_up 0 at once.
NO_SQL_NODE = ["--mysqld.address=127.0.0.1:1", "--mysqld.username=u"]


def _few_descriptors() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (DESCRIPTORS, DESCRIPTORS))


def _connect(address: str) -> socket.socket:
    host, port = address.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=5)


def _closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(0.05)
    try:
        return sock.recv(1) == b""
    except (TimeoutError, ssl.SSLWantReadError):
        return False
    except OSError:  # reset, or a TLS connection closed without close_notify
        return True


def test_idle_sockets_leave_metrics_answering():
    """300 idle sockets against 256 descriptors: /metrics answers, the log stays short."""
    with running_exporter(NO_SQL_NODE, preexec_fn=_few_descriptors) as exporter:
        idle = []
        try:
            for _ in range(300):
                try:
                    idle.append(_connect(exporter.address))
                except OSError:
                    break
            response = httpx.get(
                f"http://{exporter.address}/metrics",
                headers={"X-Prometheus-Scrape-Timeout-Seconds": "5"},
                timeout=5,
            )
            assert response.status_code == 200
            assert "ndb_up 0.0" in response.text
            closed = sum(_closed_by_server(sock) for sock in idle)
        finally:
            for sock in idle:
                sock.close()
        # Room was made by closing idle connections, never more open than descriptors allow.
        assert closed >= 300 - DESCRIPTORS
        time.sleep(1)
        assert len(exporter.lines) < 100, exporter.log[-2000:]


def test_slow_headers_are_cut_off():
    """Connections that send their headers a byte at a time are closed after the header
    timeout, however long the client keeps dribbling."""
    with running_exporter(NO_SQL_NODE) as exporter:
        slow = [_connect(exporter.address) for _ in range(20)]
        request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
        deadline = time.monotonic() + httpserver.HEADER_TIMEOUT + 10
        sent = 0
        open_ = list(slow)
        while open_ and time.monotonic() < deadline:
            for sock in list(open_):
                try:
                    sock.sendall(request[sent : sent + 1])
                except OSError:
                    open_.remove(sock)
                    continue
                if _closed_by_server(sock):
                    open_.remove(sock)
            sent = min(sent + 1, len(request) - 1)
            time.sleep(0.3)
        for sock in slow:
            sock.close()
        assert open_ == []
        # Prometheus is still served.
        assert httpx.get(f"http://{exporter.address}/metrics", timeout=5).status_code == 200


def test_tls_clients_that_stall_are_cut_off(tmp_path):
    """Over TLS: a client that never finishes its handshake, and one that finishes it but
    sends no request, are both closed after the header timeout."""
    cert, key = make_cert(tmp_path)
    web = tmp_path / "web.yml"
    web.write_text(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n")
    with running_exporter([*NO_SQL_NODE, "--web.config.file", str(web)]) as exporter:
        context = ssl.create_default_context(cafile=str(cert))
        no_handshake = [_connect(exporter.address) for _ in range(5)]
        after_handshake = [
            context.wrap_socket(_connect(exporter.address), server_hostname="127.0.0.1")
            for _ in range(5)
        ]
        deadline = time.monotonic() + httpserver.HEADER_TIMEOUT + 10
        open_ = no_handshake + after_handshake
        while open_ and time.monotonic() < deadline:
            open_ = [sock for sock in open_ if not _closed_by_server(sock)]
            time.sleep(0.5)
        for sock in no_handshake + after_handshake:
            sock.close()
        assert open_ == []
