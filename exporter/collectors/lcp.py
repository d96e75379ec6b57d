"""Local checkpoint progress from the first rows of ndbinfo.table_replicas.

Every local checkpoint covers every fragment of every logged table, so any alive replica
carries the id of the last completed LCP and the GCI it made durable. ndbinfo sends the rows
of a scan in batches of ndbinfo_max_rows, data node after data node, and mysqld stops asking
once a LIMIT is met: the data nodes produce a few batches, not the hundreds of thousands of
replicas that the replicas collector aggregates when the distribution changes. So LCP
progress is read at every scrape at the cost of a small table.
"""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, gauge, number

SAMPLE = 64

LCP_ID = gauge(
    "ndb_lcp_id",
    "Newest last_lcp_id over a sample of alive replicas: the id of the last completed local"
    " checkpoint; it stands still when LCPs stall.",
)
LCP_GCI = gauge(
    "ndb_lcp_completed_gci",
    "Newest last_max_gci_completed over a sample of alive replicas: the GCI up to which the"
    " last local checkpoint made the data durable. Compare with"
    " floor(ndb_sql_last_commit_epoch / 2^32).",
)

# No WHERE, ORDER BY or aggregate: any of them would make mysqld read the whole table.
SQL = (
    "SELECT is_replica_alive, last_lcp_id, last_max_gci_completed"
    f" FROM ndbinfo.table_replicas LIMIT {SAMPLE}"
)


def _newest(rows: list[Row], column: str) -> float | None:
    values = [number(row[column]) for row in rows if (number(row["is_replica_alive"]) or 0) > 0]
    present = [value for value in values if value is not None]
    return max(present) if present else None


def collect(rows: list[Row], ctx: Context) -> Iterable:
    for spec, column in ((LCP_ID, "last_lcp_id"), (LCP_GCI, "last_max_gci_completed")):
        value = _newest(rows, column)
        if value is not None:
            family = spec.family()
            family.add_metric([], value)
            yield family


COLLECTOR = Collector(
    name="lcp",
    help="The last completed local checkpoint and the GCI it made durable, from the first"
    f" {SAMPLE} rows of ndbinfo.table_replicas. On by default: the scan ends after a few"
    " batches, whatever the number of tables.",
    default_enabled=True,
    reads={"table_replicas": ("is_replica_alive", "last_lcp_id", "last_max_gci_completed")},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(LCP_ID, LCP_GCI),
)
