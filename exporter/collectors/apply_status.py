"""What the replica appliers of this SQL node's cluster have applied: mysql.ndb_apply_status
(an NDB table, the same through every SQL node of the cluster), one row per source SQL node
(server_id) with the newest epoch applied from it.

Every SQL node creates the table when it first connects to the cluster, whether or not it
replicates: on a SQL node that never replicated it is empty (no series). Until it exists
(ER_NO_SUCH_TABLE, 1146) the collector exports nothing instead of failing."""

from __future__ import annotations

from collections.abc import Iterable

from ._epochs import gci
from .base import NO_SUCH_TABLE, Collector, Context, Row, add_value, gauge, ident

MAX_SOURCES = 64

APPLIED_GCI = gauge(
    "ndb_replica_applied_gci",
    "GCI (epoch >> 32) of the newest epoch this cluster's replica applier has applied from the"
    " source SQL node with this server_id (mysql.ndb_apply_status).",
    ("server_id",),
)

SQL = f"SELECT server_id, epoch FROM mysql.ndb_apply_status ORDER BY server_id LIMIT {MAX_SOURCES}"


def collect(rows: list[Row], ctx: Context) -> Iterable:
    if not rows:
        return
    family = APPLIED_GCI.family()
    for row in rows:
        add_value(family, [ident(row["server_id"])], gci(row["epoch"]))
    yield family


COLLECTOR = Collector(
    name="apply_status",
    help="The newest epoch applied by the replica applier, per source SQL node"
    " (mysql.ndb_apply_status, at most 64 sources). On by default: a row per source; empty"
    " on a SQL node that never replicated.",
    default_enabled=True,
    reads={},
    server_reads={"mysql.ndb_apply_status": ("server_id", "epoch")},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(APPLIED_GCI,),
    absent_errors=NO_SUCH_TABLE,
)
