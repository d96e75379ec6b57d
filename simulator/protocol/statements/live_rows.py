"""Rows that show the server at this moment: the process list, performance_schema.threads,
mysql.user and the status variables, as one session sees them."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ndbsim.protocol.statements import applier_threads

if TYPE_CHECKING:
    from ndbsim.protocol.session import SessionState


def processlist(session: SessionState, full: bool) -> list[tuple]:
    node = session.node
    now = time.monotonic()
    rows = []
    for cid, other in sorted(node.sessions.items()):
        info = other.info if full or other.info is None else other.info[:100]
        busy = other.info is not None
        rows.append(
            (
                cid,
                other.user,
                other.host,
                other.database or None,
                "Query" if busy else "Sleep",
                0 if busy else int(now - other.last_active),
                "executing" if busy else "",
                info,
            )
        )
    system = applier_threads.processlist_rows(node)
    if not node.version.is_7x:
        uptime = int(now - node.started)
        daemon = (5, "event_scheduler", "localhost", None, "Daemon", uptime,
                  "Waiting on empty queue", None)  # fmt: skip
        system.insert(0, daemon)
    return system + rows


def threads(session: SessionState) -> list[tuple]:
    """performance_schema.threads: the server's background threads and one per client."""
    background = ["thread/sql/main", "thread/ndbcluster/ndb_binlog",
                  "thread/ndbcluster/ndb_index_stat", "thread/sql/signal_handler"]  # fmt: skip
    rows = [
        (i, name, "BACKGROUND", None, None, None, None, None, None, None, None, None, None,
         "YES", "YES", None, 1000 + i)
        for i, name in enumerate(background, start=1)
    ]  # fmt: skip
    rows += applier_threads.thread_rows(session.node)
    for cid, user, host, db, command, secs, state, info in processlist(session, True):
        if user in ("event_scheduler", applier_threads.SYSTEM_USER):
            continue
        rows.append(
            (cid + 40, "thread/sql/one_connection", "FOREGROUND", cid, user, host, db,
             command, secs, state, info, 1, None, "YES", "YES", "TCP/IP", 2000 + cid % 50000)
        )  # fmt: skip
    return rows


def accounts(session: SessionState) -> list[tuple]:
    """mysql.user: this server's account and the locked system accounts of mysqld."""
    plugin = "mysql_native_password"
    rows = [("%", session.user, "Y", "Y", "Y", "N", "", 0, 0, 0, 0, plugin, "N", "N")]
    for name in ("mysql.session", "mysql.sys"):
        rows.append(("localhost", name, "N", "N", "N", "N", "", 0, 0, 0, 0, plugin, "N", "Y"))
    return rows


def status_rows(session: SessionState, scope: str) -> list[tuple[str, str]]:
    node = session.node
    values = node.status.values(
        node.cluster.global_status(node.node_id), node.counters, session.counters, scope
    )
    return [(k, str(v)) for k, v in values.items()]


def locked_status_rows(session: SessionState, scope: str) -> list[tuple[str, str]]:
    with session.node.engine.lock:
        return status_rows(session, scope)
