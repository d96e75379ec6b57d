"""Options and rows of the collectors that export a capped set of user tables
(table_detail, hot_tables): the tables named or the largest ones, a sample per table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .base import Context, MetricSpec, Option, Row, add_value, number, text


def parse_tables(value: str) -> tuple[str, ...]:
    """ "db.table,db2.t2" -> ("db.table", "db2.t2"); ValueError on a name without a database."""
    names = tuple(part.strip() for part in value.split(",") if part.strip())
    for name in names:
        database, _, table = name.partition(".")
        if not database or not table:
            raise ValueError(f"table {name!r} is not of the form db.table")
    return names


def positive(value: str) -> int:
    limit = int(value)
    if limit < 1:
        raise ValueError("the limit must be at least 1")
    return limit


def table_options(largest: str) -> tuple[Option, Option]:
    """The options ``limit`` (the N user tables `largest` names, 20 by default) and
    ``tables`` (a db.table list instead)."""
    return (
        Option("limit", f"Export the N user tables {largest}.", 20, positive),
        Option(
            "tables",
            "Export these tables instead (comma-separated db.table list).",
            (),
            parse_tables,
        ),
    )


def params(ctx: Context, fq_names: bool = True) -> tuple[Any, ...]:
    """The allowlist (twice) and the limit of the statement: the tables named, as ndbinfo's
    fq_name writes them ("db/def/table") or, without ``fq_names``, as "db.table"; else the
    largest ``limit``."""
    tables = ctx.options.get("tables") or ()
    if isinstance(tables, str):
        tables = parse_tables(tables)
    names = (name.replace(".", "/def/", 1) if fq_names else name for name in tables)
    allowlist = "," + ",".join(names) + "," if tables else ""
    limit = len(tables) if tables else int(ctx.options.get("limit", 20))
    return allowlist, allowlist, limit


def split_name(fq_name: str) -> tuple[str, str]:
    """ "db/def/table" -> ("db", "table")."""
    database, _, rest = fq_name.partition("/")
    _, _, table = rest.partition("/")
    return database, table


def per_table(rows: list[Row], specs: dict[str, MetricSpec]) -> Iterable:
    """One family per spec, one sample per row (a table named by fq_name), from the column."""
    families = {column: spec.family() for column, spec in specs.items()}
    for row in rows:
        labels = list(split_name(text(row["fq_name"])))
        for column, family in families.items():
            add_value(family, labels, number(row[column]))
    yield from families.values()
