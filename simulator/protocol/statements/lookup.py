"""The databases and tables a statement names, looked up as mysqld does, with its errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.engine import infoschema
from ndbsim.engine.catalog import SCHEMA, TableDef
from ndbsim.errors import SqlError
from ndbsim.protocol.sqltext import unquote

if TYPE_CHECKING:
    from ndbsim.protocol.session import SessionState


def known_database(name: str) -> str:
    """The database `name` is (ndbinfo's name is case-sensitive, the system schemas' not)."""
    for known in infoschema.DATABASES:
        if name == known or (known != SCHEMA and name.lower() == known):
            return known
    raise SqlError(1049, f"Unknown database '{name}'")


def shown_database(session: SessionState, db: str | None) -> str:
    """The database a SHOW ... FROM names, else the current one."""
    database = unquote(db) if db else session.database
    if not database:
        raise SqlError(1046, "No database selected")
    known_database(database)
    return database


def table_def(session: SessionState, database: str | None, table: str) -> TableDef:
    """The table or view `database`.`table` (the current database when None)."""
    database = database or session.database
    if not database:
        raise SqlError(1046, "No database selected")
    if database == SCHEMA:
        obj = session.node.catalog.get(table)
    else:
        tables = infoschema.system_tables(database, session.node.version)
        key = table.upper() if database.lower() == "information_schema" else table.lower()
        obj = tables.get(key)
    if obj is None:
        raise SqlError(1146, f"Table '{database}.{table}' doesn't exist")
    return obj
