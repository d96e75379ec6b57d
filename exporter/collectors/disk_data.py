"""Disk data files: the size and free space of every tablespace data file and undo log file
(information_schema.FILES, ENGINE ndbcluster)."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, gauge, number, text

LABELS = ("type", "filegroup", "file")
WHICH = (
    " type is DATAFILE (a tablespace's data file) or UNDO LOG (a log file group's undo file),"
    " filegroup the tablespace or log file group."
)

SIZE = gauge("ndb_disk_data_file_size_bytes", "Size of the disk data file." + WHICH, LABELS)
FREE = gauge(
    "ndb_disk_data_file_free_bytes",
    "Free space of the disk data file: its free extents (a data file) or free undo log"
    " space (an undo file)." + WHICH,
    LABELS,
)

SQL = (
    "SELECT FILE_TYPE, TABLESPACE_NAME, FILE_NAME, FREE_EXTENTS, TOTAL_EXTENTS, EXTENT_SIZE"
    " FROM information_schema.FILES WHERE ENGINE = 'ndbcluster'"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    size, free = SIZE.family(), FREE.family()
    for row in sorted(rows, key=lambda r: (text(r["TABLESPACE_NAME"]), text(r["FILE_NAME"]))):
        extent = number(row["EXTENT_SIZE"])
        if extent is None:
            continue
        labels = [text(row["FILE_TYPE"]), text(row["TABLESPACE_NAME"]), text(row["FILE_NAME"])]
        size.add_metric(labels, (number(row["TOTAL_EXTENTS"]) or 0.0) * extent)
        free.add_metric(labels, (number(row["FREE_EXTENTS"]) or 0.0) * extent)
    yield from (size, free)


COLLECTOR = Collector(
    name="disk_data",
    help="Size and free space of every disk data file: tablespace data files and undo log"
    " files (information_schema.FILES, one row per file from NDB 8.0). On by default: one"
    " row per file, answered by the SQL node from the dictionary.",
    default_enabled=True,
    reads={},
    server_reads={
        "information_schema.FILES": (
            "FILE_TYPE",
            "TABLESPACE_NAME",
            "FILE_NAME",
            "FREE_EXTENTS",
            "TOTAL_EXTENTS",
            "EXTENT_SIZE",
            "ENGINE",
        )
    },
    min_version=(8, 0, 0),
    sql=SQL,
    collect=collect,
    metrics=(SIZE, FREE),
)
