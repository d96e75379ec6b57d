"""SELECT and WITH: run on the engine, after the cluster model's rows and the server tables of
the moment are written, with the ndbinfo latency faults and offline mode."""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

import duckdb
from ndbsim.engine import infoschema, model_tables
from ndbsim.engine.translate import Plan, assignments, parse, quote
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
    needs_data_nodes = False
    if plan.objects and not offline:
        reads = set().union(*(node.catalog.reads(o) for o in plan.objects))
        delay = node.cluster.faults.ndbinfo_latency(reads)
        if delay > 0:
            await asyncio.sleep(delay)
        needs_data_nodes = any(node.catalog.objects[o].needs_data_nodes for o in reads)
    if offline:
        warnings.append(("Note", 1, _OFFLINE_NOTE))
    filtered = privileges.filtered_tables(session, trees[0])
    result = await asyncio.to_thread(
        _run, session, plan, offline, reads, filtered, needs_data_nodes
    )
    if result.rows:
        for position, name in assignments(trees[0]):
            session.user_vars[name] = result.rows[-1][position]
    return result


def _run(
    session: SessionState,
    plan: Plan,
    offline: bool,
    reads: set[str],
    filtered: list[str],
    needs_data_nodes: bool,
) -> WireResult:
    """On a worker thread, as the read takes the model's lock, which the protocol's event
    loop must never wait for: the plan's result, read on the thread's own cursor once the
    tables it reads are written (1296 first when it needs the data nodes and none answers).
    A statement that fills server
    tables with its own rows (session variables, processlist) or filters them for its account
    runs under the engine's lock; the others run beside each other."""
    engine = session.node.engine
    cluster = session.node.cluster

    def reachable() -> None:
        if not cluster.is_up():
            raise SqlError(*CLUSTER_FAILURE)

    if reads:
        model_tables.sync(cluster, engine, reads, reachable if needs_data_nodes else None)
    if not (plan.perf_tables or filtered):
        return _read(session, plan, offline, reads, filtered)
    with engine.lock:
        if plan.perf_tables:
            _fill_dynamic(session, plan.perf_tables)
        return _read(session, plan, offline, reads, filtered)


def _read(
    session: SessionState, plan: Plan, offline: bool, reads: set[str], filtered: list[str]
) -> WireResult:
    """The cost meter's counts and the rows, in one snapshot; the information_schema rows of
    what the account may not see are deleted in it, and put back after it."""
    engine = session.node.engine
    sql = f"SELECT * FROM ({plan.duck_sql}) LIMIT 0" if offline else plan.duck_sql
    db = engine.cursor()
    db.execute("BEGIN TRANSACTION")
    try:
        if reads:
            engine.meter_reads(db, reads, plan.scan_limit)
        if filtered:
            privileges.delete_unseen(session, db, infoschema.DATA, filtered)
        cursor = db.execute(sql)
        return result_set(plan, cursor.fetchall(), cursor.description or [])
    except duckdb.Error as e:
        raise duck_error(e, plan.duck_sql) from None
    finally:
        db.execute("ROLLBACK")


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
            table = infoschema.system_tables(database, session.node.version)[name]
            target = f"{quote(schema)}.{quote(name)}"
            if name == "ndb_binlog_index":
                replication.fill_binlog_index(session.node, engine, target, table)
                continue
            engine.replace_rows_in(target, table, replication.table_rows(session.node, name))
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
