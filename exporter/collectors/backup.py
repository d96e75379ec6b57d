"""Id of the last backup from ndbinfo.backup_id (NDB 8.0.24+)."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, gauge, number

LAST_ID = gauge(
    "ndb_backup_last_id",
    "Id of the last backup started in the cluster (0 when none); it changes with every backup"
    " started (lower when START BACKUP is given a lower id), not when one completes.",
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    ids = [number(row["id"]) for row in rows if number(row["id"]) is not None]
    family = LAST_ID.family()
    family.add_metric([], max(ids, default=0.0))
    yield family


COLLECTOR = Collector(
    name="backup",
    help="Id of the last backup (ndbinfo.backup_id; NDB 8.0.24+). On by default: one row.",
    default_enabled=True,
    reads={"backup_id": ("id",)},
    min_version=(8, 0, 24),
    sql="SELECT MAX(id) AS id FROM ndbinfo.backup_id",
    collect=collect,
    metrics=(LAST_ID,),
)
