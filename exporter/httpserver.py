"""What the HTTP server does against idle, slow and too many clients.

uvicorn's h11 protocol closes a kept-alive connection after ``timeout_keep_alive``, but not
one that never completes its request headers (an idle or "slowloris" client, over TLS too
once the handshake is done). ``GuardedH11Protocol`` gives every request ``HEADER_TIMEOUT``
seconds from its first byte (or from the connection) to complete its headers, and keeps the
number of open connections under a cap below the file descriptor limit: at the cap, the
connection idle the longest makes room for the new one, so a crowd of idle sockets cannot
keep Prometheus out. A TLS handshake gets the same time as the headers. If descriptors run out anyway, asyncio's "socket.accept() out of
system resource" (once per accept attempt) becomes one warning a minute.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any, ClassVar

from ndbinfo_exporter import logs
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

HEADER_TIMEOUT = 10.0
KEEP_ALIVE_TIMEOUT = 30  # Prometheus scrapes every 15 to 60 s over one kept-alive connection
MAX_HTTP_CONNECTIONS = 1024
# Descriptors kept for everything but HTTP clients: the listening socket, log, Python's own.
RESERVED_DESCRIPTORS = 64
_ACCEPT_EXHAUSTED = "socket.accept() out of system resource"


def raise_descriptor_limit() -> int:
    """Raise the soft file descriptor limit to the hard one (as Go programs do) and return
    the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 65536 if hard == resource.RLIM_INFINITY else hard
    if soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return soft


def connection_cap(descriptors: int, target_connections: int) -> int:
    """The most HTTP connections open at once: what the descriptors leave after the
    connections to SQL nodes and a reserve, at least 16 and at most MAX_HTTP_CONNECTIONS."""
    free = descriptors - RESERVED_DESCRIPTORS - target_connections
    return max(16, min(MAX_HTTP_CONNECTIONS, free))


class GuardedH11Protocol(H11Protocol):
    cap: ClassVar[int] = MAX_HTTP_CONNECTIONS
    header_timeout: ClassVar[float] = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._opened = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._opened = self.loop.time()
        if len(self.connections) > self.cap and not self._make_room():
            transport.close()
            return
        self._arm_header_timer()

    def data_received(self, data: bytes) -> None:
        if self._header_timer is None and self._between_requests():
            self._arm_header_timer()  # the first byte of the next request on this connection
        super().data_received(data)
        if not self._between_requests():
            self._cancel_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _arm_header_timer(self) -> None:
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_late)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_late(self) -> None:
        self._header_timer = None
        if self._between_requests() and not self.transport.is_closing():
            self.transport.close()

    def _make_room(self) -> bool:
        """Close the connection idle the longest (no request in progress); False if every
        other connection is serving a request."""
        idle = [
            other
            for other in self.connections
            if other is not self
            and isinstance(other, GuardedH11Protocol)
            and other._between_requests()
            and not other.transport.is_closing()
        ]
        if not idle:
            return False
        oldest = min(idle, key=lambda other: other._opened)
        oldest._cancel_header_timer()
        oldest.transport.close()
        return True


def limit_tls_handshake() -> None:
    """Give a TLS client HEADER_TIMEOUT seconds, not asyncio's 60, to finish its handshake.
    uvicorn does not pass ``ssl_handshake_timeout`` to ``create_server``, which then takes
    this constant when each connection is accepted."""
    asyncio.constants.SSL_HANDSHAKE_TIMEOUT = HEADER_TIMEOUT


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """One warning a minute, not one per accept attempt, when descriptors run out."""
    limited = logs.RateLimited(log)
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if str(context.get("message", "")).startswith(_ACCEPT_EXHAUSTED):
            limited.warning(
                "cannot accept a connection: out of file descriptors",
                err=str(context.get("exception") or ""),
            )
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
