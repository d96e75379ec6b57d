"""RonDB: memory per database (ndbinfo.database_memory_usage), what RonDB's per-database
quotas are set against."""

from __future__ import annotations

from collections.abc import Iterable

from ._per_table import positive
from ._rondb_memory import COLUMNS, memory
from .base import Collector, Context, Option, Row, SlowChanging, gauge

LABELS = ("db", "storage")
USED = gauge(
    "ndb_database_memory_bytes",
    "Memory RonDB has allocated to the database's tables, one copy of their data, in memory"
    " or on disk (storage), ordered indexes included (database_memory_usage).",
    LABELS,
)
FREE = gauge(
    "ndb_database_memory_free_bytes",
    "Of ndb_database_memory_bytes, the bytes allocated but free (database_memory_usage).",
    LABELS,
)

SQL = (
    f"SELECT database_name, {', '.join(COLUMNS)} FROM ndbinfo.database_memory_usage"
    " ORDER BY in_memory_bytes DESC, database_name LIMIT %s"
)


def params(ctx: Context) -> tuple[int]:
    return (int(ctx.options.get("limit", 50)),)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    yield from memory(rows, ("database_name",), USED, FREE)


COLLECTOR = Collector(
    name="database_memory",
    help="RonDB: memory and disk allocated and free per database, the largest ones first"
    " (database_memory_usage). On by default where the view exists (RonDB): a row per"
    " database, read at the refresh maximum age, since the data nodes read every fragment"
    " for it.",
    default_enabled=True,
    reads={"database_memory_usage": ("database_name", *COLUMNS)},
    min_version=(8, 0, 23),
    flavour="rondb",
    sql=SQL,
    collect=collect,
    params=params,
    options=(Option("limit", "Export the N databases using the most memory.", 50, positive),),
    metrics=(USED, FREE),
    slow=SlowChanging(frozenset({"ddl"})),
)
