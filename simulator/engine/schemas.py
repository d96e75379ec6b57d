"""The names of the DuckDB schemas the engine keeps the server's tables in, the MySQL databases
it shows, and how a name is quoted: a leaf module, imported by the translator and by the
information_schema tables alike.

information_schema describes the ndbinfo schema of the catalog; hidden ndb$ tables are only
listed when ndbinfo_show_hidden=ON, so two DuckDB schemas expose the same data (ALL, VISIBLE).
"""

from __future__ import annotations

from ndbsim.engine.catalog import SCHEMA

DATA = "i_s_data"
ALL = "i_s_all"
VISIBLE = "i_s_visible"
PERF = "p_s"
MYSQL = "mysql_db"
DUCK_SCHEMAS = (DATA, ALL, VISIBLE, PERF, MYSQL)

DATABASES = ("information_schema", "mysql", SCHEMA, "performance_schema")

# information_schema / performance_schema tables filled at each read: DuckDB schema.table
DYNAMIC = (
    f"{DATA}.PROCESSLIST",
    f"{DATA}.FILES",
    f"{DATA}.TABLES",
    f"{PERF}.ndb_sync_pending_objects",
    f"{PERF}.ndb_sync_excluded_objects",
    f"{DATA}.USER_PRIVILEGES",
    *(f"{PERF}.{name}" for name in ("global_status", "session_status", "global_variables")),
    f"{PERF}.session_variables",
    f"{PERF}.threads",
    f"{MYSQL}.user",
    f"{PERF}.replication_connection_status",
    f"{PERF}.replication_applier_status",
    f"{PERF}.replication_applier_status_by_worker",
    f"{MYSQL}.ndb_apply_status",
    f"{MYSQL}.ndb_binlog_index",
)


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
