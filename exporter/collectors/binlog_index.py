"""The epochs this binlog server's mysql.ndb_binlog_index still holds: the oldest and the
newest, as GCIs, labelled with this SQL node's @@server_id.

The NDB binlog injector writes a row for each epoch it commits to the binary log (an empty
epoch only with ndb_log_empty_epochs), with the binary log file and position where the
epoch's transaction starts and ends, and removes a file's rows when the file is purged
(ha_ndbcluster_binlog.cc, ndb_binlog_index_table__write_rows and
ndbcluster_binlog_index_purge_file). A replica channel can be pointed at this server only
from an epoch it still holds (the manual's failover query: `WHERE epoch = @latest`, the
replica's newest applied epoch): the oldest GCI against the replica's applied one says
whether this server could take over as the replica's source. The table is InnoDB, its
primary key starting with epoch: MIN and MAX read one row each. On a SQL node that writes no
binary log it is empty (no series); until it exists the collector exports nothing."""

from __future__ import annotations

from collections.abc import Iterable

from ._epochs import gci
from .base import NO_SUCH_TABLE, Collector, Context, Row, gauge

OLDEST = gauge(
    "ndb_binlog_index_oldest_gci",
    "GCI (epoch >> 32) of the oldest epoch this binlog server's mysql.ndb_binlog_index still"
    " holds: a replica can be repositioned onto this server from that epoch on.",
    ("server_id",),
)
NEWEST = gauge(
    "ndb_binlog_index_newest_gci",
    "GCI (epoch >> 32) of the newest epoch in this binlog server's mysql.ndb_binlog_index.",
    ("server_id",),
)

SQL = "SELECT MIN(epoch) AS oldest, MAX(epoch) AS newest FROM mysql.ndb_binlog_index"


def collect(rows: list[Row], ctx: Context) -> Iterable:
    if not rows or rows[0]["oldest"] is None:
        return
    server_id = "" if ctx.target.server_id is None else str(ctx.target.server_id)
    for spec, column in ((OLDEST, "oldest"), (NEWEST, "newest")):
        family = spec.family()
        family.add_metric([server_id], gci(rows[0][column]))
        yield family


COLLECTOR = Collector(
    name="binlog_index",
    help="The oldest and newest epochs a binlog server's mysql.ndb_binlog_index holds (from"
    " where a replica could fail over to it). On by default: two index look-ups; no series"
    " on a SQL node that writes no binary log; needs SELECT on mysql.ndb_binlog_index.",
    default_enabled=True,
    reads={},
    server_reads={"mysql.ndb_binlog_index": ("epoch",)},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(OLDEST, NEWEST),
    absent_errors=NO_SUCH_TABLE,
)
