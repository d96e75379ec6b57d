"""Statement execution of the simulated SQL node: SELECT, SHOW, DESCRIBE, SET, USE and errors."""

from __future__ import annotations

import asyncio
import re
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import duckdb
from mysql_mimic.intercept import expression_to_value, setitem_kind
from mysql_mimic.results import ResultSet
from ndbsim.engine import infoschema, model_tables
from ndbsim.engine.catalog import SCHEMA, TableDef, referenced_tables
from ndbsim.engine.mysqltypes import WireColumn, parse_type, wire_from_duckdb
from ndbsim.engine.translate import Plan, Session, mysql_semantics, parse, quote
from ndbsim.errors import CLUSTER_FAILURE, SqlError
from ndbsim.protocol import sysvars
from ndbsim.protocol.status import ServerCounters, SessionCounters, StatusView
from sqlglot import expressions as exp

if TYPE_CHECKING:
    from ndbsim.engine.database import Engine
    from ndbsim.model.cluster import Cluster

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

    # --- entry ----------------------------------------------------------------------------

    async def execute(self, sql: str) -> ResultSet | None:
        keyword = first_keyword(sql)
        if not keyword:
            raise SqlError(1065, "Query was empty")
        com = {"select": "Com_select", "with": "Com_select", "commit": "Com_commit"}.get(keyword)
        com = com or {
            "rollback": "Com_rollback",
            "insert": "Com_insert",
            "update": "Com_update",
        }.get(keyword)
        com = com or {"delete": "Com_delete"}.get(keyword)
        self.node.counters.statement(self.counters, com)
        warnings: list[tuple[str, int, str]] = []
        try:
            result = await self._dispatch(keyword, sql, warnings)
        finally:
            if keyword != "show" or "warnings" not in sql.lower():
                self.warnings = warnings
        if result is None:
            return None
        self.wire_columns = result.columns
        return ResultSet(rows=result.rows, columns=[c.result_column() for c in result.columns])

    async def _dispatch(self, keyword: str, sql: str, warnings: list) -> WireResult | None:
        if keyword in ("select", "with"):
            return await self._select(sql, warnings)
        if keyword == "show":
            return await self._show(sql)
        if keyword in ("desc", "describe", "explain"):
            return await self._describe(sql)
        if keyword == "set":
            self._set(sql)
            return None
        if keyword == "use":
            self.use(_unquote(sql.strip().rstrip(";").split(None, 1)[1].strip()))
            return None
        if keyword in ("insert", "update", "delete", "replace", "truncate", "load"):
            raise self._write_error(sql)
        if keyword in ("begin", "start", "commit", "rollback", "do"):
            return None
        if keyword in ("create", "drop", "alter", "rename", "grant", "revoke"):
            raise SqlError(
                1044, f"Access denied for user '{self.user}'@'{self.host}' to database '{SCHEMA}'"
            )
        parse(sql)  # syntax errors first, like mysqld
        raise SqlError(1235, f"This version of MySQL doesn't yet support '{keyword.upper()}'")

    def use(self, database: str) -> None:
        for name in infoschema.DATABASES:
            if database == name or (name != SCHEMA and database.lower() == name):
                self.database = name
                return
        raise SqlError(1049, f"Unknown database '{database}'")

    def translation_session(self) -> Session:
        functions = {
            "DATABASE": self.database,
            "SCHEMA": self.database,
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
        trees = parse(sql)
        if len(trees) != 1:
            raise SqlError(1064, _syntax_near(sql))
        plan = self.node.plan(sql, trees[0], self.translation_session())
        node = self.node
        offline = bool(plan.objects) and bool(node.store.values["ndbinfo_offline"])
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
        rows, description = await asyncio.to_thread(self._run, plan, offline)
        return _result_set(plan, rows, description)

    def _run(self, plan: Plan, offline: bool) -> tuple[list, list]:
        engine = self.node.engine
        sql = f"SELECT * FROM ({plan.duck_sql}) LIMIT 0" if offline else plan.duck_sql
        with engine.lock:
            if plan.objects and not offline:
                model_tables.sync(self.node.cluster, engine)
                engine.meter_reads(set().union(*(self.node.reads[o] for o in plan.objects)))
            if plan.perf_tables:
                self._fill_perf(plan.perf_tables)
            try:
                cursor = engine.db.execute(sql)
                return cursor.fetchall(), cursor.description or []
            except duckdb.Error as e:
                raise duck_error(e) from None

    def _fill_perf(self, tables: frozenset[str]) -> None:
        engine = self.node.engine
        for name in tables:
            kind, scope = name.split("_")[1], name.split("_")[0].upper()
            rows = self._status_rows(scope) if kind == "status" else self.variables.rows(scope)
            target = f"{quote(infoschema.PERF)}.{quote(name)}"
            engine.replace_rows_in(target, infoschema.P_S_TABLES[name], rows)

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
            rows = self.warnings if m["what"].upper() == "WARNINGS" else []
            if m["count"]:
                return _plain([f"@@session.{m['what'].lower()[:-1]}_count"], [(len(rows),)])
            return _plain(["Level", "Code", "Message"], rows)
        m = _SHOW_CREATE.match(text)
        if m:
            table, db = _split_name(m["table"])
            return self._show_create(db or self.database, table)
        if re.match(r"(?i)^SHOW ENGINES$", text):
            return _plain(
                ["Engine", "Support", "Comment", "Transactions", "XA", "Savepoints"], _ENGINES
            )
        if re.match(r"(?i)^SHOW (FULL )?PROCESSLIST$", text):
            row = (
                self.connection_id,
                self.user,
                self.host,
                self.database,
                "Query",
                0,
                "starting",
                text,
            )
            return _plain(["Id", "User", "Host", "db", "Command", "Time", "State", "Info"], [row])
        if re.match(r"(?i)^SHOW (INDEX|INDEXES|KEYS) ", text):
            return _plain(_INDEX_COLUMNS, [])
        raise SqlError(1064, _syntax_near(sql))

    def _locked_status_rows(self, scope: str) -> list[tuple[str, str]]:
        with self.node.engine.lock:
            return self._status_rows(scope)

    def _show_tables(self, full: bool, db: str | None, filt: str | None) -> WireResult:
        database = _unquote(db) if db else self.database
        if not database:
            raise SqlError(1046, "No database selected")
        self._check_db(database)
        show_hidden = bool(self.variables.get_variable("ndbinfo_show_hidden"))
        if database == SCHEMA:
            objs = self.node.catalog.listed(show_hidden)
            rows = [(o.name, "VIEW" if o.kind == "view" else "BASE TABLE") for o in objs]
        else:
            names = (
                infoschema.I_S_TABLES
                if database.lower() == "information_schema"
                else infoschema.P_S_TABLES
            )
            rows = [(name, "SYSTEM VIEW") for name in sorted(names)]
        column = f"Tables_in_{database}"
        header = [column]
        if filt and filt.upper().startswith("LIKE"):
            header = [f"{column} ({_literal(filt[4:].strip())})"]
        if full:
            header.append("Table_type")
        else:
            rows = [r[:1] for r in rows]
        return self._listing(header, rows, filt, column)

    def _check_db(self, database: str) -> None:
        if not any(
            database == n or (n != SCHEMA and database.lower() == n) for n in infoschema.DATABASES
        ):
            raise SqlError(1049, f"Unknown database '{database}'")

    def _table_def(self, database: str | None, table: str) -> TableDef:
        database = database or self.database
        if not database:
            raise SqlError(1046, "No database selected")
        if database == SCHEMA:
            obj = self.node.catalog.get(table)
        elif database.lower() == "information_schema":
            obj = infoschema.I_S_TABLES.get(table.upper())
        elif database.lower() == "performance_schema":
            obj = infoschema.P_S_TABLES.get(table.lower())
        else:
            obj = None
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
        if len(parts) < 2 or parts[1].lower() in ("select", "with", "format", "analyze", "("):
            raise SqlError(1235, "This version of MySQL doesn't yet support 'EXPLAIN'")
        table, db = _split_name(parts[1])
        filt = f"LIKE {parts[2]}" if len(parts) > 2 else None
        return self._show_columns(db, table, False, filt)

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
        tree = parse(f"SELECT 1 FROM t WHERE {condition}")[0]
        where = tree.args["where"]
        mysql_semantics(where)
        cond = where.this.sql(dialect="duckdb")
        if not rows:
            return []
        values = ", ".join("(" + ", ".join("?" for _ in header) + ")" for _ in rows)
        cols = ", ".join(quote(h) for h in header)
        params = [None if v is None else str(v) for row in rows for v in row]
        with self.node.engine.lock:
            try:
                keep = self.node.engine.db.execute(
                    f"SELECT * FROM (VALUES {values}) AS t({cols}) WHERE {cond}", params
                ).fetchall()
            except duckdb.Error as e:
                raise duck_error(e) from None
        return [tuple(r) for r in keep]

    # --- SET / writes ---------------------------------------------------------------------

    def _set(self, sql: str) -> None:
        tree = parse(sql)[0]
        if not isinstance(tree, exp.Set):
            raise SqlError(1064, _syntax_near(sql))
        for item in tree.expressions:
            kind = setitem_kind(item)
            if kind == "VARIABLE":
                self._set_variable(item)
            elif kind in ("NAMES", "CHARACTER SET"):
                charset = item.name if item.name.upper() != "DEFAULT" else "utf8mb4"
                for name in (
                    "character_set_client",
                    "character_set_connection",
                    "character_set_results",
                ):
                    self.variables.set(name, charset, force=True)
            # SET TRANSACTION ... has no effect on ndbinfo reads

    def _set_variable(self, item: exp.SetItem) -> None:
        assignment = item.this
        left, right = assignment.left, assignment.right
        if isinstance(left, exp.Parameter):
            self.user_vars[left.name.lower()] = self._value(right)
            return
        if isinstance(left, exp.SessionParameter):
            scope = (left.text("kind") or "SESSION").upper()
        else:
            scope = (item.text("kind") or "SESSION").upper()
        scope = "GLOBAL" if scope in ("GLOBAL", "PERSIST", "PERSIST_ONLY") else "SESSION"
        self.variables.set(left.name, self._value(right), scope=scope)

    def _value(self, node: exp.Expression) -> Any:
        try:
            return expression_to_value(node)
        except Exception:
            if isinstance(node, exp.Column):
                return node.name
            raise SqlError(1231, f"Can't set a variable to '{node.sql(dialect='mysql')}'") from None

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
_FILTER = r"(?: (?P<filter>(?:LIKE|WHERE) .+))?"
_SHOW_VARS = re.compile(
    rf"(?i)^SHOW (?:(?P<scope>GLOBAL|SESSION|LOCAL) )?(?P<what>STATUS|VARIABLES){_FILTER}$"
)
_SHOW_DATABASES = re.compile(rf"(?i)^SHOW (?:DATABASES|SCHEMAS){_FILTER}$")
_SHOW_TABLES = re.compile(
    rf"(?i)^SHOW (?P<full>FULL )?TABLES(?: (?:FROM|IN) (?P<db>{_NAME}))?{_FILTER}$"
)
_SHOW_COLUMNS = re.compile(
    rf"(?i)^SHOW (?P<full>FULL )?(?:COLUMNS|FIELDS) (?:FROM|IN) (?P<table>{_NAME})"
    rf"(?: (?:FROM|IN) (?P<db>{_NAME}))?{_FILTER}$"
)
_SHOW_WARNINGS = re.compile(
    r"(?i)^SHOW (?P<count>COUNT\(\*\) )?(?P<what>WARNINGS|ERRORS)(?: LIMIT .*)?$"
)
_SHOW_CREATE = re.compile(rf"(?i)^SHOW CREATE (?:TABLE|VIEW) (?P<table>{_NAME})$")
_WRITE_TARGET = re.compile(
    rf"(?i)^(?:INSERT|REPLACE|UPDATE|DELETE|TRUNCATE|LOAD DATA .*? INTO TABLE)"
    rf"(?: (?:LOW_PRIORITY|DELAYED|HIGH_PRIORITY|QUICK|IGNORE))*(?: (?:INTO|FROM|TABLE))? "
    rf"(?P<table>{_NAME})"
)
_WORD = re.compile(r"^\s*(?:/\*.*?\*/\s*|--[^\n]*\n\s*|#[^\n]*\n\s*)*\(*\s*(\w+)", re.S)
_ENGINES = [
    ("ndbcluster", "YES", "Clustered, fault-tolerant tables", "YES", "NO", "NO"),
    ("ndbinfo", "YES", "MySQL Cluster system information storage engine", "NO", "NO", "NO"),
    (
        "InnoDB",
        "DEFAULT",
        "Supports transactions, row-level locking, and foreign keys",
        "YES",
        "YES",
        "YES",
    ),
    ("PERFORMANCE_SCHEMA", "YES", "Performance Schema", "NO", "NO", "NO"),
]
_INDEX_COLUMNS = [
    "Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name", "Collation",
    "Cardinality", "Sub_part", "Packed", "Null", "Index_type", "Comment", "Index_comment",
]  # fmt: skip


def first_keyword(sql: str) -> str:
    m = _WORD.match(sql)
    return m.group(1).lower() if m else ""


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


def duck_error(e: duckdb.Error) -> SqlError:
    """MySQL's error for what DuckDB rejected."""
    text = str(e)
    first = text.splitlines()[0] if text else type(e).__name__
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
        return SqlError(1064, first)
    return SqlError(1105, first.split(": ", 1)[-1])
