"""Checkpoint/backup and redo write rates per data node, and how long redo log IO lag has slowed
the checkpoint writes, from disk_write_speed_aggregate (one row per LDM thread, summed per node
in SQL as the view disk_write_speed_aggregate_node does: the data nodes produce the same rows).

slowdowns_due_to_io_lag counts the seconds since the node started in which an LDM thread
slowed its checkpoint writes because the writes of its redo log part lagged (the adaptive disk
write speed of the BACKUP block). The node's figure is the most of its LDM threads: seconds of
the thread whose redo log lagged longest."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, add_value, counter, gauge, ident, number

SPEED = gauge(
    "ndb_disk_write_speed_bytes_per_second",
    "Disk write rate of local checkpoints and backups (backup_lcp) and of the redo log (redo),"
    " averaged over the last 10 and 60 seconds.",
    ("node_id", "kind", "window"),
)
# The last second's rate is left out: read once per scrape interval it is a sample of one
# second in fifteen or more; the 10 and 60 second averages cover the interval.
SERIES = tuple(
    (kind, window, f"{kind}_speed_last_{suffix}")
    for kind in ("backup_lcp", "redo")
    for window, suffix in (("10s", "10sec"), ("60s", "60sec"))
)
IO_LAG = counter(
    "ndb_redo_io_lag_seconds_total",
    "Seconds since the data node started in which an LDM thread slowed its checkpoint writes"
    " because its redo log writes lagged (slowdowns_due_to_io_lag, the most of the node's LDM"
    " threads).",
    ("node_id",),
)
SQL = (
    "SELECT node_id, "
    + ", ".join(f"SUM({column}) AS {column}" for _, _, column in SERIES)
    + ", MAX(slowdowns_due_to_io_lag) AS slowdowns_due_to_io_lag"
    + " FROM ndbinfo.disk_write_speed_aggregate GROUP BY node_id"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    family = SPEED.family()
    io_lag = IO_LAG.family()
    for row in sorted(rows, key=lambda r: number(r["node_id"])):
        node = ident(row["node_id"])
        for kind, window, column in SERIES:
            add_value(family, [node, kind, window], number(row[column]))
        add_value(io_lag, [node], number(row["slowdowns_due_to_io_lag"]))
    yield family
    yield io_lag


COLLECTOR = Collector(
    name="disk_write_speed",
    help="Write rates of checkpoints/backups and of the redo log per data node, and the seconds"
    " redo log IO lag slowed the checkpoint writes (ndbinfo.disk_write_speed_aggregate, summed"
    " per node in SQL). On by default: one row per data node.",
    default_enabled=True,
    reads={
        "disk_write_speed_aggregate": (
            "node_id",
            *(column for _, _, column in SERIES),
            "slowdowns_due_to_io_lag",
        )
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(SPEED, IO_LAG),
)
