"""SHOW statements about the server: VARIABLES, STATUS, WARNINGS/ERRORS, ENGINES, ENGINE ...
STATUS, PROCESSLIST, COLLATION, CHARACTER SET and PLUGINS; any other SHOW is a syntax
error."""

from __future__ import annotations

import asyncio
import re

from ndbsim.engine import infoschema
from ndbsim.engine.translate import quote
from ndbsim.errors import SqlError
from ndbsim.protocol import privileges, replies
from ndbsim.protocol.sqltext import syntax_near, unquote
from ndbsim.protocol.statements import live_rows, replication
from ndbsim.protocol.statements.listing import listing
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.results import WireResult, plain
from ndbsim.protocol.statements.show_schema import FILTER

_INNODB_STATUS = (
    "\n=====================================\nINNODB MONITOR OUTPUT\n"
    "=====================================\nBACKGROUND THREAD\n-----------------\n"
    "srv_master_thread loops: 0 srv_active, 0 srv_shutdown, 0 srv_idle\n"
    "----------------------------\nEND OF INNODB MONITOR OUTPUT\n"
    "============================\n"
)


@statement(
    "show",
    pattern=re.compile(
        rf"(?i)^SHOW (?:(?P<scope>GLOBAL|SESSION|LOCAL) )?(?P<what>STATUS|VARIABLES){FILTER}$"
    ),
)
async def _variables(s: Statement) -> WireResult:
    scope = "GLOBAL" if (s.match["scope"] or "").upper() == "GLOBAL" else "SESSION"
    if s.match["what"].upper() == "STATUS":
        rows = await asyncio.to_thread(live_rows.locked_status_rows, s.session, scope)
    else:
        rows = s.session.variables.rows(scope)
    return listing(s.session, ["Variable_name", "Value"], rows, s.match["filter"], "Variable_name")


@statement(
    "show",
    pattern=re.compile(
        r"(?i)^SHOW (?P<count>COUNT\(\*\) )?(?P<what>WARNINGS|ERRORS)(?: LIMIT .*)?$"
    ),
)
async def _warnings(s: Statement) -> WireResult:
    rows = s.session.warnings
    if s.match["what"].upper() == "ERRORS":
        rows = [r for r in rows if r[0] == "Error"]
    if s.match["count"]:
        return plain([f"@@session.{s.match['what'].lower()[:-1]}_count"], [(len(rows),)])
    return plain(["Level", "Code", "Message"], rows)


@statement("show", pattern=re.compile(r"(?i)^SHOW (STORAGE )?ENGINES$"))
async def _engines(s: Statement) -> WireResult:
    return plain(
        ["Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"], infoschema.engines()
    )


@statement("show", pattern=re.compile(r"(?i)^SHOW (?P<full>FULL )?PROCESSLIST$"))
async def _processlist(s: Statement) -> WireResult:
    rows = live_rows.processlist(s.session, bool(s.match["full"]))
    return plain(["Id", "User", "Host", "db", "Command", "Time", "State", "Info"], rows)


@statement("show", pattern=re.compile(r"(?i)^SHOW ENGINE (?P<engine>`?\w+`?) (?:STATUS|MUTEX)$"))
async def _engine(s: Statement) -> WireResult:
    node = s.session.node
    name = unquote(s.match["engine"]).lower()
    header = ["Type", "Name", "Status"]
    if name in ("ndbcluster", "ndb"):
        privileges.require_global(s.session, "PROCESS")
        status = node.cluster.global_status(node.node_id)
        if node.binlog_link is not None:
            binlog = replication.binlog_epochs(node)
        elif node.applier_link is not None:
            binlog = None  # no binary log on the replica's SQL node
        else:
            binlog = replies.idle_binlog(status, node.cluster.checkpoints.epoch)
        return plain(header, replies.ndb_engine_status(status, len(node.sessions), binlog))
    if name == "innodb":
        return plain(header, [("InnoDB", "", _INNODB_STATUS)])
    if name in ("performance_schema", "ndbinfo", "memory", "myisam", "csv"):
        return plain(header, [])
    raise SqlError(1286, f"Unknown storage engine '{unquote(s.match['engine'])}'")


@statement(
    "show",
    pattern=re.compile(rf"(?i)^SHOW (?P<what>COLLATION|CHARACTER SET|CHARSET){FILTER}$"),
)
async def _charsets(s: Statement) -> WireResult:
    session, version = s.session, s.session.node.version
    if s.match["what"].upper().startswith("COLLATION"):
        header = ["Collation", "Charset", "Id", "Default", "Compiled", "Sortlen"]
        rows = infoschema.collations(version.is_7x)
        if not version.is_7x:
            header.append("Pad_attribute")
        rows = [r[: len(header)] for r in rows]
        return listing(session, header, rows, s.match["filter"], "Collation")
    engine = session.node.engine
    with engine.lock:
        charsets = engine.db.execute(
            f"SELECT * FROM {quote(infoschema.DATA)}.CHARACTER_SETS"
        ).fetchall()
    rows = [(r[0], r[2], r[1], r[3]) for r in charsets]
    header = ["Charset", "Description", "Default collation", "Maxlen"]
    return listing(session, header, rows, s.match["filter"], "Charset")


@statement("show", pattern=re.compile(r"(?i)^SHOW PLUGINS$"))
async def _plugins(s: Statement) -> WireResult:
    columns = ["Name", "Status", "Type", "Library", "License"]
    return plain(columns, replies.plugins(s.session.node.version))


@statement("show")
async def _unknown(s: Statement) -> WireResult:
    raise SqlError(1064, syntax_near(s.sql))
