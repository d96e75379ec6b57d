"""The replication channels of this SQL node: SHOW REPLICA STATUS (mysqld 8.0.22+, the only
form from 8.4 on) or SHOW SLAVE STATUS (mysqld 5.7: NDB 7.5 and 7.6), a row per channel.

The two forms name the same columns with different words (Replica_IO_Running or
Slave_IO_Running, Seconds_Behind_Source or Seconds_Behind_Master, Source_Server_Id or
Master_Server_Id). The default channel's Channel_Name is '': its label is then empty, which
Prometheus reads as absent. A SQL node that is no replica returns no row, and no series."""

from __future__ import annotations

from collections.abc import Iterable

from ._replica_words import by_version, column_value
from .base import Collector, Context, Row, add_states, add_value, gauge, number, text

IO_STATES = ("yes", "connecting", "no")
SQL_STATES = ("yes", "no")

IO_THREAD = gauge(
    "ndb_replica_io_thread_state",
    "1 for the current state of the channel's I/O (receiver) thread, 0 for the others: yes,"
    " connecting or no (Replica_IO_Running / Slave_IO_Running).",
    ("channel", "state"),
)
SQL_THREAD = gauge(
    "ndb_replica_sql_thread_state",
    "1 for the current state of the channel's SQL (applier) thread, 0 for the other: yes or no"
    " (Replica_SQL_Running / Slave_SQL_Running).",
    ("channel", "state"),
)
IO_ERROR = gauge(
    "ndb_replica_last_io_error_number",
    "MySQL error number of the channel's last I/O thread error, 0 for none (Last_IO_Errno;"
    " 2003: the source cannot be reached).",
    ("channel",),
)
SQL_ERROR = gauge(
    "ndb_replica_last_sql_error_number",
    "MySQL error number of the channel's last SQL thread error, 0 for none (Last_SQL_Errno;"
    " 1590: the source's binary log has an incident, LOST_EVENTS: a gap).",
    ("channel",),
)
BEHIND = gauge(
    "ndb_replica_seconds_behind_source",
    "How far the channel's applier is behind the source, in seconds (Seconds_Behind_Source /"
    " Seconds_Behind_Master); no sample while it is NULL (a thread not running).",
    ("channel",),
)
SOURCE_ID = gauge(
    "ndb_replica_source_server_id",
    "server_id of the source the channel replicates from (Source_Server_Id / Master_Server_Id).",
    ("channel",),
)
RELAY_LOG_SPACE = gauge(
    "ndb_replica_relay_log_space_bytes",
    "Bytes of all the channel's relay log files (Relay_Log_Space): what the I/O thread received"
    " and the applier has not yet purged.",
    ("channel",),
)

# The numeric families: (column, spec).
NUMBERS = (
    ("Last_IO_Errno", IO_ERROR),
    ("Last_SQL_Errno", SQL_ERROR),
    ("Seconds_Behind_Source", BEHIND),
    ("Source_Server_Id", SOURCE_ID),
    ("Relay_Log_Space", RELAY_LOG_SPACE),
)

# Column -> its name in SHOW SLAVE STATUS.
COLUMNS = {
    "Channel_Name": "Channel_Name",
    "Replica_IO_Running": "Slave_IO_Running",
    "Replica_SQL_Running": "Slave_SQL_Running",
    "Last_IO_Errno": "Last_IO_Errno",
    "Last_SQL_Errno": "Last_SQL_Errno",
    "Seconds_Behind_Source": "Seconds_Behind_Master",
    "Source_Server_Id": "Master_Server_Id",
    "Relay_Log_Space": "Relay_Log_Space",
}


def _value(row: Row, column: str):
    return column_value(row, column, COLUMNS)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    if not rows:
        return
    io_thread, sql_thread = IO_THREAD.family(), SQL_THREAD.family()
    numbers = {column: spec.family() for column, spec in NUMBERS}
    for row in rows:
        channel = [text(_value(row, "Channel_Name"))]
        add_states(io_thread, channel, text(_value(row, "Replica_IO_Running")).lower(), IO_STATES)
        add_states(
            sql_thread, channel, text(_value(row, "Replica_SQL_Running")).lower(), SQL_STATES
        )
        for column, family in numbers.items():
            add_value(family, channel, number(_value(row, column)))
    yield io_thread
    yield sql_thread
    yield from numbers.values()


COLLECTOR = Collector(
    name="replica_status",
    help="The replication channels of the SQL node: I/O and SQL thread states, last error"
    " numbers, seconds behind the source, the source's server_id and the relay log space,"
    " per channel. On by"
    " default: a row per channel, none on a SQL node that is no replica; SHOW REPLICA STATUS"
    " from mysqld 8.0.22, SHOW SLAVE STATUS before (NDB 7.5, 7.6); needs REPLICATION CLIENT.",
    default_enabled=True,
    reads={},
    server_reads={
        "SHOW REPLICA STATUS": tuple(COLUMNS),
        "SHOW SLAVE STATUS": tuple(COLUMNS.values()),
    },
    min_version=(7, 5, 0),
    sql=by_version("SHOW REPLICA STATUS", "SHOW SLAVE STATUS"),
    collect=collect,
    metrics=(IO_THREAD, SQL_THREAD, *(spec for _, spec in NUMBERS)),
)
