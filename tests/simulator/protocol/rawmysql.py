"""A raw MySQL protocol client for tests that send what no driver would."""

from __future__ import annotations

import hashlib
import socket
import struct

# long password, long flag, protocol 4.1, transactions, secure connection, multi results,
# plugin auth, deprecate EOF
CAPS = 0x1 | 0x4 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000 | 0x1000000
CLIENT_CONNECT_WITH_DB = 1 << 3
CLIENT_PLUGIN_AUTH = 1 << 19
CLIENT_DEPRECATE_EOF = 1 << 24
CLIENT_QUERY_ATTRIBUTES = 1 << 27


def scramble(password: str, nonce: bytes) -> bytes:
    stage1 = hashlib.sha1(password.encode()).digest()
    stage2 = hashlib.sha1(stage1).digest()
    mask = hashlib.sha1(nonce + stage2).digest()
    return bytes(a ^ b for a, b in zip(stage1, mask, strict=True))


def error_of(payload: bytes) -> tuple[int, str, str] | None:
    """(code, SQLSTATE, message) of an ERR packet, None for anything else."""
    if not payload or payload[0] != 0xFF:
        return None
    code = struct.unpack("<H", payload[1:3])[0]
    if payload[3:4] == b"#":
        return code, payload[4:9].decode(), payload[9:].decode("utf-8", "replace")
    return code, "", payload[3:].decode("utf-8", "replace")


class RawConnection:
    def __init__(self, port: int, timeout: float = 10.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.seq = 0
        self.connection_id = 0

    def close(self) -> None:
        self.sock.close()

    def _exact(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("closed")
            out += chunk
        return out

    def read(self) -> bytes:
        header = self._exact(4)
        length = int.from_bytes(header[:3], "little")
        self.seq = header[3] + 1
        return self._exact(length)

    def send(self, payload: bytes, seq: int | None = None) -> None:
        seq = self.seq if seq is None else seq
        self.sock.sendall(len(payload).to_bytes(3, "little") + bytes([seq & 0xFF]) + payload)
        self.seq = seq + 1

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def closed(self) -> bool:
        """True when the server closed the connection (reads EOF)."""
        try:
            return self.sock.recv(1) == b""
        except (ConnectionError, TimeoutError):
            return True

    def greeting(self) -> bytes:
        """The server's handshake; returns the 20-byte nonce."""
        data = self.read()
        assert data[0] == 10
        end = data.index(b"\x00", 1)
        self.connection_id = int.from_bytes(data[end + 1 : end + 5], "little")
        part1 = data[end + 5 : end + 13]
        part2 = data[end + 13 + 1 + 2 + 1 + 2 + 2 + 1 + 10 :][:12]
        return part1 + part2

    def login(self, user: str, password: str, database: str | None = None, caps: int = CAPS):
        nonce = self.greeting()
        auth = scramble(password, nonce)
        caps |= CLIENT_PLUGIN_AUTH | (CLIENT_CONNECT_WITH_DB if database else 0)
        payload = struct.pack("<IIB", caps, 1 << 24, 255) + bytes(23)
        payload += user.encode() + b"\x00" + bytes([len(auth)]) + auth
        if database:
            payload += database.encode() + b"\x00"
        payload += b"mysql_native_password\x00"
        self.send(payload)
        return self.read()

    def command(self, payload: bytes) -> bytes:
        self.seq = 0
        self.send(payload)
        return self.read()
