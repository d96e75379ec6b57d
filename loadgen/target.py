"""The server under load: connections and what it supports."""

from __future__ import annotations

from dataclasses import dataclass

import mysql.connector


@dataclass(frozen=True)
class ConnectionSpec:
    host: str
    port: int
    user: str
    password: str
    database: str

    def describe(self) -> str:
        return f"{self.user}@{self.host}:{self.port}/{self.database}"


class TargetError(Exception):
    """The server cannot be used; the message is one line without credentials."""


def connect(spec: ConnectionSpec, database: bool = True):
    try:
        return mysql.connector.connect(
            host=spec.host,
            port=spec.port,
            user=spec.user,
            password=spec.password,
            database=spec.database if database else None,
            autocommit=True,
            connection_timeout=10,
            use_pure=True,
        )
    except mysql.connector.Error as exc:
        raise TargetError(f"cannot connect to {spec.host}:{spec.port}: {exc.msg}") from None


@dataclass(frozen=True)
class Target:
    version: str
    ndb: bool

    @property
    def engine(self) -> str:
        return "ndbcluster" if self.ndb else "InnoDB"


def detect(conn) -> Target:
    """NDB when the ndbcluster engine is enabled (SHOW ENGINES), else InnoDB."""
    cur = conn.cursor()
    cur.execute("SELECT @@version")
    (version,) = cur.fetchone()
    cur.execute("SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = 'ndbcluster'")
    row = cur.fetchone()
    cur.close()
    enabled = row is not None and str(row[0]).upper() in {"YES", "DEFAULT"}
    return Target(version=str(version), ndb=enabled)


def session_status(conn, names: tuple[str, ...]) -> dict[str, int]:
    """This connection's own values of the named status variables (absent ones are 0)."""
    cur = conn.cursor()
    cur.execute("SHOW SESSION STATUS LIKE 'Ndb%'")
    values = {str(name): value for name, value in cur.fetchall()}
    cur.close()
    return {name: int(values.get(name) or 0) for name in names}
