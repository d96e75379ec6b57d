"""The SQL node's metadata synchronization with the NDB dictionary (8.0.21+): objects queued
for synchronization and objects excluded after it failed, counted by object type."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, gauge, number, text

TYPES = ("LOGFILE GROUP", "TABLESPACE", "SCHEMA", "TABLE")

PENDING = gauge(
    "ndb_sql_metadata_sync_pending_objects",
    "Objects the SQL node has detected as differing from the NDB dictionary and queued for"
    " synchronization (performance_schema.ndb_sync_pending_objects).",
    ("type",),
)
EXCLUDED = gauge(
    "ndb_sql_metadata_sync_excluded_objects",
    "Objects the SQL node failed to synchronize and excludes until they change or are"
    " synchronized by hand (performance_schema.ndb_sync_excluded_objects).",
    ("type",),
)

SQL = (
    "SELECT 'pending' AS queue, TYPE AS type, COUNT(*) AS objects"
    " FROM performance_schema.ndb_sync_pending_objects GROUP BY TYPE"
    " UNION ALL SELECT 'excluded', TYPE, COUNT(*)"
    " FROM performance_schema.ndb_sync_excluded_objects GROUP BY TYPE"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    counts = {queue: dict.fromkeys(TYPES, 0.0) for queue in ("pending", "excluded")}
    for row in rows:
        queue = counts.get(text(row["queue"]))
        if queue is not None:
            kind = text(row["type"])
            queue[kind] = queue.get(kind, 0.0) + (number(row["objects"]) or 0.0)
    for spec, queue in ((PENDING, "pending"), (EXCLUDED, "excluded")):
        family = spec.family()
        for kind, value in counts[queue].items():
            family.add_metric([kind], value)
        yield family


COLLECTOR = Collector(
    name="metadata_sync",
    help="Objects the SQL node has queued for metadata synchronization with the NDB dictionary"
    " and objects it excluded after a failure, by type (performance_schema"
    ".ndb_sync_pending_objects and ndb_sync_excluded_objects, 8.0.21+). On by default: a"
    " count per queue and type.",
    default_enabled=True,
    reads={},
    server_reads={
        "performance_schema.ndb_sync_pending_objects": ("TYPE",),
        "performance_schema.ndb_sync_excluded_objects": ("TYPE",),
    },
    min_version=(8, 0, 21),
    sql=SQL,
    collect=collect,
    metrics=(PENDING, EXCLUDED),
)
