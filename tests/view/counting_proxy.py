"""A TCP proxy in front of a MySQL server that records every COM_QUERY statement passing through.

The exporter connects to the proxy instead of ndbsim, so a test can count the statements
the exporter sends without depending on the server's own counters.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

COM_QUERY = 0x03


class CountingProxy:
    def __init__(self, upstream_port: int):
        self.upstream_port = upstream_port
        self.port = 0
        self.statements: list[str] = []
        self._lock = threading.Lock()

    def seen(self, fragment: str) -> int:
        """How many statements so far contain ``fragment``."""
        with self._lock:
            return sum(1 for sql in self.statements if fragment in sql)

    def count(self) -> int:
        with self._lock:
            return len(self.statements)

    async def _client_to_server(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            while True:
                header = await reader.readexactly(4)
                length = int.from_bytes(header[:3], "little")
                payload = await reader.readexactly(length)
                if header[3] == 0 and payload[:1] == bytes([COM_QUERY]):
                    with self._lock:
                        self.statements.append(payload[1:].decode("utf-8", "replace"))
                writer.write(header + payload)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _server_to_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    async def _handle(
        self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter
    ) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(
                "127.0.0.1", self.upstream_port
            )
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(
            self._client_to_server(client_reader, server_writer),
            self._server_to_client(server_reader, client_writer),
        )


@contextmanager
def counting_proxy(
    upstream_port: int, kind: type[CountingProxy] = CountingProxy
) -> Iterator[CountingProxy]:
    """A proxy of ``kind`` (one that counts another protocol's requests) on a free port."""
    proxy = kind(upstream_port)
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    server_box: list[asyncio.Server] = []

    async def serve() -> None:
        server = await asyncio.start_server(proxy._handle, "127.0.0.1", 0)
        proxy.port = server.sockets[0].getsockname()[1]
        server_box.append(server)
        ready.set()

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(serve(), loop).result(timeout=10)
    ready.wait(10)
    try:
        yield proxy
    finally:

        async def stop() -> None:
            server_box[0].close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(stop(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
