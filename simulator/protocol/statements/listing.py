"""The LIKE or WHERE filter of a SHOW listing, applied to its rows as mysqld does."""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
from ndbsim.engine.translate import MYSQL, mysql_semantics, parse, quote
from ndbsim.protocol.sqltext import like_regex, literal
from ndbsim.protocol.statements.results import WireResult, duck_error, plain
from sqlglot.tokens import TokenType

if TYPE_CHECKING:
    from ndbsim.protocol.session import SessionState


def listing(
    session: SessionState,
    header: list[str],
    rows: list[tuple],
    filt: str | None,
    like_column: str,
) -> WireResult:
    """The rows that pass `filt` ("LIKE 'x%'" on `like_column`, or "WHERE <condition>")."""
    if filt:
        kind, _, rest = filt.partition(" ")
        if kind.upper() == "LIKE":
            regex = like_regex(literal(rest.strip()))
            idx = header.index(like_column) if like_column in header else 0
            rows = [r for r in rows if regex.match(str(r[idx]))]
        else:
            rows = _where(session, header, rows, rest)
    return plain(header, rows)


def _where(
    session: SessionState, header: list[str], rows: list[tuple], condition: str
) -> list[tuple]:
    condition = _quote_columns(condition, header)
    tree = parse(f"SELECT 1 FROM t WHERE {condition}")[0]
    where = tree.args["where"]
    mysql_semantics(where)
    cond = where.this.sql(dialect="duckdb")
    if not rows:
        return []
    values = ", ".join("(" + ", ".join("?" for _ in header) + ")" for _ in rows)
    cols = ", ".join(quote(h) for h in header)
    numeric = [all(isinstance(r[i], int) or r[i] is None for r in rows) for i in range(len(header))]
    params = [v if v is None or numeric[i] else str(v) for row in rows for i, v in enumerate(row)]
    engine = session.node.engine
    with engine.lock:
        try:
            keep = engine.db.execute(
                f"SELECT * FROM (VALUES {values}) AS t({cols}) WHERE {cond}", params
            ).fetchall()
        except duckdb.Error as e:
            raise duck_error(e, condition) from None
    return [tuple(r) for r in keep]


def _quote_columns(condition: str, header: list[str]) -> str:
    """Backquote the listing's column names in a WHERE condition: SHOW COLLATION's `Charset`
    or `Default` are keywords to the parser but columns to mysqld."""
    names = {h.lower() for h in header}
    try:
        tokens = MYSQL.tokenize(condition)
    except Exception:
        return condition
    out, last = [], 0
    for t in tokens:
        if t.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) and t.text.lower() in names:
            out += [condition[last : t.start], f"`{t.text}`"]
            last = t.end + 1
    return "".join(out) + condition[last:]
