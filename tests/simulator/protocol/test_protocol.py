"""The MySQL protocol front: malformed packets, limits and the binary protocol, as mysqld."""

from __future__ import annotations

import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import mysql.connector
import pytest
from mysql_mimic.constants import KillKind
from ndbsim.protocol import server

from tests.simulator.protocol.rawmysql import CAPS, CLIENT_QUERY_ATTRIBUTES, RawConnection, error_of
from tests.support.sqlnode_helpers import PASSWORD, USER, start_sql_node

MAX_CONNECTIONS = 6


@dataclass
class Front:
    port: int
    srv: server.NdbServer

    def connect(self, **kw) -> mysql.connector.MySQLConnection:
        args = {"host": "127.0.0.1", "port": self.port, "user": USER, "password": PASSWORD}
        return mysql.connector.connect(**(args | kw))

    def raw(self) -> RawConnection:
        return RawConnection(self.port)

    def logged_in(self) -> RawConnection:
        conn = self.raw()
        assert conn.login(USER, PASSWORD)[0] == 0
        return conn


@pytest.fixture(scope="module", params=["8.4", "7.5.4"])
def front(request) -> Iterator[Front]:
    options = {"max_connections": MAX_CONNECTIONS, "connect_timeout": 1}
    node, stop = start_sql_node(request.param, server_options=options)
    yield Front(node.port, node.server)
    stop()


def _handshake(user: bytes, tail: bytes = b"") -> bytes:
    return struct.pack("<IIB", CAPS, 1 << 24, 255) + bytes(23) + user + tail


def _answers(front: Front) -> None:
    conn = front.connect(database="ndbinfo")
    cur = conn.cursor()
    cur.execute("SELECT COUNT(*) FROM nodes")
    assert cur.fetchall()[0][0] >= 1
    conn.close()


def test_user_name_without_nul_is_a_bad_handshake(front):
    conn = front.raw()
    conn.greeting()
    conn.send(_handshake(b"ndbsim"))  # 35 bytes, no NUL after the name
    assert error_of(conn.read()) == (1043, "08S01", "Bad handshake")
    assert conn.closed()
    _answers(front)


def test_truncated_and_short_packets_close_without_python_text(front):
    for payload in (b"", b"\x01", b"\x00" * 31, _handshake(b"ndbsim\x00", b"\x14abc")):
        conn = front.raw()
        conn.greeting()
        conn.send(payload)
        error = error_of(conn.read())
        assert error is not None and error[0] == 1043, payload
        conn.close()
    conn = front.raw()
    conn.greeting()
    conn.send_raw(b"\x05\x00")  # half a header, then nothing
    conn.close()
    _answers(front)


def test_huge_user_name_is_bounded(front):
    conn = front.raw()
    conn.greeting()
    conn.send(_handshake(b"u" * 100_000 + b"\x00", b"\x00"))
    code, sqlstate, message = error_of(conn.read())
    assert (code, sqlstate) == (1153, "08S01")
    assert message == "Got a packet bigger than 'max_allowed_packet' bytes"
    conn = front.raw()
    conn.greeting()
    conn.send(_handshake(b"u" * 30_000 + b"\x00", b"\x00mysql_native_password\x00"))
    code, _, message = error_of(conn.read())
    assert code == 1045 and f"'{'u' * 32}'@" in message  # cut to 32 characters, as mysqld
    _answers(front)


def test_connection_that_never_logs_in_is_closed(front):
    conn = front.raw()
    conn.greeting()
    conn.sock.settimeout(15)  # connect_timeout is 1 s here
    assert conn.closed()


def _global_status(front: Front, *names: str) -> tuple[int, ...]:
    conn = front.connect()
    cur = conn.cursor()
    cur.execute("SHOW GLOBAL STATUS")
    values = dict(cur.fetchall())
    conn.close()
    return tuple(int(values[name]) for name in names)


def test_max_connections_answers_1040(front):
    """Refused before the handshake, counted in Connection_errors_max_connections (not in
    Aborted_connects), as mysqld does."""
    counters = ("Connection_errors_max_connections", "Aborted_connects")
    refused, aborted = _global_status(front, *counters)
    held = [front.raw() for _ in range(MAX_CONNECTIONS)]
    for conn in held:
        conn.greeting()
    extra = front.raw()
    assert error_of(extra.read()) == (1040, "08004", "Too many connections")
    for conn in held:
        conn.close()
    deadline = time.monotonic() + 10
    while front.srv.open_connections and time.monotonic() < deadline:
        time.sleep(0.05)
    _answers(front)
    assert _global_status(front, *counters) == (refused + 1, aborted)


def test_failed_login_closes_the_connection(front):
    conn = front.raw()
    code, _, _ = error_of(conn.login(USER, "wrong"))
    assert code == 1045
    conn.seq = 0
    conn.send(b"\x03SELECT 1")
    assert conn.closed()


def test_command_errors_are_mysqld_codes(front):
    conn = front.logged_in()
    assert error_of(conn.command(b"\x7f")) == (1047, "08S01", "Unknown command")
    code, sqlstate, message = error_of(conn.command(b"\x17\x09\x00\x00\x00\x00\x01\x00\x00\x00"))
    assert (code, sqlstate) == (1243, "HY000")
    assert message == "Unknown prepared statement handler (9) given to mysqld_stmt_execute"
    assert error_of(conn.command(b"\x17\x01")) == (1835, "HY000", "Malformed communication packet.")
    assert conn.command(b"\x0e")[0] == 0  # COM_PING still answers
    assert conn.command(b"\x09").startswith(b"Uptime: ")  # COM_STATISTICS
    assert conn.command(b"\x1b\x01\x00")[0] == 0xFE  # COM_SET_OPTION: an EOF packet
    conn.close()


def test_packet_bigger_than_max_allowed_packet(front):
    """mysqld reads max_allowed_packet when a client logs in."""
    admin = front.connect()
    cur = admin.cursor()
    cur.execute("SELECT @@global.max_allowed_packet")
    previous = cur.fetchall()[0][0]
    limit = 1 << 20
    cur.execute(f"SET GLOBAL max_allowed_packet = {limit}")
    try:
        conn = front.logged_in()
        conn.command(b"\x0e")  # logged in and past the limit's reading
    finally:
        cur.execute(f"SET GLOBAL max_allowed_packet = {previous}")
        admin.close()
    conn.seq = 0
    conn.send_raw((limit + 10).to_bytes(3, "little") + b"\x00\x03SELECT ")
    assert error_of(conn.read())[:2] == (1153, "08S01")
    assert conn.closed()


def test_nesting_depth(front):
    conn = front.connect()
    cur = conn.cursor()
    cur.execute("SELECT " + "(" * 100 + "1" + ")" * 100)
    assert cur.fetchall() == [(1,)]
    with pytest.raises(mysql.connector.Error) as e:
        cur.execute("SELECT " + "(" * 5000 + "1" + ")" * 5000)
    assert e.value.errno == 1436 and e.value.sqlstate == "HY000"
    assert e.value.msg.startswith("Thread stack overrun:")
    conn.close()


def test_long_statement_does_not_hold_other_clients(front):
    """A 3 MB statement is read on a worker thread while other clients are answered."""
    big = "SELECT '" + "x" * 1_000_000 + "' AS s /*" + "y" * 2_000_000 + "*/"
    done = threading.Event()

    def run_big() -> None:
        conn = front.connect()
        try:
            conn.cursor().execute(big)
        finally:
            done.set()
            conn.close()

    other = front.connect()
    cur = other.cursor()
    thread = threading.Thread(target=run_big)
    thread.start()
    answered_meanwhile = 0
    while not done.is_set() and answered_meanwhile < 3:
        cur.execute("SELECT 1")
        cur.fetchall()
        answered_meanwhile += not done.is_set()
    thread.join(120)
    other.close()
    assert answered_meanwhile == 3


def test_query_attributes_only_from_8_0(front):
    conn = front.raw()
    greeting = conn.read()
    conn.close()
    end = greeting.index(b"\x00", 1)
    low = struct.unpack("<H", greeting[end + 14 : end + 16])[0]
    high = struct.unpack("<H", greeting[end + 19 : end + 21])[0]
    offered = bool(((high << 16) | low) & CLIENT_QUERY_ATTRIBUTES)
    assert offered == (not front.srv.node.version.is_7x)


def test_prepare_reply_as_mysqld(front):
    """COM_STMT_PREPARE_OK: ids from 1, column and parameter counts, no EOF after
    definitions under CLIENT_DEPRECATE_EOF."""
    conn = front.logged_in()
    ok = conn.command(b"\x16SELECT node_id, uptime FROM ndbinfo.nodes WHERE node_id > ?")
    stmt_id, columns, params = struct.unpack("<IHH", ok[1:9])
    assert (ok[0], stmt_id, columns, params) == (0, 1, 2, 1)
    packets = [conn.read() for _ in range(params + columns)]
    assert all(p[0] != 0xFE for p in packets)  # column definitions, not EOF
    conn.sock.settimeout(0.5)
    with pytest.raises(TimeoutError):
        conn.read()  # nothing follows the definitions
    conn.sock.settimeout(10)
    second = conn.command(b"\x16SELECT 1")
    assert struct.unpack("<I", second[1:5])[0] == 2
    conn.read()
    conn.seq = 0
    conn.send(b"\x19" + (1).to_bytes(4, "little"))  # COM_STMT_CLOSE: no reply
    assert error_of(conn.command(b"\x1a" + (1).to_bytes(4, "little")))[0] == 1243
    conn.close()


def test_prepared_statement_through_connector(front):
    conn = front.connect(database="ndbinfo")
    cur = conn.cursor(prepared=True)
    cur.execute("SELECT node_id, uptime, status FROM nodes WHERE node_id >= ?", (1,))
    rows = cur.fetchall()
    assert rows and all(isinstance(r[0], int) and r[0] >= 1 for r in rows)
    cur.execute("SELECT ? AS a, ? AS b, ? AS c", ("it's", None, 2**63 + 5))
    assert cur.fetchall() == [("it's", None, 2**63 + 5)]
    conn.close()


def _column_type_and_flags(definition: bytes) -> tuple[int, int]:
    pos = 0
    for _ in range(6):  # catalog, schema, table, org_table, name, org_name
        pos += 1 + definition[pos]
    return definition[pos + 7], struct.unpack("<H", definition[pos + 8 : pos + 10])[0]


def test_binary_result_keeps_unsigned(front):
    conn = front.logged_in()
    ok = conn.command(b"\x16SELECT node_id, uptime FROM ndbinfo.nodes WHERE node_id = ?")
    stmt = ok[1:5]
    for _ in range(3):  # one parameter and two column definitions
        conn.read()
    # execute: no cursor, one iteration, NULL bitmap, types bound: LONGLONG, the value 1
    execute = b"\x17" + stmt + b"\x00" + (1).to_bytes(4, "little") + b"\x00\x01\x08\x00"
    conn.command(execute + (1).to_bytes(8, "little"))
    definitions = [conn.read(), conn.read()]
    node_id, uptime = (_column_type_and_flags(d) for d in definitions)
    assert node_id[0] == 3 and node_id[1] & 0x20  # INT UNSIGNED, as in the catalog
    assert uptime[0] == 8 and uptime[1] & 0x20  # BIGINT UNSIGNED
    row = conn.read()
    assert row[:6] == b"\x00\x00\x01\x00\x00\x00" and len(row) == 1 + 1 + 4 + 8
    assert conn.read()[0] == 0xFE  # OK with the EOF header
    conn.close()


def test_kill_query_ends_the_statement_not_the_connection(front):
    conn = front.connect(database="ndbinfo")
    cur = conn.cursor()
    cur.execute("SELECT CONNECTION_ID()")
    connection_id = cur.fetchall()[0][0]
    cluster = front.srv.node.cluster
    cluster.faults.set("slow-ndbinfo", seconds=30, table="nodes")
    loop = front.srv._server.get_loop()
    connection = front.srv.control._connections[connection_id]
    timer = threading.Timer(0.5, lambda: loop.call_soon_threadsafe(connection.kill, KillKind.QUERY))
    timer.start()
    try:
        with pytest.raises(mysql.connector.Error) as e:
            cur.execute("SELECT * FROM nodes")
        assert (e.value.errno, e.value.sqlstate) == (1317, "70100")
    finally:
        timer.cancel()
        cluster.faults.clear("slow-ndbinfo")
    cur.execute("SELECT 1")
    assert cur.fetchall() == [(1,)]
    conn.close()
