"""Handshake fuzz against a real ndbsim process: afterwards it still answers queries and its
control API, and no reply carried anything but one of mysqld's login errors."""

from __future__ import annotations

import contextlib
import random
import socket
import struct

import mysql.connector
import pytest
from ndb_harness import running_ndbsim

from tests.simulator.protocol.rawmysql import CAPS, RawConnection, error_of

pytestmark = pytest.mark.integration

CASES = 400
SEED = 20261123
LOGIN_ERRORS = {1043, 1045, 1153, 1156}


def _handshake(rng: random.Random) -> bytes:
    name = bytes(rng.choice(b"abcdefgh") for _ in range(rng.choice([0, 1, 8, 33, 5000, 70000])))
    auth = rng.randbytes(rng.choice([0, 20, 255]))
    body = struct.pack("<IIB", rng.choice([CAPS, CAPS | 0x200000, 0xFFFFFFFF, 0]), 1 << 24, 255)
    body += bytes(23) + name + b"\x00" + bytes([len(auth) & 0xFF]) + auth + b"db\x00plugin\x00"
    return body


def _packet(rng: random.Random) -> bytes:
    """One malformed handshake response, framed (or deliberately misframed)."""
    kind = rng.randrange(6)
    body = _handshake(rng)
    if kind == 0:  # truncated anywhere
        body = body[: rng.randrange(len(body) + 1)]
    elif kind == 1:  # the user name's NUL and everything after it missing
        body = body[: 32 + rng.randrange(1, 40)].replace(b"\x00", b"x")
    elif kind == 2:  # random bytes
        body = rng.randbytes(rng.randrange(1, 600))
    elif kind == 3:  # a byte flipped
        i = rng.randrange(len(body))
        body = body[:i] + bytes([body[i] ^ (1 << rng.randrange(8))]) + body[i + 1 :]
    length = len(body)
    seq = 1
    if kind == 4:  # a length that lies
        length = rng.choice([0, 1, len(body) + 100, 0xFFFFFF])
    elif kind == 5:  # a wrong sequence number
        seq = rng.choice([0, 2, 255])
    return min(length, 0xFFFFFF).to_bytes(3, "little") + bytes([seq]) + body


def _reply(conn: RawConnection) -> bytes | None:
    try:
        return conn.read()
    except (ConnectionError, TimeoutError, OSError):
        return None


@pytest.mark.parametrize("version", ["8.4", "7.5.4"])
def test_handshake_fuzz_leaves_ndbsim_answering(version):
    rng = random.Random(SEED)
    with running_ndbsim(ndb_version=version, connect_timeout=2) as sim:
        seen: dict[int, int] = {}
        for _ in range(CASES):
            conn = RawConnection(sim.port, timeout=5)
            try:
                conn.greeting()
                conn.send_raw(_packet(rng))
                with contextlib.suppress(OSError):  # ndbsim may have closed it already
                    conn.sock.shutdown(socket.SHUT_WR)
                reply = _reply(conn)
            finally:
                conn.close()
            if reply is None or reply[:22] == b"\xfemysql_native_password":
                continue  # closed, or asked to switch to mysqld's auth plugin
            error = error_of(reply)
            assert error is not None, reply[:40]
            assert error[0] in LOGIN_ERRORS, error
            assert "unpack" not in error[2] and "Error" not in error[2], error
            seen[error[0]] = seen.get(error[0], 0) + 1
        assert seen.get(1043, 0) > CASES // 4  # most cases were judged, not dropped
        conn = mysql.connector.connect(
            host=sim.host, port=sim.port, user=sim.user, password=sim.password, database="ndbinfo"
        )
        cur = conn.cursor()
        cur.execute("SELECT COUNT(*) FROM nodes")
        assert cur.fetchall()[0][0] >= 2
        conn.close()
        assert sim.status()  # the control API answers
