"""information_schema and performance_schema tables the SQL node serves.

information_schema describes the ndbinfo schema of the catalog; hidden ndb$ tables are only
listed when ndbinfo_show_hidden=ON, so two DuckDB schemas expose the same data: i_s_all and
i_s_visible. performance_schema status/variable tables are filled right before a query reads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.engine.catalog import SCHEMA, Column, TableDef
from ndbsim.engine.mysqltypes import CHARSET_MAXLEN, COLLATIONS, parse_type
from ndbsim.engine.translate import quote

if TYPE_CHECKING:
    from ndbsim.engine.database import Engine

DATA = "i_s_data"
ALL = "i_s_all"
VISIBLE = "i_s_visible"
PERF = "p_s"
DUCK_SCHEMAS = (DATA, ALL, VISIBLE, PERF)

DATABASES = ("information_schema", SCHEMA, "performance_schema")


def _cols(spec: str) -> tuple[Column, ...]:
    out = []
    for item in spec.split(";"):
        name, typ = item.strip().split(" ", 1)
        nullable = not typ.endswith("!")
        typ = typ.rstrip("!")
        charset = "utf8mb3" if typ.startswith(("VARCHAR", "ENUM")) else None
        out.append(Column(name, typ, nullable, charset=charset))
    return tuple(out)


def _table(name: str, spec: str) -> TableDef:
    return TableDef(name, "system", _cols(spec), False, False, None, None)


I_S_TABLES = {
    "TABLES": _table(
        "TABLES",
        "TABLE_CATALOG VARCHAR(64)!; TABLE_SCHEMA VARCHAR(64)!; TABLE_NAME VARCHAR(64)!; "
        "TABLE_TYPE ENUM('BASE TABLE','VIEW','SYSTEM VIEW')!; ENGINE VARCHAR(64); "
        "VERSION INT; ROW_FORMAT ENUM('Fixed','Dynamic','Compressed','Redundant','Compact',"
        "'Paged'); TABLE_ROWS BIGINT UNSIGNED; AVG_ROW_LENGTH BIGINT UNSIGNED; "
        "DATA_LENGTH BIGINT UNSIGNED; MAX_DATA_LENGTH BIGINT UNSIGNED; "
        "INDEX_LENGTH BIGINT UNSIGNED; DATA_FREE BIGINT UNSIGNED; "
        "AUTO_INCREMENT BIGINT UNSIGNED; CREATE_TIME DATETIME; UPDATE_TIME DATETIME; "
        "CHECK_TIME DATETIME; TABLE_COLLATION VARCHAR(64); CHECKSUM BIGINT; "
        "CREATE_OPTIONS VARCHAR(256); TABLE_COMMENT VARCHAR(2048)",
    ),
    "COLUMNS": _table(
        "COLUMNS",
        "TABLE_CATALOG VARCHAR(64)!; TABLE_SCHEMA VARCHAR(64)!; TABLE_NAME VARCHAR(64)!; "
        "COLUMN_NAME VARCHAR(64); ORDINAL_POSITION INT UNSIGNED!; COLUMN_DEFAULT VARCHAR(512); "
        "IS_NULLABLE VARCHAR(3)!; DATA_TYPE VARCHAR(64); CHARACTER_MAXIMUM_LENGTH BIGINT; "
        "CHARACTER_OCTET_LENGTH BIGINT; NUMERIC_PRECISION BIGINT UNSIGNED; "
        "NUMERIC_SCALE BIGINT UNSIGNED; DATETIME_PRECISION INT UNSIGNED; "
        "CHARACTER_SET_NAME VARCHAR(64); COLLATION_NAME VARCHAR(64); COLUMN_TYPE VARCHAR(512)!; "
        "COLUMN_KEY ENUM('','PRI','UNI','MUL')!; EXTRA VARCHAR(256); PRIVILEGES VARCHAR(154); "
        "COLUMN_COMMENT VARCHAR(2048)!; GENERATION_EXPRESSION VARCHAR(512)!",
    ),
    "SCHEMATA": _table(
        "SCHEMATA",
        "CATALOG_NAME VARCHAR(64)!; SCHEMA_NAME VARCHAR(64)!; "
        "DEFAULT_CHARACTER_SET_NAME VARCHAR(64)!; DEFAULT_COLLATION_NAME VARCHAR(64)!; "
        "SQL_PATH VARCHAR(512)",
    ),
    # ndbcluster rows of information_schema.FILES (read by the ndbinfo.files view)
    "FILES": _table(
        "FILES",
        "FILE_ID BIGINT; FILE_NAME VARCHAR(268); FILE_TYPE VARCHAR(256); "
        "TABLESPACE_NAME VARCHAR(268); ENGINE VARCHAR(64)!; FREE_EXTENTS BIGINT; "
        "TOTAL_EXTENTS BIGINT; EXTENT_SIZE BIGINT; INITIAL_SIZE BIGINT; MAXIMUM_SIZE BIGINT; "
        "AUTOEXTEND_SIZE BIGINT",
    ),
    # NDB transaction id -> mysqld connection id (server_locks/operations/transactions views)
    "NDB_TRANSID_MYSQL_CONNECTION_MAP": _table(
        "NDB_TRANSID_MYSQL_CONNECTION_MAP",
        "mysql_connection_id BIGINT UNSIGNED!; node_id INT UNSIGNED!; ndb_transid BIGINT UNSIGNED!",
    ),
}

_PS_SPEC = "VARIABLE_NAME VARCHAR(64)!; VARIABLE_VALUE VARCHAR(1024)"
P_S_TABLES = {
    name: _table(name, _PS_SPEC)
    for name in ("global_status", "session_status", "global_variables", "session_variables")
}
# the SQL node's metadata synchronization queue (8.0.21+)
_SYNC_TYPE = "ENUM('LOGFILE GROUP','TABLESPACE','SCHEMA','TABLE')!"
P_S_TABLES["ndb_sync_pending_objects"] = _table(
    "ndb_sync_pending_objects", f"SCHEMA_NAME VARCHAR(64); NAME VARCHAR(64); TYPE {_SYNC_TYPE}"
)
P_S_TABLES["ndb_sync_excluded_objects"] = _table(
    "ndb_sync_excluded_objects",
    f"SCHEMA_NAME VARCHAR(64); NAME VARCHAR(64); TYPE {_SYNC_TYPE}; REASON VARCHAR(256)!",
)
# Server tables whose rows come from the cluster model (engine/model_tables.fill_server_table),
# by the DuckDB table that holds them.
MODEL_FED = {
    "FILES": (DATA, I_S_TABLES["FILES"]),
    "ndb_sync_pending_objects": (PERF, P_S_TABLES["ndb_sync_pending_objects"]),
    "ndb_sync_excluded_objects": (PERF, P_S_TABLES["ndb_sync_excluded_objects"]),
}


def create(engine: Engine) -> None:
    db = engine.db
    hidden = engine.catalog
    for name, table in I_S_TABLES.items():
        ddl = ", ".join(
            f"{quote(c.name)} {parse_type(c.mysql_type).duckdb()}" for c in table.columns
        )
        extra = ", _hidden BOOLEAN" if name in ("TABLES", "COLUMNS") else ""
        db.execute(f"CREATE TABLE {quote(DATA)}.{quote(name)} ({ddl}{extra})")
        names = ", ".join(quote(c.name) for c in table.columns)
        src = f"{quote(DATA)}.{quote(name)}"
        db.execute(f"CREATE VIEW {quote(ALL)}.{quote(name)} AS SELECT {names} FROM {src}")
        where = " WHERE NOT _hidden" if extra else ""
        db.execute(
            f"CREATE VIEW {quote(VISIBLE)}.{quote(name)} AS SELECT {names} FROM {src}{where}"
        )
    for name, table in P_S_TABLES.items():
        ddl = ", ".join(
            f"{quote(c.name)} {parse_type(c.mysql_type).duckdb()}" for c in table.columns
        )
        db.execute(f"CREATE TABLE {quote(PERF)}.{quote(name)} ({ddl})")

    mysql57 = hidden.version.is_7x
    tables, columns = [], []
    for obj in hidden.objects.values():
        tables.append((*_tables_row(obj), obj.hidden))
        for pos, col in enumerate(obj.columns, start=1):
            columns.append((*_columns_row(obj, pos, col, mysql57), obj.hidden))
    _insert(engine, "TABLES", tables)
    _insert(engine, "COLUMNS", columns)
    _insert(
        engine,
        "SCHEMATA",
        [("def", name, "utf8mb4", "utf8mb4_0900_ai_ci", None) for name in DATABASES],
    )


def _insert(engine: Engine, name: str, rows: list[tuple]) -> None:
    if not rows:
        return
    marks = ", ".join("?" for _ in rows[0])
    target = f"{quote(DATA)}.{quote(name)}"
    # a single multi-row VALUES statement is much faster than executemany in DuckDB
    placeholders = ", ".join(f"({marks})" for _ in rows)
    engine.db.execute(
        f"INSERT INTO {target} VALUES {placeholders}", [v for row in rows for v in row]
    )


def _tables_row(obj: TableDef) -> tuple:
    is_view = obj.kind == "view"
    return (
        "def",
        SCHEMA,
        obj.name,
        "VIEW" if is_view else "BASE TABLE",
        None if is_view else "ndbinfo",
        None if is_view else 10,
        None if is_view else "Dynamic",
        None if is_view else 0,
        None if is_view else 0,
        None if is_view else 0,
        None if is_view else 0,
        None if is_view else 0,
        None if is_view else 0,
        None,
        None,
        None,
        None,
        None if is_view else "latin1_swedish_ci",
        None,
        None if is_view else "",
        "VIEW" if is_view else obj.comment,
    )


def _columns_row(obj: TableDef, pos: int, col: Column, mysql57: bool) -> tuple:
    t = parse_type(col.mysql_type)
    length = t.length
    charset = col.charset if t.is_string else None
    octets = length * CHARSET_MAXLEN.get(charset or "latin1", 1) if length is not None else None
    if t.base == "LONGBLOB":
        length = octets = 4294967295
    precision, scale = t.precision_scale or (None, None)
    return (
        "def",
        SCHEMA,
        obj.name,
        col.name,
        pos,
        None,
        "YES" if col.nullable else "NO",
        t.base.lower(),
        length,
        octets,
        precision,
        scale,
        None,
        charset,
        COLLATIONS.get(charset) if charset else None,
        t.column_type(mysql57),
        col.key,
        "",
        "select",
        "",
        "",
    )
