"""What a SQL node offers: its version, the ndbinfo tables and views it has, and whether the
exporter sees NDB there at all."""

from __future__ import annotations

import re
from typing import Any

from mysql.connector import errors
from ndbinfo_exporter.collectors.base import TargetInfo
from ndbinfo_exporter.scrape import rondb
from ndbinfo_exporter.scrape.ndb_visibility import detect_visibility
from ndbinfo_exporter.values import Version, leading_version

ER_UNKNOWN_SYSTEM_VARIABLE = 1193

_NDB_IN_VERSION = re.compile(r"-ndb-(\d+)\.(\d+)\.(\d+)")

OBJECTS_SQL = "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'ndbinfo'"


def ndb_version(version: str, ndbinfo_version: Any) -> Version:
    """The NDB version from @@ndbinfo_version ((major<<16)|(minor<<8)|build), else from
    @@version ("5.7.16-ndb-7.5.4-cluster-gpl", "8.4.3-cluster"); (0, 0, 0) when not NDB."""
    if ndbinfo_version not in (None, "", 0):
        number = int(ndbinfo_version)
        return (number >> 16, (number >> 8) & 0xFF, number & 0xFF)
    match = _NDB_IN_VERSION.search(version)
    if match:
        return (int(match[1]), int(match[2]), int(match[3]))
    leading = leading_version(version)
    return leading if leading and "cluster" in version else (0, 0, 0)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, (bytes, bytearray)) else str(value)


def detect(connection: Any) -> TargetInfo:
    """Blocking: the version, the server id, the ndbinfo objects and the NDB visibility
    (three or four statements) on ``connection`` (a mysql.connector connection)."""
    cursor = connection.cursor()
    try:
        try:
            cursor.execute("SELECT @@version, @@server_id, @@ndbinfo_version")
            version, server_id, ndbinfo_version = cursor.fetchone()
        except errors.DatabaseError as exc:
            if exc.errno != ER_UNKNOWN_SYSTEM_VARIABLE:
                raise
            cursor.execute("SELECT @@version, @@server_id")
            (version, server_id), ndbinfo_version = cursor.fetchone(), None
        cursor.execute(OBJECTS_SQL)
        objects = frozenset(_text(row[0]).lower() for row in cursor.fetchall())
        visibility = detect_visibility(cursor, ndbinfo_version, objects)
    finally:
        cursor.close()
    return target_info(_text(version), ndbinfo_version, objects, visibility, int(server_id))


def target_info(
    version: str, ndbinfo_version: Any, objects: frozenset[str], visibility: str, server_id: int
) -> TargetInfo:
    """The SQL node as the collectors see it: on RonDB, gated as the MySQL NDB release it is
    built on."""
    ndb = ndb_version(version, ndbinfo_version)
    on_rondb = rondb.is_rondb(ndb)
    return TargetInfo(
        version=version,
        ndb_version=rondb.mysql_ndb_base(ndb) if on_rondb else ndb,
        objects=objects,
        ndb_visibility=visibility,
        server_id=server_id,
        rondb_version=ndb if on_rondb else None,
    )
