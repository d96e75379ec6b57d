"""The replicas reading this binlog server: SHOW REPLICAS (mysqld 8.0.22+, the only form
from 8.4 on) or SHOW SLAVE HOSTS (mysqld 5.7: NDB 7.5 and 7.6), a row per replica registered
with this SQL node.

A replica's I/O thread registers (COM_REGISTER_SLAVE) before it asks for the binary log, and
its registration goes when its dump thread ends (rpl_source.cc register_replica,
unregister_replica, show_replicas): the rows are the replicas connected now, whatever their
--report-host. Host and Port are what the replica reports (--report-host, --report-port):
Host is empty on a replica that sets no report_host. A SQL node that writes no binary log
has none; its count is 0."""

from __future__ import annotations

from collections.abc import Iterable

from ._replica_words import by_version, column_value
from .base import Collector, Context, Row, gauge, ident, number, text

# A source has few replicas; the info series stop at this many (the count has them all).
MAX_REPLICAS = 16

ATTACHED = gauge(
    "ndb_binlog_replicas_attached",
    "Replicas registered with this SQL node and reading its binary log now (SHOW REPLICAS /"
    " SHOW SLAVE HOSTS): 0 on a SQL node that writes no binary log or that no replica reads.",
)
INFO = gauge(
    "ndb_binlog_replica_info",
    "1 for each replica reading this SQL node's binary log: its @@server_id and the host and"
    " port it reports (--report-host, empty when not set; --report-port); at most"
    f" {MAX_REPLICAS}, by server_id.",
    ("server_id", "host", "port"),
)

# Column -> its name in SHOW SLAVE HOSTS.
COLUMNS = {"Server_Id": "Server_id", "Host": "Host", "Port": "Port"}


def _value(row: Row, column: str):
    return column_value(row, column, COLUMNS)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    attached = ATTACHED.family()
    attached.add_metric([], float(len(rows)))
    yield attached
    if not rows:
        return
    info = INFO.family()
    replicas = sorted(rows, key=lambda row: number(_value(row, "Server_Id")) or 0)
    for row in replicas[:MAX_REPLICAS]:
        labels = [
            ident(_value(row, "Server_Id")),
            text(_value(row, "Host")),
            ident(_value(row, "Port")),
        ]
        info.add_metric(labels, 1.0)
    yield info


COLLECTOR = Collector(
    name="binlog_replicas",
    help="The replicas reading this SQL node's binary log: their number, and the server_id,"
    f" host and port of each (at most {MAX_REPLICAS}). Off by default: one statement the SQL"
    " node answers from its own list, but it needs REPLICATION SLAVE, the privilege of a"
    " replica's account, which also reads the binary log; SHOW REPLICAS from mysqld 8.0.22,"
    " SHOW SLAVE HOSTS before (NDB 7.5, 7.6). check --safe-to-stop reads it for a binlog server.",
    default_enabled=False,
    reads={},
    server_reads={
        "SHOW REPLICAS": tuple(COLUMNS),
        "SHOW SLAVE HOSTS": tuple(COLUMNS.values()),
    },
    min_version=(7, 5, 0),
    sql=by_version("SHOW REPLICAS", "SHOW SLAVE HOSTS"),
    collect=collect,
    metrics=(ATTACHED, INFO),
)
