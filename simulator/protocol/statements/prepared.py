"""SQL prepared statements: PREPARE, EXECUTE, DEALLOCATE PREPARE and DROP PREPARE."""

from __future__ import annotations

import re

from ndbsim.engine.translate import parse
from ndbsim.errors import SqlError
from ndbsim.protocol.sqltext import (
    bind,
    first_keyword,
    placeholders,
    string_literal,
    syntax_near,
    unquote,
)
from ndbsim.protocol.statements import registry
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.results import WireResult

_STMT_NAME = r"(?P<name>`[^`]+`|[\w$]+)"
_PREPARE = re.compile(rf"(?is)^PREPARE {_STMT_NAME} FROM (?P<src>.+)$")
_EXECUTE = re.compile(rf"(?is)^EXECUTE {_STMT_NAME}(?: USING (?P<vars>.+))?$")
_DEALLOCATE = re.compile(rf"(?is)^\s*(?:DEALLOCATE|DROP) PREPARE {_STMT_NAME}\s*;?\s*$")


@statement("prepare", pattern=_PREPARE)
async def _prepare(s: Statement) -> None:
    session, m = s.session, s.match
    source = m["src"].strip()
    if source.startswith("@"):
        body = session.user_vars.get(source[1:].strip("`").lower())
        body = "NULL" if body is None else str(body)
    else:
        body = string_literal(source)
    if body is None:
        raise SqlError(1064, syntax_near(source))
    params = placeholders(body)
    if not first_keyword(body):
        raise SqlError(1065, "Query was empty")
    parse(body.replace("?", "NULL"))  # a syntax error shows at PREPARE, as on mysqld
    session.prepared[unquote(m["name"]).lower()] = (body, params)


@statement("execute", pattern=_EXECUTE)
async def _execute(s: Statement) -> WireResult | None:
    session, m = s.session, s.match
    name = unquote(m["name"]).lower()
    if name not in session.prepared:
        raise SqlError(1243, f"Unknown prepared statement handler ({m['name']}) given to EXECUTE")
    body, params = session.prepared[name]
    names = [v.strip() for v in (m["vars"] or "").split(",") if v.strip()]
    if len(names) != len(params) or any(not v.startswith("@") for v in names):
        raise SqlError(1210, "Incorrect arguments to EXECUTE")
    values = [session.user_vars.get(v[1:].strip("`").lower()) for v in names]
    bound = bind(body, params, values)
    return await registry.dispatch(session, first_keyword(bound), bound, s.warnings)


@statement("deallocate", pattern=_DEALLOCATE)
@statement("drop", pattern=_DEALLOCATE, raw=True)
async def _deallocate(s: Statement) -> None:
    name = unquote(s.match["name"]).lower()
    if s.session.prepared.pop(name, None) is None:
        raise SqlError(
            1243,
            f"Unknown prepared statement handler ({s.match['name']}) given to DEALLOCATE PREPARE",
        )


@statement("prepare", "execute", "deallocate")
async def _syntax(s: Statement) -> None:
    raise SqlError(1064, syntax_near(s.sql))
