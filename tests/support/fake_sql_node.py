"""A small MySQL-protocol server (mysql-mimic) for testing the scrape orchestration.

It answers the exporter's capability queries (version, ndbinfo objects, the ndbcluster engine,
SHOW GRANTS) and any statement registered in ``answers``
(exact SQL text -> rows, optional delay), and counts the connections it holds open.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from typing import Any

from mysql_mimic import MysqlServer, Session
from mysql_mimic.auth import IdentityProvider, NativePasswordAuthPlugin, User
from mysql_mimic.errors import ErrorCode, MysqlError
from mysql_mimic.packets import make_error
from mysql_mimic.stream import MysqlStream
from ndbinfo_exporter.scrape.ndb_visibility import ENGINE_SQL, GRANTS_SQL
from ndbinfo_exporter.scrape.sql_node import OBJECTS_SQL


@dataclass
class Answer:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    delay: float = 0.0


@dataclass
class FakeSqlNode:
    version: str = "8.4.3-cluster"
    ndbinfo_version: int | None = (8 << 16) | (4 << 8) | 3
    server_id: int = 1
    objects: tuple[str, ...] = ("nodes", "memoryusage")
    # information_schema.ENGINES' SUPPORT of ndbcluster; None: the engine has no row.
    engine_support: str | None = "YES"
    grants: tuple[str, ...] = ("GRANT SELECT, PROCESS ON *.* TO `exporter`@`%`",)
    answers: dict[str, Answer] = field(default_factory=dict)
    # Exact SQL text -> the MySQL error number it fails with.
    errors: dict[str, int] = field(default_factory=dict)
    password: str = ""
    # mysqld at max_connections: a new connection gets error 1040 instead of the handshake.
    refuse_new_connections: bool = False
    port: int = 0
    open_connections: int = 0
    max_open_connections: int = 0
    queries: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _opened(self, delta: int) -> None:
        with self._lock:
            self.open_connections += delta
            self.max_open_connections = max(self.max_open_connections, self.open_connections)

    async def answer(self, sql: str) -> tuple[list[tuple[Any, ...]], list[str]]:
        self.queries.append(sql)
        if sql == "SELECT @@version, @@server_id, @@ndbinfo_version":
            if self.ndbinfo_version is None:
                raise MysqlError("Unknown system variable 'ndbinfo_version'", code=1193)
            columns = ["@@version", "@@server_id", "@@ndbinfo_version"]
            return [(self.version, self.server_id, self.ndbinfo_version)], columns
        if sql == "SELECT @@session.sql_mode":
            return [("",)], ["@@session.sql_mode"]
        if sql == "SELECT @@version, @@server_id":
            return [(self.version, self.server_id)], ["@@version", "@@server_id"]
        if sql == OBJECTS_SQL:
            return [(name,) for name in self.objects], ["TABLE_NAME"]
        if sql == ENGINE_SQL:
            return [(self.engine_support,)] if self.engine_support else [], ["SUPPORT"]
        if sql == GRANTS_SQL:
            return [(line,) for line in self.grants], ["Grants for exporter@%"]
        if sql in self.errors:
            raise MysqlError(f"error {self.errors[sql]}", code=self.errors[sql])
        answer = self.answers.get(sql)
        if answer is None:
            return [], []
        if answer.delay:
            await asyncio.sleep(answer.delay)
        return answer.rows, answer.columns


def _session_class(node: FakeSqlNode) -> type[Session]:
    class FakeSession(Session):
        async def init(self, connection) -> None:
            await super().init(connection)
            node._opened(+1)

        async def close(self) -> None:
            node._opened(-1)
            await super().close()

        async def handle_query(self, sql: str, attrs: dict[str, str]):
            if sql.upper().startswith("SET "):
                node.queries.append(sql)
                return [], []
            return await node.answer(sql)

    return FakeSession


class _PasswordIdentity(IdentityProvider):
    """Every user name is accepted with the node's one password."""

    def __init__(self, password: str):
        self._auth_string = NativePasswordAuthPlugin.create_auth_string(password)

    async def get_user(self, username: str) -> User | None:
        return User(
            name=username,
            auth_string=self._auth_string,
            auth_plugin=NativePasswordAuthPlugin.name,
        )


class _FakeServer(MysqlServer):
    def __init__(self, node: FakeSqlNode, **kwargs: Any):
        super().__init__(**kwargs)
        self._node = node

    async def _client_connected_cb(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if not self._node.refuse_new_connections:
            await super()._client_connected_cb(reader, writer)
            return
        refused = make_error(msg="Too many connections", code=ErrorCode.CON_COUNT_ERROR)
        await MysqlStream(reader, writer).write(refused)
        writer.close()


class RunningFakeSqlNode:
    """Runs the server on its own event loop thread on a free port of 127.0.0.1."""

    def __init__(self, node: FakeSqlNode):
        self.node = node
        self._loop = asyncio.new_event_loop()
        self._server = _FakeServer(
            node,
            session_factory=_session_class(node),
            identity_provider=_PasswordIdentity(node.password),
        )
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> FakeSqlNode:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(
            self._server.start_server(host="127.0.0.1", port=0), self._loop
        ).result(10)
        self.node.port = self._server.sockets()[0].getsockname()[1]
        return self.node

    def __exit__(self, *exc: object) -> None:
        async def stop() -> None:
            self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()
