"""SELECT and WITH: run on the engine, after the cluster model's rows and the server tables of
the moment are written, with the ndbinfo latency faults and offline mode."""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

import duckdb
from ndbsim.engine import infoschema, model_tables
from ndbsim.engine.translate import Plan, parse, quote
from ndbsim.errors import CLUSTER_FAILURE, SqlError
from ndbsim.protocol import privileges
from ndbsim.protocol.sqltext import syntax_near
from ndbsim.protocol.statements import live_rows, replication
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.results import WireResult, duck_error, result_set

if TYPE_CHECKING:
    from ndbsim.protocol.session import SessionState

_OFFLINE_NOTE = (
    "'NDBINFO' has been started in offline mode since the 'NDBCLUSTER' engine is disabled "
    "or @@global.ndbinfo_offline is turned on - no rows can be returned"
)
SELECT_MODIFIERS = re.compile(
    r"(?is)^(\s*SELECT\s+)(?:(?:SQL_NO_CACHE|SQL_CACHE|SQL_CALC_FOUND_ROWS|SQL_BUFFER_RESULT|"
    r"SQL_SMALL_RESULT|SQL_BIG_RESULT|HIGH_PRIORITY|STRAIGHT_JOIN)\s+)+"
)


@statement("select", "with")
async def _select(s: Statement) -> WireResult:
    return await select(s.session, s.sql, s.warnings)


async def select(session: SessionState, sql: str, warnings: list) -> WireResult:
    sql = SELECT_MODIFIERS.sub(r"\1", sql, count=1)
    trees = parse(sql)
    if len(trees) != 1:
        raise SqlError(1064, syntax_near(sql))
    privileges.require_select_of(session, trees[0])
    node = session.node
    plan = node.plan(sql, trees[0], session.translation_session())
    offline = bool(plan.objects) and bool(node.store.values["ndbinfo_offline"])
    reads: set[str] = set()  # ndbinfo objects read, with those under the views
    if plan.objects and not offline:
        reads = set().union(*(node.reads[o] for o in plan.objects))
        delay = node.cluster.faults.ndbinfo_latency(reads)
        if delay > 0:
            await asyncio.sleep(delay)
        needs = any(node.catalog.objects[o].needs_data_nodes for o in reads)
        if needs and not node.cluster.data_nodes_reachable():
            raise SqlError(*CLUSTER_FAILURE)
    if offline:
        warnings.append(("Note", 1, _OFFLINE_NOTE))
    filtered = privileges.filtered_tables(session, trees[0])
    rows, description = await asyncio.to_thread(_run, session, plan, offline, reads, filtered)
    return result_set(plan, rows, description)


def _run(
    session: SessionState, plan: Plan, offline: bool, reads: set[str], filtered: list[str]
) -> tuple[list, list]:
    """The plan's rows; the information_schema rows of what the account may not see are
    deleted for the statement, and put back after it."""
    engine = session.node.engine
    sql = f"SELECT * FROM ({plan.duck_sql}) LIMIT 0" if offline else plan.duck_sql
    with engine.lock:
        if reads:
            model_tables.sync(session.node.cluster, engine, reads)
            engine.meter_reads(reads, plan.scan_limit)
        if plan.perf_tables:
            _fill_dynamic(session, plan.perf_tables)
        if filtered:
            engine.db.execute("BEGIN TRANSACTION")
        try:
            if filtered:
                privileges.delete_unseen(session, engine.db, infoschema.DATA, filtered)
            cursor = engine.db.execute(sql)
            return cursor.fetchall(), cursor.description or []
        except duckdb.Error as e:
            raise duck_error(e, plan.duck_sql) from None
        finally:
            if filtered:
                engine.db.execute("ROLLBACK")


def _fill_dynamic(session: SessionState, tables: frozenset[str]) -> None:
    """Rows of the tables that show this moment (infoschema.DYNAMIC)."""
    engine = session.node.engine
    for target in tables:
        schema, name = target.split(".")
        if name in infoschema.MODEL_FED:
            model_tables.fill_server_table(session.node.cluster, engine, name)
            continue
        if name in replication.TABLES:
            database = "mysql" if schema == infoschema.MYSQL else "performance_schema"
            table = infoschema.system_tables(
                database, session.node.version, bool(session.node.role)
            )[name]
            rows = replication.table_rows(session.node, name)
            engine.replace_rows_in(f"{quote(schema)}.{quote(name)}", table, rows)
            continue
        if name == "USER_PRIVILEGES":
            table = infoschema.I_S_TABLES[name]
            grantee = f"'{session.user}'@'%'"
            rows = [(grantee, "def", p, "NO") for p in ("SELECT", "PROCESS", "REPLICATION CLIENT")]
        elif schema == infoschema.DATA:
            table, rows = infoschema.I_S_TABLES[name], live_rows.processlist(session, True)
        elif schema == infoschema.MYSQL:
            table, rows = infoschema.MYSQL_TABLES[name], live_rows.accounts(session)
        elif name == "threads":
            table, rows = infoschema.P_S_TABLES[name], live_rows.threads(session)
        else:
            kind, scope = name.split("_")[1], name.split("_")[0].upper()
            if kind == "status":
                rows = live_rows.status_rows(session, scope)
            else:
                rows = session.variables.rows(scope)
            table = infoschema.P_S_TABLES[name]
        engine.replace_rows_in(f"{quote(schema)}.{quote(name)}", table, rows)
