"""Statement execution of the simulated SQL node: SELECT, SHOW, DESCRIBE, SET, USE and errors."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import duckdb
from mysql_mimic.intercept import expression_to_value, setitem_kind
from mysql_mimic.results import ResultSet
from ndbsim.engine import infoschema, model_tables
from ndbsim.engine.catalog import SCHEMA, TableDef, referenced_tables
from ndbsim.engine.mysqltypes import WireColumn, parse_type, wire_from_duckdb
from ndbsim.engine.translate import MYSQL, Plan, Session, mysql_semantics, parse, quote
from ndbsim.errors import CLUSTER_FAILURE, SqlError
from ndbsim.protocol import replies, sysvars
from ndbsim.protocol.sqltext import bind, nesting_depth, placeholders
from ndbsim.protocol.status import ServerCounters, SessionCounters, StatusView
from sqlglot import expressions as exp
from sqlglot.tokens import TokenType

if TYPE_CHECKING:
    from ndbsim.engine.database import Engine
    from ndbsim.model.cluster import Cluster

log = logging.getLogger(__name__)

_PLAN_CACHE = 1024
_OFFLINE_NOTE = (
    "'NDBINFO' has been started in offline mode since the 'NDBCLUSTER' engine is disabled "
    "or @@global.ndbinfo_offline is turned on - no rows can be returned"
)


class SqlNode:
    """Server-wide state: the engine, the cluster model, global variables and counters."""

    def __init__(self, engine: Engine, cluster: Cluster):
        self.engine = engine
        self.cluster = cluster
        self.catalog = engine.catalog
        self.version = self.catalog.version
        self.store = sysvars.GlobalStore(sysvars.definitions(self.version, cluster.sql_node_id))
        self.status = StatusView(self.version)
        self.counters = ServerCounters()
        self.plans: OrderedDict[tuple, Plan] = OrderedDict()
        self.plans_lock = threading.Lock()
        self.reads = {name: self._base_reads(name) for name in self.catalog.objects}
        self.sessions: weakref.WeakValueDictionary[int, SessionState] = (
            weakref.WeakValueDictionary()
        )
        self.started = time.monotonic()
        major, minor, patch = sysvars.server_version(self.version)[:3]
        self.server_version = major * 10000 + minor * 100 + patch

    def _base_reads(self, name: str) -> frozenset[str]:
        """The object and every ndbinfo object under it (for per-table latency faults)."""
        obj = self.catalog.objects[name]
        out = {name}
        if obj.kind == "view":
            for schema, table in referenced_tables(obj.sql or ""):
                if schema in ("", SCHEMA) and table in self.catalog.objects and table != name:
                    out |= self._base_reads(table)
        return frozenset(out)

    def plan(self, sql: str, tree: exp.Expression, session: Session) -> Plan:
        key = (sql, session.database, session.show_hidden)
        with self.plans_lock:
            plan = self.plans.get(key)
            if plan is not None:
                self.plans.move_to_end(key)
                return plan
        plan = self.engine.translator.compile(sql, tree, session)
        if not plan.volatile:
            with self.plans_lock:
                self.plans[key] = plan
                if len(self.plans) > _PLAN_CACHE:
                    self.plans.popitem(last=False)
        return plan


class WireResult:
    """Rows plus the column definitions to send them with."""

    def __init__(self, columns: list[WireColumn], rows: list):
        self.columns = columns
        self.rows = rows


def stack_overrun(node: SqlNode, depth: int) -> SqlError:
    """mysqld's answer to an expression nested deeper than its thread stack allows."""
    stack = int(node.store.values.get("thread_stack", 0) or 0) or (
        262144 if node.version.is_7x else 1048576
    )
    used = stack - 8000 + depth
    return SqlError(
        1436,
        f"Thread stack overrun:  {used} bytes used of a {stack} byte stack, and 16000 bytes "
        "needed.  Use 'mysqld --thread_stack=#' to specify a bigger stack.",
    )


class SessionState:
    """One client connection."""

    def __init__(self, node: SqlNode):
        self.node = node
        self.variables = sysvars.SessionVariables(node.store)
        self.database: str | None = None
        self.counters = SessionCounters()
        self.user_vars: dict[str, Any] = {}
        self.warnings: list[tuple[str, int, str]] = []
        self.connection_id = 0
        self.user = ""
        self.host = "localhost"
        self.wire_columns: list[WireColumn] = []
        self.prepared: dict[str, tuple[str, list[int]]] = {}  # name -> (text, placeholders)
        self.killed = False
        self.info: str | None = None
        self.last_active = time.monotonic()

    # --- entry ----------------------------------------------------------------------------

    async def execute(self, sql: str) -> ResultSet | None:
        if self.killed:  # KILL CONNECTION from another session: mysqld closes it
            raise asyncio.CancelledError
        self.node.sessions[self.connection_id] = self
        warnings: list[tuple[str, int, str]] = []
        self.info = sql
        try:
            if "/*" in sql:
                sql = versioned_comments(sql, self.node.server_version)
            keyword = first_keyword(sql)
            if not keyword:
                raise SqlError(1065, "Query was empty")
            self.node.counters.statement(self.counters, com_counter(keyword, sql))
            result = await self._dispatch(keyword, sql, warnings)
        except Exception as e:
            error = self._sql_error(e, sql)
            self._diagnostics([("Error", int(error.code), error.msg)])
            if error is e:
                raise
            raise error from None
        finally:
            self.info = None
            self.last_active = time.monotonic()
        if not _DIAGNOSTIC.match(sql):
            self._diagnostics(warnings)
        if result is None:
            return None
        self.wire_columns = result.columns
        return ResultSet(rows=result.rows, columns=[c.result_column() for c in result.columns])

    def _sql_error(self, exc: Exception, sql: str) -> SqlError:
        """What the client gets for a failed statement: mysqld's error, never a Python text."""
        if isinstance(exc, SqlError):
            return exc
        if isinstance(exc, RecursionError):
            return stack_overrun(self.node, nesting_depth(sql))
        log.warning("statement failed: %s", str(exc).splitlines()[0] if str(exc) else repr(exc))
        return SqlError(1105, "Unknown error")

    def _diagnostics(self, conditions: list[tuple[str, int, str]]) -> None:
        """The diagnostics area of the last statement (SHOW WARNINGS / SHOW ERRORS)."""
        self.warnings = conditions
        errors = sum(1 for c in conditions if c[0] == "Error")
        self.variables.set("warning_count", len(conditions), force=True)
        self.variables.set("error_count", errors, force=True)

    async def _dispatch(self, keyword: str, sql: str, warnings: list) -> WireResult | None:
        if keyword in ("select", "with"):
            return await self._select(sql, warnings)
        if keyword == "show":
            return await self._show(sql)
        if keyword in ("desc", "describe", "explain"):
            return await self._describe(sql)
        if keyword == "set":
            await self._set(sql)
            return None
        if keyword == "use":
            m = re.match(r"(?is)^\s*USE\s+(`[^`]+`|[\w$]+)\s*;?\s*$", sql)
            if not m:
                raise SqlError(1064, _syntax_near(sql))
            self.use(_unquote(m.group(1)))
            return None
        if keyword in ("insert", "update", "delete", "replace", "truncate", "load"):
            raise self._write_error(sql)
        if keyword in ("prepare", "execute", "deallocate") or _DEALLOCATE.match(sql):
            return await self._prepared(keyword, sql, warnings)
        if keyword == "kill":
            self._kill(sql)
            return None
        if keyword in ("create", "drop", "alter") and (
            m := _DDL_TABLE.match(" ".join(sql.split()))
        ):
            # mysqld checks the privilege before the database exists: the monitoring user has none.
            table = _split_name(m["table"])[0]
            raise SqlError(
                1142,
                f"{keyword.upper()} command denied to user '{self.user}'@'{self.host}' for table '{table}'",
            )
        if keyword in ("begin", "start", "commit", "rollback", "do", "savepoint", "release"):
            return None  # ndbinfo is read only: transactions have nothing to do
        if keyword in ("lock", "unlock"):
            return None
        if keyword in ("flush", "reset", "purge"):
            raise SqlError(
                1227,
                "Access denied; you need (at least one of) the RELOAD privilege(s) for "
                "this operation",
            )
        if keyword == "call":
            return self._call(sql)
        if keyword in ("analyze", "check", "optimize", "repair", "checksum"):
            return self._maintenance(sql)
        if keyword in ("create", "drop", "alter", "rename", "grant", "revoke"):
            raise SqlError(
                1044, f"Access denied for user '{self.user}'@'{self.host}' to database '{SCHEMA}'"
            )
        parse(sql)  # syntax errors first, like mysqld
        raise SqlError(1235, f"This version of MySQL doesn't yet support '{keyword.upper()}'")

    # --- SQL prepared statements, KILL, CALL ----------------------------------------------

    async def _prepared(self, keyword: str, sql: str, warnings: list) -> WireResult | None:
        text = " ".join(sql.strip().rstrip(";").split())
        m = _PREPARE.match(text) if keyword == "prepare" else None
        if m:
            source = m["src"].strip()
            if source.startswith("@"):
                body = self.user_vars.get(source[1:].strip("`").lower())
                body = "NULL" if body is None else str(body)
            else:
                body = _string_literal(source)
            if body is None:
                raise SqlError(1064, _syntax_near(source))
            params = placeholders(body)
            if not first_keyword(body):
                raise SqlError(1065, "Query was empty")
            parse(body.replace("?", "NULL"))  # a syntax error shows at PREPARE, as on mysqld
            self.prepared[_unquote(m["name"]).lower()] = (body, params)
            return None
        m = _EXECUTE.match(text) if keyword == "execute" else None
        if m:
            name = _unquote(m["name"]).lower()
            if name not in self.prepared:
                raise SqlError(
                    1243, f"Unknown prepared statement handler ({m['name']}) given to EXECUTE"
                )
            body, params = self.prepared[name]
            names = [v.strip() for v in (m["vars"] or "").split(",") if v.strip()]
            if len(names) != len(params) or any(not v.startswith("@") for v in names):
                raise SqlError(1210, "Incorrect arguments to EXECUTE")
            values = [self.user_vars.get(v[1:].strip("`").lower()) for v in names]
            bound = bind(body, params, values)
            return await self._dispatch(first_keyword(bound), bound, warnings)
        m = _DEALLOCATE.match(text)
        if m:
            name = _unquote(m["name"]).lower()
            if self.prepared.pop(name, None) is None:
                raise SqlError(
                    1243,
                    f"Unknown prepared statement handler ({m['name']}) given to DEALLOCATE PREPARE",
                )
            return None
        raise SqlError(1064, _syntax_near(sql))

    def _kill(self, sql: str) -> None:
        m = _KILL.match(" ".join(sql.strip().rstrip(";").split()))
        if not m:
            raise SqlError(1064, _syntax_near(sql))
        target = self.connection_id if m["id"].upper().startswith("CONNECTION_ID") else int(m["id"])
        other = self.node.sessions.get(target)
        if other is None:
            raise SqlError(1094, f"Unknown thread id: {target}")
        query_only = (m["what"] or "").upper() == "QUERY"
        if other is self:
            self.killed = not query_only
            raise SqlError(1317, "Query execution was interrupted")
        if not query_only:
            other.killed = True

    def _call(self, sql: str) -> WireResult:
        m = re.match(rf"(?i)^\s*CALL\s+(?P<name>{_NAME})", sql)
        if not m:
            raise SqlError(1064, _syntax_near(sql))
        name, database = self._resolve(m["name"])
        if not database:
            raise SqlError(1046, "No database selected")
        raise SqlError(1305, f"PROCEDURE {database}.{name} does not exist")

    def _maintenance(self, sql: str) -> WireResult:
        """ANALYZE/CHECK/OPTIMIZE/REPAIR/CHECKSUM TABLE: ndbinfo's engine supports none."""
        m = _MAINTENANCE.match(" ".join(sql.strip().rstrip(";").split()))
        if not m:
            raise SqlError(1064, _syntax_near(sql))
        op = m["op"].lower()
        rows: list[tuple] = []
        for text in m["tables"].split(","):
            table, database = self._resolve(text.strip())
            if not database:
                raise SqlError(1046, "No database selected")
            name = f"{database}.{table}"
            try:
                self._table_def(database, table)
            except SqlError as e:
                rows += [(name, op, "Error", e.msg), (name, op, "status", "Operation failed")]
                continue
            rows.append(
                (name, op, "note", f"The storage engine for the table doesn't support {op}")
            )
        if op == "checksum":
            return _plain(["Table", "Checksum"], [(r[0], None) for r in rows if r[2] != "status"])
        return _plain(["Table", "Op", "Msg_type", "Msg_text"], rows)

    def _resolve(self, text: str) -> tuple[str, str | None]:
        """'db.name' or 'name' -> (name, db or the current database)."""
        name, db = _split_name(text)
        return name, db or self.database

    def use(self, database: str) -> None:
        self.database = _known_database(database)

    def translation_session(self) -> Session:
        functions = {
            "DATABASE": self.database or None,
            "SCHEMA": self.database or None,
            "USER": f"{self.user}@{self.host}",
            "SESSION_USER": f"{self.user}@{self.host}",
            "SYSTEM_USER": f"{self.user}@{self.host}",
            "CURRENT_USER": f"{self.user}@{self.host}",
            "VERSION": self.node.version.version_string,
            "CONNECTION_ID": self.connection_id,
        }
        return Session(
            database=self.database,
            show_hidden=bool(self.variables.get_variable("ndbinfo_show_hidden")),
            variable=self.variables.lookup,
            user_variable=lambda name: self.user_vars.get(name.lower()),
            functions=functions,
        )

    # --- SELECT ---------------------------------------------------------------------------

    async def _select(self, sql: str, warnings: list) -> WireResult:
        sql = _SELECT_MODIFIERS.sub(r"\1", sql, count=1)
        trees = parse(sql)
        if len(trees) != 1:
            raise SqlError(1064, _syntax_near(sql))
        plan = self.node.plan(sql, trees[0], self.translation_session())
        node = self.node
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
        rows, description = await asyncio.to_thread(self._run, plan, offline, reads)
        return _result_set(plan, rows, description)

    def _run(self, plan: Plan, offline: bool, reads: set[str]) -> tuple[list, list]:
        engine = self.node.engine
        sql = f"SELECT * FROM ({plan.duck_sql}) LIMIT 0" if offline else plan.duck_sql
        with engine.lock:
            if reads:
                model_tables.sync(self.node.cluster, engine)
                engine.meter_reads(reads, plan.scan_limit)
            if plan.perf_tables:
                self._fill_dynamic(plan.perf_tables)
            try:
                cursor = engine.db.execute(sql)
                return cursor.fetchall(), cursor.description or []
            except duckdb.Error as e:
                raise duck_error(e, plan.duck_sql) from None

    def _fill_dynamic(self, tables: frozenset[str]) -> None:
        """Rows of the tables that show this moment (infoschema.DYNAMIC)."""
        engine = self.node.engine
        for target in tables:
            schema, name = target.split(".")
            if name in infoschema.MODEL_FED:
                model_tables.fill_server_table(self.node.cluster, engine, name)
                continue
            if name == "USER_PRIVILEGES":
                table = infoschema.I_S_TABLES[name]
                grantee = f"'{self.user}'@'%'"
                rows = [
                    (grantee, "def", p, "NO") for p in ("SELECT", "PROCESS", "REPLICATION CLIENT")
                ]
            elif schema == infoschema.DATA:
                table, rows = infoschema.I_S_TABLES[name], self._processlist(True)
            elif schema == infoschema.MYSQL:
                table, rows = infoschema.MYSQL_TABLES[name], self._accounts()
            elif name == "threads":
                table, rows = infoschema.P_S_TABLES[name], self._threads()
            else:
                kind, scope = name.split("_")[1], name.split("_")[0].upper()
                rows = self._status_rows(scope) if kind == "status" else self.variables.rows(scope)
                table = infoschema.P_S_TABLES[name]
            engine.replace_rows_in(f"{quote(schema)}.{quote(name)}", table, rows)

    def _processlist(self, full: bool) -> list[tuple]:
        now = time.monotonic()
        rows = []
        for cid, other in sorted(self.node.sessions.items()):
            info = other.info if full or other.info is None else other.info[:100]
            busy = other.info is not None
            rows.append(
                (
                    cid,
                    other.user,
                    other.host,
                    other.database or None,
                    "Query" if busy else "Sleep",
                    0 if busy else int(now - other.last_active),
                    "executing" if busy else "",
                    info,
                )
            )
        if not self.node.version.is_7x:
            uptime = int(now - self.node.started)
            daemon = (5, "event_scheduler", "localhost", None, "Daemon", uptime,
                      "Waiting on empty queue", None)  # fmt: skip
            rows.insert(0, daemon)
        return rows

    def _threads(self) -> list[tuple]:
        """performance_schema.threads: the server's background threads and one per client."""
        background = ["thread/sql/main", "thread/ndbcluster/ndb_binlog",
                      "thread/ndbcluster/ndb_index_stat", "thread/sql/signal_handler"]  # fmt: skip
        rows = [
            (i, name, "BACKGROUND", None, None, None, None, None, None, None, None, None, None,
             "YES", "YES", None, 1000 + i)
            for i, name in enumerate(background, start=1)
        ]  # fmt: skip
        for cid, user, host, db, command, secs, state, info in self._processlist(True):
            if user == "event_scheduler":
                continue
            rows.append(
                (cid + 40, "thread/sql/one_connection", "FOREGROUND", cid, user, host, db,
                 command, secs, state, info, 1, None, "YES", "YES", "TCP/IP", 2000 + cid % 50000)
            )  # fmt: skip
        return rows

    def _accounts(self) -> list[tuple]:
        """mysql.user: this server's account and the locked system accounts of mysqld."""
        plugin = "mysql_native_password"
        rows = [("%", self.user, "Y", "Y", "Y", "N", "", 0, 0, 0, 0, plugin, "N", "N")]
        for name in ("mysql.session", "mysql.sys"):
            rows.append(("localhost", name, "N", "N", "N", "N", "", 0, 0, 0, 0, plugin, "N", "Y"))
        return rows

    def _status_rows(self, scope: str) -> list[tuple[str, str]]:
        node = self.node
        values = node.status.values(
            node.cluster.global_status(), node.counters, self.counters, scope
        )
        return [(k, str(v)) for k, v in values.items()]

    # --- SHOW / DESCRIBE ------------------------------------------------------------------

    async def _show(self, sql: str) -> WireResult | None:
        text = " ".join(sql.strip().rstrip(";").split())
        m = _SHOW_VARS.match(text)
        if m:
            scope = "GLOBAL" if (m["scope"] or "").upper() == "GLOBAL" else "SESSION"
            if m["what"].upper() == "STATUS":
                rows = await asyncio.to_thread(self._locked_status_rows, scope)
            else:
                rows = self.variables.rows(scope)
            return self._listing(["Variable_name", "Value"], rows, m["filter"], "Variable_name")
        m = _SHOW_DATABASES.match(text)
        if m:
            rows = [(name,) for name in infoschema.DATABASES]
            return self._listing(["Database"], rows, m["filter"], "Database")
        m = _SHOW_TABLES.match(text)
        if m:
            return self._show_tables(bool(m["full"]), m["db"], m["filter"])
        m = _SHOW_COLUMNS.match(text)
        if m:
            table, db = _split_name(m["table"])
            return self._show_columns(
                m["db"] and _unquote(m["db"]) or db, table, bool(m["full"]), m["filter"]
            )
        m = _SHOW_WARNINGS.match(text)
        if m:
            rows = self.warnings
            if m["what"].upper() == "ERRORS":
                rows = [r for r in rows if r[0] == "Error"]
            if m["count"]:
                return _plain([f"@@session.{m['what'].lower()[:-1]}_count"], [(len(rows),)])
            return _plain(["Level", "Code", "Message"], rows)
        m = _SHOW_CREATE.match(text)
        if m:
            table, db = _split_name(m["table"])
            return self._show_create(db or self.database, table)
        if re.match(r"(?i)^SHOW (STORAGE )?ENGINES$", text):
            return _plain(
                ["Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"],
                infoschema.engines(),
            )
        m = re.match(r"(?i)^SHOW (?P<full>FULL )?PROCESSLIST$", text)
        if m:
            rows = self._processlist(bool(m["full"]))
            return _plain(["Id", "User", "Host", "db", "Command", "Time", "State", "Info"], rows)
        return self._show_server(text, sql)

    def _show_server(self, text: str, sql: str) -> WireResult:
        """SHOW statements about the server rather than a schema."""
        version = self.node.version
        m = _SHOW_INDEX.match(text)
        if m:
            table, db = _split_name(m["table"])
            return self._show_index(m["db"] and _unquote(m["db"]) or db, table)
        m = _SHOW_TABLE_STATUS.match(text)
        if m:
            return self._show_table_status(m["db"], m["filter"])
        m = _SHOW_ENGINE.match(text)
        if m:
            return self._show_engine(m["engine"])
        m = _SHOW_REPLICA.match(text)
        if m:
            replica = m["word"].upper() == "REPLICA"
            return _plain(replies.replica_status(version, replica), [])
        m = _SHOW_BINLOG_STATUS.match(text)
        if m:
            columns = replies.binary_log_status(version, m["word"].upper().startswith("BINARY"))
            return _plain(columns, [])
        if _SHOW_BINARY_LOGS.match(text):
            if text.upper().startswith("SHOW MASTER") and sysvars.server_version(version) >= (8, 4):
                raise SqlError(1064, _syntax_near(text[5:]))
            raise SqlError(1381, "You are not using binary logging")
        m = _SHOW_REPLICAS.match(text)
        if m:
            if m["word"].upper() == "SLAVE HOSTS" and sysvars.server_version(version) >= (8, 4):
                raise SqlError(1064, _syntax_near(text[5:]))
            return _plain(["Server_id", "Host", "Port", "Source_id", "Replica_UUID"], [])
        m = _SHOW_GRANTS.match(text)
        if m:
            return self._show_grants(m["user"])
        m = _SHOW_CHARSETS.match(text)
        if m:
            if m["what"].upper().startswith("COLLATION"):
                header = ["Collation", "Charset", "Id", "Default", "Compiled", "Sortlen"]
                rows = infoschema.collations(version.is_7x)
                if not version.is_7x:
                    header.append("Pad_attribute")
                rows = [r[: len(header)] for r in rows]
                return self._listing(header, rows, m["filter"], "Collation")
            rows = [(r[0], r[2], r[1], r[3]) for r in self._charset_rows()]
            return self._listing(
                ["Charset", "Description", "Default collation", "Maxlen"],
                rows,
                m["filter"],
                "Charset",
            )
        if re.match(r"(?i)^SHOW PLUGINS$", text):
            return _plain(
                ["Name", "Status", "Type", "Library", "License"], replies.plugins(version)
            )
        m = _SHOW_CREATE_DB.match(text)
        if m:
            database = _unquote(m["db"])
            _known_database(database)
            charset = "latin1" if version.is_7x else "utf8mb4 COLLATE utf8mb4_0900_ai_ci"
            tail = "" if version.is_7x else " /*!80016 DEFAULT ENCRYPTION='N' */"
            return _plain(
                ["Database", "Create Database"],
                [(database, f"CREATE DATABASE `{database}` /*!40100 DEFAULT CHARACTER SET "
                  f"{charset} */{tail}")],
            )  # fmt: skip
        raise SqlError(1064, _syntax_near(sql))

    def _charset_rows(self) -> list[tuple]:
        with self.node.engine.lock:
            return self.node.engine.db.execute(
                f"SELECT * FROM {quote(infoschema.DATA)}.CHARACTER_SETS"
            ).fetchall()

    def _show_engine(self, engine: str) -> WireResult:
        name = _unquote(engine).lower()
        header = ["Type", "Name", "Status"]
        if name in ("ndbcluster", "ndb"):
            status = self.node.cluster.global_status()
            rows = replies.ndb_engine_status(status, len(self.node.sessions))
            return _plain(header, rows)
        if name == "innodb":
            return _plain(header, [("InnoDB", "", _INNODB_STATUS)])
        if name in ("performance_schema", "ndbinfo", "memory", "myisam", "csv"):
            return _plain(header, [])
        raise SqlError(1286, f"Unknown storage engine '{_unquote(engine)}'")

    def _show_grants(self, user: str | None) -> WireResult:
        if user and not re.match(r"(?i)^CURRENT_USER(\(\))?$", user):
            name, _, host = user.partition("@")
            name, host = _literal(name), _literal(host or "%")
            if name != self.user or host != "%":
                raise SqlError(
                    1141, f"There is no such grant defined for user '{name}' on host '{host}'"
                )
        return _plain([f"Grants for {self.user}@%"], replies.grants(self.user, self.node.version))

    def _show_index(self, database: str | None, table: str) -> WireResult:
        obj = self._table_def(database, table)
        header = list(_INDEX_COLUMNS)
        if not self.node.version.is_7x:
            header += ["Visible", "Expression"]
        rows = []
        for r in infoschema.index_rows([obj]):
            row = (obj.name, r[3], r[5], r[6], r[7], r[8], r[9], r[10], r[11], "",
                   r[13], r[14], r[15], r[16], r[17])  # fmt: skip
            rows.append(row[: len(header)])
        return _plain(header, rows)

    def _show_table_status(self, db: str | None, filt: str | None) -> WireResult:
        database = self._shown_database(db)
        show_hidden = bool(self.variables.get_variable("ndbinfo_show_hidden"))
        rows = []
        if database == SCHEMA:
            for o in self.node.catalog.listed(show_hidden):
                if o.kind == "view":
                    rows.append((o.name, *([None] * 16), "VIEW"))
                else:
                    rows.append((o.name, "NDBINFO", 10, "Dynamic", 0, 0, 0, 0, 0, 0, None, None,
                                 None, None, "latin1_swedish_ci", None, "", o.comment))  # fmt: skip
        return self._listing(_TABLE_STATUS_COLUMNS, rows, filt, "Name")

    def _locked_status_rows(self, scope: str) -> list[tuple[str, str]]:
        with self.node.engine.lock:
            return self._status_rows(scope)

    def _show_tables(self, full: bool, db: str | None, filt: str | None) -> WireResult:
        database = self._shown_database(db)
        show_hidden = bool(self.variables.get_variable("ndbinfo_show_hidden"))
        if database == SCHEMA:
            objs = self.node.catalog.listed(show_hidden)
            rows = [(o.name, "VIEW" if o.kind == "view" else "BASE TABLE") for o in objs]
        else:
            names = infoschema.system_tables(database, self.node.version)
            kind = "SYSTEM VIEW" if database.lower() == "information_schema" else "BASE TABLE"
            rows = [(name, kind) for name in sorted(names)]
        column = f"Tables_in_{database}"
        header = [column]
        if filt and filt.upper().startswith("LIKE"):
            header = [f"{column} ({_literal(filt[4:].strip())})"]
        if full:
            header.append("Table_type")
        else:
            rows = [r[:1] for r in rows]
        return self._listing(header, rows, filt, column)

    def _shown_database(self, db: str | None) -> str:
        """The database a SHOW ... FROM names, else the current one."""
        database = _unquote(db) if db else self.database
        if not database:
            raise SqlError(1046, "No database selected")
        _known_database(database)
        return database

    def _table_def(self, database: str | None, table: str) -> TableDef:
        database = database or self.database
        if not database:
            raise SqlError(1046, "No database selected")
        if database == SCHEMA:
            obj = self.node.catalog.get(table)
        else:
            tables = infoschema.system_tables(database, self.node.version)
            key = table.upper() if database.lower() == "information_schema" else table.lower()
            obj = tables.get(key)
        if obj is None:
            raise SqlError(1146, f"Table '{database}.{table}' doesn't exist")
        return obj

    def _show_columns(
        self, database: str | None, table: str, full: bool, filt: str | None
    ) -> WireResult:
        obj = self._table_def(database, table)
        mysql57 = self.node.version.is_7x
        rows = []
        for c in obj.columns:
            t = parse_type(c.mysql_type)
            collation = {"latin1": "latin1_swedish_ci", "utf8mb4": "utf8mb4_0900_ai_ci"}.get(
                c.charset or "", "utf8mb3_general_ci" if c.charset else None
            )
            base = [c.name, t.column_type(mysql57)]
            rest = ["YES" if c.nullable else "NO", c.key, None, ""]
            if full:
                rows.append((*base, collation, *rest, "select", ""))
            else:
                rows.append((*base, *rest))
        header = ["Field", "Type", "Null", "Key", "Default", "Extra"]
        if full:
            header = [
                "Field",
                "Type",
                "Collation",
                "Null",
                "Key",
                "Default",
                "Extra",
                "Privileges",
                "Comment",
            ]
        return self._listing(header, rows, filt, "Field")

    def _show_create(self, database: str | None, table: str) -> WireResult:
        obj = self._table_def(database, table)
        if obj.kind == "view":
            text = (
                f"CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY INVOKER "
                f"VIEW `{obj.name}` AS {obj.sql}"
            )
            return _plain(
                ["View", "Create View", "character_set_client", "collation_connection"],
                [(obj.name, text, "latin1", "latin1_swedish_ci")],
            )
        cols = ",\n".join(
            f"  `{c.name}` {parse_type(c.mysql_type).column_type(self.node.version.is_7x)}"
            + ("" if c.nullable else " NOT NULL")
            for c in obj.columns
        )
        keys = [c.name for c in obj.columns if c.key == "PRI"]
        if keys:
            cols += ",\n  PRIMARY KEY (" + ", ".join(f"`{k}`" for k in keys) + ")"
        comment = f" COMMENT='{obj.comment}'" if obj.comment else ""
        text = (
            f"CREATE TABLE `{obj.name}` (\n{cols}\n) ENGINE=NDBINFO DEFAULT CHARSET=latin1{comment}"
        )
        return _plain(["Table", "Create Table"], [(obj.name, text)])

    async def _describe(self, sql: str) -> WireResult:
        parts = sql.strip().rstrip(";").split()
        if len(parts) < 2:
            raise SqlError(1064, _syntax_near(sql))
        m = _EXPLAIN.match(" ".join(parts))
        if m:
            return self._explain(m["format"], m["query"])
        table, db = _split_name(parts[1])
        filt = f"LIKE {parts[2]}" if len(parts) > 2 else None
        return self._show_columns(db, table, False, filt)

    def _explain(self, fmt: str | None, query: str) -> WireResult:
        if fmt and fmt.upper() not in ("TRADITIONAL",):
            raise SqlError(
                1235, f"This version of MySQL doesn't yet support 'EXPLAIN FORMAT={fmt}'"
            )
        query = _SELECT_MODIFIERS.sub(r"\1", query, count=1)
        trees = parse(query)
        if len(trees) != 1 or not isinstance(trees[0], (exp.Select, exp.SetOperation)):
            raise SqlError(1064, _syntax_near(query))
        plan = self.node.plan(query, trees[0], self.translation_session())
        with self.node.engine.lock:  # binds the query: unknown columns fail as on mysqld
            try:
                self.node.engine.db.execute(f"SELECT * FROM ({plan.duck_sql}) LIMIT 0")
            except duckdb.Error as e:
                raise duck_error(e, query) from None
        ctes = {c.alias_or_name for c in trees[0].find_all(exp.CTE)}
        tables = [t.alias_or_name for t in trees[0].find_all(exp.Table) if t.name not in ctes]
        return _plain(replies.EXPLAIN_COLUMNS, replies.explain_rows(tables))

    def _listing(
        self, header: list[str], rows: list[tuple], filt: str | None, like_column: str
    ) -> WireResult:
        if filt:
            kind, _, rest = filt.partition(" ")
            if kind.upper() == "LIKE":
                regex = like_regex(_literal(rest.strip()))
                idx = header.index(like_column) if like_column in header else 0
                rows = [r for r in rows if regex.match(str(r[idx]))]
            else:
                rows = self._where(header, rows, rest)
        return _plain(header, rows)

    def _where(self, header: list[str], rows: list[tuple], condition: str) -> list[tuple]:
        condition = _quote_columns(condition, header)
        tree = parse(f"SELECT 1 FROM t WHERE {condition}")[0]
        where = tree.args["where"]
        mysql_semantics(where)
        cond = where.this.sql(dialect="duckdb")
        if not rows:
            return []
        values = ", ".join("(" + ", ".join("?" for _ in header) + ")" for _ in rows)
        cols = ", ".join(quote(h) for h in header)
        numeric = [
            all(isinstance(r[i], int) or r[i] is None for r in rows) for i in range(len(header))
        ]
        params = [
            v if v is None or numeric[i] else str(v) for row in rows for i, v in enumerate(row)
        ]
        with self.node.engine.lock:
            try:
                keep = self.node.engine.db.execute(
                    f"SELECT * FROM (VALUES {values}) AS t({cols}) WHERE {cond}", params
                ).fetchall()
            except duckdb.Error as e:
                raise duck_error(e, condition) from None
        return [tuple(r) for r in keep]

    # --- SET / writes ---------------------------------------------------------------------

    async def _set(self, sql: str) -> None:
        tree = parse(sql)[0]
        if isinstance(tree, exp.Command) and tree.name.upper() == "SET":
            parts = [parse(f"SET {text}")[0] for text in _set_items(sql)]
            if not all(isinstance(p, exp.Set) and len(p.expressions) == 1 for p in parts):
                raise SqlError(1064, _syntax_near(sql))
            tree = exp.Set(expressions=[p.expressions[0] for p in parts])
        if not isinstance(tree, exp.Set):
            raise SqlError(1064, _syntax_near(sql))
        for item in tree.expressions:
            kind = setitem_kind(item)
            if kind == "VARIABLE":
                await self._set_variable(item)
            elif kind in ("NAMES", "CHARACTER SET"):
                charset = item.name if item.name.upper() != "DEFAULT" else "utf8mb4"
                if charset.lower() not in sysvars.CharacterSet.__members__:
                    raise SqlError(1115, f"Unknown character set: '{charset}'")
                for name in (
                    "character_set_client",
                    "character_set_connection",
                    "character_set_results",
                ):
                    self.variables.set(name, charset, force=True)
            # SET TRANSACTION ... has no effect on ndbinfo reads

    async def _set_variable(self, item: exp.SetItem) -> None:
        assignment = item.this
        left, right = assignment.left, assignment.right
        if isinstance(left, exp.Parameter):
            self.user_vars[left.name.lower()] = await self._value(right, system=False)
            return
        if isinstance(left, exp.SessionParameter):
            scope = (left.text("kind") or "SESSION").upper()
        else:
            scope = (item.text("kind") or "SESSION").upper()
        scope = "GLOBAL" if scope in ("GLOBAL", "PERSIST", "PERSIST_ONLY") else "SESSION"
        self.variables.set(left.name, await self._value(right), scope=scope)

    async def _value(self, node: exp.Expression, system: bool = True) -> Any:
        """A literal, a bare word (SET x = ON), or any expression evaluated as SELECT does."""
        try:
            return expression_to_value(node)
        except Exception:
            bare = isinstance(node, exp.Var) or (isinstance(node, exp.Column) and not node.table)
            if bare and system:
                return node.name
            if bare:
                raise SqlError(1054, f"Unknown column '{node.name}' in 'field list'") from None
        result = await self._select(f"SELECT {node.sql(dialect='mysql')}", [])
        return result.rows[0][0] if result.rows else None

    def _write_error(self, sql: str) -> SqlError:
        m = _WRITE_TARGET.match(" ".join(sql.split()))
        if not m:
            return SqlError(1064, _syntax_near(sql))
        table, db = _split_name(m["table"])
        database = db or self.database
        if not database:
            return SqlError(1046, "No database selected")
        if database == SCHEMA and self.node.catalog.get(table) is not None:
            return SqlError(1036, f"Table '{table}' is read only")
        if database.lower() in ("information_schema", "performance_schema"):
            return SqlError(
                1044, f"Access denied for user '{self.user}'@'{self.host}' to database '{database}'"
            )
        return SqlError(1146, f"Table '{database}.{table}' doesn't exist")


# --- helpers ---------------------------------------------------------------------------------

_NAME = r"(?:`[^`]+`|[\w$]+)(?:\.(?:`[^`]+`|[\w$]+))?"
_DDL_TABLE = re.compile(
    rf"(?i)^(?:CREATE|DROP|ALTER) (?:TEMPORARY )?TABLE (?:IF (?:NOT )?EXISTS )?(?P<table>{_NAME})"
)
_FILTER = r"(?: (?P<filter>(?:LIKE|WHERE) .+))?"
_SHOW_VARS = re.compile(
    rf"(?i)^SHOW (?:(?P<scope>GLOBAL|SESSION|LOCAL) )?(?P<what>STATUS|VARIABLES){_FILTER}$"
)
_SHOW_DATABASES = re.compile(rf"(?i)^SHOW (?:DATABASES|SCHEMAS){_FILTER}$")
_IN_DB = rf"(?: (?:FROM|IN) (?P<db>{_NAME}))?"


def _show_of_table(words: str, tail: str = _FILTER) -> re.Pattern:
    """SHOW <words> {FROM|IN} table [{FROM|IN} db] <tail>."""
    return re.compile(rf"(?i)^SHOW {words} (?:FROM|IN) (?P<table>{_NAME}){_IN_DB}{tail}$")


_SHOW_TABLES = re.compile(rf"(?i)^SHOW (?P<full>FULL )?TABLES{_IN_DB}{_FILTER}$")
_SHOW_COLUMNS = _show_of_table(r"(?P<full>FULL )?(?:COLUMNS|FIELDS)")
_SHOW_WARNINGS = re.compile(
    r"(?i)^SHOW (?P<count>COUNT\(\*\) )?(?P<what>WARNINGS|ERRORS)(?: LIMIT .*)?$"
)
_SHOW_CREATE = re.compile(rf"(?i)^SHOW CREATE (?:TABLE|VIEW) (?P<table>{_NAME})$")
_WRITE_TARGET = re.compile(
    rf"(?i)^(?:INSERT|REPLACE|UPDATE|DELETE|TRUNCATE|LOAD DATA .*? INTO TABLE)"
    rf"(?: (?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY|QUICK|IGNORE))*(?: (?:INTO|FROM|TABLE))? "
    rf"(?P<table>{_NAME})"
)
MYSQL_TOKENIZER = MYSQL.tokenize
_WORD = re.compile(r"^\s*(?:/\*.*?\*/\s*|--[^\n]*\n\s*|#[^\n]*\n\s*)*\(*\s*(\w+)", re.S)
_SHOW_INDEX = _show_of_table(r"(?:EXTENDED )?(?:INDEX|INDEXES|KEYS)", r"(?: WHERE .+)?")
_SHOW_TABLE_STATUS = re.compile(rf"(?i)^SHOW TABLE STATUS{_IN_DB}{_FILTER}$")
_SHOW_ENGINE = re.compile(r"(?i)^SHOW ENGINE (?P<engine>`?\w+`?) (?:STATUS|MUTEX)$")
_SHOW_REPLICA = re.compile(r"(?i)^SHOW (?P<word>SLAVE|REPLICA) STATUS(?: FOR CHANNEL .+)?$")
_SHOW_BINLOG_STATUS = re.compile(r"(?i)^SHOW (?P<word>MASTER|BINARY LOG) STATUS$")
_SHOW_BINARY_LOGS = re.compile(r"(?i)^SHOW (?:BINARY|MASTER) LOGS$")
_SHOW_REPLICAS = re.compile(r"(?i)^SHOW (?P<word>SLAVE HOSTS|REPLICAS)$")
_SHOW_GRANTS = re.compile(r"(?i)^SHOW GRANTS(?: FOR (?P<user>.+?))?(?: USING .+)?$")
_SHOW_CHARSETS = re.compile(rf"(?i)^SHOW (?P<what>COLLATION|CHARACTER SET|CHARSET){_FILTER}$")
_SHOW_CREATE_DB = re.compile(
    rf"(?i)^SHOW CREATE (?:DATABASE|SCHEMA) (?:IF NOT EXISTS )?(?P<db>{_NAME})$"
)
_EXPLAIN = re.compile(
    r"(?is)^(?:EXPLAIN|DESCRIBE|DESC)(?: (?:EXTENDED|PARTITIONS|FORMAT ?= ?(?P<format>\w+)))?"
    r" (?P<query>(?:SELECT|WITH|\() .*|(?:SELECT|WITH|\().*)$"
)
_SELECT_MODIFIERS = re.compile(
    r"(?is)^(\s*SELECT\s+)(?:(?:SQL_NO_CACHE|SQL_CACHE|SQL_CALC_FOUND_ROWS|SQL_BUFFER_RESULT|"
    r"SQL_SMALL_RESULT|SQL_BIG_RESULT|HIGH_PRIORITY|STRAIGHT_JOIN)\s+)+"
)
# statements that show the diagnostics area and so leave it as it is
_DIAGNOSTIC = re.compile(
    r"(?is)^\s*(?:SHOW\s+(?:COUNT\s*\(\s*\*\s*\)\s+)?(?:WARNINGS|ERRORS)\b|"
    r"SELECT\s+@@(?:session\.)?(?:warning|error)_count\s*;?\s*$)"
)
_MAINTENANCE = re.compile(
    r"(?i)^(?P<op>ANALYZE|CHECK|OPTIMIZE|REPAIR|CHECKSUM)(?: NO_WRITE_TO_BINLOG| LOCAL)? "
    r"TABLES? (?P<tables>.+?)(?: (?:QUICK|FAST|MEDIUM|EXTENDED|CHANGED|USE_FRM|FOR UPGRADE))*$"
)
_STMT_NAME = r"(?P<name>`[^`]+`|[\w$]+)"
_PREPARE = re.compile(rf"(?is)^PREPARE {_STMT_NAME} FROM (?P<src>.+)$")
_EXECUTE = re.compile(rf"(?is)^EXECUTE {_STMT_NAME}(?: USING (?P<vars>.+))?$")
_DEALLOCATE = re.compile(rf"(?is)^\s*(?:DEALLOCATE|DROP) PREPARE {_STMT_NAME}\s*;?\s*$")
_KILL = re.compile(r"(?i)^KILL (?:(?P<what>CONNECTION|QUERY) )?(?P<id>\d+|CONNECTION_ID\(\))$")
_COM = {
    "select": "Com_select", "with": "Com_select", "insert": "Com_insert",
    "update": "Com_update", "delete": "Com_delete", "replace": "Com_replace",
    "commit": "Com_commit", "rollback": "Com_rollback", "begin": "Com_begin",
    "start": "Com_begin", "set": "Com_set_option", "use": "Com_change_db",
    "prepare": "Com_prepare_sql", "execute": "Com_execute_sql",
    "deallocate": "Com_dealloc_sql", "kill": "Com_kill", "flush": "Com_flush",
    "truncate": "Com_truncate", "do": "Com_do", "savepoint": "Com_savepoint",
    "explain": "Com_explain_other", "describe": "Com_show_fields", "desc": "Com_show_fields",
    "call": "Com_call_procedure", "grant": "Com_grant", "revoke": "Com_revoke",
    "lock": "Com_lock_tables", "unlock": "Com_unlock_tables",
}  # fmt: skip
_COM_SHOW = {
    "variables": "variables", "status": "status", "columns": "fields", "fields": "fields",
    "index": "keys", "indexes": "keys", "keys": "keys", "engine": "engine_status",
    "slave": "slave_status", "replica": "replica_status", "master": "master_status",
    "binary": "binary_log_status", "create": "create_table", "table": "table_status",
    "databases": "databases", "schemas": "databases", "warnings": "warnings",
    "errors": "errors", "grants": "grants", "processlist": "processlist", "tables": "tables",
    "engines": "storage_engines", "collation": "collations", "character": "charsets",
    "charset": "charsets", "plugins": "plugins",
}  # fmt: skip
_TABLE_STATUS_COLUMNS = [
    "Name", "Engine", "Version", "Row_format", "Rows", "Avg_row_length", "Data_length",
    "Max_data_length", "Index_length", "Data_free", "Auto_increment", "Create_time",
    "Update_time", "Check_time", "Collation", "Checksum", "Create_options", "Comment",
]  # fmt: skip
_INNODB_STATUS = (
    "\n=====================================\nINNODB MONITOR OUTPUT\n"
    "=====================================\nBACKGROUND THREAD\n-----------------\n"
    "srv_master_thread loops: 0 srv_active, 0 srv_shutdown, 0 srv_idle\n"
    "----------------------------\nEND OF INNODB MONITOR OUTPUT\n"
    "============================\n"
)
_INDEX_COLUMNS = [
    "Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name", "Collation",
    "Cardinality", "Sub_part", "Packed", "Null", "Index_type", "Comment", "Index_comment",
]  # fmt: skip


_VERSIONED = re.compile(r"/\*!(\d{5,6})?(.*?)\*/", re.S)
_HINTS = re.compile(r"/\*\+.*?\*/", re.S)


def versioned_comments(sql: str, server: int) -> str:
    """mysqld runs the text of /*!NNNNN ... */ when its version is at least NNNNN (and of
    /*! ... */ always); optimizer hints /*+ ... */ change nothing here."""
    sql = _HINTS.sub(" ", sql)
    return _VERSIONED.sub(
        lambda m: f" {m[2]} " if m[1] is None or int(m[1]) <= server else " ", sql
    )


def com_counter(keyword: str, sql: str) -> str | None:
    """The Com_xxx status variable a statement counts in."""
    if keyword != "show":
        return _COM.get(keyword)
    words = [w.lower() for w in sql.split()[1:4]]
    words = [w for w in words if w not in ("global", "session", "local", "full", "extended")]
    return f"Com_show_{_COM_SHOW[words[0]]}" if words and words[0] in _COM_SHOW else None


def _set_items(sql: str) -> list[str]:
    """The assignments of a SET statement, split at its top-level commas (the parser gives up
    on a list that holds a subquery)."""
    body = re.sub(r"(?is)^\s*SET\s+", "", sql.strip().rstrip(";"))
    parts, depth, last = [], 0, 0
    for t in MYSQL_TOKENIZER(body):
        depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(t.token_type, 0)
        if depth == 0 and t.token_type == TokenType.COMMA:
            parts.append(body[last : t.start])
            last = t.end + 1
    return [*parts, body[last:]]


def _quote_columns(condition: str, header: list[str]) -> str:
    """Backquote the listing's column names in a WHERE condition: SHOW COLLATION's `Charset`
    or `Default` are keywords to the parser but columns to mysqld."""
    names = {h.lower() for h in header}
    try:
        tokens = MYSQL_TOKENIZER(condition)
    except Exception:
        return condition
    out, last = [], 0
    for t in tokens:
        if t.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) and t.text.lower() in names:
            out += [condition[last : t.start], f"`{t.text}`"]
            last = t.end + 1
    return "".join(out) + condition[last:]


def _string_literal(text: str) -> str | None:
    """The value of a quoted SQL string ('...' or "..."), None if it is not one."""
    text = text.strip()
    if len(text) < 2 or text[0] not in "'\"" or text[-1] != text[0]:
        return None
    q = text[0]
    body = text[1:-1].replace(q + q, q)
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "0": "\0"}.get(m[1], m[1]), body)


def first_keyword(sql: str) -> str:
    m = _WORD.match(sql)
    return m.group(1).lower() if m else ""


def _known_database(name: str) -> str:
    """The database `name` is (ndbinfo's name is case-sensitive, the system schemas' not)."""
    for known in infoschema.DATABASES:
        if name == known or (known != SCHEMA and name.lower() == known):
            return known
    raise SqlError(1049, f"Unknown database '{name}'")


def _unquote(name: str) -> str:
    return name[1:-1] if name.startswith("`") and name.endswith("`") else name


def _split_name(text: str) -> tuple[str, str | None]:
    """'db.table' / '`db`.`table`' / 'table' -> (table, db)."""
    m = re.match(r"^(`[^`]+`|[\w$]+)(?:\.(`[^`]+`|[\w$]+))?$", text)
    if not m:
        return _unquote(text), None
    if m.group(2):
        return _unquote(m.group(2)), _unquote(m.group(1))
    return _unquote(m.group(1)), None


def _literal(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def like_regex(pattern: str) -> re.Pattern:
    out = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.compile("^" + "".join(out) + "$", re.I | re.S)


def _syntax_near(sql: str) -> str:
    near = sql.strip().rstrip(";")[:80]
    return (
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
        f"server version for the right syntax to use near '{near}' at line 1"
    )


def _plain(header: list[str], rows: list[tuple]) -> WireResult:
    columns = []
    for i, name in enumerate(header):
        values = [r[i] for r in rows if r[i] is not None]
        numeric = bool(values) and all(isinstance(v, int) for v in values)
        col_type = "BIGINT UNSIGNED" if numeric else "VARCHAR(512)"
        columns.append(WireColumn(name, *parse_type(col_type).wire()))
    return WireResult(columns, [list(r) for r in rows])


def _result_set(plan: Plan, rows: list, description: list) -> WireResult:
    names = [d[0] for d in description]
    catalog_columns: list[Any] = [None] * len(description)
    if plan.sources is not None:
        widths = []
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
                    widths.append(1)
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
        return SqlError(1064, _syntax_near(sql))
    if isinstance(e, duckdb.ConversionException):
        return SqlError(1292, "Truncated incorrect value")
    m = _FUNCTION_ARGS.search(text)
    what = f"{m.group(1).upper()}() with these arguments" if m else "this statement"
    log.info("engine could not run a statement: %s", text.splitlines()[0] if text else e)
    return SqlError(1235, f"This version of MySQL doesn't yet support '{what}'")
