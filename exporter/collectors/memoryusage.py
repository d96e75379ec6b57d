"""Data memory, long message buffer (and 7.5 index memory) from ndbinfo.memoryusage."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, add_value, gauge, ident, number, text

LABELS = ("node_id", "memory_type")
USED = gauge("ndb_memory_used_bytes", "Memory in use per data node and pool.", LABELS)
TOTAL = gauge("ndb_memory_total_bytes", "Memory available per data node and pool.", LABELS)
# used_pages and total_pages are the same amounts in the pool's page size: not exported.
COLUMNS = (("used", USED), ("total", TOTAL))


def collect(rows: list[Row], ctx: Context) -> Iterable:
    families = {column: spec.family() for column, spec in COLUMNS}
    for row in sorted(rows, key=lambda r: (number(r["node_id"]), text(r["memory_type"]))):
        labels = [ident(row["node_id"]), text(row["memory_type"])]
        for column, family in families.items():
            add_value(family, labels, number(row[column]))
    yield from families.values()


COLLECTOR = Collector(
    name="memoryusage",
    help="Used and total data memory and long message buffer per data node"
    " (ndbinfo.memoryusage; 7.5 also index memory). On by default: 2-3 rows per data node.",
    default_enabled=True,
    reads={"memoryusage": ("node_id", "memory_type", "used", "total")},
    min_version=(7, 5, 0),
    sql="SELECT node_id, memory_type, used, total FROM ndbinfo.memoryusage",
    collect=collect,
    metrics=tuple(spec for _, spec in COLUMNS),
)
