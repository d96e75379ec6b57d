"""EXPLAIN of a query, and DESCRIBE/EXPLAIN of a table (its columns, as SHOW COLUMNS)."""

from __future__ import annotations

import re

import duckdb
from ndbsim.engine.translate import parse
from ndbsim.errors import SqlError
from ndbsim.protocol import replies
from ndbsim.protocol.sqltext import split_name, syntax_near
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.results import WireResult, duck_error, plain
from ndbsim.protocol.statements.select import SELECT_MODIFIERS
from ndbsim.protocol.statements.show_schema import show_columns
from sqlglot import expressions as exp

_EXPLAIN = re.compile(
    r"(?is)^(?:EXPLAIN|DESCRIBE|DESC)(?: (?:EXTENDED|PARTITIONS|FORMAT ?= ?(?P<format>\w+)))?"
    r" (?P<query>(?:SELECT|WITH|\() .*|(?:SELECT|WITH|\().*)$"
)


@statement("desc", "describe", "explain")
async def _describe(s: Statement) -> WireResult:
    parts = s.sql.strip().rstrip(";").split()
    if len(parts) < 2:
        raise SqlError(1064, syntax_near(s.sql))
    m = _EXPLAIN.match(" ".join(parts))
    if m:
        return _explain(s, m["format"], m["query"])
    table, db = split_name(parts[1])
    filt = f"LIKE {parts[2]}" if len(parts) > 2 else None
    return show_columns(s.session, db, table, False, filt)


def _explain(s: Statement, fmt: str | None, query: str) -> WireResult:
    if fmt and fmt.upper() not in ("TRADITIONAL",):
        raise SqlError(1235, f"This version of MySQL doesn't yet support 'EXPLAIN FORMAT={fmt}'")
    query = SELECT_MODIFIERS.sub(r"\1", query, count=1)
    trees = parse(query)
    if len(trees) != 1 or not isinstance(trees[0], (exp.Select, exp.SetOperation)):
        raise SqlError(1064, syntax_near(query))
    node = s.session.node
    plan = node.plan(query, trees[0], s.session.translation_session())
    with node.engine.lock:  # binds the query: unknown columns fail as on mysqld
        try:
            node.engine.db.execute(f"SELECT * FROM ({plan.duck_sql}) LIMIT 0")
        except duckdb.Error as e:
            raise duck_error(e, query) from None
    ctes = {c.alias_or_name for c in trees[0].find_all(exp.CTE)}
    tables = [t.alias_or_name for t in trees[0].find_all(exp.Table) if t.name not in ctes]
    return plain(replies.EXPLAIN_COLUMNS, replies.explain_rows(tables))
