"""Administration and maintenance: KILL, CALL, ANALYZE/CHECK/OPTIMIZE/REPAIR/CHECKSUM TABLE,
transactions and table locks (nothing to do on read-only ndbinfo), and the writes, DDL, FLUSH
and grants the monitoring user may not run."""

from __future__ import annotations

import re

from ndbsim.engine.catalog import SCHEMA
from ndbsim.errors import SqlError
from ndbsim.protocol.sqltext import NAME, split_name, syntax_near
from ndbsim.protocol.statements.lookup import table_def
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.results import WireResult, plain

_KILL = re.compile(r"(?i)^KILL (?:(?P<what>CONNECTION|QUERY) )?(?P<id>\d+|CONNECTION_ID\(\))$")
_MAINTENANCE = re.compile(
    r"(?i)^(?P<op>ANALYZE|CHECK|OPTIMIZE|REPAIR|CHECKSUM)(?: NO_WRITE_TO_BINLOG| LOCAL)? "
    r"TABLES? (?P<tables>.+?)(?: (?:QUICK|FAST|MEDIUM|EXTENDED|CHANGED|USE_FRM|FOR UPGRADE))*$"
)
_DDL_TABLE = re.compile(
    rf"(?i)^(?:CREATE|DROP|ALTER) (?:TEMPORARY )?TABLE (?:IF (?:NOT )?EXISTS )?(?P<table>{NAME})"
)
_WRITE_TARGET = re.compile(
    rf"(?i)^(?:INSERT|REPLACE|UPDATE|DELETE|TRUNCATE|LOAD DATA .*? INTO TABLE)"
    rf"(?: (?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY|QUICK|IGNORE))*(?: (?:INTO|FROM|TABLE))? "
    rf"(?P<table>{NAME})"
)


@statement("kill", pattern=_KILL)
async def _kill(s: Statement) -> None:
    session, m = s.session, s.match
    target = session.connection_id if m["id"].upper().startswith("CONNECTION_ID") else int(m["id"])
    other = session.node.sessions.get(target)
    if other is None:
        raise SqlError(1094, f"Unknown thread id: {target}")
    query_only = (m["what"] or "").upper() == "QUERY"
    if other is session:
        session.killed = not query_only
        raise SqlError(1317, "Query execution was interrupted")
    if not query_only:
        other.killed = True


@statement("call", pattern=re.compile(rf"(?i)^\s*CALL\s+(?P<name>{NAME})"), raw=True)
async def _call(s: Statement) -> WireResult:
    name, database = s.session.resolve(s.match["name"])
    if not database:
        raise SqlError(1046, "No database selected")
    raise SqlError(1305, f"PROCEDURE {database}.{name} does not exist")


@statement("analyze", "check", "optimize", "repair", "checksum", pattern=_MAINTENANCE)
async def _maintenance(s: Statement) -> WireResult:
    """ndbinfo's engine supports none of them."""
    op = s.match["op"].lower()
    rows: list[tuple] = []
    for text in s.match["tables"].split(","):
        table, database = s.session.resolve(text.strip())
        if not database:
            raise SqlError(1046, "No database selected")
        name = f"{database}.{table}"
        try:
            table_def(s.session, database, table)
        except SqlError as e:
            rows += [(name, op, "Error", e.msg), (name, op, "status", "Operation failed")]
            continue
        rows.append((name, op, "note", f"The storage engine for the table doesn't support {op}"))
    if op == "checksum":
        return plain(["Table", "Checksum"], [(r[0], None) for r in rows if r[2] != "status"])
    return plain(["Table", "Op", "Msg_type", "Msg_text"], rows)


@statement("kill", "call", "analyze", "check", "optimize", "repair", "checksum")
async def _syntax(s: Statement) -> None:
    raise SqlError(1064, syntax_near(s.sql))


@statement("begin", "start", "commit", "rollback", "do", "savepoint", "release", "lock", "unlock")
async def _nothing_to_do(s: Statement) -> None:
    """ndbinfo is read only: transactions and table locks have nothing to do."""


@statement("insert", "update", "delete", "replace", "truncate", "load")
async def _write(s: Statement) -> None:
    session = s.session
    m = _WRITE_TARGET.match(" ".join(s.sql.split()))
    if not m:
        raise SqlError(1064, syntax_near(s.sql))
    table, db = split_name(m["table"])
    database = db or session.database
    if not database:
        raise SqlError(1046, "No database selected")
    if database == SCHEMA and session.node.catalog.get(table) is not None:
        raise SqlError(1036, f"Table '{table}' is read only")
    if database.lower() in ("information_schema", "performance_schema"):
        raise SqlError(
            1044,
            f"Access denied for user '{session.user}'@'{session.host}' to database '{database}'",
        )
    raise SqlError(1146, f"Table '{database}.{table}' doesn't exist")


@statement("create", "drop", "alter", pattern=_DDL_TABLE)
async def _ddl_table(s: Statement) -> None:
    """mysqld checks the privilege before the database exists: the monitoring user has none."""
    table = split_name(s.match["table"])[0]
    raise SqlError(
        1142,
        f"{s.keyword.upper()} command denied to user '{s.session.user}'@'{s.session.host}' "
        f"for table '{table}'",
    )


@statement("create", "drop", "alter", "rename", "grant", "revoke")
async def _ddl(s: Statement) -> None:
    raise SqlError(
        1044,
        f"Access denied for user '{s.session.user}'@'{s.session.host}' to database '{SCHEMA}'",
    )


@statement("flush", "reset", "purge")
async def _reload(s: Statement) -> None:
    raise SqlError(
        1227, "Access denied; you need (at least one of) the RELOAD privilege(s) for this operation"
    )
