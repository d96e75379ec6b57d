"""information_schema and performance_schema tables the SQL node serves.

information_schema describes the ndbinfo schema of the catalog; hidden ndb$ tables are only
listed when ndbinfo_show_hidden=ON, so two DuckDB schemas expose the same data: i_s_all and
i_s_visible. Tables whose rows depend on the moment (PROCESSLIST, the performance_schema status,
variable and thread tables) are filled right before a query reads them (DYNAMIC). The `mysql`
schema has the user and time zone tables tools look at.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from ndbsim.engine.catalog import SCHEMA, Column, TableDef
from ndbsim.engine.mysqltypes import CHARSET_MAXLEN, COLLATIONS, parse_type
from ndbsim.engine.schemas import ALL, DATA, DATABASES, MYSQL, PERF, VISIBLE, quote
from ndbsim.engine.writers.inserts import insert_columns

if TYPE_CHECKING:
    from ndbsim.engine.database import Engine
    from ndbsim.versions import NdbVersion


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


_CMP = (
    "page_size INT!; compress_ops INT!; compress_ops_ok INT!; compress_time INT!; "
    "uncompress_ops INT!; uncompress_time INT!"
)
_CMPMEM = (
    "page_size INT!; buffer_pool_instance INT!; pages_used INT!; pages_free INT!; "
    "relocation_ops BIGINT!; relocation_time INT!"
)


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
    # every column of MySQL 8.0's FILES; the ndbcluster rows come from the dictionary
    "FILES": _table(
        "FILES",
        "FILE_ID BIGINT; FILE_NAME VARCHAR(268); FILE_TYPE VARCHAR(256); "
        "TABLESPACE_NAME VARCHAR(268); TABLE_CATALOG VARCHAR(64)!; TABLE_SCHEMA VARCHAR(64); "
        "TABLE_NAME VARCHAR(64); LOGFILE_GROUP_NAME VARCHAR(256); LOGFILE_GROUP_NUMBER BIGINT; "
        "ENGINE VARCHAR(64)!; FULLTEXT_KEYS VARCHAR(64); DELETED_ROWS VARCHAR(64); "
        "UPDATE_COUNT VARCHAR(64); FREE_EXTENTS BIGINT; TOTAL_EXTENTS BIGINT; EXTENT_SIZE BIGINT; "
        "INITIAL_SIZE BIGINT; MAXIMUM_SIZE BIGINT; AUTOEXTEND_SIZE BIGINT; "
        "CREATION_TIME VARCHAR(64); LAST_UPDATE_TIME VARCHAR(64); LAST_ACCESS_TIME VARCHAR(64); "
        "RECOVER_TIME VARCHAR(64); TRANSACTION_COUNTER VARCHAR(64); VERSION BIGINT; "
        "ROW_FORMAT VARCHAR(256); TABLE_ROWS VARCHAR(64); AVG_ROW_LENGTH VARCHAR(64); "
        "DATA_LENGTH VARCHAR(64); MAX_DATA_LENGTH VARCHAR(64); INDEX_LENGTH VARCHAR(64); "
        "DATA_FREE BIGINT; CREATE_TIME VARCHAR(64); UPDATE_TIME VARCHAR(64); "
        "CHECK_TIME VARCHAR(64); CHECKSUM VARCHAR(64); STATUS VARCHAR(256); EXTRA VARCHAR(256)",
    ),
    "PROCESSLIST": _table(
        "PROCESSLIST",
        "ID BIGINT UNSIGNED!; USER VARCHAR(32)!; HOST VARCHAR(261)!; DB VARCHAR(64); "
        "COMMAND VARCHAR(16)!; TIME INT!; STATE VARCHAR(64); INFO VARCHAR(65535)",
    ),
    "INNODB_CMP": _table("INNODB_CMP", _CMP),
    "INNODB_CMP_RESET": _table("INNODB_CMP_RESET", _CMP),
    "INNODB_CMPMEM": _table("INNODB_CMPMEM", _CMPMEM),
    "INNODB_CMPMEM_RESET": _table("INNODB_CMPMEM_RESET", _CMPMEM),
    "ENGINES": _table(
        "ENGINES",
        "ENGINE VARCHAR(64)!; SUPPORT VARCHAR(8)!; COMMENT VARCHAR(80)!; "
        "TRANSACTIONS VARCHAR(3); XA VARCHAR(3); SAVEPOINTS VARCHAR(3)",
    ),
    "CHARACTER_SETS": _table(
        "CHARACTER_SETS",
        "CHARACTER_SET_NAME VARCHAR(64)!; DEFAULT_COLLATE_NAME VARCHAR(64)!; "
        "DESCRIPTION VARCHAR(2048)!; MAXLEN INT UNSIGNED!",
    ),
    "COLLATIONS": _table(
        "COLLATIONS",
        "COLLATION_NAME VARCHAR(64)!; CHARACTER_SET_NAME VARCHAR(64)!; ID BIGINT UNSIGNED!; "
        "IS_DEFAULT VARCHAR(3)!; IS_COMPILED VARCHAR(3)!; SORTLEN INT UNSIGNED!; "
        "PAD_ATTRIBUTE ENUM('PAD SPACE','NO PAD')!",
    ),
    "STATISTICS": _table(
        "STATISTICS",
        "TABLE_CATALOG VARCHAR(64)!; TABLE_SCHEMA VARCHAR(64)!; TABLE_NAME VARCHAR(64)!; "
        "NON_UNIQUE INT!; INDEX_SCHEMA VARCHAR(64)!; INDEX_NAME VARCHAR(64); "
        "SEQ_IN_INDEX INT UNSIGNED!; COLUMN_NAME VARCHAR(64); COLLATION VARCHAR(1); "
        "CARDINALITY BIGINT; SUB_PART BIGINT; PACKED VARCHAR(64); NULLABLE VARCHAR(3)!; "
        "INDEX_TYPE VARCHAR(11)!; COMMENT VARCHAR(8)!; INDEX_COMMENT VARCHAR(2048)!; "
        "IS_VISIBLE VARCHAR(3)!; EXPRESSION VARCHAR(64)",
    ),
    "KEY_COLUMN_USAGE": _table(
        "KEY_COLUMN_USAGE",
        "CONSTRAINT_CATALOG VARCHAR(64)!; CONSTRAINT_SCHEMA VARCHAR(64)!; "
        "CONSTRAINT_NAME VARCHAR(64); TABLE_CATALOG VARCHAR(64)!; TABLE_SCHEMA VARCHAR(64)!; "
        "TABLE_NAME VARCHAR(64)!; COLUMN_NAME VARCHAR(64); ORDINAL_POSITION INT UNSIGNED!; "
        "POSITION_IN_UNIQUE_CONSTRAINT INT UNSIGNED; REFERENCED_TABLE_SCHEMA VARCHAR(64); "
        "REFERENCED_TABLE_NAME VARCHAR(64); REFERENCED_COLUMN_NAME VARCHAR(64)",
    ),
    "TABLE_CONSTRAINTS": _table(
        "TABLE_CONSTRAINTS",
        "CONSTRAINT_CATALOG VARCHAR(64)!; CONSTRAINT_SCHEMA VARCHAR(64)!; "
        "CONSTRAINT_NAME VARCHAR(64); TABLE_SCHEMA VARCHAR(64)!; TABLE_NAME VARCHAR(64)!; "
        "CONSTRAINT_TYPE VARCHAR(11)!; ENFORCED VARCHAR(3)!",
    ),
    "REFERENTIAL_CONSTRAINTS": _table(
        "REFERENTIAL_CONSTRAINTS",
        "CONSTRAINT_CATALOG VARCHAR(64)!; CONSTRAINT_SCHEMA VARCHAR(64)!; "
        "CONSTRAINT_NAME VARCHAR(64); UNIQUE_CONSTRAINT_CATALOG VARCHAR(64)!; "
        "UNIQUE_CONSTRAINT_SCHEMA VARCHAR(64)!; UNIQUE_CONSTRAINT_NAME VARCHAR(64); "
        "MATCH_OPTION ENUM('NONE','PARTIAL','FULL')!; "
        "UPDATE_RULE ENUM('NO ACTION','RESTRICT','CASCADE','SET NULL','SET DEFAULT')!; "
        "DELETE_RULE ENUM('NO ACTION','RESTRICT','CASCADE','SET NULL','SET DEFAULT')!; "
        "TABLE_NAME VARCHAR(64)!; REFERENCED_TABLE_NAME VARCHAR(64)!",
    ),
    "USER_PRIVILEGES": _table(
        "USER_PRIVILEGES",
        "GRANTEE VARCHAR(292)!; TABLE_CATALOG VARCHAR(512)!; PRIVILEGE_TYPE VARCHAR(64)!; "
        "IS_GRANTABLE VARCHAR(3)!",
    ),
    "VIEWS": _table(
        "VIEWS",
        "TABLE_CATALOG VARCHAR(64)!; TABLE_SCHEMA VARCHAR(64)!; TABLE_NAME VARCHAR(64)!; "
        "VIEW_DEFINITION VARCHAR(65535); CHECK_OPTION VARCHAR(8); IS_UPDATABLE VARCHAR(3); "
        "DEFINER VARCHAR(288); SECURITY_TYPE VARCHAR(7); CHARACTER_SET_CLIENT VARCHAR(64)!; "
        "COLLATION_CONNECTION VARCHAR(64)!",
    ),
    # NDB transaction id -> mysqld connection id (server_locks/operations/transactions views)
    "NDB_TRANSID_MYSQL_CONNECTION_MAP": _table(
        "NDB_TRANSID_MYSQL_CONNECTION_MAP",
        "mysql_connection_id BIGINT UNSIGNED!; node_id INT UNSIGNED!; ndb_transid BIGINT UNSIGNED!",
    ),
}

_PS_SPEC = "VARIABLE_NAME VARCHAR(64)!; VARIABLE_VALUE VARCHAR(1024)"
_SYNC_SPEC = "SCHEMA_NAME VARCHAR(64); NAME VARCHAR(64); TYPE ENUM('LOGFILE GROUP','TABLESPACE','SCHEMA','TABLE')!"
P_S_TABLES = {
    **{
        name: _table(name, _PS_SPEC)
        for name in ("global_status", "session_status", "global_variables", "session_variables")
    },
    "threads": _table(
        "threads",
        "THREAD_ID BIGINT UNSIGNED!; NAME VARCHAR(128)!; TYPE VARCHAR(10)!; "
        "PROCESSLIST_ID BIGINT UNSIGNED; PROCESSLIST_USER VARCHAR(32); "
        "PROCESSLIST_HOST VARCHAR(255); PROCESSLIST_DB VARCHAR(64); "
        "PROCESSLIST_COMMAND VARCHAR(16); PROCESSLIST_TIME BIGINT; PROCESSLIST_STATE VARCHAR(64); "
        "PROCESSLIST_INFO VARCHAR(65535); PARENT_THREAD_ID BIGINT UNSIGNED; ROLE VARCHAR(64); "
        "INSTRUMENTED ENUM('YES','NO')!; HISTORY ENUM('YES','NO')!; "
        "CONNECTION_TYPE VARCHAR(16); THREAD_OS_ID BIGINT UNSIGNED",
    ),
    "ndb_sync_pending_objects": _table("ndb_sync_pending_objects", _SYNC_SPEC),
    "ndb_sync_excluded_objects": _table(
        "ndb_sync_excluded_objects", _SYNC_SPEC + "; REASON VARCHAR(256)!"
    ),
}
# performance_schema tables a version does not have yet: name -> first NDB version
P_S_SINCE = {"ndb_sync_pending_objects": (8, 0, 21), "ndb_sync_excluded_objects": (8, 0, 21)}

MYSQL_TABLES = {
    "user": _table(
        "user",
        "Host CHAR(255)!; User CHAR(32)!; Select_priv ENUM('N','Y')!; "
        "Process_priv ENUM('N','Y')!; Repl_client_priv ENUM('N','Y')!; "
        "Super_priv ENUM('N','Y')!; ssl_type ENUM('','ANY','X509','SPECIFIED')!; "
        "max_questions INT UNSIGNED!; max_updates INT UNSIGNED!; "
        "max_connections INT UNSIGNED!; max_user_connections INT UNSIGNED!; "
        "plugin CHAR(64)!; password_expired ENUM('N','Y')!; account_locked ENUM('N','Y')!",
    ),
    "time_zone_name": _table("time_zone_name", "Name CHAR(64)!; Time_zone_id INT UNSIGNED!"),
}

REPLICATION_JSON = Path(__file__).parents[1] / "data" / "mysqld" / "replication.json"


@cache
def _replication_reference() -> dict:
    return json.loads(REPLICATION_JSON.read_text())


def mysqld_version(version: NdbVersion) -> tuple[int, ...]:
    """The MySQL server version of the SQL node ("5.7.44-ndb-7.6.34-cluster-gpl" -> 5.7.44;
    RonDB: its MySQL NDB base)."""
    return version.server


def replication_columns(kind: str, name: str, version: NdbVersion) -> list | None:
    """The columns of a replication statement or table (data/mysqld/replication.json) on that
    version, None when the version does not have it."""
    server = mysqld_version(version)
    for entry in _replication_reference()[kind].get(name, ()):
        since = tuple(int(p) for p in entry["since"].split("."))
        until = entry["until"] and tuple(int(p) for p in entry["until"].split("."))
        if since <= server and (not until or server < until):
            return entry["columns"]
    return None


def _replication_tables(database: str, version: NdbVersion) -> dict[str, TableDef]:
    out = {}
    for key in _replication_reference()["tables"]:
        schema, name = key.split(".")
        columns = replication_columns("tables", key, version)
        if schema == database and columns:
            out[name] = _table(name, "; ".join(f"{n} {t}" for n, t in columns))
    return out


# Server tables whose rows come from the cluster model (engine/model_tables.fill_server_table),
# by the DuckDB schema and table that hold them.
MODEL_FED = {
    "FILES": (DATA, I_S_TABLES["FILES"]),
    "TABLES": (DATA, I_S_TABLES["TABLES"]),
    "ndb_sync_pending_objects": (PERF, P_S_TABLES["ndb_sync_pending_objects"]),
    "ndb_sync_excluded_objects": (PERF, P_S_TABLES["ndb_sync_excluded_objects"]),
}

# Model-fed tables that hold other rows too: the condition of the rows the model writes (the
# ndbinfo objects' TABLES rows are written once, from the catalog).
MODEL_FED_PART = {"TABLES": "ENGINE = 'ndbcluster'"}


def system_tables(database: str, version: NdbVersion) -> dict[str, TableDef]:
    """The tables of information_schema, performance_schema or mysql on that version (keys as
    the schema spells them: upper case in information_schema, lower case elsewhere).

    Every SQL node has the replication tables of its version, empty where it has no part in
    replication: a mysqld built with NDB creates mysql.ndb_binlog_index with the mysql schema
    and mysql.ndb_apply_status when it connects to the cluster, and performance_schema always
    holds the replication_* tables."""
    database = database.lower()
    if database == "information_schema":
        return I_S_TABLES
    if database == "mysql":
        return {**MYSQL_TABLES, **_replication_tables(database, version)}
    if database == "performance_schema":
        return {
            **{
                name: t
                for name, t in P_S_TABLES.items()
                if name not in P_S_SINCE or version.at_least(*P_S_SINCE[name])
            },
            **_replication_tables(database, version),
        }
    return {}


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
    (
        "MEMORY",
        "YES",
        "Hash based, stored in memory, useful for temporary tables",
        "NO",
        "NO",
        "NO",
    ),
    ("MyISAM", "YES", "MyISAM storage engine", "NO", "NO", "NO"),
    ("CSV", "YES", "CSV storage engine", "NO", "NO", "NO"),
]
_CHARSETS = [
    ("utf8mb4", "utf8mb4_0900_ai_ci", "UTF-8 Unicode", 4, 255),
    ("utf8mb3", "utf8mb3_general_ci", "UTF-8 Unicode", 3, 33),
    ("latin1", "latin1_swedish_ci", "cp1252 West European", 1, 8),
    ("binary", "binary", "Binary pseudo charset", 1, 63),
    ("ascii", "ascii_general_ci", "US ASCII", 1, 11),
]
_EXTRA_COLLATIONS = [
    ("utf8mb4_general_ci", "utf8mb4", 45),
    ("utf8mb4_bin", "utf8mb4", 46),
    ("utf8mb4_unicode_ci", "utf8mb4", 224),
    ("utf8mb3_bin", "utf8mb3", 83),
    ("latin1_bin", "latin1", 47),
    ("latin1_general_ci", "latin1", 48),
    ("ascii_bin", "ascii", 65),
]


def engines() -> list[tuple]:
    """SHOW ENGINES and information_schema.ENGINES."""
    return list(_ENGINES)


def _charsets(mysql57: bool) -> list[tuple]:
    rows = []
    for name, collation, description, maxlen, _ in _CHARSETS:
        if mysql57:
            name = "utf8" if name == "utf8mb3" else name
            collation = {"utf8mb4_0900_ai_ci": "utf8mb4_general_ci"}.get(collation, collation)
            collation = collation.replace("utf8mb3_", "utf8_")
        rows.append((name, collation, description, maxlen))
    return rows


def collations(mysql57: bool) -> list[tuple]:
    """(name, charset, id, is_default, compiled, sortlen, pad) as information_schema shows them."""
    rows = []
    pairs = [(c[1], c[0], c[4], "Yes") for c in _CHARSETS]
    pairs += [(name, cs, cid, "") for name, cs, cid in _EXTRA_COLLATIONS]
    for name, charset, cid, default in pairs:
        if mysql57:
            if name == "utf8mb4_0900_ai_ci":
                continue
            if name == "utf8mb4_general_ci":
                default = "Yes"
            name, charset = name.replace("utf8mb3", "utf8"), charset.replace("utf8mb3", "utf8")
        pad = (
            "NO PAD" if name.endswith(("0900_ai_ci", "_bin")) and "utf8mb4" in name else "PAD SPACE"
        )
        rows.append((name, charset, cid, default, "Yes", 1 if not name.endswith("_ci") else 8, pad))
    return rows


def create(engine: Engine) -> None:
    db = engine.db
    hidden = engine.catalog
    for name, table in I_S_TABLES.items():
        ddl = ", ".join(
            f"{quote(c.name)} {parse_type(c.mysql_type).duckdb()}" for c in table.columns
        )
        extra = ", _hidden BOOLEAN" if name in ("TABLES", "COLUMNS", "STATISTICS") else ""
        db.execute(f"CREATE TABLE {quote(DATA)}.{quote(name)} ({ddl}{extra})")
        names = ", ".join(quote(c.name) for c in table.columns)
        src = f"{quote(DATA)}.{quote(name)}"
        db.execute(f"CREATE VIEW {quote(ALL)}.{quote(name)} AS SELECT {names} FROM {src}")
        where = " WHERE NOT _hidden" if extra else ""
        db.execute(
            f"CREATE VIEW {quote(VISIBLE)}.{quote(name)} AS SELECT {names} FROM {src}{where}"
        )
    version = hidden.version
    for schema, database in ((PERF, "performance_schema"), (MYSQL, "mysql")):
        tables = {
            **system_tables(database, version),
            **(P_S_TABLES if schema == PERF else {}),
        }
        for name, table in tables.items():
            ddl = ", ".join(
                f"{quote(c.name)} {parse_type(c.mysql_type).duckdb()}" for c in table.columns
            )
            db.execute(f"CREATE TABLE {quote(schema)}.{quote(name)} ({ddl})")

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
    _insert(engine, "ENGINES", engines())
    _insert(engine, "CHARACTER_SETS", _charsets(mysql57))
    _insert(engine, "COLLATIONS", collations(mysql57))
    _insert(engine, "INNODB_CMP", [(1024 << i, 0, 0, 0, 0, 0) for i in range(5)])
    _insert(engine, "INNODB_CMP_RESET", [(1024 << i, 0, 0, 0, 0, 0) for i in range(5)])
    cmpmem = [(1024 << i, 0, 0, 0, 0, 0) for i in range(5)]
    _insert(engine, "INNODB_CMPMEM", cmpmem)
    _insert(engine, "INNODB_CMPMEM_RESET", cmpmem)
    keys = [
        ("def", SCHEMA, "PRIMARY", "def", SCHEMA, obj.name, c.name, pos, None, None, None, None)
        for obj in hidden.objects.values()
        for pos, c in enumerate((c for c in obj.columns if c.key == "PRI"), start=1)
    ]
    _insert(engine, "KEY_COLUMN_USAGE", keys)
    constraints = sorted(
        {("def", SCHEMA, "PRIMARY", SCHEMA, k[5], "PRIMARY KEY", "YES") for k in keys}
    )
    _insert(engine, "TABLE_CONSTRAINTS", constraints)
    _insert(engine, "STATISTICS", index_rows(hidden.objects.values()))
    views = [
        ("def", SCHEMA, o.name, o.sql, "NONE", "NO", "root@localhost", "INVOKER", "latin1",
         "latin1_swedish_ci")
        for o in hidden.objects.values()
        if o.kind == "view"
    ]  # fmt: skip
    _insert(engine, "VIEWS", views)


def index_rows(objects) -> list[tuple]:
    """information_schema.STATISTICS rows (and SHOW INDEX) of the ndbinfo tables with a key;
    the last value is the table's hidden flag."""
    rows = []
    for obj in objects:
        for pos, c in enumerate((c for c in obj.columns if c.key == "PRI"), start=1):
            rows.append(
                ("def", SCHEMA, obj.name, 0, SCHEMA, "PRIMARY", pos, c.name, "A", None, None,
                 None, "", "HASH", "", "", "YES", None, obj.hidden)
            )  # fmt: skip
    return rows


def _insert(engine: Engine, name: str, rows: list[tuple]) -> None:
    insert_columns(engine.db, f"{quote(DATA)}.{quote(name)}", rows)


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
