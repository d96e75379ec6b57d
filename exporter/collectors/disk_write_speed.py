"""Checkpoint/backup and redo write rates per data node from disk_write_speed_aggregate_node."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, add_value, gauge, ident, number

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
SQL = (
    "SELECT node_id, "
    + ", ".join(column for _, _, column in SERIES)
    + " FROM ndbinfo.disk_write_speed_aggregate_node"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    family = SPEED.family()
    for row in sorted(rows, key=lambda r: number(r["node_id"])):
        for kind, window, column in SERIES:
            add_value(family, [ident(row["node_id"]), kind, window], number(row[column]))
    yield family


COLLECTOR = Collector(
    name="disk_write_speed",
    help="Write rates of checkpoints/backups and of the redo log per data node"
    " (ndbinfo.disk_write_speed_aggregate_node). On by default: one row per data node.",
    default_enabled=True,
    reads={"disk_write_speed_aggregate_node": ("node_id", *(column for _, _, column in SERIES))},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(SPEED,),
)
