"""What a statement answers: rows with the column definitions to send them with, or, for what
the engine rejected, mysqld's error."""

from __future__ import annotations

import logging
import re
from typing import Any

import duckdb
from ndbsim.engine.catalog import SCHEMA
from ndbsim.engine.mysqltypes import WireColumn, parse_type, wire_from_duckdb
from ndbsim.engine.translate import Plan
from ndbsim.errors import SqlError
from ndbsim.protocol.sqltext import syntax_near

log = logging.getLogger(__name__)


class WireResult:
    """Rows plus the column definitions to send them with."""

    def __init__(self, columns: list[WireColumn], rows: list):
        self.columns = columns
        self.rows = rows


def plain(header: list[str], rows: list[tuple]) -> WireResult:
    """A listing of the server's own: integer columns as BIGINT UNSIGNED, the rest as text."""
    columns = []
    for i, name in enumerate(header):
        values = [r[i] for r in rows if r[i] is not None]
        numeric = bool(values) and all(isinstance(v, int) for v in values)
        col_type = "BIGINT UNSIGNED" if numeric else "VARCHAR(512)"
        columns.append(WireColumn(name, *parse_type(col_type).wire()))
    return WireResult(columns, [list(r) for r in rows])


def result_set(plan: Plan, rows: list, description: list) -> WireResult:
    """The engine's rows, typed as the catalog's columns where the plan knows them."""
    names = [d[0] for d in description]
    catalog_columns: list[Any] = [None] * len(description)
    if plan.sources is not None:
        unknown = [s for s in plan.sources if s.name is None and s.star_of is None]
        fixed = sum(1 for s in plan.sources if s.name is not None) + sum(
            len(s.star_of.columns) for s in plan.sources if s.star_of is not None
        )
        if len(unknown) <= 1 and (unknown or fixed == len(description)):
            pos = 0
            for s in plan.sources:
                if s.name is not None:
                    names[pos] = s.name
                    catalog_columns[pos] = s.column
                    pos += 1
                elif s.star_of is not None:
                    for c in s.star_of.columns:
                        catalog_columns[pos] = c
                        pos += 1
                else:
                    pos += len(description) - fixed
    columns = []
    for i, d in enumerate(description):
        col = catalog_columns[i]
        wire = parse_type(col.mysql_type).wire() if col is not None else wire_from_duckdb(str(d[1]))
        columns.append(WireColumn(names[i], *wire))
    bools = [i for i, d in enumerate(description) if str(d[1]) == "BOOLEAN"]
    if bools:
        rows = [
            tuple(int(v) if i in bools and v is not None else v for i, v in enumerate(row))
            for row in rows
        ]
    return WireResult(columns, rows)


_UNKNOWN_COLUMN = re.compile(r'Referenced column "([^"]+)" not found')
_NO_FUNCTION = re.compile(r"(?:Scalar|Aggregate|Table) Function with name (\w+) does not exist")
_FUNCTION_ARGS = re.compile(r"(?:No function matches|candidate function)[^']*'?\"?(\w+)\(")


def duck_error(e: duckdb.Error, sql: str = "") -> SqlError:
    """MySQL's error for what DuckDB rejected; DuckDB's own words never reach a client."""
    text = str(e)
    m = _UNKNOWN_COLUMN.search(text)
    if m:
        return SqlError(1054, f"Unknown column '{m.group(1)}' in 'field list'")
    if "must appear in the GROUP BY clause" in text:
        return SqlError(
            1055,
            "Expression of SELECT list is not in GROUP BY clause and contains nonaggregated "
            "column which is not functionally dependent on columns in GROUP BY clause; this is "
            "incompatible with sql_mode=only_full_group_by",
        )
    m = _NO_FUNCTION.search(text)
    if m:
        return SqlError(1305, f"FUNCTION {SCHEMA}.{m.group(1)} does not exist")
    if isinstance(e, duckdb.OutOfRangeException):
        return SqlError(1690, "BIGINT UNSIGNED value is out of range")
    if isinstance(e, duckdb.ParserException):
        return SqlError(1064, syntax_near(sql))
    if isinstance(e, duckdb.ConversionException):
        return SqlError(1292, "Truncated incorrect value")
    m = _FUNCTION_ARGS.search(text)
    what = f"{m.group(1).upper()}() with these arguments" if m else "this statement"
    log.info("engine could not run a statement: %s", text.splitlines()[0] if text else e)
    return SqlError(1235, f"This version of MySQL doesn't yet support '{what}'")
