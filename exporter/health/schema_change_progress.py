"""The schema changes that move rows, read back from the schema_changes collector's series
for the view and ``report``: each copying ALTER TABLE and each REORGANIZE PARTITION under way
with its share done, which the collector computes once (collectors/schema_changes.py).

A copy's rows and bytes are labelled by its ``#sql-`` table and its share by the table it
copies. The labels cannot tell which copy a share belongs to when a database holds several,
so the two are joined only where a database has one copy and one share: elsewhere each copy
is listed without its share and each share without its copy."""

from __future__ import annotations

from ndbinfo_exporter.health.models import SchemaChange
from ndbinfo_exporter.health.samples import Samples, whole

Tables = dict[str, dict[str, float]]


def schema_changes(samples: Samples) -> list[SchemaChange]:
    """The copies by database, then the reorganizations, by table."""
    reorganized = _by_database(samples, "ndb_table_reorganize_progress_ratio")
    return _copies(samples) + [
        SchemaChange(kind="reorganize", database=database, table=table, progress=share)
        for database, tables in sorted(reorganized.items())
        for table, share in sorted(tables.items())
    ]


def _by_database(samples: Samples, name: str) -> Tables:
    """database -> table -> value of the samples of ``name``."""
    found: Tables = {}
    for labels, value in samples.select(name):
        found.setdefault(labels["database"], {})[labels["table"]] = value
    return found


def _copies(samples: Samples) -> list[SchemaChange]:
    copied = _by_database(samples, "ndb_table_copy_rows")
    allocated = _by_database(samples, "ndb_table_copy_bytes")
    shares = _by_database(samples, "ndb_table_copy_progress_ratio")
    changes = []
    for database in sorted(set(copied) | set(shares)):
        copies, sources = copied.get(database, {}), shares.get(database, {})
        sizes = allocated.get(database, {})
        if len(copies) == len(sources) == 1:
            [(copy, rows)], [(table, share)] = copies.items(), sources.items()
            changes.append(_copy(database, table, copy, share, rows, sizes.get(copy)))
            continue
        changes += [
            _copy(database, None, copy, None, rows, sizes.get(copy))
            for copy, rows in sorted(copies.items())
        ]
        changes += [
            _copy(database, table, None, share, None, None)
            for table, share in sorted(sources.items())
        ]
    return changes


def _copy(
    database: str,
    table: str | None,
    copy: str | None,
    share: float | None,
    rows: float | None,
    size: float | None,
) -> SchemaChange:
    return SchemaChange(
        kind="copy",
        database=database,
        table=table,
        copy_table=copy,
        progress=share,
        rows=whole(rows),
        bytes=whole(size),
    )
