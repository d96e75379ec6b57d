"""Every statement of corpus/statements.txt gets the reply recorded in corpus/replies-<version>.txt.

The record is every packet of each reply decoded without loss (a packet with bytes left over
shows them in hex): column definitions with their charset, length, type, flags and decimals,
each row's cells, the closing OK with its status flags and warning count, errors with code,
SQLSTATE and message; a connection the server closes instead of replying (after KILL
CONNECTION) is recorded as such, and the replay goes on on a new one.

The node is deterministic: a fixed seed and a frozen cluster clock and host clock. Only what
follows the real clock is masked, as `<now>`: cells holding the current date, time or unix time
(NOW(), CURDATE(), @@timestamp, ...), and the values of the status variables and process list
columns that count seconds since the server started (`TIME_VARYING`); and the connection id,
which the server draws at random, as `<connection id>`. Rewrite the record with
--update-golden when a reply is meant to change.
"""

from __future__ import annotations

import datetime
import json
import re
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.simulator.protocol.rawmysql import RawConnection, error_of
from tests.support.sqlnode_helpers import PASSWORD, USER, start_sql_node

CORPUS = Path(__file__).parent / "corpus"
VERSIONS = ("7.5.4", "8.4")
CLUSTER_CLOCK = 5000.0  # seconds since the cluster started
HOST_CLOCK = 1_700_000_000.0  # unix time of the hosts
TABLES = 4  # user tables of the cluster: enough for every per-fragment row kind
# (column name, first cell of the row or None for any row) whose values count real seconds
TIME_VARYING = {
    ("Value", "Uptime"),
    ("Value", "Uptime_since_flush_status"),
    ("VARIABLE_VALUE", "Uptime"),
    ("VARIABLE_VALUE", "Uptime_since_flush_status"),
    ("Time", None),
    ("TIME", None),
    ("PROCESSLIST_TIME", None),
}
# performance_schema.threads columns numbered after the connection id
CONNECTION_NUMBERED = {"THREAD_ID", "THREAD_OS_ID"}
_MORE_RESULTS = 0x0008


def statements() -> list[tuple[str, str | None]]:
    """(statement or "@connect", database to connect to) in corpus order."""
    out: list[tuple[str, str | None]] = []
    for line in (CORPUS / "statements.txt").read_text(encoding="utf-8").splitlines():
        if line.startswith("@connect"):
            out.append(("@connect", line.split()[1] if len(line.split()) > 1 else None))
        elif line.startswith('"'):
            out.append((json.loads(line), None))
    return out


def _lenenc(data: bytes, pos: int) -> tuple[int | None, int]:
    first = data[pos]
    if first < 0xFB:
        return first, pos + 1
    if first == 0xFB:
        return None, pos + 1
    size = {0xFC: 2, 0xFD: 3, 0xFE: 8}[first]
    return int.from_bytes(data[pos + 1 : pos + 1 + size], "little"), pos + 1 + size


def _strings(data: bytes, count: int) -> tuple[list[bytes | None], int]:
    pos, out = 0, []
    for _ in range(count):
        length, pos = _lenenc(data, pos)
        if length is None:
            out.append(None)
        else:
            out.append(data[pos : pos + length])
            pos += length
    return out, pos


def _text(value: bytes | None) -> str:
    if value is None:
        return "NULL"
    try:
        return json.dumps(value.decode("utf-8"), ensure_ascii=False)
    except UnicodeDecodeError:
        return "x'" + value.hex() + "'"


def _rest(data: bytes, pos: int) -> str:
    return f" rest=x'{data[pos:].hex()}'" if pos < len(data) else ""


def _column(data: bytes) -> tuple[str, str]:
    names, pos = _strings(data, 6)
    fixed, pos = _lenenc(data, pos)
    charset, length, kind, flags, decimals = struct.unpack_from("<HIBHB", data, pos)
    pos += 10 + 2
    fields = " ".join(_text(n) for n in names)
    line = (
        f"column {fields} fixed={fixed} charset={charset} length={length} type={kind} "
        f"flags=0x{flags:04x} decimals={decimals} filler=x'{data[pos - 2 : pos].hex()}'"
    )
    return line + _rest(data, pos), (names[4] or b"").decode("utf-8", "replace")


def _ok(data: bytes) -> tuple[str, int]:
    affected, pos = _lenenc(data, 1)
    insert_id, pos = _lenenc(data, pos)
    status, warnings = struct.unpack_from("<HH", data, pos)
    info = data[pos + 4 :]
    line = (
        f"ok header=0x{data[0]:02x} affected={affected} insert_id={insert_id} "
        f"status=0x{status:04x} warnings={warnings} info={_text(info)}"
    )
    return line, status


_UNIX_TIME = re.compile(r"\d{10}(\.\d+)?")


def _days_around(now: float) -> set[str]:
    """Yesterday, today and tomorrow, as a date cell starts."""
    today = datetime.date.fromtimestamp(now)
    return {str(today + datetime.timedelta(days=d)) for d in (-1, 0, 1)}


def _now_like(cell: str, now: float, days: set[str]) -> bool:
    """A cell that holds the real clock: a date of `days` or a unix time of this minute."""
    value = cell.strip('"')
    if value[:10] in days:
        return True
    return bool(_UNIX_TIME.fullmatch(value)) and abs(float(value) - now) < 600


def _mask(row: list[str], names: list[str], now: float, connection_id: int) -> list[str]:
    first = row[0].strip('"') if row else ""
    own = f'"{connection_id}"'
    mine = own in row
    days = _days_around(now)
    out = []
    for name, cell in zip(names, row, strict=True):
        if cell == "NULL":
            out.append(cell)
        elif cell == own or (mine and name in CONNECTION_NUMBERED):
            out.append("<connection id>")
        elif (
            (name, None) in TIME_VARYING
            or (name, first) in TIME_VARYING
            or _now_like(cell, now, days)
        ):
            out.append("<now>")
        else:
            out.append(cell)
    return out


def _reply(conn: RawConnection, sql: str) -> list[str]:
    """The decoded reply to one COM_QUERY (every result of it)."""
    lines: list[str] = []
    conn.seq = 0
    conn.send(b"\x03" + sql.encode("utf-8"))
    while True:
        first = conn.read()
        if first[0] == 0xFF:
            code, sqlstate, message = error_of(first)
            return [*lines, f"error {code} {sqlstate} {json.dumps(message, ensure_ascii=False)}"]
        if first[0] == 0x00:
            line, status = _ok(first)
        else:
            count, pos = _lenenc(first, 0)
            lines.append(f"result columns={count}" + _rest(first, pos))
            names = []
            for _ in range(count or 0):
                line, name = _column(conn.read())
                lines.append(line)
                names.append(name)
            now = time.time()
            while (packet := conn.read())[0] != 0xFE or len(packet) >= 0xFFFFFF:
                cells, pos = _strings(packet, count or 0)
                row = _mask([_text(c) for c in cells], names, now, conn.connection_id)
                lines.append("row " + " ".join(row))
                lines[-1] += _rest(packet, pos)
            line, status = _ok(packet)
        lines.append(line)
        if not status & _MORE_RESULTS:
            return lines


class Replay:
    """Runs the corpus on one node, a connection at a time."""

    def __init__(self, version: str):
        self.node, self.stop = start_sql_node(
            version, clock=lambda: CLUSTER_CLOCK, wall=lambda: HOST_CLOCK, tables=TABLES
        )
        self.conn: RawConnection | None = None
        self.database: str | None = None

    def connect(self, database: str | None) -> None:
        """A new connection, once the server has let every earlier one go (the process list
        shows the open sessions)."""
        if self.conn is not None:
            self.conn.close()
        deadline = time.monotonic() + 10
        while self.node.server.node.sessions and time.monotonic() < deadline:
            time.sleep(0.01)
        self.database = database
        self.conn = RawConnection(self.node.port)
        assert self.conn.login(USER, PASSWORD, database)[0] == 0

    def run(self) -> Iterator[str]:
        for sql, database in statements():
            if sql == "@connect":
                self.connect(database)
                yield f"@connect {database or ''}".rstrip()
                continue
            yield f">>> {json.dumps(sql, ensure_ascii=False)}"
            assert self.conn is not None
            try:
                yield from _reply(self.conn, sql)
            except (ConnectionError, TimeoutError):
                yield "connection closed"
                self.connect(self.database)


@pytest.fixture(params=VERSIONS)
def replay(request) -> Iterator[tuple[str, Replay]]:
    runner = Replay(request.param)
    yield request.param, runner
    if runner.conn is not None:
        runner.conn.close()
    runner.stop()


def test_every_reply_is_as_recorded(replay, request) -> None:
    version, runner = replay
    got = "\n".join(runner.run()) + "\n"
    path = CORPUS / f"replies-{version}.txt"
    if request.config.getoption("--update-golden"):
        path.write_text(got, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if got != expected:
        got_lines, expected_lines = got.splitlines(), expected.splitlines()
        statement = ""
        for i, (a, b) in enumerate(zip(got_lines, expected_lines, strict=False)):
            statement = a if a.startswith((">>>", "@connect")) else statement
            if a != b:
                pytest.fail(f"{version} line {i + 1}, after {statement}:\n got  {a}\n want {b}")
        pytest.fail(f"{version}: {len(got_lines)} lines, recorded {len(expected_lines)}")
