"""MySQL protocol front end of the simulated SQL node (mysql-mimic)."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import secrets
from typing import TYPE_CHECKING, Any

from mysql_mimic import packets
from mysql_mimic.auth import (
    AuthInfo,
    Forbidden,
    IdentityProvider,
    NativePasswordAuthPlugin,
    Success,
    User,
)
from mysql_mimic.connection import Connection
from mysql_mimic.results import ResultSet
from mysql_mimic.server import MysqlServer
from mysql_mimic.session import BaseSession
from mysql_mimic.stream import MysqlStream
from mysql_mimic.types import ColumnDefinition
from mysql_mimic.utils import nonce
from ndbsim.errors import SqlError, sqlstate_of
from ndbsim.protocol import statements

if TYPE_CHECKING:
    from ndbsim.engine.database import Engine
    from ndbsim.model.cluster import Cluster

log = logging.getLogger(__name__)
logging.getLogger("mysql_mimic").setLevel(logging.CRITICAL)

PEER_HOST: contextvars.ContextVar[str] = contextvars.ContextVar("peer_host", default="localhost")


def access_denied(user: str, with_password: bool) -> str:
    using = "YES" if with_password else "NO"
    return f"Access denied for user '{user}'@'{PEER_HOST.get()}' (using password: {using})"


class _NativePassword(NativePasswordAuthPlugin):
    """mysql_native_password with mysqld's wording of the 1045 error."""

    async def auth(self, auth_info: AuthInfo | None = None):  # type: ignore[override]
        if (
            auth_info
            and auth_info.handshake_plugin_name == self.name
            and auth_info.handshake_auth_data
        ):
            challenge = auth_info.handshake_auth_data.rstrip(b"\x00")
        else:
            challenge = nonce(20)
            auth_info = yield challenge + b"\x00"
        assert auth_info is not None
        if self.password_matches(user=auth_info.user, scramble=auth_info.data, nonce=challenge):
            yield Success(auth_info.user.name)
        else:
            yield Forbidden(access_denied(auth_info.username, bool(auth_info.data)))


class _Accounts(IdentityProvider):
    """One account; any other user name fails like a wrong password (no user enumeration)."""

    def __init__(self, user: str, password: str):
        self.user = user
        self.auth_string = NativePasswordAuthPlugin.create_auth_string(password)

    def get_plugins(self):
        return [_NativePassword()]

    async def get_user(self, username: str) -> User | None:
        known = username == self.user
        auth_string = self.auth_string if known else secrets.token_hex(20)
        return User(name=username, auth_string=auth_string, auth_plugin=_NativePassword.name)


class NdbConnection(Connection):
    def error(self, **kwargs: Any) -> bytes:
        code = int(kwargs.get("code", 1105))
        msg = str(kwargs.get("msg", ""))
        if isinstance(kwargs.get("msg"), SqlError):
            msg = kwargs["msg"].msg
        return b"".join(
            [
                b"\xff",
                code.to_bytes(2, "little"),
                b"#",
                sqlstate_of(code).encode(),
                msg.encode("utf-8", "replace"),
            ]
        )

    async def write_text_resultset(self, result_set: ResultSet) -> None:
        header = [
            packets.make_column_count(
                capabilities=self.capabilities, column_count=len(result_set.columns)
            )
        ]
        state = getattr(self.session, "state", None)
        wire = state.wire_columns if state is not None else []
        if len(wire) != len(result_set.columns):
            wire = [None] * len(result_set.columns)
        for col, meta in zip(result_set.columns, wire, strict=True):
            header.append(
                packets.make_column_definition_41(
                    server_charset=self.server_charset,
                    name=col.name,
                    character_set=meta.charset if meta else col.character_set,
                    column_length=meta.display_length if meta else 256,
                    column_type=col.type,
                    flags=meta.flags if meta else ColumnDefinition(0),
                    decimals=meta.decimals if meta else 0,
                )
            )
        if not self.deprecate_eof():
            header.append(self.eof())
        self.stream.write_many(header)
        rows = result_set.rows
        assert isinstance(rows, list)
        batch = 5000
        for i in range(0, len(rows), batch):
            self.stream.write_text_rows(rows[i : i + batch], result_set.columns)
            await self.stream.drain()
        await self.stream.write(self.ok_or_eof(affected_rows=len(rows)), drain=False)
        await self.stream.drain()


class NdbServer(MysqlServer):
    """mysql-mimic server honouring the connection faults of the cluster."""

    def __init__(self, node: statements.SqlNode, user: str, password: str):
        super().__init__(
            session_factory=lambda: NdbSession(node), identity_provider=_Accounts(user, password)
        )
        self.node = node

    async def _client_connected_cb(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        peer = writer.get_extra_info("peername") or ("127.0.0.1", 0)
        host = peer[0] if isinstance(peer, tuple) else "localhost"
        PEER_HOST.set("localhost" if host in ("127.0.0.1", "::1") else host)
        stream = MysqlStream(reader, writer)
        try:
            if self.node.cluster.faults.refuse_connections:
                self.node.counters.aborted_connects += 1
                await stream.write(NdbConnection.error(None, code=1040, msg="Too many connections"))  # type: ignore[arg-type]
                return
            session = NdbSession(self.node)
            connection = NdbConnection(
                stream=stream,
                session=session,
                control=self.control,
                server_capabilities=self.capabilities,
                identity_provider=self.identity_provider,
            )
            connection.connection_id = await self.control.add(connection)
            self.node.counters.connect()
            try:
                await connection.start()
            except asyncio.CancelledError:
                pass  # dropped by the drop-connections fault
            finally:
                self.node.counters.disconnect()
                await self.control.remove(connection.connection_id)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except Exception as e:  # never a traceback: one line and close
            log.warning("connection failed: %s", e)
        finally:
            writer.close()


class NdbSession(BaseSession):
    def __init__(self, node: statements.SqlNode):
        self.node = node
        self.state = statements.SessionState(node)
        self.variables = self.state.variables
        self.username: str | None = None
        self.database: str | None = None
        self.connection: Connection | None = None

    async def init(self, connection: Connection) -> None:
        self.connection = connection
        self.state.connection_id = connection.connection_id
        self.state.user = self.username or ""
        self.state.host = PEER_HOST.get()
        if self.database:
            self.state.use(self.database)

    async def use(self, database: str) -> None:
        self.state.use(database)

    @property  # type: ignore[override]
    def database(self) -> str | None:
        return self.state.database if hasattr(self, "state") else None

    @database.setter
    def database(self, value: str | None) -> None:
        if hasattr(self, "state"):
            self.state.database = value

    async def handle_query(self, sql: str, attrs: dict[str, str]) -> ResultSet | None:
        if self.node.cluster.faults.drop_connections:
            assert self.connection is not None
            self.node.counters.aborted_clients += 1
            self.connection.stream.writer.transport.abort()
            raise asyncio.CancelledError
        try:
            return await self.state.execute(sql)
        except SqlError:
            raise
        except Exception as e:  # an unexpected failure must still look like a server error
            log.warning("query failed: %s", str(e).splitlines()[0] if str(e) else type(e).__name__)
            raise SqlError(1105, str(e).splitlines()[0] if str(e) else "Unknown error") from None


async def start(
    engine: Engine, cluster: Cluster, host: str, port: int, user: str, password: str
) -> NdbServer:
    """Start listening; the bound port is server.sockets()[0].getsockname()[1]."""
    node = statements.SqlNode(engine, cluster)
    server = NdbServer(node, user, password)
    await server.start_server(host=host, port=port)
    return server


async def serve(
    engine: Engine, cluster: Cluster, host: str, port: int, user: str, password: str
) -> None:
    server = await start(engine, cluster, host, port, user, password)
    await server.serve_forever()
