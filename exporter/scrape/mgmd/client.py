"""Talking to ndb_mgmd: one request on a short-lived session (`get status`, `dump events`),
and the persistent `listen event` subscription, re-established with backoff when it drops (the
time without it is counted), failing over between the cluster's management servers in the
order given."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from ndbinfo_exporter import logs
from ndbinfo_exporter.scrape.mgmd import configuration, protocol
from ndbinfo_exporter.scrape.mgmd.configuration import DataNodeConfig
from ndbinfo_exporter.scrape.mgmd.protocol import Event, NodeStatus, ProtocolError

log = logging.getLogger(__name__)

MAX_LINE = 8192
MAX_REPLY_LINES = 20000  # get status of 255 nodes is about 2,300 lines
CONNECT_TIMEOUT = 5.0
SILENCE_TIMEOUT = 10.0  # ndb_mgmd pings a listener every 0.5 s: 10 s of silence is a dead link
BACKOFF_FIRST, BACKOFF_MAX = 0.5, 30.0
_failed = logs.RateLimited(log)

Address = tuple[str, int]
T = TypeVar("T")


async def _read_reply(reader: asyncio.StreamReader) -> list[str]:
    """The lines of one reply, up to the blank line that ends it."""
    lines: list[str] = []
    while True:
        raw = await reader.readline()
        if not raw:
            raise ProtocolError("the management server closed the session")
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if not line:
            if lines:
                return lines
            continue
        lines.append(line)
        if len(lines) > MAX_REPLY_LINES:
            raise ProtocolError("reply too long")


async def _ask(
    address: Address, request: bytes, read: Callable[[asyncio.StreamReader], Awaitable[T]]
) -> T:
    """One request on a session of its own, its reply read by ``read``."""
    reader, writer = await asyncio.open_connection(*address, limit=MAX_LINE)
    try:
        writer.write(request)
        await writer.drain()
        return await read(reader)
    finally:
        writer.close()


async def get_status(address: Address) -> list[NodeStatus]:
    """Every node's status (`get status`); OSError, TimeoutError or ProtocolError when the
    management server does not answer it. The caller bounds the time."""

    async def read(reader: asyncio.StreamReader) -> list[NodeStatus]:
        return protocol.node_statuses(
            protocol.reply_values(await _read_reply(reader), "node status")
        )

    return await _ask(address, protocol.command("get status"), read)


# the client version `get config_v2` is asked with: NDB 8.4.3, which reads the v2 format
CONFIG_CLIENT_VERSION = (8 << 16) | (4 << 8) | 3
NODE_TYPE_UNKNOWN = -1  # NDB_MGM_NODE_TYPE_UNKNOWN: the exporter is no node of the cluster
MAX_CONFIG_BYTES = 16 << 20


async def get_config(address: Address) -> list[DataNodeConfig]:
    """The data nodes of the cluster's configuration (`get config_v2`, as mgmapi's
    ndb_mgm_get_configuration2 asks for it: `get config reply`, then Content-Length base64
    characters and a newline); OSError, TimeoutError or ProtocolError when the management
    server does not answer it. The caller bounds the time."""

    async def read(reader: asyncio.StreamReader) -> list[DataNodeConfig]:
        values = protocol.reply_values(await _read_reply(reader), "get config reply")
        if values.get("result") != "Ok":
            raise ProtocolError(f"get config: {values.get('result', 'no result')}")
        length = int(values.get("Content-Length", "-1"))
        if not 0 < length <= MAX_CONFIG_BYTES:
            raise ProtocolError(f"get config: Content-Length {length}")
        return configuration.data_nodes(await reader.readexactly(length))

    request = protocol.command(
        "get config_v2", {"version": CONFIG_CLIENT_VERSION, "nodetype": NODE_TYPE_UNKNOWN}
    )
    return await _ask(address, request, read)


async def dump_events(address: Address, event_type: int) -> list[Event]:
    """The reports the data nodes send for `dump events` of one type (`ALL REPORT ...`):
    MgmApiSession::dump_events writes a header with their count, then each report as a
    `log event reply` block. OSError, TimeoutError or ProtocolError when the management
    server does not answer it; the caller bounds the time."""

    async def read(reader: asyncio.StreamReader) -> list[Event]:
        header = protocol.reply_values(await _read_reply(reader), protocol.DUMP_EVENTS_REPLY)
        count = protocol.dumped_event_count(header)
        return [protocol.dumped_event(await _read_reply(reader)) for _ in range(count)]

    return await _ask(address, protocol.command("dump events", {"type": event_type}), read)


class Subscription:
    """One `listen event` subscription to a cluster, kept open by a background task; each
    event goes to `on_event` on the event loop."""

    def __init__(
        self,
        addresses: Sequence[Address],
        on_event: Callable[[Event], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.addresses = tuple(addresses)
        self.on_event = on_event
        self.clock = clock
        self.up = False
        self.drops = 0  # times an established subscription was lost
        self.established_at: float | None = None  # unix time the first one was established
        self._gap_seconds = 0.0
        self._down_since: float | None = None  # set while down after having been up
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None

    @property
    def gap_seconds(self) -> float:
        """Seconds without a subscription since the first one was established."""
        current = self.clock() - self._down_since if self._down_since is not None else 0.0
        return self._gap_seconds + current

    async def _run(self) -> None:
        delay = BACKOFF_FIRST
        while True:
            for address in self.addresses:
                if await self._session(address):
                    delay = BACKOFF_FIRST
            await asyncio.sleep(delay)
            delay = min(2 * delay, BACKOFF_MAX)

    async def _session(self, address: Address) -> bool:
        """Subscribe at one management server and read until the link drops; True when the
        subscription was established."""
        try:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(*address, limit=MAX_LINE), CONNECT_TIMEOUT
            )
        except (OSError, TimeoutError) as exc:
            _failed.warning(
                "cannot reach the management server", address=address_name(address), error=str(exc)
            )
            return False
        established = False
        try:
            writer.write(
                protocol.command("listen event", {"parsable": 1, "filter": protocol.LISTEN_FILTER})
            )
            await writer.drain()
            reply = await asyncio.wait_for(_read_reply(reader), CONNECT_TIMEOUT)
            values = protocol.reply_values(reply, "listen event")
            if values.get("result") != "0":
                raise ProtocolError(f"listen event refused: {values.get('msg', '')[:200]}")
            established = True
            self._established()
            await self._listen(reader)
        except (OSError, TimeoutError, ProtocolError, ValueError) as exc:
            _failed.warning(
                "management server subscription lost", address=address_name(address), error=str(exc)
            )
        finally:
            writer.close()
            if established:
                self._dropped()
        return established

    def _established(self) -> None:
        if self.established_at is None:
            self.established_at = time.time()
        if self._down_since is not None:
            self._gap_seconds += self.clock() - self._down_since
            self._down_since = None
        self.up = True

    def _dropped(self) -> None:
        self.up = False
        self.drops += 1
        self._down_since = self.clock()

    async def _listen(self, reader: asyncio.StreamReader) -> None:
        while True:
            raw = await asyncio.wait_for(reader.readline(), SILENCE_TIMEOUT)
            if not raw:
                raise ProtocolError("the management server closed the subscription")
            if raw.rstrip(b"\r\n") == b"log event reply":
                block = await asyncio.wait_for(_read_reply(reader), SILENCE_TIMEOUT)
                self.on_event(protocol.event(block))


def address_name(address: Address) -> str:
    host, port = address
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
