"""A private MariaDB server (Debian's mariadb-server) on a free port, for the tests."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import mysql.connector
import pytest
from ndb_harness import free_port

# The account the load generator tests use (created by the mariadb_server fixture).
USER, PASSWORD, DATABASE = "lg_test", "loadgen-test-pw", "loadgen"


def _binary(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")


def available() -> bool:
    return bool(_binary("mariadbd") and _binary("mariadb-install-db"))


@dataclass
class MariaDB:
    port: int
    socket: Path
    process: subprocess.Popen

    def root(self, database: str | None = None):
        return mysql.connector.connect(
            unix_socket=str(self.socket), user="root", database=database, autocommit=True
        )

    def global_status(self) -> dict[str, int]:
        conn = self.root()
        cur = conn.cursor()
        cur.execute("SHOW GLOBAL STATUS")
        values = {}
        for name, value in cur.fetchall():
            try:
                values[name] = int(value)
            except (TypeError, ValueError):
                continue
        conn.close()
        return values


def start(datadir: Path) -> MariaDB:
    """Initialise ``datadir`` and start a server on it. The tests' accounts are for
    127.0.0.1, so neither step resolves host names: mariadb-install-db gives up when the
    machine's host name does not resolve. Its temporary files go into a directory of its own
    beside the data directory, away from those of any other server on the machine."""
    tmpdir = datadir.parent / f"{datadir.name}-tmp"
    tmpdir.mkdir(exist_ok=True)
    installed = subprocess.run(
        [
            _binary("mariadb-install-db"),
            "--no-defaults",
            f"--datadir={datadir}",
            "--user=root",
            "--auth-root-authentication-method=socket",
            "--skip-test-db",
            "--skip-name-resolve",
            f"--tmpdir={tmpdir}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if installed.returncode != 0:
        said = f"{installed.stdout}\n{installed.stderr}".strip().splitlines()[-5:]
        raise RuntimeError(f"mariadb-install-db exited {installed.returncode}: {said}")
    port, sock = free_port(), datadir / "mysqld.sock"
    process = subprocess.Popen(
        [
            _binary("mariadbd"),
            "--no-defaults",
            f"--datadir={datadir}",
            f"--socket={sock}",
            f"--port={port}",
            "--bind-address=127.0.0.1",
            "--user=root",
            "--skip-log-bin",
            "--skip-name-resolve",
            "--innodb-buffer-pool-size=64M",
            f"--tmpdir={tmpdir}",
            f"--log-error={datadir / 'error.log'}",
            f"--pid-file={datadir / 'mysqld.pid'}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = MariaDB(port, sock, process)
    deadline = time.monotonic() + 60
    while True:
        try:
            server.root().close()
            return server
        except mysql.connector.Error:
            if process.poll() is not None or time.monotonic() > deadline:
                stop(server)
                log = (datadir / "error.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"mariadbd did not start:\n{log}") from None
            time.sleep(0.2)


def stop(server: MariaDB) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()


@contextmanager
def running_with_account(datadir: Path, user: str, password: str, grants: str) -> Iterator[MariaDB]:
    """A server with one account, ``user``@127.0.0.1, given ``grants`` ("PROCESS ON *.*");
    the calling test is skipped when mariadb-server is not installed."""
    if not available():
        pytest.skip("mariadb-server is not installed (.ci/system-packages installs it)")
    server = start(datadir)
    try:
        conn = server.root()
        cursor = conn.cursor()
        cursor.execute(f"CREATE USER '{user}'@'127.0.0.1' IDENTIFIED BY '{password}'")
        cursor.execute(f"GRANT {grants} TO '{user}'@'127.0.0.1'")
        conn.close()
        yield server
    finally:
        stop(server)
