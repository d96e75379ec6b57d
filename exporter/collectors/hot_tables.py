"""Operations per user table for the busiest tables (or the tables listed) (off by default),
from ndbinfo.operations_per_fragment summed per table in SQL, so at most ``limit`` rows are
fetched. Counters since each fragment replica's data node started; key operations count on
every replica that executes them (reads on the primary, or a backup with READ_BACKUP)."""

from __future__ import annotations

from collections.abc import Iterable

from ._per_table import params, per_table, table_options
from .base import Collector, Row, counter

LABELS = ("db", "table")

KEY_READS = counter("ndb_table_key_reads_total", "Key reads of the table.", LABELS)
KEY_WRITES = counter(
    "ndb_table_key_writes_total",
    "Key inserts, updates, writes and deletes of the table, on every replica.",
    LABELS,
)
SCANS = counter("ndb_table_fragment_scans_total", "Fragment scans of the table.", LABELS)
SCAN_ROWS = counter(
    "ndb_table_scan_rows_examined_total", "Rows the table's fragment scans examined.", LABELS
)
SCAN_ROWS_RETURNED = counter(
    "ndb_table_scan_rows_returned_total", "Rows the table's fragment scans returned.", LABELS
)

SQL = (
    "SELECT fq_name, SUM(tot_key_reads) AS key_reads,"
    " SUM(tot_key_inserts + tot_key_updates + tot_key_writes + tot_key_deletes) AS key_writes,"
    " SUM(tot_frag_scans) AS scans, SUM(tot_scan_rows_examined) AS rows_examined,"
    " SUM(tot_scan_rows_returned) AS rows_returned"
    " FROM ndbinfo.operations_per_fragment"
    " WHERE type = 'User table' AND (%s = '' OR INSTR(%s, CONCAT(',', fq_name, ',')) > 0)"
    " GROUP BY fq_name"
    " ORDER BY SUM(tot_key_reads + tot_key_inserts + tot_key_updates + tot_key_writes"
    " + tot_key_deletes + tot_frag_scans) DESC, fq_name LIMIT %s"
)


def collect(rows: list[Row], ctx) -> Iterable:
    specs = {
        "key_reads": KEY_READS,
        "key_writes": KEY_WRITES,
        "scans": SCANS,
        "rows_examined": SCAN_ROWS,
        "rows_returned": SCAN_ROWS_RETURNED,
    }
    yield from per_table(rows, specs)


COLLECTOR = Collector(
    name="hot_tables",
    help="Key reads, key writes, fragment scans and scan rows of the busiest user tables (or"
    " of the tables listed) (operations_per_fragment). Off by default: labelled by table, and"
    " the data nodes scan every fragment of every table for it.",
    default_enabled=False,
    reads={
        "operations_per_fragment": (
            "fq_name",
            "type",
            "tot_key_reads",
            "tot_key_inserts",
            "tot_key_updates",
            "tot_key_writes",
            "tot_key_deletes",
            "tot_frag_scans",
            "tot_scan_rows_examined",
            "tot_scan_rows_returned",
        )
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    params=params,
    options=table_options("with the most operations"),
    metrics=(KEY_READS, KEY_WRITES, SCANS, SCAN_ROWS, SCAN_ROWS_RETURNED),
)
