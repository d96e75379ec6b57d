"""DuckDB database holding the ndbinfo schema of one simulated SQL node."""

from __future__ import annotations

import csv
import logging
import os
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import duckdb
from ndbsim.engine import infoschema
from ndbsim.engine.catalog import SCHEMA, Catalog, TableDef, load_json
from ndbsim.engine.mysqltypes import parse_type
from ndbsim.engine.schemas import DUCK_SCHEMAS, quote
from ndbsim.engine.table_writes import TableWrites
from ndbsim.engine.translate import Translator, create_macros
from ndbsim.engine.writers.inserts import CSV_ROWS, insert_columns

log = logging.getLogger(__name__)

_NULL = "\\N"


# ndbinfo_max_rows' default: rows a data node sends per round trip of an ndbinfo scan.
NDBINFO_MAX_ROWS = 10


def rows_produced(table_rows: int, scan_limit: int | None) -> int:
    """Rows the data nodes produce for a scan of a table of ``table_rows`` (ReadMeter)."""
    if scan_limit is None:
        return table_rows
    batches = -(-scan_limit // NDBINFO_MAX_ROWS) + 1
    return min(table_rows, batches * NDBINFO_MAX_ROWS)


class ReadMeter:
    """Rows of ndbinfo base and lookup tables read by statements, in total and per table.

    ndbinfo produces a whole table for each scan, whatever the WHERE clause, so a statement
    that reads a table (directly or through views) counts every row of it, once per
    statement. The exception is a scan that mysqld ends early (a plain LIMIT): the data
    nodes send ``NDBINFO_MAX_ROWS`` rows per round trip, node after node, and the next batch
    is asked for as soon as one arrives, so such a scan produces the batches up to its last
    row and one more. The counts follow the statements only, never timing."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_table: Counter[str] = Counter()
        self._statements = 0

    def record(self, rows_by_table: dict[str, int]) -> None:
        with self._lock:
            self._statements += 1
            self._by_table.update(rows_by_table)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            by_table = {name: self._by_table[name] for name in sorted(self._by_table)}
            return {
                "ndbinfo_rows_read": sum(by_table.values()),
                "ndbinfo_rows_read_by_table": by_table,
                "ndbinfo_statements": self._statements,
            }


class Engine:
    """Base and lookup tables are DuckDB tables named like ndbinfo ("ndb$nodes", ...); views are
    DuckDB views built from their real view SQL, cast to the catalog's column types.

    Statements run concurrently, each thread on its own cursor (`cursor()`, a connection to
    the same database): DuckDB gives each transaction a consistent snapshot, so a read never
    waits for another statement's read, and it waits only for the writes of the tables it
    reads (`writes`). `lock` serializes the use of the first connection, `db`, and the
    statements that fill or filter the server tables for themselves (their rows are the
    statement's own: session variables, processlist, an account's privileges)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.lock = threading.RLock()
        # tables filled by appending (append_rows_in): what the last fill left, per table
        self.fill_marks: dict[str, Any] = {}
        self.db = duckdb.connect(config={"threads": 2})
        _configure(self.db)
        self.writes = TableWrites()
        self._cursors = threading.local()
        self.translator = Translator(catalog)
        self._tmpdir = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self.meter = ReadMeter()
        self._create_schema()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """The calling thread's own connection to the database."""
        cursor = getattr(self._cursors, "cursor", None)
        if cursor is None:
            with self.lock:
                cursor = self._cursors.cursor = self.db.cursor()
            _configure(cursor)
        return cursor

    # --- schema ---------------------------------------------------------------------------

    def _create_schema(self) -> None:
        db = self.db
        for schema in (SCHEMA, *DUCK_SCHEMAS):
            db.execute(f"CREATE SCHEMA IF NOT EXISTS {quote(schema)}")
        for obj in self.catalog.objects.values():
            if obj.kind != "view":
                db.execute(f"CREATE TABLE {self.qualified(obj.name)} ({_column_ddl(obj)})")
        create_macros(db)
        infoschema.create(self)
        self._fill_sql_node_lookups()
        self._create_views()

    def _create_views(self) -> None:
        pending = [o for o in self.catalog.objects.values() if o.kind == "view"]
        # views may read other views: create in dependency order by retrying
        while pending:
            failed = []
            for view in pending:
                try:
                    self.db.execute(self._view_ddl(view))
                except duckdb.CatalogException:
                    failed.append(view)
            if len(failed) == len(pending):
                self.db.execute(self._view_ddl(failed[0]))  # raises the real error
            pending = failed

    def _view_ddl(self, view: TableDef) -> str:
        translated = self.translator.translate_view(view.sql or "")
        casts = ", ".join(
            f"CAST({quote(c.name)} AS {parse_type(c.mysql_type).duckdb()}) AS {quote(c.name)}"
            for c in view.columns
        )
        names = ", ".join(quote(c.name) for c in view.columns)
        order = ", ".join(quote(view.columns[i].name) for i in translated.order)
        return (
            f"CREATE VIEW {self.qualified(view.name)} AS SELECT {casts} "
            f"FROM ({translated.sql}) AS v({names})" + (f" ORDER BY {order}" if order else "")
        )

    def _fill_sql_node_lookups(self) -> None:
        """Lookup tables that the SQL node itself implements (NdbInfoScanVirtual)."""
        enums = load_json("enums.json")
        fills = {
            "ndb$blocks": [(int(k), v) for k, v in enums["blocks"]["values"].items()],
            "ndb$dict_obj_types": [
                (int(k), v) for k, v in enums["dict_obj_types"]["values"].items()
            ],
            "ndb$dbtc_apiconnect_state": enums["ndb$dbtc_apiconnect_state"]["rows"],
            "ndb$dblqh_tcconnect_state": enums["ndb$dblqh_tcconnect_state"]["rows"],
        }
        for name, rows in fills.items():
            if name in self.catalog.objects:
                self.replace_rows(name, rows)

    # --- data -----------------------------------------------------------------------------

    @staticmethod
    def qualified(name: str, schema: str = SCHEMA) -> str:
        return f"{quote(schema)}.{quote(name)}"

    def replace_rows(self, table: str, rows: Iterable[Sequence[Any]], db: Any = None) -> None:
        """Replace the whole content of a base/lookup table (catalog column order)."""
        obj = self.catalog.objects[table]
        self.replace_rows_in(self.qualified(table), obj, rows, db)

    def replace_rows_in(
        self, target: str, obj: TableDef, rows: Iterable[Sequence[Any]], db: Any = None
    ) -> None:
        """Replace the rows of ``target``: in a transaction of its own on the first
        connection, or, given ``db`` (a cursor in a transaction), on it."""
        rows = rows if isinstance(rows, list) else list(rows)
        if db is not None:
            self._replace(db, target, obj, rows)
            return
        with self.lock:
            self.db.execute("BEGIN")
            try:
                self._replace(self.db, target, obj, rows)
                self.db.execute("COMMIT")
            except Exception:
                self.db.execute("ROLLBACK")
                raise

    def append_rows_in(
        self, target: str, obj: TableDef, rows: Iterable[Sequence[Any]], stale: str
    ) -> None:
        """Delete the rows of ``target`` matching ``stale`` (an SQL condition) and add
        ``rows``, in one transaction: a table whose rows are only added, and dropped oldest
        first, need not be written whole at every statement."""
        rows = rows if isinstance(rows, list) else list(rows)
        with self.lock:
            self.db.execute("BEGIN")
            try:
                self.db.execute(f"DELETE FROM {target} WHERE {stale}")
                if len(rows) > CSV_ROWS:
                    self._insert_csv(self.db, target, obj, rows)
                elif rows:
                    insert_columns(self.db, target, rows)
                self.db.execute("COMMIT")
            except Exception:
                self.db.execute("ROLLBACK")
                raise

    def _replace(self, db: Any, target: str, obj: TableDef, rows: list[Sequence[Any]]) -> None:
        db.execute(f"DELETE FROM {target}")
        if len(rows) > CSV_ROWS:  # DuckDB reads a CSV file faster than lists then
            self._insert_csv(db, target, obj, rows)
        else:
            insert_columns(db, target, rows)

    def _insert_csv(self, db: Any, target: str, obj: TableDef, rows: list[Sequence[Any]]) -> None:
        fd, path = tempfile.mkstemp(suffix=".csv", dir=self._tmpdir)
        try:
            with os.fdopen(fd, "w", newline="") as f:
                writer = csv.writer(f)
                writer.writerows([_NULL if v is None else v for v in row] for row in rows)
            columns = ", ".join(
                f"'{c.name}': '{parse_type(c.mysql_type).duckdb()}'" for c in obj.columns
            )
            db.execute(
                f"INSERT INTO {target} SELECT * FROM read_csv(?, header = false, "
                f"nullstr = '{_NULL}', quote = '\"', escape = '\"', columns = {{{columns}}})",
                [path],
            )
        finally:
            os.unlink(path)

    def meter_reads(self, db: Any, objects: Iterable[str], scan_limit: int | None = None) -> None:
        """Count, for the cost meter, the rows of the base and lookup tables among
        ``objects`` (ndbinfo names, views left out) that one statement makes the data nodes
        produce: all of them, or up to ``scan_limit`` for a scan of one table ended early.
        ``db``: the statement's cursor, in the transaction it reads in."""
        tables = sorted({o for o in objects if self.catalog.objects[o].kind != "view"})
        limit = scan_limit if len(tables) == 1 else None
        counts = {name: rows_produced(self._count(db, name, limit), limit) for name in tables}
        self.meter.record(counts)

    def _count(self, db: Any, name: str, scan_limit: int | None) -> int:
        """The rows of ``name``, or as many as a scan ended after ``scan_limit`` rows may
        produce, whichever is fewer: a table generated as a view (ndb$table_replicas) is not
        computed whole to meter a scan of its first rows."""
        source = self.qualified(name)
        if scan_limit is not None:
            most = rows_produced(sys.maxsize, scan_limit)
            source = f"(SELECT 1 FROM {source} LIMIT {most})"
        return db.execute(f"SELECT count(*) FROM {source}").fetchone()[0]

    def execute(self, sql: str, params: Sequence[Any] = ()) -> duckdb.DuckDBPyConnection:
        with self.lock:
            return self.db.execute(sql, params)


def _configure(db: duckdb.DuckDBPyConnection) -> None:
    db.execute("SET error_on_division_by_zero = false")
    # MySQL's default collations compare strings case-insensitively
    db.execute("SET default_collation = 'nocase'")


def _column_ddl(obj: TableDef) -> str:
    return ", ".join(f"{quote(c.name)} {parse_type(c.mysql_type).duckdb()}" for c in obj.columns)
