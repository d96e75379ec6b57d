"""Progress of the schema changes that move rows: a copying ALTER TABLE and ALTER TABLE ...
REORGANIZE PARTITION, from memory_per_fragment (and table_distribution_status).

A copying ALTER (ALGORITHM=COPY) creates `#sql-<hex>` in the table's database and copies the
rows into it; its source is the one other table of that database with the same fixed row size.
A reorganization adds fragments to a table (is_reorg_ongoing = 1) and moves rows into them: its
fragments holding fewer rows than the table's mean per fragment are the new ones, which hold
that mean each once it is done.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from ._per_table import split_name
from .base import Collector, Context, Row, SlowChanging, add_value, gauge, number, text

LABELS = ("database", "table")
COPY_PREFIX = "#sql-"
MAX_TABLES = 5  # schema changes exported at a time, of each kind

COPY_RATIO = gauge(
    "ndb_table_copy_progress_ratio",
    "Share copied of a table a copying ALTER TABLE runs on: the rows of its #sql- copy over"
    " its own (fixed_elem_count summed over the fragment replicas of memory_per_fragment). The"
    " table copied is the one other table of the database with the copy's fixed row size;"
    " none when it cannot be told. Only while a copy runs.",
    LABELS,
)
COPY_ROWS = gauge(
    "ndb_table_copy_rows",
    "Rows copied so far into a #sql- table of a copying ALTER TABLE, summed over its fragment"
    " replicas (memory_per_fragment). Only while the copy exists.",
    LABELS,
)
COPY_BYTES = gauge(
    "ndb_table_copy_bytes",
    "Memory allocated to a #sql- table of a copying ALTER TABLE (fixed and variable size"
    " parts), summed over its fragment replicas (memory_per_fragment). Only while it exists.",
    LABELS,
)
REORGANIZE_RATIO = gauge(
    "ndb_table_reorganize_progress_ratio",
    "Share done of a REORGANIZE PARTITION (table_distribution_status.is_reorg_ongoing = 1):"
    " the rows in its new fragments (those holding fewer than the table's mean rows per"
    " fragment) over the share they hold at the end, total rows x new fragments / all"
    " fragments (memory_per_fragment, one replica per fragment). Only while it runs.",
    LABELS,
)

_USER = "type = 'User table'"
_COPY_TABLES = (
    "SELECT fq_name, MAX(fixed_elem_size_bytes) AS row_size, SUM(fixed_elem_count) AS row_count,"
    " SUM(fixed_elem_alloc_bytes + var_elem_alloc_bytes) AS bytes"
    f" FROM ndbinfo.memory_per_fragment WHERE {_USER} AND fq_name {{}} LIKE '%/def/#sql-%'"
    " AND fq_name NOT LIKE '%/def/NDB$BLOB%' GROUP BY fq_name"
)
SQL = (
    "SELECT 'copy' AS kind, c.fq_name, NULL AS fragment_num, c.row_count, c.bytes,"
    " s.fq_name AS source, s.row_count AS source_rows"
    f" FROM ({_COPY_TABLES.format('')}) c"
    f" LEFT JOIN ({_COPY_TABLES.format('NOT')}) s ON s.row_size = c.row_size"
    " AND SUBSTRING_INDEX(s.fq_name, '/', 1) = SUBSTRING_INDEX(c.fq_name, '/', 1)"
    " UNION ALL"
    " SELECT 'reorganize', m.fq_name, m.fragment_num, MAX(m.fixed_elem_count), NULL, NULL, NULL"
    " FROM ndbinfo.memory_per_fragment m JOIN ndbinfo.table_distribution_status d"
    " ON d.table_id = m.table_id"
    " AND d.node_id = (SELECT MIN(node_id) FROM ndbinfo.table_distribution_status)"
    f" WHERE d.is_reorg_ongoing = 1 AND m.{_USER}"
    " GROUP BY m.fq_name, m.fragment_num"
)


def copy_progress(rows: list[Row]) -> dict[str, tuple[float, float, float | None, str]]:
    """Per #sql- table: its rows, its bytes, the share copied and the table copied (None and
    "" when no single table of its database has its row size)."""
    sources: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        sources[text(row["fq_name"])].append(row)
    out = {}
    for fq_name, candidates in sorted(sources.items())[:MAX_TABLES]:
        first = candidates[0]
        copied = number(first["row_count"]) or 0.0
        named = [c for c in candidates if c["source"] is not None]
        ratio, source = None, ""
        if len(named) == 1 and number(named[0]["source_rows"]):
            ratio = min(1.0, copied / number(named[0]["source_rows"]))
            source = text(named[0]["source"])
        out[fq_name] = (copied, number(first["bytes"]) or 0.0, ratio, source)
    return out


def reorganize_progress(rows: list[Row]) -> dict[str, float]:
    """Per reorganized table: the rows of its new fragments over what they hold at the end."""
    fragments: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        fragments[text(row["fq_name"])].append(number(row["row_count"]) or 0.0)
    out = {}
    for fq_name, counts in sorted(fragments.items())[:MAX_TABLES]:
        total = sum(counts)
        mean = total / len(counts)
        new = [count for count in counts if count < mean]
        out[fq_name] = min(1.0, sum(new) / (mean * len(new))) if new and mean else 1.0
    return out


def collect(rows: list[Row], ctx: Context) -> Iterable:
    copies = copy_progress([row for row in rows if text(row["kind"]) == "copy"])
    ratio, copied, allocated = COPY_RATIO.family(), COPY_ROWS.family(), COPY_BYTES.family()
    for fq_name, (count, size, share, source) in copies.items():
        labels = list(split_name(fq_name))
        copied.add_metric(labels, count)
        allocated.add_metric(labels, size)
        if share is not None:
            add_value(ratio, list(split_name(source)), share)
    reorganized = REORGANIZE_RATIO.family()
    moves = reorganize_progress([row for row in rows if text(row["kind"]) == "reorganize"])
    for fq_name, share in moves.items():
        reorganized.add_metric(list(split_name(fq_name)), share)
    yield from (ratio, copied, allocated, reorganized)


def settled(rows: list[Row]) -> bool:
    """Settled when no schema change runs; while one does, its rows are read every scrape."""
    return not rows


COLLECTOR = Collector(
    name="schema_changes",
    help="Progress of copying ALTER TABLEs (their #sql- tables) and of REORGANIZE PARTITION"
    f" (memory_per_fragment, table_distribution_status), at most {MAX_TABLES} of each."
    " On by default: read when a table or fragments are added (the objects and ddl signals)"
    " and every scrape while a schema change runs; the data nodes scan every fragment for it.",
    default_enabled=True,
    reads={
        "memory_per_fragment": (
            "fq_name",
            "table_id",
            "type",
            "fragment_num",
            "fixed_elem_size_bytes",
            "fixed_elem_count",
            "fixed_elem_alloc_bytes",
            "var_elem_alloc_bytes",
        ),
        "table_distribution_status": ("node_id", "table_id", "is_reorg_ongoing"),
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(COPY_RATIO, COPY_ROWS, COPY_BYTES, REORGANIZE_RATIO),
    # A copy is a new table, a reorganization new fragments: the objects signal shows both
    # starting, so the rows (every fragment of every table) are not read again at an age.
    slow=SlowChanging(frozenset({"objects", "ddl"}), settled=settled, aged=False),
)
