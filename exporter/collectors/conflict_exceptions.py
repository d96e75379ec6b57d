"""Rows waiting in NDB's conflict exceptions tables: with conflict detection
(mysql.ndb_replication), the applier writes a row into `db.t$EX` for each row it handles in
conflict (ndb_conflict.cc, ExceptionsTableWriter); nothing removes them until an operator
reconciles them. Exceptions tables are NDB tables: the count is cluster-wide.

TABLE_ROWS is NDB's estimate: for an NDB table whose cached statistics expired
(information_schema_stats_expiry, 86400 s by default) mysqld asks the data nodes for fresh
ones, a round trip per table (ha_ndbcluster::info -> update_stats), hence off by default."""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, gauge, number, text

TOP = 10  # the exceptions tables with the most rows, one series each

ROWS = gauge(
    "ndb_conflict_exceptions_rows",
    f"Rows in the conflict exceptions table (NDB's estimate, TABLE_ROWS), for the {TOP}"
    " exceptions tables with the most rows; only the tables the account has SELECT on.",
    ("database", "table"),
)
TABLES = gauge(
    "ndb_conflict_exceptions_tables",
    "Conflict exceptions tables (NDB tables named `*$EX`) the account has SELECT on.",
)

SQL = (
    "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES"
    " WHERE ENGINE = 'ndbcluster' AND TABLE_NAME LIKE '%$EX'"
)


def collect(rows: list[Row], ctx: Context) -> Iterable:
    counted = [(number(r["TABLE_ROWS"]) or 0.0, text(r["TABLE_SCHEMA"]), text(r["TABLE_NAME"]))
               for r in rows]  # fmt: skip
    family = ROWS.family()
    for count, database, table in sorted(counted, key=lambda c: (-c[0], c[1], c[2]))[:TOP]:
        family.add_metric([database, table], count)
    tables = TABLES.family()
    tables.add_metric([], len(counted))
    yield from (family, tables)


COLLECTOR = Collector(
    name="conflict_exceptions",
    help="Rows waiting in the conflict exceptions tables (`t$EX`) for an operator to"
    f" reconcile, the {TOP} fullest, and their count (information_schema.TABLES); only the"
    " tables the account has SELECT on. Off by default: TABLE_ROWS is NDB's estimate, and"
    " mysqld asks the data nodes for it, a round trip per table, once its cached statistics"
    " expire (information_schema_stats_expiry).",
    default_enabled=False,
    reads={},
    server_reads={
        "information_schema.TABLES": ("TABLE_SCHEMA", "TABLE_NAME", "TABLE_ROWS", "ENGINE")
    },
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(ROWS, TABLES),
)
