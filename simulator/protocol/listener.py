"""A SQL node's listener follows the model: closed while the node is stopped (its port held,
so that a client is refused and no other program is given the port), listening again when it
starts."""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from typing import Any

log = logging.getLogger(__name__)

LISTEN_BACKLOG = 128


def port_holder(host: str, port: int) -> socket.socket:
    """A socket bound to the port and not listening: a connection to it is refused, as to a
    stopped mysqld, while no other program can be given the port (the kernel's choice of a
    free port passes over a bound one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    holder = socket.socket(family, socket.SOCK_STREAM)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past its TIME_WAIT links
    holder.bind((host, port))
    holder.setblocking(False)
    return holder


class FollowsModel:
    """For a mysql-mimic server of one SQL node (`node`, `_server`, `_client_connected_cb`,
    `start_server`, `sockets`, `control`)."""

    node: Any
    _server: Any
    _held: socket.socket | None = None  # the port, bound while the node is stopped

    def follow_model(self, host: str, loop: asyncio.AbstractEventLoop) -> None:
        """Close and reopen the listener as the model stops and starts this SQL node; from
        another thread (the control API's) the change is done when the call returns."""
        self.port = self.sockets()[0].getsockname()[1]
        loop_thread = threading.get_ident()

        def changed(node_id: int, up: bool) -> None:
            if node_id != self.node.node_id or loop.is_closed():
                return
            if threading.get_ident() == loop_thread:
                loop.create_task(self._follow(host, up))
                return
            asyncio.run_coroutine_threadsafe(self._follow(host, up), loop).result(timeout=10)

        self.node.cluster.sql_node_listeners.append(changed)

    async def _follow(self, host: str, up: bool) -> None:
        if up:
            if self._server is None:
                try:
                    await self._listen_again(host)
                except OSError as e:
                    log.warning(
                        "SQL node %d cannot listen on port %d again: %s",
                        self.node.node_id,
                        self.port,
                        e.strerror or e,
                    )
            return
        if self._server is not None:
            self._server.close()
            self._server = None
            try:
                self._held = port_holder(host, self.port)
            except OSError as e:  # listened on again at the start, if it is still free
                log.warning("SQL node %d cannot hold port %d: %s", self.node.node_id, self.port, e)
        for connection in list(getattr(self.control, "_connections", {}).values()):
            connection.kill()

    async def _listen_again(self, host: str) -> None:
        """Listen on the socket that held the port while the node was down, so that no other
        program took the port meanwhile (a stopped mysqld's clients are refused as before)."""
        held, self._held = self._held, None
        if held is None:
            await self.start_server(host=host, port=self.port)
            return
        held.listen(LISTEN_BACKLOG)
        self._server = await asyncio.start_server(self._client_connected_cb, sock=held)

    def release_port(self) -> None:
        """Close the socket that holds the port of a stopped node, if any."""
        if self._held is not None:
            self._held.close()
            self._held = None
