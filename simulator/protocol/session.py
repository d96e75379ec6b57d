"""One client connection's state: current database, variables, prepared statements and the
diagnostics area; its statements run through the statement table (protocol/statements)."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

from mysql_mimic.results import ResultSet
from ndbsim.engine.mysqltypes import WireColumn
from ndbsim.engine.translate import Session
from ndbsim.errors import SqlError
from ndbsim.protocol import sysvars
from ndbsim.protocol.privileges import Account, require_database
from ndbsim.protocol.sqlnode import SqlNode, stack_overrun
from ndbsim.protocol.sqltext import first_keyword, nesting_depth, split_name, versioned_comments
from ndbsim.protocol.statements import dispatch
from ndbsim.protocol.statements.lookup import known_database
from ndbsim.protocol.status import SessionCounters, com_counter

log = logging.getLogger(__name__)

# statements that show the diagnostics area and so leave it as it is
_DIAGNOSTIC = re.compile(
    r"(?is)^\s*(?:SHOW\s+(?:COUNT\s*\(\s*\*\s*\)\s+)?(?:WARNINGS|ERRORS)\b|"
    r"SELECT\s+@@(?:session\.)?(?:warning|error)_count\s*;?\s*$)"
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
        self.account: Account | None = None  # set at login; None: no privilege is checked
        self.wire_columns: list[WireColumn] = []
        self.prepared: dict[str, tuple[str, list[int]]] = {}  # name -> (text, placeholders)
        self.killed = False
        self.info: str | None = None
        self.last_active = time.monotonic()

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
            result = await dispatch(self, keyword, sql, warnings)
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

    def use(self, database: str) -> None:
        database = known_database(database)
        require_database(self, database)
        self.database = database

    def resolve(self, text: str) -> tuple[str, str | None]:
        """'db.name' or 'name' -> (name, db or the current database)."""
        name, db = split_name(text)
        return name, db or self.database

    def show_hidden(self) -> bool:
        return bool(self.variables.get_variable("ndbinfo_show_hidden"))

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
            show_hidden=self.show_hidden(),
            variable=self.variables.lookup,
            user_variable=lambda name: self.user_vars.get(name.lower()),
            functions=functions,
        )
