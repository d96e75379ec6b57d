"""Bounded packet reading and strict parsing of the packets a client sends.

mysql-mimic (3.0.5) trusts its input: `read_str_null` loops for ever on a string that lacks its
NUL, a short header raises `struct.error` whose text reaches the client, and a packet may grow
without bound. Everything a client sends is read here instead, bounded and checked; a malformed
packet becomes a `ProtocolError` carrying the error mysqld sends in that case.
"""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass, field

from mysql_mimic.charset import CharacterSet, Collation
from mysql_mimic.errors import MysqlError
from mysql_mimic.packets import HandshakeResponse41
from mysql_mimic.stream import ConnectionClosed, MysqlStream
from mysql_mimic.types import Capabilities

MAX_PAYLOAD = 0xFFFFFF
# Before login a client sends the handshake response and auth data: small packets. mysqld
# cuts a user name to 32 characters (USERNAME_CHAR_LENGTH) and a database name to 64.
LOGIN_PACKET_LIMIT = 64 * 1024
USER_NAME_CHARS = 32
DATABASE_NAME_CHARS = 64

# SQLSTATEs of the protocol errors (the statement errors live in ndbsim.errors)
SQLSTATES = {
    1043: "08S01",  # bad handshake
    1047: "08S01",  # unknown command
    1153: "08S01",  # packet bigger than max_allowed_packet
    1156: "08S01",  # packets out of order
    1210: "HY000",  # incorrect arguments to mysqld_stmt_execute
    1243: "HY000",  # unknown prepared statement handler
    1317: "70100",  # query execution was interrupted
    1390: "HY000",  # too many placeholders
    1421: "HY000",  # statement has no open cursor
    1461: "42000",  # max_prepared_stmt_count reached
    1436: "HY000",  # thread stack overrun
    1835: "HY000",  # malformed communication packet
}

BAD_HANDSHAKE = (1043, "Bad handshake")
PACKET_TOO_LARGE = (1153, "Got a packet bigger than 'max_allowed_packet' bytes")
OUT_OF_ORDER = (1156, "Got packets out of order")
MALFORMED = (1835, "Malformed communication packet.")


class ProtocolError(MysqlError):
    """A client broke the protocol; `fatal` errors close the connection after the reply."""

    def __init__(self, code: int, message: str, fatal: bool = False):
        super().__init__(message, code)  # type: ignore[arg-type]
        self.fatal = fatal


class Truncated(Exception):
    """A field runs past the end of its packet."""


class Reader:
    """Reads the fields of one packet; every read is bounded by the packet's end."""

    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def remaining(self) -> int:
        return len(self.data) - self.pos

    def fixed(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise Truncated
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def uint(self, n: int) -> int:
        return int.from_bytes(self.fixed(n), "little")

    def lenenc_int(self) -> int:
        first = self.uint(1)
        if first < 0xFB:
            return first
        size = {0xFC: 2, 0xFD: 3, 0xFE: 8}.get(first)
        if size is None:
            raise Truncated
        return self.uint(size)

    def lenenc_str(self) -> bytes:
        return self.fixed(self.lenenc_int())

    def null_str(self) -> bytes:
        end = self.data.find(b"\x00", self.pos)
        if end < 0:
            raise Truncated
        out = self.data[self.pos : end]
        self.pos = end + 1
        return out

    def null_str_or_rest(self) -> bytes:
        """A NUL-terminated string that clients may also leave unterminated at the packet's end."""
        end = self.data.find(b"\x00", self.pos)
        if end < 0:
            end = len(self.data)
        out = self.data[self.pos : end]
        self.pos = min(end + 1, len(self.data))
        return out

    def rest(self) -> bytes:
        out = self.data[self.pos :]
        self.pos = len(self.data)
        return out


class BoundedStream:
    """A MysqlStream whose reads never exceed a limit and never see a partial header.

    mysql-mimic's compiled MysqlStream cannot be subclassed: it writes (framing, result rows)
    and this class reads, sharing its sequence counter. `limit` starts at the login bound and
    becomes max_allowed_packet after login.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer
        self.out = MysqlStream(reader, writer)
        self.limit = LOGIN_PACKET_LIMIT
        self.write = self.out.write
        self.write_many = self.out.write_many
        self.write_text_rows = self.out.write_text_rows
        self.drain = self.out.drain
        self.reset_seq = self.out.reset_seq

    @property
    def seq(self):
        return self.out.seq

    async def read(self) -> bytes:
        data = bytearray()
        while True:
            try:
                header = await self.reader.readexactly(4)
            except asyncio.IncompleteReadError:
                raise ConnectionClosed() from None
            (word,) = struct.unpack("<I", header)
            length, sequence = word & MAX_PAYLOAD, word >> 24
            if sequence != next(self.out.seq):
                raise ProtocolError(*OUT_OF_ORDER, fatal=True)
            if len(data) + length > self.limit:
                raise ProtocolError(*PACKET_TOO_LARGE, fatal=True)
            if length:
                try:
                    data += await self.reader.readexactly(length)
                except asyncio.IncompleteReadError:
                    raise ConnectionClosed() from None
            if length < MAX_PAYLOAD:
                return bytes(data)


@dataclass
class ChangeUser:
    username: str
    auth_response: bytes
    database: str | None
    client_charset: CharacterSet | None = None
    client_plugin: str | None = None
    connect_attrs: dict[str, str] = field(default_factory=dict)


def _text(raw: bytes, charset: CharacterSet, limit: int) -> str:
    return raw.decode(charset.codec, "replace")[:limit]


def _charset(collation_id: int) -> CharacterSet:
    try:
        return Collation(collation_id).charset
    except ValueError:
        return CharacterSet.utf8mb4


def _connect_attrs(r: Reader, charset: CharacterSet) -> dict[str, str]:
    block = Reader(r.lenenc_str())
    attrs: dict[str, str] = {}
    while block.remaining():
        key = block.lenenc_str().decode(charset.codec, "replace")
        attrs[key] = block.lenenc_str().decode(charset.codec, "replace")
    return attrs


def parse_handshake_response(server_capabilities: Capabilities, data: bytes) -> HandshakeResponse41:
    """HandshakeResponse41, checked field by field; anything malformed is mysqld's 1043."""
    try:
        r = Reader(data)
        capabilities = Capabilities(r.uint(4)) & server_capabilities
        if Capabilities.CLIENT_PROTOCOL_41 not in capabilities:
            raise Truncated
        max_packet = r.uint(4)
        charset = _charset(r.uint(1))
        r.fixed(23)
        if not r.remaining():  # an SSLRequest: this server offers no TLS
            raise Truncated
        username = _text(r.null_str(), charset, USER_NAME_CHARS)
        if Capabilities.CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA in capabilities:
            auth = r.lenenc_str()
        elif Capabilities.CLIENT_SECURE_CONNECTION in capabilities:
            auth = r.fixed(r.uint(1))
        else:
            auth = r.null_str()
        response = HandshakeResponse41(
            max_packet_size=max_packet,
            capabilities=capabilities,
            client_charset=charset,
            username=username,
            auth_response=auth,
        )
        if Capabilities.CLIENT_CONNECT_WITH_DB in capabilities and r.remaining():
            database = _text(r.null_str_or_rest(), charset, DATABASE_NAME_CHARS + 1)
            response.database = database or None
        if Capabilities.CLIENT_PLUGIN_AUTH in capabilities and r.remaining():
            response.client_plugin = r.null_str_or_rest().decode("ascii", "replace")
        if Capabilities.CLIENT_CONNECT_ATTRS in capabilities and r.remaining():
            response.connect_attrs = _connect_attrs(r, charset)
        return response
    except Truncated:
        raise ProtocolError(*BAD_HANDSHAKE, fatal=True) from None


def parse_change_user(capabilities: Capabilities, charset: CharacterSet, data: bytes) -> ChangeUser:
    """COM_CHANGE_USER (the command byte removed); malformed is mysqld's 1835."""
    try:
        r = Reader(data)
        username = _text(r.null_str(), charset, USER_NAME_CHARS)
        if Capabilities.CLIENT_SECURE_CONNECTION in capabilities:
            auth = r.fixed(r.uint(1))
        else:
            auth = r.null_str()
        database = _text(r.null_str_or_rest(), charset, DATABASE_NAME_CHARS + 1) or None
        out = ChangeUser(username=username, auth_response=auth, database=database)
        if r.remaining() >= 2:
            out.client_charset = _charset(r.uint(2))
            charset = out.client_charset
        if Capabilities.CLIENT_PLUGIN_AUTH in capabilities and r.remaining():
            out.client_plugin = r.null_str_or_rest().decode("ascii", "replace")
        if Capabilities.CLIENT_CONNECT_ATTRS in capabilities and r.remaining():
            out.connect_attrs = _connect_attrs(r, charset)
        return out
    except Truncated:
        raise ProtocolError(*MALFORMED) from None


def parse_field_list(charset: CharacterSet, data: bytes) -> tuple[str, str]:
    """COM_FIELD_LIST: table name and wildcard."""
    r = Reader(data)
    table = r.null_str_or_rest().decode(charset.codec, "replace")
    return table, r.rest().decode(charset.codec, "replace")


def stmt_id(data: bytes) -> int:
    """The statement id at the start of a COM_STMT_* command."""
    try:
        return Reader(data).uint(4)
    except Truncated:
        raise ProtocolError(*MALFORMED) from None
