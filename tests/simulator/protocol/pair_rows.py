"""Rows of a statement on an ndbsim replication pair's source or replica SQL node, on a
connection of its own."""

from __future__ import annotations

import pymysql


def rows_at(sim, port: int, sql: str) -> list[dict]:
    """The rows of ``sql`` on the SQL node listening on ``port``."""
    conn = pymysql.connect(
        host=sim.host,
        port=port,
        user=sim.user,
        password=sim.password,
        cursorclass=pymysql.cursors.DictCursor,
    )
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())
    finally:
        conn.close()


def source(sim, sql: str) -> list[dict]:
    return rows_at(sim, sim.port, sql)


def replica(sim, sql: str) -> list[dict]:
    return rows_at(sim, sim.replica_port, sql)
