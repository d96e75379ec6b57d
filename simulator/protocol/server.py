"""MySQL protocol front end of the simulated SQL node (mysql-mimic for auth and results).

Everything a client sends is read by `wire` (bounded, checked) and every command is dispatched
here, so a malformed packet gets mysqld's error and never a Python text; statements run on the
worker threads of `runner`.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
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
from mysql_mimic.charset import CharacterSet
from mysql_mimic.connection import Connection
from mysql_mimic.constants import DEFAULT_SERVER_CAPABILITIES, KillKind
from mysql_mimic.errors import MysqlError
from mysql_mimic.results import ResultSet
from mysql_mimic.server import MysqlServer
from mysql_mimic.session import BaseSession
from mysql_mimic.stream import ConnectionClosed
from mysql_mimic.types import Capabilities, ColumnDefinition, ColumnType, Commands, ServerStatus
from mysql_mimic.utils import nonce
from ndbsim.errors import SqlError, sqlstate_of
from ndbsim.protocol import binary, wire
from ndbsim.protocol.listener import FollowsModel
from ndbsim.protocol.privileges import Accounts, unknown_auth_string
from ndbsim.protocol.runner import MAX_NESTING, StatementRunner
from ndbsim.protocol.session import SessionState
from ndbsim.protocol.sqlnode import SqlNode, stack_overrun
from ndbsim.protocol.sqltext import bind, nesting_depth, placeholders

if TYPE_CHECKING:
    from ndbsim.engine.database import Engine
    from ndbsim.model.cluster import Cluster

log = logging.getLogger(__name__)
logging.getLogger("mysql_mimic").setLevel(logging.CRITICAL)

PEER_HOST: contextvars.ContextVar[str] = contextvars.ContextVar("peer_host", default="localhost")

MAX_CONNECTIONS = 151  # mysqld's default max_connections
CONNECT_TIMEOUT = 10.0  # mysqld's default connect_timeout, seconds
TOO_MANY_CONNECTIONS = (1040, "Too many connections")
QUERY_INTERRUPTED = (1317, "Query execution was interrupted")
# statements whose prepare reply announces result columns
_RESULT_KEYWORDS = ("select", "with", "show", "desc", "describe", "explain", "(")
_PREPARED_LIMIT = 16382  # mysqld's max_prepared_stmt_count default
# Short, shallow statements parse in well under a millisecond and run on the event loop; a
# hop to a statement thread costs more than that. Longer or deeper ones go to the runner.
INLINE_STATEMENT = 4096
INLINE_NESTING = 32


def access_denied(user: str, with_password: bool) -> str:
    using = "YES" if with_password else "NO"
    return f"Access denied for user '{user}'@'{PEER_HOST.get()}' (using password: {using})"


def error_packet(code: int, msg: str) -> bytes:
    sqlstate = wire.SQLSTATES.get(code) or sqlstate_of(code)
    return b"".join(
        [
            b"\xff",
            code.to_bytes(2, "little"),
            b"#",
            sqlstate.encode(),
            msg.encode("utf-8", "replace"),
        ]
    )


class _NativePassword(NativePasswordAuthPlugin):
    """mysql_native_password with mysqld's wording of the 1045 error, and its 1226 for an
    account at its MAX_USER_CONNECTIONS."""

    def __init__(self, accounts: Accounts):
        super().__init__()
        self.accounts = accounts

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
            account = self.accounts.login(auth_info.user.name, PEER_HOST.get())
            if account is not None:
                self.accounts.check_room(account)
            yield Success(auth_info.user.name)
        else:
            yield Forbidden(access_denied(auth_info.username, bool(auth_info.data)))


class _Accounts(IdentityProvider):
    """The SQL node's accounts; an unknown user name fails like a wrong password (no user
    enumeration)."""

    def __init__(self, accounts: Accounts):
        self.accounts = accounts

    def get_plugins(self):
        return [_NativePassword(self.accounts)]

    async def get_user(self, username: str) -> User | None:
        account = self.accounts.login(username, PEER_HOST.get())
        auth_string = account.auth_string if account else unknown_auth_string()
        return User(name=username, auth_string=auth_string, auth_plugin=_NativePassword.name)


class _Disconnect(Exception):
    """Close the connection without a further reply."""


class NdbConnection(Connection):
    """One client connection: login, then commands, each answered as mysqld answers it."""

    stream: wire.BoundedStream
    session: NdbSession

    def __init__(self, *args: Any, connect_timeout: float = CONNECT_TIMEOUT, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.connect_timeout = connect_timeout
        self.statements: dict[int, binary.Prepared] = {}
        self.next_stmt_id = 1

    def error(self, **kwargs: Any) -> bytes:
        msg = kwargs.get("msg", "")
        return error_packet(int(kwargs.get("code", 1105)), getattr(msg, "msg", None) or str(msg))

    async def _start(self) -> None:
        try:
            async with asyncio.timeout(self.connect_timeout):
                await self.connection_phase()
        except TimeoutError:  # mysqld closes a connection that does not log in in time
            self.session.node.counters.aborted_connects += 1
            return
        except MysqlError as e:
            self.session.node.counters.aborted_connects += 1
            await self.stream.write(self.error(msg=e.msg, code=e.code))
            return
        except (ConnectionError, ConnectionClosed):
            raise
        except Exception as e:  # anything else a login packet provokes is a bad handshake
            log.warning("login failed: %s", type(e).__name__)
            self.session.node.counters.aborted_connects += 1
            await self.stream.write(error_packet(*wire.BAD_HANDSHAKE))
            return
        if self.session.username is None:  # access denied: mysqld closes the connection
            self.session.node.counters.aborted_connects += 1
            return
        await self.session.init(self)
        account = self.session.state.account
        accounts = self.session.node.accounts
        if account is not None:
            accounts.connect(account)
        self.stream.limit = int(self.session.node.store.values["max_allowed_packet"])
        try:
            await self.command_phase()
        finally:
            if account is not None:
                accounts.disconnect(account)
            await self.session.close()

    async def connection_phase(self) -> None:
        plugin = self.identity_provider.get_default_plugin()
        auth_data, auth_state = await plugin.start()
        assert isinstance(auth_data, bytes)
        self.handshake_auth_data = auth_data
        self.handshake_auth_plugin = plugin.name
        await self.stream.write(
            packets.make_handshake_v10(
                capabilities=self.server_capabilities,
                server_charset=self.server_charset,
                server_version=str(self.session.variables.get("version")),
                connection_id=self.connection_id,
                auth_data=auth_data,
                status_flags=self.status_flags,
                auth_plugin_name=plugin.name,
            )
        )
        response = wire.parse_handshake_response(self.server_capabilities, await self.stream.read())
        self.capabilities = response.capabilities
        self.max_packet_size = response.max_packet_size
        self.session.variables.set("character_set_client", response.client_charset.name)
        self.client_plugin_name = response.client_plugin
        self.client_connect_attrs = response.connect_attrs
        self.session.variables.set("external_user", response.username, force=True)
        self.session.login_database = response.database or None
        await self.authenticate(
            auth_state=auth_state,
            server_plugin=plugin,
            username=response.username,
            client_plugin_name=response.client_plugin,
            auth_response=response.auth_response,
            connect_attrs=response.connect_attrs,
        )

        self.stream.reset_seq()

    async def command_phase(self) -> None:
        handlers = {
            Commands.COM_QUERY: self.handle_query,
            Commands.COM_STMT_PREPARE: self.handle_stmt_prepare,
            Commands.COM_STMT_EXECUTE: self.handle_stmt_execute,
            Commands.COM_STMT_SEND_LONG_DATA: self.handle_stmt_send_long_data,
            Commands.COM_STMT_FETCH: self.handle_stmt_fetch,
            Commands.COM_STMT_RESET: self.handle_stmt_reset,
            Commands.COM_STMT_CLOSE: self.handle_stmt_close,
            Commands.COM_PING: self.handle_ping,
            Commands.COM_INIT_DB: self.handle_init_db,
            Commands.COM_FIELD_LIST: self.handle_field_list,
            Commands.COM_CHANGE_USER: self.handle_change_user,
            Commands.COM_RESET_CONNECTION: self.handle_reset_connection,
            Commands.COM_DEBUG: self.handle_debug,
            Commands.COM_STATISTICS: self.handle_statistics,
            Commands.COM_SET_OPTION: self.handle_set_option,
        }
        while True:
            try:
                data = await self.stream.read()
            except ConnectionClosed:
                return
            except wire.ProtocolError as e:
                await self.stream.write(self.error(msg=e.msg, code=e.code))
                return
            try:
                if not data or data[0] == Commands.COM_QUIT:
                    return
                handler = handlers.get(data[0])  # type: ignore[call-overload]
                if handler is None:
                    raise SqlError(1047, "Unknown command")
                await handler(data[1:])
            except MysqlError as e:
                await self.stream.write(self.error(msg=e.msg, code=e.code))
                if getattr(e, "fatal", False):
                    return
            except _Disconnect:
                return
            except asyncio.CancelledError:
                if self._kill != KillKind.QUERY:
                    raise
                self._kill = None  # KILL QUERY ends the statement, not the connection
                if self._task is not None:
                    self._task.uncancel()
                await self.stream.write(error_packet(*QUERY_INTERRUPTED))
            except ConnectionError:
                raise
            except Exception as e:  # never a Python text: one log line, mysqld's malformed packet
                log.warning("command %#x failed: %s", data[0], type(e).__name__)
                await self.stream.write(self.error(msg=wire.MALFORMED[1], code=wire.MALFORMED[0]))
            finally:
                self.stream.reset_seq()

    async def handle_statistics(self, data: bytes) -> None:
        """COM_STATISTICS: mysqld's one-line summary, as `mysqladmin status` prints it."""
        counters = self.session.node.counters
        uptime = max(1, int(time.monotonic() - self.session.started))
        text = (
            f"Uptime: {uptime}  Threads: {counters.connected}  Questions: {counters.questions}  "
            f"Slow queries: 0  Opens: 0  Flush tables: 1  Open tables: 0  "
            f"Queries per second avg: {counters.questions / uptime:.3f}"
        )
        await self.stream.write(text.encode())

    async def handle_set_option(self, data: bytes) -> None:
        """COM_SET_OPTION (multi-statements on or off): mysqld answers with an EOF packet."""
        if len(data) != 2 or data[0] > 1 or data[1]:
            raise SqlError(1047, "Unknown command")
        await self.stream.write(self.eof())

    # --- text protocol ----------------------------------------------------------------------

    async def handle_query(self, data: bytes) -> None:
        sql = binary.parse_query(data, self.capabilities, self.client_charset.codec)
        result_set = await self.query(sql, {})
        if not result_set:
            await self.stream.write(self.ok())
            return
        await self.write_text_resultset(result_set)

    def column_definitions(self, result_set: ResultSet) -> list[tuple[bytes, ColumnType, bool]]:
        """Each result column's definition packet, wire type and signedness."""
        wire_columns = self.session.state.wire_columns
        if len(wire_columns) != len(result_set.columns):
            wire_columns = [None] * len(result_set.columns)
        out = []
        for col, meta in zip(result_set.columns, wire_columns, strict=True):
            flags = meta.flags if meta else ColumnDefinition(0)
            packet = packets.make_column_definition_41(
                server_charset=self.server_charset,
                name=col.name,
                character_set=meta.charset if meta else col.character_set,
                column_length=meta.display_length if meta else 256,
                column_type=col.type,
                flags=flags,
                decimals=meta.decimals if meta else 0,
            )
            out.append((packet, col.type, bool(flags & ColumnDefinition.UNSIGNED_FLAG)))
        return out

    def result_header(self, result_set: ResultSet) -> tuple[list[bytes], list]:
        definitions = self.column_definitions(result_set)
        header = [
            packets.make_column_count(capabilities=self.capabilities, column_count=len(definitions))
        ]
        header += [packet for packet, _, _ in definitions]
        if not self.deprecate_eof():
            header.append(self.eof())
        return header, [(t, unsigned) for _, t, unsigned in definitions]

    async def write_text_resultset(self, result_set: ResultSet) -> None:
        header, _ = self.result_header(result_set)
        self.stream.write_many(header)
        rows = result_set.rows
        assert isinstance(rows, list)
        batch = 5000
        for i in range(0, len(rows), batch):
            self.stream.write_text_rows(rows[i : i + batch], result_set.columns)
            await self.stream.drain()
        await self.stream.write(self.ok_or_eof(affected_rows=len(rows)), drain=False)
        await self.stream.drain()

    async def handle_field_list(self, data: bytes) -> None:
        table, _ = wire.parse_field_list(self.client_charset, data)
        result = await self.query(f"SHOW COLUMNS FROM `{table.replace('`', '``')}`", {})
        columns = [
            packets.make_column_definition_41(
                server_charset=self.server_charset,
                table=table,
                name=row[0],
                is_com_field_list=True,
                default=row[4],
            )
            for row in result.rows  # type: ignore[union-attr]
        ]
        self.stream.write_many(columns)
        await self.stream.write(self.ok_or_eof())

    async def handle_init_db(self, data: bytes) -> None:
        await self.session.use(data.decode(self.client_charset.codec, "replace"))
        await self.stream.write(self.ok())

    async def handle_change_user(self, data: bytes) -> None:
        change = wire.parse_change_user(self.capabilities, self.client_charset, data)
        if change.client_charset:
            self.session.variables.set("character_set_client", change.client_charset.name)
        self.session.username = None
        await self.authenticate(
            username=change.username,
            auth_response=change.auth_response,
            client_plugin_name=change.client_plugin,
            connect_attrs=change.connect_attrs,
        )
        if self.session.username is None:
            raise _Disconnect  # the 1045 is sent; mysqld closes the connection
        self.session.identify()
        self.statements.clear()
        await self.session.reset()
        if change.database:
            await self.session.use(change.database)

    # --- binary protocol --------------------------------------------------------------------

    def get_stmt(self, stmt_id: int, command: str = "mysqld_stmt_execute") -> binary.Prepared:  # type: ignore[override]
        stmt = self.statements.get(stmt_id)
        if stmt is None:
            raise SqlError(
                1243, f"Unknown prepared statement handler ({stmt_id}) given to {command}"
            )
        return stmt

    async def handle_stmt_prepare(self, data: bytes) -> None:
        sql = data.decode(self.client_charset.codec, "replace")
        params = await asyncio.to_thread(placeholders, sql)
        if len(params) > 0xFFFF:
            raise SqlError(1390, "Prepared statement contains too many placeholders")
        if len(self.statements) >= _PREPARED_LIMIT:
            raise SqlError(
                1461,
                "Can't create more than max_prepared_stmt_count statements (current value: 16382)",
            )
        columns: list[bytes] = []
        if sql.lstrip().lower().startswith(_RESULT_KEYWORDS):
            # the result columns, from the statement run with every parameter NULL
            result_set = await self.query(bind(sql, params, [None] * len(params)), {})
            if result_set:
                columns = [packet for packet, _, _ in self.column_definitions(result_set)]
        stmt = binary.Prepared(self.next_stmt_id, sql, params, len(columns))
        self.next_stmt_id = self.next_stmt_id % 0xFFFFFFFF + 1
        self.statements[stmt.stmt_id] = stmt
        reply = [
            b"\x00"
            + stmt.stmt_id.to_bytes(4, "little")
            + len(columns).to_bytes(2, "little")
            + len(params).to_bytes(2, "little")
            + b"\x00\x00\x00"
        ]
        if params:
            reply += [self._param_definition()] * len(params)
            if not self.deprecate_eof():
                reply.append(self.eof())
        if columns:
            reply += columns
            if not self.deprecate_eof():
                reply.append(self.eof())
        self.stream.write_many(reply)
        await self.stream.drain()

    def _param_definition(self) -> bytes:
        return packets.make_column_definition_41(
            server_charset=self.server_charset,
            name="?",
            character_set=CharacterSet.binary,
            column_length=0,
            column_type=ColumnType.VAR_STRING,
        )

    async def handle_stmt_send_long_data(self, data: bytes) -> None:
        """Appends to a parameter's value; mysqld sends no reply."""
        stmt = self.statements.get(wire.stmt_id(data))
        if stmt is None or len(data) < 6:
            return
        param = int.from_bytes(data[4:6], "little")
        if param < len(stmt.params):
            buffer = stmt.long_data.setdefault(param, bytearray())
            if len(buffer) + len(data) - 6 <= self.stream.limit:
                buffer += data[6:]

    async def handle_stmt_execute(self, data: bytes) -> None:
        stmt = self.get_stmt(wire.stmt_id(data))
        sql, use_cursor = binary.parse_execute(
            data, stmt, self.capabilities, self.client_charset.codec
        )
        stmt.cursor = None
        result_set = await self.query(sql, {})
        if not result_set:
            await self.stream.write(self.ok())
            return
        header, types = self.result_header(result_set)
        rows = [binary.binary_row(row, types) for row in result_set.rows]  # type: ignore[union-attr]
        if use_cursor:  # the rows wait for COM_STMT_FETCH
            cursor = ServerStatus.SERVER_STATUS_CURSOR_EXISTS
            if self.deprecate_eof():
                header.append(self.ok_or_eof(flags=cursor))
            else:
                header[-1] = self.eof(flags=cursor)
            stmt.cursor = rows
            self.stream.write_many(header)
            await self.stream.drain()
            return
        self.stream.write_many(header)
        for i in range(0, len(rows), 5000):
            self.stream.write_many(rows[i : i + 5000])
            await self.stream.drain()
        await self.stream.write(self.ok_or_eof(affected_rows=len(rows)))

    async def handle_stmt_fetch(self, data: bytes) -> None:
        stmt = self.get_stmt(wire.stmt_id(data), "mysqld_stmt_fetch")
        if stmt.cursor is None or len(data) < 8:
            raise SqlError(1421, f"The statement ({stmt.stmt_id}) has no open cursor.")
        count = int.from_bytes(data[4:8], "little")
        batch, stmt.cursor = stmt.cursor[:count], stmt.cursor[count:]
        self.stream.write_many(batch)
        done = not stmt.cursor
        flag = (
            ServerStatus.SERVER_STATUS_LAST_ROW_SENT
            if done
            else ServerStatus.SERVER_STATUS_CURSOR_EXISTS
        )
        await self.stream.write(self.ok_or_eof(flags=flag))
        if done:
            stmt.cursor = None

    async def handle_stmt_reset(self, data: bytes) -> None:
        stmt = self.get_stmt(wire.stmt_id(data), "mysqld_stmt_reset")
        stmt.long_data.clear()
        stmt.cursor = None
        await self.stream.write(self.ok())

    async def handle_stmt_close(self, data: bytes) -> None:
        """Drops the statement; mysqld sends no reply, not even for an unknown id."""
        self.statements.pop(wire.stmt_id(data), None)


class NdbServer(FollowsModel, MysqlServer):
    """mysql-mimic server with mysqld's connection limits and the connection faults."""

    def __init__(
        self,
        node: SqlNode,
        user: str,
        password: str,
        connect_timeout: float = CONNECT_TIMEOUT,
    ):
        capabilities = DEFAULT_SERVER_CAPABILITIES | Capabilities.CLIENT_TRANSACTIONS
        if node.version.is_7x:  # query attributes came in 8.0.23
            capabilities &= ~Capabilities.CLIENT_QUERY_ATTRIBUTES
        super().__init__(
            session_factory=lambda: NdbSession(node, self.runner, self.started),
            identity_provider=_Accounts(node.accounts),
            capabilities=capabilities,
        )
        self.node = node
        self.started = time.monotonic()
        self.connect_timeout = connect_timeout
        self.open_connections = 0
        self.runner = StatementRunner(workers=int(node.store.values["max_connections"]) + 1)

    async def _client_connected_cb(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        peer = writer.get_extra_info("peername") or ("127.0.0.1", 0)
        host = peer[0] if isinstance(peer, tuple) else "localhost"
        PEER_HOST.set("localhost" if host in ("127.0.0.1", "::1") else host)
        stream = wire.BoundedStream(reader, writer)
        self.open_connections += 1
        try:
            full = self.open_connections > int(self.node.store.values["max_connections"])
            if full or self.node.cluster.faults.refuse_connections:
                # mysqld refuses before the handshake and counts the refusal here, not in
                # Aborted_connects (Connection_handler_manager::process_new_connection)
                self.node.counters.connection_errors_max_connections += 1
                await stream.write(error_packet(*TOO_MANY_CONNECTIONS))
                return
            connection = NdbConnection(
                stream=stream,
                session=NdbSession(self.node, self.runner, self.started),
                control=self.control,
                server_capabilities=self.capabilities,
                identity_provider=self.identity_provider,
                connect_timeout=self.connect_timeout,
            )
            connection.connection_id = await self.control.add(connection)
            self.node.counters.connect()
            try:
                await connection.start()
            except asyncio.CancelledError:
                pass  # dropped by the drop-connections fault, or KILL
            finally:
                self.node.counters.disconnect()
                # off the process list now, not when the collector frees the session
                self.node.sessions.pop(connection.connection_id, None)
                await self.control.remove(connection.connection_id)
        except (ConnectionError, ConnectionClosed, asyncio.IncompleteReadError):
            pass
        except Exception as e:  # never a traceback: one line and close
            log.warning("connection failed: %s", type(e).__name__)
        finally:
            self.open_connections -= 1
            writer.close()

    def close(self) -> None:
        super().close()
        self.release_port()
        self.runner.close()


class NdbSession(BaseSession):
    def __init__(self, node: SqlNode, runner: StatementRunner, started: float):
        self.node = node
        self.started = started  # when the server started (time.monotonic)
        self.runner = runner
        self.state = SessionState(node)
        self.variables = self.state.variables
        self._username: str | None = None
        self.login_database: str | None = None  # the handshake's, used once logged in
        self.database: str | None = None
        self.connection: Connection | None = None

    @property
    def username(self) -> str | None:
        return self._username

    @username.setter
    def username(self, value: str | None) -> None:
        """Set by mysql-mimic once the password is right, before it answers the login: the
        login's database is used then, so that an unknown one (1049) or one the account may
        not use (1044) is the answer to the login, as on mysqld."""
        self._username = value
        if value is not None and self.login_database:
            database, self.login_database = self.login_database, None
            self.identify()
            self.state.use(database)

    async def init(self, connection: Connection) -> None:
        self.connection = connection
        self.state.connection_id = connection.connection_id
        self.identify()

    def identify(self) -> None:
        """The account the login authenticated, whose privileges the statements are checked
        against (before the login's default database is used, too)."""
        self.state.user = self.username or ""
        self.state.host = PEER_HOST.get()
        self.state.account = self.node.accounts.login(self.state.user, self.state.host)

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
        if len(sql) <= INLINE_STATEMENT and nesting_depth(sql) <= INLINE_NESTING:
            return await self._execute(sql)
        return await self.runner.run(self._execute(sql, bounded=False))

    async def _execute(self, sql: str, bounded: bool = True) -> ResultSet | None:
        """The statement, after checking its nesting unless known to be shallow."""
        if not bounded and (depth := nesting_depth(sql)) > MAX_NESTING:
            raise stack_overrun(self.node, depth)
        return await self.state.execute(sql)


async def start(
    engine: Engine,
    cluster: Cluster,
    host: str,
    port: int,
    user: str,
    password: str,
    max_connections: int = MAX_CONNECTIONS,
    connect_timeout: float = CONNECT_TIMEOUT,
    node_id: int | None = None,
) -> NdbServer:
    """Start listening as one SQL node of the cluster (default its first); the bound port is
    server.sockets()[0].getsockname()[1]. The listener follows the node: stopping it in the
    model closes its port and drops its clients, starting it opens the same port again."""
    node = SqlNode(engine, cluster, Accounts(user, password), node_id)
    node.store.values["max_connections"] = max_connections
    if "connect_timeout" in node.store.values:
        node.store.values["connect_timeout"] = int(connect_timeout)
    server = NdbServer(node, user, password, connect_timeout=connect_timeout)
    await server.start_server(host=host, port=port)
    server.follow_model(host, asyncio.get_running_loop())
    return server


async def start_sql_nodes(
    engine: Engine, cluster: Cluster, host: str, port: int, user: str, password: str, **options
) -> list[NdbServer]:
    """One listener per SQL node of the cluster: `port` for the first and the ports after it
    for the others (each a free one when `port` is 0)."""
    servers = []
    for i, node_id in enumerate(cluster.sql_node_ids):
        wanted = port + i if port else 0
        servers.append(
            await start(engine, cluster, host, wanted, user, password, node_id=node_id, **options)
        )
    return servers
