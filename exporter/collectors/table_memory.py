"""RonDB: memory per table (ndbinfo.table_memory_usage) for a capped set of user tables: the
largest ones (option ``limit``) or those named (option ``tables``, ``db.table,...``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._per_table import params as table_params
from ._per_table import table_options
from ._rondb_memory import COLUMNS, memory
from .base import Collector, Context, Row, SlowChanging, gauge

LABELS = ("db", "table", "storage")
USED = gauge(
    "ndb_table_memory_usage_bytes",
    "Memory RonDB has allocated to the table, one copy of its data, in memory or on disk"
    " (storage), its ordered indexes, blob and unique index tables included"
    " (table_memory_usage).",
    LABELS,
)
FREE = gauge(
    "ndb_table_memory_usage_free_bytes",
    "Of ndb_table_memory_usage_bytes, the bytes allocated but free (table_memory_usage).",
    LABELS,
)

SQL = (
    f"SELECT database_name, table_name, {', '.join(COLUMNS)} FROM ndbinfo.table_memory_usage"
    " WHERE %s = '' OR INSTR(%s, CONCAT(',', database_name, '.', table_name, ',')) > 0"
    " ORDER BY in_memory_bytes DESC, database_name, table_name LIMIT %s"
)


def params(ctx: Context) -> tuple[Any, ...]:
    """The allowlist as the view names tables: "db.table"."""
    return table_params(ctx, fq_names=False)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    yield from memory(rows, ("database_name", "table_name"), USED, FREE)


COLLECTOR = Collector(
    name="table_memory",
    help="RonDB: memory and disk allocated and free of the largest user tables (or of the"
    " tables listed), one copy of their data (table_memory_usage). Off by default: labelled"
    " by table, and the data nodes read every fragment for it.",
    default_enabled=False,
    reads={"table_memory_usage": ("database_name", "table_name", *COLUMNS)},
    min_version=(8, 0, 23),
    flavour="rondb",
    sql=SQL,
    collect=collect,
    params=params,
    options=table_options("using the most memory"),
    metrics=(USED, FREE),
    slow=SlowChanging(frozenset({"ddl"})),
)
