"""A TCP proxy in front of a management server that records the commands passing through.

The exporter reads the proxy instead of ndbsim's management server, so a test can count the
requests the exporter sends (a command is the first line of a request: the line after the
blank line that ends the one before), whatever the server counts itself.
"""

from __future__ import annotations

import asyncio

from tests.view.counting_proxy import CountingProxy


class CountingMgmProxy(CountingProxy):
    """``seen("dump events")``: the `dump events` requests so far."""

    async def _client_to_server(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        expect_command = True
        try:
            while line := await reader.readline():
                text = line.decode("utf-8", "replace").strip()
                if expect_command and text:
                    with self._lock:
                        self.statements.append(text)
                expect_command = not text
                writer.write(line)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()
