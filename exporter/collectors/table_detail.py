"""Per-table memory and fragment health for a capped set of user tables (off by default).

Either the largest tables by memory (option ``limit``) or the tables named by the option
``tables`` (``db.table,...``). memory_per_fragment is summed per table in SQL and joined to
one data node's copy of table_fragments, so at most ``limit`` rows are fetched.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._per_table import params, per_table, table_options
from .base import (
    Collector,
    Context,
    Row,
    SlowChanging,
    gauge,
)

LABELS = ("db", "table")

MEMORY = gauge(
    "ndb_table_memory_bytes",
    "Memory allocated to the table (fixed and variable size parts and hash index),"
    " summed over its fragments and replicas (memory_per_fragment).",
    LABELS,
)
FRAGMENTS = gauge(
    "ndb_table_fragments",
    "Fragments of the table. Read from one data node's copy of table_fragments (the lowest node id).",
    LABELS,
)
DEAD = gauge(
    "ndb_table_dead_replicas",
    "Dead fragment replicas of the table. Read from one data node's copy of table_fragments.",
    LABELS,
)
NOT_PREFERRED = gauge(
    "ndb_table_fragments_not_on_preferred_primary",
    "Fragments of the table whose current primary is not the preferred one. Read from one"
    " data node's copy of table_fragments.",
    LABELS,
)

SQL = (
    "SELECT m.fq_name, m.memory_bytes, f.fragments, f.dead_replicas, f.not_preferred"
    " FROM (SELECT fq_name, table_id,"
    " SUM(fixed_elem_alloc_bytes + var_elem_alloc_bytes + hash_index_alloc_bytes) AS memory_bytes"
    " FROM ndbinfo.memory_per_fragment"
    " WHERE type = 'User table' AND (%s = '' OR INSTR(%s, CONCAT(',', fq_name, ',')) > 0)"
    " GROUP BY fq_name, table_id"
    " ORDER BY memory_bytes DESC, fq_name LIMIT %s) m"
    " LEFT JOIN (SELECT table_id, COUNT(*) AS fragments,"
    " SUM(num_dead_replicas) AS dead_replicas,"
    " SUM(CASE WHEN current_primary <> preferred_primary THEN 1 ELSE 0 END) AS not_preferred"
    " FROM ndbinfo.table_fragments"
    " WHERE node_id = (SELECT MIN(node_id) FROM ndbinfo.table_fragments)"
    " GROUP BY table_id) f ON f.table_id = m.table_id"
    " ORDER BY m.memory_bytes DESC, m.fq_name"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    specs = {
        "memory_bytes": MEMORY,
        "fragments": FRAGMENTS,
        "dead_replicas": DEAD,
        "not_preferred": NOT_PREFERRED,
    }
    yield from per_table(rows, specs)


COLLECTOR = Collector(
    name="table_detail",
    help="Memory, fragments, dead replicas and misplaced primaries of the largest user tables"
    " (or of the tables listed) (memory_per_fragment and table_fragments). Off by default:"
    " labelled by table, and the data nodes scan every fragment of every table for it. Blob"
    " part tables (NDB$BLOB_<table id>_<column>) count as tables of their own.",
    default_enabled=False,
    reads={
        "memory_per_fragment": (
            "fq_name",
            "table_id",
            "type",
            "fixed_elem_alloc_bytes",
            "var_elem_alloc_bytes",
            "hash_index_alloc_bytes",
        ),
        "table_fragments": (
            "node_id",
            "table_id",
            "num_dead_replicas",
            "current_primary",
            "preferred_primary",
        ),
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    params=params,
    options=table_options("using the most memory"),
    metrics=(MEMORY, FRAGMENTS, DEAD, NOT_PREFERRED),
    slow=SlowChanging(frozenset({"nodes", "ddl"})),
)
