"""The replication threads of the replica's SQL node (ndbsim --replica): the I/O (receiver)
thread, the SQL thread (the coordinator, with applier workers from NDB 8.0.33) and the workers,
with the states mysqld gives them (its PSI stages, sql/mysqld.cc) in SHOW REPLICA STATUS, the
process list and performance_schema.threads."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ndbsim.protocol import sysvars

if TYPE_CHECKING:
    from ndbsim.protocol.sqlnode import SqlNode

# PROCESSLIST_IDs the server gives its replication threads at startup, after the event
# scheduler's 5; performance_schema THREAD_ID is the PROCESSLIST_ID + THREAD_ID_OFFSET
IO_PROCESS_ID, SQL_PROCESS_ID = 6, 7
THREAD_ID_OFFSET = 40
MAIN_THREAD_ID = 1  # thread/sql/main, which starts the replica at server start
SYSTEM_USER = "system user"
# NDB honours replica_parallel_workers from NDB 8.0.33 (earlier it applied with the SQL thread
# alone whatever the setting; MySQL manual, Replication Threads, and NDB Cluster Replication
# Using the Multithreaded Applier)
MTA_FROM = (8, 0, 33)


@dataclass(frozen=True)
class ApplierThread:
    processlist_id: int
    kind: str  # io, sql or worker: thread/sql/replica_<kind> (slave_<kind> before 8.0.26)
    command: str
    seconds: int
    state: str

    @property
    def thread_id(self) -> int:
        return self.processlist_id + THREAD_ID_OFFSET


def new_words(node: SqlNode) -> bool:
    """MySQL 8.0.26 says source and replica in its messages, stages and thread names."""
    return sysvars.server_version(node.version) >= (8, 0, 26)


def workers(node: SqlNode) -> int:
    """The applier workers: the replica_parallel_workers the server started the replica with
    (4 by default from MySQL 8.0.27), from NDB 8.0.33; 0 (the SQL thread applies) before."""
    if sysvars.server_version(node.version) < MTA_FROM:
        return 0
    return int(node.store.defs["replica_parallel_workers"].default)


def io_state(node: SqlNode, snap: dict[str, Any]) -> str:
    """The I/O thread's stage: reading the source's events, or after the connection broke
    the stage try_to_reconnect (rpl_replica.cc) sets before connect_to_master's attempts
    (stage_replica_reconnecting_after_failed_event_read); no thread once it gave up."""
    if snap["io_running"] == "No":
        return ""
    source = "source" if new_words(node) else "master"
    if snap["io_error"]:
        return f"Reconnecting after a failed {source} event read"
    return f"Waiting for {source} to send event"


def sql_state(node: SqlNode, snap: dict[str, Any]) -> str:
    """The SQL thread's stage (Replica_SQL_Running_State). Caught up it waits in the relay
    log. Behind, a coordinator waits for the transaction the next one depends on
    (rpl_mta_submode.cc Mts_submode_logical_clock::wait_for_last_committed_trx) while a
    worker applies it; without workers the SQL thread applies the rows events itself."""
    if snap["sql_running"] != "Yes":
        return ""
    kind = snap["applying"]
    if kind is None:
        replica = "Replica" if new_words(node) else "Slave"
        return f"{replica} has read all relay log; waiting for more updates"
    if workers(node):
        return "Waiting for dependent transaction to commit"
    return rows_state(node, kind)


def rows_state(node: SqlNode, kind: str) -> str:
    """The stage of a thread applying a rows event: the Rows_log_event::do_apply_event stages
    of MySQL 8.0 (WL#7364); a 5.7 SQL thread stays in the stage its loop set
    (handle_slave_sql)."""
    if sysvars.server_version(node.version) < (8, 0):
        return "Reading event from the relay log"
    return f"Applying batch of row changes ({kind})"


def worker_state(node: SqlNode, snap: dict[str, Any], worker: int) -> str:
    """A worker's stage: the first applies what the coordinator waits for, the others wait
    for their next job (Slave_worker's queue, stage_replica_waiting_event_from_coordinator)."""
    kind = snap["applying"]
    if kind is not None and worker == 1:
        return rows_state(node, kind)
    return "Waiting for an event from Coordinator"


def running_threads(node: SqlNode) -> list[ApplierThread]:
    """The replication threads running on this SQL node (none but on the replica's applier):
    the I/O thread until it gives up, the SQL thread and its workers until it stops."""
    if node.applier_link is None:
        return []
    snap = node.applier_link.snapshot()
    uptime = int(time.monotonic() - node.started)
    threads = []
    if snap["io_running"] != "No":
        threads.append(ApplierThread(IO_PROCESS_ID, "io", "Connect", uptime, io_state(node, snap)))
    if snap["sql_running"] != "Yes":
        return threads
    # a MySQL 8.0 SQL thread runs as COM_QUERY (rpl_replica.cc init_replica_thread)
    command = "Query" if sysvars.server_version(node.version) >= (8, 0) else "Connect"
    behind = snap["seconds_behind"] or 0
    threads.append(ApplierThread(SQL_PROCESS_ID, "sql", command, behind, sql_state(node, snap)))
    for worker in range(1, workers(node) + 1):
        state = worker_state(node, snap, worker)
        seconds = 0 if state.startswith("Applying") else uptime
        threads.append(ApplierThread(SQL_PROCESS_ID + worker, "worker", "Connect", seconds, state))
    return threads


def processlist_rows(node: SqlNode) -> list[tuple]:
    """SHOW PROCESSLIST rows: Id, User, Host, db, Command, Time, State, Info."""
    return [
        (t.processlist_id, SYSTEM_USER, "", None, t.command, t.seconds, t.state, None)
        for t in running_threads(node)
    ]


def thread_rows(node: SqlNode) -> list[tuple]:
    """performance_schema.threads rows (FOREGROUND threads without an account); a worker's
    parent is the SQL thread that started it."""
    prefix = "replica" if new_words(node) else "slave"
    rows = []
    for t in running_threads(node):
        parent = SQL_PROCESS_ID + THREAD_ID_OFFSET if t.kind == "worker" else MAIN_THREAD_ID
        rows.append(
            (t.thread_id, f"thread/sql/{prefix}_{t.kind}", "FOREGROUND", t.processlist_id,
             None, None, None, t.command, t.seconds, t.state, None, parent, None, "YES", "YES",
             None, 1000 + t.processlist_id)
        )  # fmt: skip
    return rows
