"""Data memory, long message buffer (and 7.5 index memory) from ndbinfo.memoryusage."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, gauge, ident, number, text

LABELS = ("node_id", "memory_type")
USED = gauge("ndb_memory_used_bytes", "Memory in use per data node and pool.", LABELS)
TOTAL = gauge("ndb_memory_total_bytes", "Memory available per data node and pool.", LABELS)
USED_PAGES = gauge(
    "ndb_memory_used_pages",
    "Pages in use (32 KiB for Data memory, 256 bytes for Long message buffer).",
    LABELS,
)
TOTAL_PAGES = gauge("ndb_memory_total_pages", "Pages available.", LABELS)

COLUMNS = (
    ("used", USED),
    ("total", TOTAL),
    ("used_pages", USED_PAGES),
    ("total_pages", TOTAL_PAGES),
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    families = {column: spec.family() for column, spec in COLUMNS}
    for row in sorted(rows, key=lambda r: (number(r["node_id"]), text(r["memory_type"]))):
        labels = [ident(row["node_id"]), text(row["memory_type"])]
        for column, family in families.items():
            if number(row[column]) is not None:
                family.add_metric(labels, number(row[column]))
    yield from families.values()


COLLECTOR = Collector(
    name="memoryusage",
    help="Used and total data memory and long message buffer per data node"
    " (ndbinfo.memoryusage; 7.5 also index memory). On by default: 2-3 rows per data node.",
    default_enabled=True,
    reads={"memoryusage": ("node_id", "memory_type", "used", "used_pages", "total", "total_pages")},
    min_version=(7, 5, 0),
    sql="SELECT node_id, memory_type, used, used_pages, total, total_pages FROM ndbinfo.memoryusage",
    collect=collect,
    metrics=tuple(spec for _, spec in COLUMNS),
)
