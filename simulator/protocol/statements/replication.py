"""Replication status: SHOW SLAVE/REPLICA STATUS, MASTER/BINARY LOG STATUS, BINARY LOGS and
SLAVE HOSTS/REPLICAS, with the words each version knows, and the rows of the replication tables
(performance_schema.replication_*, mysql.ndb_apply_status, mysql.ndb_binlog_index).

A plain ndbsim SQL node replicates nothing: the listings and the tables are empty. With
`ndbsim --replica` the source's binlog servers write their binary logs and the replica's SQL
node applies one of them (its one channel is the default channel '')."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

from ndbsim.engine import infoschema
from ndbsim.errors import SqlError
from ndbsim.model.binlog import BINLOG_DIR, IndexRow
from ndbsim.model.replication import RETRY_SECONDS, SOURCE_REFUSED
from ndbsim.protocol import privileges, replies, sysvars
from ndbsim.protocol.sqltext import syntax_near
from ndbsim.protocol.statements import applier_threads
from ndbsim.protocol.statements.applier_threads import new_words
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.results import WireResult, plain

if TYPE_CHECKING:
    from ndbsim.engine.catalog import TableDef
    from ndbsim.engine.database import Engine
    from ndbsim.model.replication import ReplicationLink
    from ndbsim.protocol.sqlnode import SqlNode

ZERO_TIME = "0000-00-00 00:00:00.000000"
REPORT_HOST = ""  # the replica's --report-host, unset by default


@statement(
    "show",
    pattern=re.compile(r"(?i)^SHOW (?P<word>SLAVE|REPLICA) STATUS(?: FOR CHANNEL .+)?$"),
)
async def _replica_status(s: Statement) -> WireResult:
    privileges.require_replication_client(s.session)
    node = s.session.node
    replica = s.match["word"].upper() == "REPLICA"
    columns = replies.replica_status(node.version, replica)
    rows = []
    if node.applier_link is not None:
        values = replica_status_values(node, node.applier_link.snapshot())
        rows.append(tuple(values.values())[: len(columns)])
    return plain(columns, rows)


@statement("show", pattern=re.compile(r"(?i)^SHOW (?P<word>MASTER|BINARY LOG) STATUS$"))
async def _binary_log_status(s: Statement) -> WireResult:
    privileges.require_replication_client(s.session)
    node = s.session.node
    new_words = s.match["word"].upper().startswith("BINARY")
    columns = replies.binary_log_status(node.version, new_words)
    rows = []
    if node.binlog_link is not None:
        view = node.binlog_link.binlog_view(node.node_id)
        rows.append((view["binlog_file"], view["binlog_position"], "", "", ""))
    return plain(columns, rows)


@statement("show", pattern=re.compile(r"(?i)^SHOW (?:BINARY|MASTER) LOGS$"))
async def _binary_logs(s: Statement) -> WireResult:
    """The files of the binary log index with their sizes; the parser refuses SHOW MASTER
    LOGS from 8.4 before any privilege is checked, and a server with log_bin OFF answers
    ER_NO_BINARY_LOGGING (rpl_source.cc show_binlogs)."""
    node, text = s.session.node, s.text
    if text.upper().startswith("SHOW MASTER") and _from_84(s):
        raise SqlError(1064, syntax_near(text[5:]))
    privileges.require_replication_client(s.session)
    if node.binlog_link is None:
        raise SqlError(1381, "You are not using binary logging")
    columns = infoschema.replication_columns("statements", "SHOW BINARY LOGS", node.version)
    files = node.binlog_link.binlog_view(node.node_id)["files"]
    rows = [(name, size, "No")[: len(columns)] for name, size in files]
    return plain(columns, rows)


@statement("show", pattern=re.compile(r"(?i)^SHOW (?P<word>SLAVE HOSTS|REPLICAS)$"))
async def _replicas(s: Statement) -> WireResult:
    """The replicas registered with this source: SHOW REPLICAS from 8.0.22, SHOW SLAVE HOSTS
    until 8.4; the old statement keeps the old column names (rpl_source.cc show_replicas)."""
    node = s.session.node
    privileges.require_global(s.session, "REPLICATION SLAVE")
    old_words = s.match["word"].upper() == "SLAVE HOSTS"
    server = sysvars.server_version(node.version)
    if (old_words and server >= (8, 4)) or (not old_words and server < (8, 0, 22)):
        raise SqlError(1064, syntax_near(s.text[5:]))
    statement = "SHOW SLAVE HOSTS" if old_words else "SHOW REPLICAS"
    columns = infoschema.replication_columns("statements", statement, node.version)
    link = node.binlog_link
    rows = []
    # a replica is registered while its I/O thread is connected (its dump thread runs)
    if link is not None and _registered(link, node.node_id):
        applier = link.replica.sql_node_id
        replica_uuid = sysvars.server_uuid(applier, link.replica.server_id(applier))
        rows.append(
            (link.replica.server_id(applier), REPORT_HOST, link.replica_port,
             link.binlogs[node.node_id].server_id, replica_uuid)
        )  # fmt: skip
    return plain(columns, rows)


def _registered(link: ReplicationLink, node_id: int) -> bool:
    link.snapshot()  # the link at this moment
    return link.registered(node_id)


def _from_84(s: Statement) -> bool:
    """MySQL 8.4 removed the MASTER and SLAVE words."""
    return sysvars.server_version(s.session.node.version) >= (8, 4)


def version_fact(name: str, node: SqlNode) -> Any:
    """A value or text of the replica that changes with the server version (the "facts" of
    data/mysqld/replication.json)."""
    server = sysvars.server_version(node.version)
    facts = sysvars.load_mysqld("replication.json")["facts"][name]
    return next(fact["value"] for fact in facts if sysvars.present(fact, server))


def binlog_epochs(node: SqlNode) -> str:
    """The Status of SHOW ENGINE NDBCLUSTER STATUS's `binlog` row on a binlog server."""
    snap = node.binlog_link.binlog_view(node.node_id)
    return (
        f"latest_epoch={snap['buffered_epoch']}, latest_trans_epoch={snap['last_commit_epoch']}, "
        f"latest_received_binlog_epoch={snap['received_epoch']}, "
        f"latest_handled_binlog_epoch={snap['handled_epoch']}, "
        f"latest_applied_binlog_epoch={snap['written_epoch']}"
    )


# --- the replica's SQL node ------------------------------------------------------------------


def _short_time(unix: float) -> str:
    """Last_*_Error_Timestamp of SHOW REPLICA STATUS: YYMMDD HH:MM:SS."""
    return time.strftime("%y%m%d %H:%M:%S", time.gmtime(unix))


def _long_time(unix: float) -> str:
    """performance_schema timestamps: YYYY-MM-DD HH:MM:SS.ffffff."""
    return time.strftime("%Y-%m-%d %H:%M:%S.000000", time.gmtime(unix))


def io_errno(node: SqlNode, snap: dict[str, Any]) -> int:
    """Last_IO_Errno: a connection's error as it is; the source's refusal under the number
    the I/O thread reports it with (rpl_replica.cc handle_slave_io)."""
    error = snap["io_error"]
    if error is None:
        return 0
    if error.errno == SOURCE_REFUSED:
        return version_fact("source_refused_errno", node)
    return error.errno


def io_error_message(node: SqlNode, snap: dict[str, Any]) -> str:
    """Last_IO_Error: the source's refusal to send its log (handle_slave_io, with the text of
    the source's Binlog_sender::check_start_file), or the error of the I/O thread's last
    attempt to connect (rpl_replica.cc connect_to_master: "reconnecting" after a connection
    it had broke, "connecting" to a source it has not reached since CHANGE REPLICATION
    SOURCE)."""
    error = snap["io_error"]
    if error.errno == SOURCE_REFUSED:
        reason = error.detail.format(source="source" if new_words(node) else "master")
        return version_fact("source_refused_error", node).format(errno=error.errno, reason=reason)
    channel = node.applier_link.channel
    verb = "reconnecting" if channel.source_node is not None else "connecting"
    where = f"{channel.host}:{channel.port}"
    attempt, retries = snap["io_attempts"], version_fact("retry_count", node)
    if not new_words(node):
        return (
            f"error {verb} to master '{channel.user}@{where}' - "
            f"retry-time: {RETRY_SECONDS}  retries: {attempt}"
        )
    return (
        f"Error {verb} to source '{channel.user}@{where}'. This was attempt "
        f"{attempt}/{retries}, with a delay of {RETRY_SECONDS} seconds between attempts. "
        f"Message: Can't connect to MySQL server on '{where}' (111)"
    )


def sql_error_message(node: SqlNode, snap: dict[str, Any]) -> str:
    """The error of the thread that applied the failing event: the SQL thread itself, or the
    worker (whose message worker_error_message prefixes)."""
    error = snap["sql_error"]
    source = "source" if new_words(node) else "master"
    if error.errno == 1590:  # ER_REPLICA_INCIDENT, ER_SLAVE_INCIDENT before 8.0.26
        text = version_fact("incident_error", node)
        return text.format(incident="LOST_EVENTS", message=error.detail)
    table = node.applier_link.source.dictionary.user_tables[0]
    applied = snap["applied"]
    return (
        f"Could not execute Update_rows event on table {table.database}.{table.name}; "
        f"Can't find record in '{table.name}', Error_code: 1032; handler error "
        f"HA_ERR_KEY_NOT_FOUND; the event's {source} log {applied.file}, "
        f"end_log_pos {applied.position}"
    )


FAILING_WORKER = 1  # the worker that applies the failing transaction


def worker_failed(node: SqlNode, snap: dict[str, Any]) -> bool:
    """Whether a worker, not the SQL thread, applied the failing event: a rows event goes to
    a worker; an incident the coordinator applies itself."""
    error = snap["sql_error"]
    return error is not None and error.errno != 1590 and applier_threads.workers(node) > 0


def _failed_transaction(node: SqlNode, snap: dict[str, Any]) -> str:
    applied = snap["applied"]
    source = "source" if new_words(node) else "master"
    return (
        f"Worker {FAILING_WORKER} failed executing transaction 'ANONYMOUS' at {source} log "
        f"{applied.file}, end_log_pos {applied.position}"
    )


def worker_error_message(node: SqlNode, snap: dict[str, Any]) -> str:
    """The failing worker's error (rpl_rli_pdb.cc Slave_worker::do_report): which worker and
    where, then the applier's error."""
    return f"{_failed_transaction(node, snap)}; {sql_error_message(node, snap)}"


def last_sql_error(node: SqlNode, snap: dict[str, Any]) -> str:
    """Last_SQL_Error: with workers, the coordinator's error that points to the worker's
    (Slave_worker::do_report fills it in for the coordinator)."""
    if not worker_failed(node, snap):
        return sql_error_message(node, snap)
    return (
        "Coordinator stopped because there were error(s) in the worker(s). The most recent "
        f"failure being: {_failed_transaction(node, snap)}. See error log and/or "
        "performance_schema.replication_applier_status_by_worker table for more details about "
        "this failure or others, if any."
    )


def replica_status_values(node: SqlNode, snap: dict[str, Any]) -> dict[str, Any]:
    """SHOW SLAVE STATUS of the replica, by the Master/Slave column names in the order of the
    columns (SHOW REPLICA STATUS renames them in the same order; 5.7 ends at Master_TLS_Version)."""
    link = node.applier_link
    channel = link.channel
    received, applied = snap["received"], snap["applied"]
    io_error, sql_error = snap["io_error"], snap["sql_error"]
    sql_message = last_sql_error(node, snap) if sql_error else ""
    relay_pos = applied.position if applied else 4
    info_file = (
        "mysql.slave_master_info" if node.version.ndb[0] >= 8 else "/var/lib/mysql/master.info"
    )
    values: dict[str, Any] = {
        "Slave_IO_State": applier_threads.io_state(node, snap),
        "Master_Host": channel.host,
        "Master_User": channel.user,
        "Master_Port": channel.port,
        "Connect_Retry": RETRY_SECONDS,
        "Master_Log_File": received.file if received else "",
        "Read_Master_Log_Pos": received.position if received else 4,
        "Relay_Log_File": "ndbsim-relay-bin.000002",
        "Relay_Log_Pos": relay_pos,
        "Relay_Master_Log_File": applied.file if applied else "",
        "Slave_IO_Running": snap["io_running"],
        "Slave_SQL_Running": snap["sql_running"],
        "Replicate_Do_DB": "",
        "Replicate_Ignore_DB": "",
        "Replicate_Do_Table": "",
        "Replicate_Ignore_Table": "",
        "Replicate_Wild_Do_Table": "",
        "Replicate_Wild_Ignore_Table": "",
        "Last_Errno": sql_error.errno if sql_error else 0,
        "Last_Error": sql_message,
        "Skip_Counter": 0,
        "Exec_Master_Log_Pos": applied.position if applied else 4,
        "Relay_Log_Space": (received.position if received else 4) + 256,
        "Until_Condition": "None",
        "Until_Log_File": "",
        "Until_Log_Pos": 0,
        "Master_SSL_Allowed": "No",
        "Master_SSL_CA_File": "",
        "Master_SSL_CA_Path": "",
        "Master_SSL_Cert": "",
        "Master_SSL_Cipher": "",
        "Master_SSL_Key": "",
        "Seconds_Behind_Master": snap["seconds_behind"],
        "Master_SSL_Verify_Server_Cert": "No",
        "Last_IO_Errno": io_errno(node, snap),
        "Last_IO_Error": io_error_message(node, snap) if io_error else "",
        "Last_SQL_Errno": sql_error.errno if sql_error else 0,
        "Last_SQL_Error": sql_message,
        "Replicate_Ignore_Server_Ids": "",
        "Master_Server_Id": link.source_server_id(),
        "Master_UUID": source_uuid(link),
        "Master_Info_File": info_file,
        "SQL_Delay": 0,
        "SQL_Remaining_Delay": None,
        "Slave_SQL_Running_State": applier_threads.sql_state(node, snap),
        "Master_Retry_Count": version_fact("retry_count", node),
        "Master_Bind": "",
        "Last_IO_Error_Timestamp": _short_time(io_error.since) if io_error else "",
        "Last_SQL_Error_Timestamp": _short_time(sql_error.since) if sql_error else "",
        "Master_SSL_Crl": "",
        "Master_SSL_Crlpath": "",
        "Retrieved_Gtid_Set": "",
        "Executed_Gtid_Set": "",
        "Auto_Position": 0,
        "Replicate_Rewrite_DB": "",
        "Channel_Name": "",
        "Master_TLS_Version": "",
        "Master_public_key_path": "",
        "Get_master_public_key": 0,
        "Network_Namespace": "",
    }
    return values


def source_uuid(link: ReplicationLink) -> str:
    """@@server_uuid of the source the channel connected to ('' before it did)."""
    node_id = link.channel.source_node
    if node_id is None:
        return ""
    return sysvars.server_uuid(node_id, link.source.server_id(node_id))


def table_rows(node: SqlNode, name: str) -> list[tuple]:
    """Rows of a replication table on this SQL node (empty where it has no part in the link)."""
    link = node.cluster.inbound
    if link is None:
        return []
    snap = link.snapshot()
    if name == "ndb_apply_status":
        # an NDB table: every SQL node of the replica cluster reads it; a row for each binlog
        # server the applier applied epochs from
        return list(snap["apply_status"])
    if node.applier_link is None:
        return []
    columns = infoschema.replication_columns("tables", TABLES[name], node.version)
    if name == "replication_connection_status":
        rows = [_connection_values(node, snap)]
    elif name == "replication_applier_status":
        rows = [_applier_values(snap)]
    else:
        rows = _worker_rows(node, snap)
    return [
        tuple(values.get(c, ZERO_TIME if c.endswith("TIMESTAMP") else "") for c, _ in columns)
        for values in rows
    ]


def fill_binlog_index(node: SqlNode, engine: Engine, target: str, table: TableDef) -> None:
    """mysql.ndb_binlog_index of the binlog server (empty elsewhere): its rows are only added,
    and dropped oldest first with their binlog file, so a statement writes only the epochs
    written since the last one that read them (a day holds 864,000 rows)."""
    link = node.binlog_link
    owner = node.node_id if link is not None else None
    mark = engine.fill_marks.get(target)
    if owner is None:
        if mark != (None, 0):
            engine.replace_rows_in(target, table, [])
            engine.fill_marks[target] = (None, 0)
        return
    newest = mark[1] if mark and mark[0] == owner else 0
    index, oldest = link.index_rows(owner, after=newest)
    rows = [_index_row(r) for r in index]
    if newest == 0:
        engine.replace_rows_in(target, table, rows)
    else:
        engine.append_rows_in(target, table, rows, f"epoch < {oldest}")
    engine.fill_marks[target] = (owner, rows[-1][2] if rows else newest)


def _index_row(r: IndexRow) -> tuple:
    return (
        r.position, BINLOG_DIR + r.file, r.epoch, r.inserts, r.updates, r.deletes, 0, 0, 0,
        r.gci, r.next_position, BINLOG_DIR + r.next_file,
    )  # fmt: skip


# name -> schema.name of the replication tables whose rows come from the link
TABLES = {
    "ndb_binlog_index": "mysql.ndb_binlog_index",
    "ndb_apply_status": "mysql.ndb_apply_status",
    "replication_connection_status": "performance_schema.replication_connection_status",
    "replication_applier_status": "performance_schema.replication_applier_status",
    "replication_applier_status_by_worker": (
        "performance_schema.replication_applier_status_by_worker"
    ),
}


def _io_service_state(snap: dict[str, Any]) -> str:
    if snap["io_running"] == "No":
        return "OFF"
    return "CONNECTING" if snap["io_error"] else "ON"


def _connection_values(node: SqlNode, snap: dict[str, Any]) -> dict[str, Any]:
    link = node.applier_link
    error = snap["io_error"]
    io_thread = applier_threads.IO_PROCESS_ID + applier_threads.THREAD_ID_OFFSET
    return {
        "CHANNEL_NAME": "",
        "GROUP_NAME": "",
        "SOURCE_UUID": source_uuid(link),
        "THREAD_ID": io_thread if snap["io_running"] == "Yes" else None,
        "SERVICE_STATE": _io_service_state(snap),
        "COUNT_RECEIVED_HEARTBEATS": int(link.source.now // 30),
        "LAST_HEARTBEAT_TIMESTAMP": _long_time(link.source.wall_time()),
        "RECEIVED_TRANSACTION_SET": "",
        "LAST_ERROR_NUMBER": io_errno(node, snap),
        "LAST_ERROR_MESSAGE": io_error_message(node, snap) if error else "",
        "LAST_ERROR_TIMESTAMP": _long_time(error.since) if error else ZERO_TIME,
        "LAST_QUEUED_TRANSACTION": "ANONYMOUS",
        "QUEUEING_TRANSACTION": "",
    }


def _applier_values(snap: dict[str, Any]) -> dict[str, Any]:
    """replication_applier_status: the channel's applier, ON while the SQL thread runs
    (table_replication_applier_status.cc make_row). REMAINING_DELAY is NULL without
    SOURCE_DELAY; the applier meets no temporary error that it would retry a transaction for,
    so COUNT_TRANSACTIONS_RETRIES stays 0."""
    return {
        "CHANNEL_NAME": "",
        "SERVICE_STATE": "ON" if snap["sql_running"] == "Yes" else "OFF",
        "REMAINING_DELAY": None,
        "COUNT_TRANSACTIONS_RETRIES": 0,
    }


def _worker_rows(node: SqlNode, snap: dict[str, Any]) -> list[dict[str, Any]]:
    """replication_applier_status_by_worker: one row per worker (WORKER_ID from 1, the
    workers' internal ids), or one for the SQL thread (WORKER_ID 0) without workers. The rows
    stay, OFF, after the SQL thread stops; the failing worker keeps its error."""
    count = applier_threads.workers(node)
    if not count:
        return [_worker_values(node, snap, 0, snap["sql_error"] is not None)]
    failed = worker_failed(node, snap)
    return [
        _worker_values(node, snap, worker, failed and worker == FAILING_WORKER)
        for worker in range(1, count + 1)
    ]


def _worker_values(
    node: SqlNode, snap: dict[str, Any], worker: int, failed: bool
) -> dict[str, Any]:
    error = snap["sql_error"]
    running = snap["sql_running"] == "Yes"
    message = ""
    if failed:
        message = worker_error_message(node, snap) if worker else sql_error_message(node, snap)
    thread = applier_threads.SQL_PROCESS_ID + worker + applier_threads.THREAD_ID_OFFSET
    applying = running and snap["applying"] is not None and worker <= 1
    return {
        "CHANNEL_NAME": "",
        "WORKER_ID": worker,
        "THREAD_ID": thread if running else None,
        "SERVICE_STATE": "ON" if running else "OFF",
        "LAST_SEEN_TRANSACTION": "ANONYMOUS",
        "LAST_ERROR_NUMBER": error.errno if failed else 0,
        "LAST_ERROR_MESSAGE": message,
        "LAST_ERROR_TIMESTAMP": _long_time(error.since) if failed else ZERO_TIME,
        "LAST_APPLIED_TRANSACTION": "ANONYMOUS",
        "APPLYING_TRANSACTION": "ANONYMOUS" if applying else "",
        "LAST_APPLIED_TRANSACTION_RETRIES_COUNT": 0,
        "LAST_APPLIED_TRANSACTION_LAST_TRANSIENT_ERROR_NUMBER": 0,
        "APPLYING_TRANSACTION_RETRIES_COUNT": 0,
        "APPLYING_TRANSACTION_LAST_TRANSIENT_ERROR_NUMBER": 0,
    }
