"""SET (system and user variables, NAMES, CHARACTER SET, TRANSACTION) and USE."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from mysql_mimic.intercept import expression_to_value, setitem_kind
from ndbsim.engine.translate import MYSQL, parse
from ndbsim.errors import SqlError
from ndbsim.protocol import sysvars
from ndbsim.protocol.sqltext import syntax_near, unquote
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.select import select
from sqlglot import expressions as exp
from sqlglot.tokens import TokenType

if TYPE_CHECKING:
    from ndbsim.protocol.session import SessionState


@statement("use", pattern=re.compile(r"(?is)^\s*USE\s+(`[^`]+`|[\w$]+)\s*;?\s*$"), raw=True)
async def _use(s: Statement) -> None:
    s.session.use(unquote(s.match.group(1)))


@statement("use")
async def _use_syntax(s: Statement) -> None:
    raise SqlError(1064, syntax_near(s.sql))


@statement("set")
async def _set(s: Statement) -> None:
    sql = s.sql
    tree = parse(sql)[0]
    if isinstance(tree, exp.Command) and tree.name.upper() == "SET":
        parts = [parse(f"SET {text}")[0] for text in _set_items(sql)]
        if not all(isinstance(p, exp.Set) and len(p.expressions) == 1 for p in parts):
            raise SqlError(1064, syntax_near(sql))
        tree = exp.Set(expressions=[p.expressions[0] for p in parts])
    if not isinstance(tree, exp.Set):
        raise SqlError(1064, syntax_near(sql))
    for item in tree.expressions:
        kind = setitem_kind(item)
        if kind == "VARIABLE":
            await _set_variable(s.session, item)
        elif kind in ("NAMES", "CHARACTER SET"):
            charset = item.name if item.name.upper() != "DEFAULT" else "utf8mb4"
            if charset.lower() not in sysvars.CharacterSet.__members__:
                raise SqlError(1115, f"Unknown character set: '{charset}'")
            for name in ("character_set_client", "character_set_connection",
                         "character_set_results"):  # fmt: skip
                s.session.variables.set(name, charset, force=True)
        # SET TRANSACTION ... has no effect on ndbinfo reads


def _set_items(sql: str) -> list[str]:
    """The assignments of a SET statement, split at its top-level commas (the parser gives up
    on a list that holds a subquery)."""
    body = re.sub(r"(?is)^\s*SET\s+", "", sql.strip().rstrip(";"))
    parts, depth, last = [], 0, 0
    for t in MYSQL.tokenize(body):
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(t.token_type, 0)
        if depth == 0 and t.token_type == TokenType.COMMA:
            parts.append(body[last : t.start])
            last = t.end + 1
    return [*parts, body[last:]]


async def _set_variable(session: SessionState, item: exp.SetItem) -> None:
    assignment = item.this
    left, right = assignment.left, assignment.right
    if isinstance(left, exp.Parameter):
        session.user_vars[left.name.lower()] = await _value(session, right, system=False)
        return
    if isinstance(left, exp.SessionParameter):
        scope = (left.text("kind") or "SESSION").upper()
    else:
        scope = (item.text("kind") or "SESSION").upper()
    scope = "GLOBAL" if scope in ("GLOBAL", "PERSIST", "PERSIST_ONLY") else "SESSION"
    session.variables.set(left.name, await _value(session, right), scope=scope)


async def _value(session: SessionState, node: exp.Expression, system: bool = True) -> Any:
    """A literal, a bare word (SET x = ON), or any expression evaluated as SELECT does."""
    try:
        return expression_to_value(node)
    except Exception:
        bare = isinstance(node, exp.Var) or (isinstance(node, exp.Column) and not node.table)
        if bare and system:
            return node.name
        if bare:
            raise SqlError(1054, f"Unknown column '{node.name}' in 'field list'") from None
    result = await select(session, f"SELECT {node.sql(dialect='mysql')}", [])
    return result.rows[0][0] if result.rows else None
