"""What RonDB's memory views share (ndbinfo.database_memory_usage and table_memory_usage, of
its ndb$table_memory_usage and ndb$table_map): memory allocated and free in it, in memory and
on disk, one copy of the data (the views take the largest of a fragment's replicas). RonDB
lets one read of these views run at a time in the data nodes, and paces it: the collectors
read them at the refresh maximum age, the largest ones first, at most ``limit`` rows."""

from __future__ import annotations

from collections.abc import Iterable

from .base import MetricSpec, Row, add_value, number, text

# storage label -> (allocated column, free column)
STORAGE = {
    "memory": ("in_memory_bytes", "free_in_memory_bytes"),
    "disk": ("disk_memory_bytes", "free_disk_memory_bytes"),
}
COLUMNS = tuple(column for pair in STORAGE.values() for column in pair)


def memory(rows: list[Row], names: tuple[str, ...], used: MetricSpec, free: MetricSpec) -> Iterable:
    """A sample of each family per row (named by the `names` columns) and storage."""
    families = used.family(), free.family()
    for row in rows:
        labels = [text(row[name]) for name in names]
        for storage, columns in STORAGE.items():
            for family, column in zip(families, columns, strict=True):
                add_value(family, [*labels, storage], number(row[column]))
    yield from families
