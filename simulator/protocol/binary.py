"""The binary protocol of prepared statements: placeholders, parameters and result rows.

Parameters arrive typed (COM_STMT_EXECUTE) and are bound into the statement text as SQL
literals; result rows leave in the binary row format, each value sized by its column's type and
signedness as mysqld sends it.
"""

from __future__ import annotations

import datetime as dt
import struct
from dataclasses import dataclass, field
from typing import Any

from mysql_mimic.types import Capabilities, ColumnType
from ndbsim.errors import SqlError
from ndbsim.protocol.sqltext import bind
from ndbsim.protocol.wire import MALFORMED, ProtocolError, Reader, Truncated

UNSIGNED_FLAG = 0x80
CURSOR_READ_ONLY = 0x01
PARAMETER_COUNT_AVAILABLE = 0x08

_INT_SIZES = {
    ColumnType.TINY: 1,
    ColumnType.SHORT: 2,
    ColumnType.YEAR: 2,
    ColumnType.LONG: 4,
    ColumnType.INT24: 4,
    ColumnType.LONGLONG: 8,
}
_TEMPORAL = (ColumnType.DATE, ColumnType.DATETIME, ColumnType.TIMESTAMP)


@dataclass
class Prepared:
    """One prepared statement of a connection."""

    stmt_id: int
    sql: str
    params: list[int]  # offsets of the placeholders
    columns: int
    types: list[tuple[int, bool]] = field(default_factory=list)  # from the last execute
    long_data: dict[int, bytearray] = field(default_factory=dict)
    cursor: list[bytes] | None = None


def _temporal(r: Reader, col_type: int) -> Any:
    size = r.uint(1)
    raw = Reader(r.fixed(size))
    if col_type == ColumnType.TIME:
        if not size:
            return dt.timedelta(0)
        negative, days = raw.uint(1), raw.uint(4)
        h, m, s = raw.uint(1), raw.uint(1), raw.uint(1)
        us = raw.uint(4) if size >= 12 else 0
        delta = dt.timedelta(days=days, hours=h, minutes=m, seconds=s, microseconds=us)
        return -delta if negative else delta
    if not size:
        return "0000-00-00 00:00:00"
    y, mo, d = raw.uint(2), raw.uint(1), raw.uint(1)
    if size == 4:
        return f"{y:04d}-{mo:02d}-{d:02d}"
    h, mi, s = raw.uint(1), raw.uint(1), raw.uint(1)
    us = raw.uint(4) if size >= 11 else 0
    return f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}" + (f".{us:06d}" if us else "")


def _value(r: Reader, col_type: int, unsigned: bool, codec: str) -> Any:
    size = _INT_SIZES.get(col_type)  # type: ignore[call-overload]
    if size:
        return int.from_bytes(r.fixed(size), "little", signed=not unsigned)
    if col_type == ColumnType.FLOAT:
        return struct.unpack("<f", r.fixed(4))[0]
    if col_type == ColumnType.DOUBLE:
        return struct.unpack("<d", r.fixed(8))[0]
    if col_type == ColumnType.NULL:
        return None
    if col_type in (*_TEMPORAL, ColumnType.TIME):
        return _temporal(r, col_type)
    return r.lenenc_str().decode(codec, "replace")


def parse_execute(
    data: bytes, stmt: Prepared, capabilities: Capabilities, codec: str
) -> tuple[str, bool]:
    """COM_STMT_EXECUTE (after the command byte): the bound statement text and the cursor flag."""
    try:
        r = Reader(data)
        r.uint(4)  # statement id
        flags = r.uint(1)
        r.uint(4)  # iteration count, always 1
        count = len(stmt.params)
        attributes = Capabilities.CLIENT_QUERY_ATTRIBUTES in capabilities
        if attributes and (count or flags & PARAMETER_COUNT_AVAILABLE):
            count = r.lenenc_int()
            if count < len(stmt.params) or count > len(stmt.params) + 0xFFFF:
                raise Truncated
        values: list[Any] = []
        if count:
            nulls = r.fixed((count + 7) // 8)
            if r.uint(1):  # new params bound: types follow
                types = []
                for _ in range(count):
                    col_type, flag = r.uint(1), r.uint(1)
                    if attributes:
                        r.lenenc_str()  # the name of a query attribute
                    types.append((col_type, bool(flag & UNSIGNED_FLAG)))
                stmt.types = types
            elif len(stmt.types) != count:
                raise SqlError(1210, "Incorrect arguments to mysqld_stmt_execute")
            for i, (col_type, unsigned) in enumerate(stmt.types[:count]):
                if nulls[i // 8] & (1 << (i % 8)):
                    values.append(None)
                elif i in stmt.long_data:
                    values.append(stmt.long_data[i].decode(codec, "replace"))
                else:
                    values.append(_value(r, col_type, unsigned, codec))
        stmt.long_data.clear()
        bound = bind(stmt.sql, stmt.params, values[: len(stmt.params)])
        return bound, bool(flags & CURSOR_READ_ONLY)
    except Truncated:
        raise ProtocolError(*MALFORMED) from None
    except (ValueError, UnicodeError, OverflowError):
        raise SqlError(1210, "Incorrect arguments to mysqld_stmt_execute") from None


def _datetime(value: Any) -> bytes:
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    if not isinstance(value, dt.datetime):
        return bytes([4]) + struct.pack("<HBB", value.year, value.month, value.day)
    head = struct.pack("<HBBBBB", value.year, value.month, value.day, *value.timetuple()[3:6])
    if value.microsecond:
        return bytes([11]) + head + struct.pack("<I", value.microsecond)
    return bytes([7]) + head


def _time(value: dt.timedelta | dt.time) -> bytes:
    if isinstance(value, dt.time):
        value = dt.timedelta(
            hours=value.hour,
            minutes=value.minute,
            seconds=value.second,
            microseconds=value.microsecond,
        )
    negative = value < dt.timedelta(0)
    value = abs(value)
    hours, rest = divmod(value.seconds, 3600)
    head = struct.pack("<BIBBB", negative, value.days, hours, rest // 60, rest % 60)
    if value.microseconds:
        return bytes([12]) + head + struct.pack("<I", value.microseconds)
    return bytes([8]) + head


def _lenenc(raw: bytes) -> bytes:
    n = len(raw)
    if n < 0xFB:
        return bytes([n]) + raw
    if n < 1 << 16:
        return b"\xfc" + n.to_bytes(2, "little") + raw
    if n < 1 << 24:
        return b"\xfd" + n.to_bytes(3, "little") + raw
    return b"\xfe" + n.to_bytes(8, "little") + raw


def encode_value(value: Any, col_type: int, unsigned: bool) -> bytes:
    size = _INT_SIZES.get(col_type)  # type: ignore[call-overload]
    if size:
        try:
            return int(value).to_bytes(size, "little", signed=not unsigned)
        except OverflowError:
            raise SqlError(1690, "Value is out of range") from None
    if col_type == ColumnType.DOUBLE:
        return struct.pack("<d", float(value))
    if col_type == ColumnType.FLOAT:
        return struct.pack("<f", float(value))
    if col_type in _TEMPORAL:
        return _datetime(value)
    if col_type == ColumnType.TIME and isinstance(value, (dt.timedelta, dt.time)):
        return _time(value)
    if isinstance(value, bytes):
        return _lenenc(value)
    if isinstance(value, bool):
        value = int(value)
    return _lenenc(str(value).encode("utf-8"))


def binary_row(row: Any, types: list[tuple[int, bool]]) -> bytes:
    """A binary result row: 0x00, the NULL bitmap (offset 2), the non-NULL values."""
    bitmap = bytearray((len(types) + 9) // 8)
    values = []
    for i, (value, (col_type, unsigned)) in enumerate(zip(row, types, strict=True)):
        if value is None:
            bitmap[(i + 2) // 8] |= 1 << ((i + 2) % 8)
        else:
            values.append(encode_value(value, col_type, unsigned))
    return b"\x00" + bytes(bitmap) + b"".join(values)


def parse_query(data: bytes, capabilities: Capabilities, codec: str) -> str:
    """COM_QUERY (after the command byte): the statement text, query attributes skipped."""
    try:
        r = Reader(data)
        if Capabilities.CLIENT_QUERY_ATTRIBUTES in capabilities:
            count = r.lenenc_int()
            r.lenenc_int()  # parameter sets, always 1
            if count:
                if count > r.remaining():
                    raise Truncated
                nulls = r.fixed((count + 7) // 8)
                if r.uint(1):
                    types = []
                    for _ in range(count):
                        col_type, flag = r.uint(1), r.uint(1)
                        r.lenenc_str()
                        types.append((col_type, bool(flag & UNSIGNED_FLAG)))
                    for i, (col_type, unsigned) in enumerate(types):
                        if not nulls[i // 8] & (1 << (i % 8)):
                            _value(r, col_type, unsigned, codec)
        return r.rest().decode(codec, "replace")
    except Truncated:
        raise ProtocolError(*MALFORMED) from None
