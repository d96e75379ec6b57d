"""Accounts and their privileges, checked as mysqld checks them, with its error codes and texts.

The account given on the command line holds every privilege. Accounts made with CREATE USER
hold what GRANT gives them, on *.*, on db.* or on db.table. A statement is checked against
the privileges of the moment (a REVOKE applies to the next statement of an open session).
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mysql_mimic.auth import NativePasswordAuthPlugin
from ndbsim.engine.catalog import SCHEMA
from ndbsim.errors import SqlError
from ndbsim.protocol.sqltext import syntax_near
from sqlglot import expressions as exp

if TYPE_CHECKING:
    from ndbsim.protocol.session import SessionState
    from ndbsim.versions import NdbVersion

# mysqld's static privileges in the order SHOW GRANTS lists them, and which ones exist at
# database and table level.
STATIC = (
    "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "RELOAD", "SHUTDOWN", "PROCESS",
    "FILE", "REFERENCES", "INDEX", "ALTER", "SHOW DATABASES", "SUPER", "CREATE TEMPORARY TABLES",
    "LOCK TABLES", "EXECUTE", "REPLICATION SLAVE", "REPLICATION CLIENT", "CREATE VIEW",
    "SHOW VIEW", "CREATE ROUTINE", "ALTER ROUTINE", "CREATE USER", "EVENT", "TRIGGER",
    "CREATE TABLESPACE",
)  # fmt: skip
_TABLE_LEVEL = {"SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "REFERENCES", "INDEX",
                "ALTER", "CREATE VIEW", "SHOW VIEW", "TRIGGER"}  # fmt: skip
_STATIC_SET = set(STATIC) | {"ALL"}
_DB_LEVEL = _TABLE_LEVEL | {"CREATE TEMPORARY TABLES", "LOCK TABLES", "EXECUTE", "CREATE ROUTINE",
                            "ALTER ROUTINE", "EVENT"}  # fmt: skip
# dynamic privileges (8.0+): global only, each on a line of its own in SHOW GRANTS
DYNAMIC = ("NDB_STORED_USER", "REPLICATION_SLAVE_ADMIN", "BACKUP_ADMIN", "SYSTEM_VARIABLES_ADMIN")
# mysqld names these in the 1356 error of a view whose invoker lacks rights
_VIEW_ERROR = (
    "View '{view}' references invalid table(s) or column(s) or function(s) or definer/invoker "
    "of view lack rights to use them"
)

Level = tuple[str, str]  # ("*", "*"), (db, "*") or (db, table); db and table as written


@dataclass
class Account:
    user: str
    host: str
    auth_string: str  # mysql_native_password hash
    max_user_connections: int = 0
    everything: bool = False  # the account of the command line
    grants: dict[Level, set[str]] = field(default_factory=dict)

    def holds(self, privilege: str, db: str = "*", table: str = "*") -> bool:
        if self.everything:
            return True
        for level in (("*", "*"), (_db_key(db), "*"), (_db_key(db), table.lower())):
            held = self.grants.get(level, set())
            if privilege in held or "ALL" in held:
                return True
        return False

    def sees_database(self, db: str) -> bool:
        """SHOW DATABASES and SCHEMATA: any static global privilege shows every database;
        else a privilege on the database or on a table in it."""
        if self.everything or (self.grants.get(("*", "*"), set()) & _STATIC_SET):
            return True
        return any(g_db == _db_key(db) and held for (g_db, _), held in self.grants.items())

    def sees_table(self, db: str, table: str | None = None) -> bool:
        """information_schema.TABLES, SHOW TABLES and USE: a table privilege on *.*, on the
        database, or on the table (on any table of it when `table` is None)."""
        if self.everything:
            return True
        for (g_db, g_table), held in self.grants.items():
            if not (held & _TABLE_LEVEL or "ALL" in held):
                continue
            if g_db == "*":
                return True
            if g_db == _db_key(db) and (table is None or g_table in ("*", table.lower())):
                return True
        return False


def _db_key(db: str) -> str:
    return db if db == SCHEMA else db.lower()


class Accounts:
    """The accounts of one SQL node, shared by its sessions."""

    def __init__(self, user: str, password: str):
        self._lock = threading.Lock()
        self.admin = Account(user, "%", _hash(password), everything=True)
        self._accounts: dict[tuple[str, str], Account] = {(user, "%"): self.admin}
        self._connected: dict[int, int] = {}  # id(account) -> its open connections

    def login(self, user: str, peer: str) -> Account | None:
        """The account a client logging in as `user` from `peer` authenticates against."""
        with self._lock:
            exact = self._accounts.get((user, peer))
            return exact or self._accounts.get((user, "%"))

    def check_room(self, account: Account) -> None:
        """1226 when the account has its MAX_USER_CONNECTIONS open already (checked once
        the password is right, before the login is answered)."""
        with self._lock:
            limit = account.max_user_connections
            if limit and self._connected.get(id(account), 0) >= limit:
                raise SqlError(
                    1226,
                    f"User '{account.user}' has exceeded the 'max_user_connections' resource "
                    f"(current value: {limit})",
                )

    def connect(self, account: Account) -> None:
        with self._lock:
            self._connected[id(account)] = self._connected.get(id(account), 0) + 1

    def disconnect(self, account: Account) -> None:
        with self._lock:
            self._connected[id(account)] -= 1

    def find(self, user: str, host: str) -> Account | None:
        with self._lock:
            return self._accounts.get((user, host))

    def create(self, user: str, host: str, password: str, max_connections: int) -> bool:
        """False when the account exists already."""
        with self._lock:
            if (user, host) in self._accounts:
                return False
            self._accounts[user, host] = Account(user, host, _hash(password), max_connections)
            return True

    def drop(self, user: str, host: str) -> bool:
        with self._lock:
            account = self._accounts.get((user, host))
            if account is None or account is self.admin:
                return False
            del self._accounts[user, host]
            return True


def _hash(password: str) -> str:
    return NativePasswordAuthPlugin.create_auth_string(password)


def unknown_auth_string() -> str:
    """An auth string no password matches: an unknown user fails like a wrong password."""
    return secrets.token_hex(20)


def parse_privileges(text: str, version: NdbVersion) -> set[str]:
    """GRANT's privilege list -> privilege names; mysqld's 1064 for one it does not know."""
    out = set()
    for part in text.split(","):
        name = " ".join(part.split()).upper()
        if name in ("ALL", "ALL PRIVILEGES"):
            name = "ALL"
        elif name not in STATIC and name != "USAGE" and (version.is_7x or name not in DYNAMIC):
            raise SqlError(1064, syntax_near(part.strip()))
        out.add(name)
    return out


def check_level(privileges: set[str], level: Level) -> None:
    """mysqld's errors for a privilege granted at a level where it does not exist."""
    db, table = level
    if db == "*":
        return
    dynamic = privileges & set(DYNAMIC)
    if dynamic:
        raise SqlError(3619, f"Illegal privilege level specified for {sorted(dynamic)[0]}")
    allowed = _DB_LEVEL if table == "*" else _TABLE_LEVEL
    if privileges - allowed - {"ALL", "USAGE"}:
        if table == "*":
            raise SqlError(1221, "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES")
        raise SqlError(
            1144,
            "Illegal GRANT/REVOKE command; please consult the manual to see which privileges "
            "can be used",
        )


def grant_lines(account: Account, version: NdbVersion) -> list[str]:
    """SHOW GRANTS FOR the account, as mysqld writes it."""
    quote = "'" if version.is_7x else "`"
    who = f"{quote}{account.user}{quote}@{quote}{account.host}{quote}"
    global_held = account.grants.get(("*", "*"), set())
    static = [p for p in STATIC if p in global_held]
    lines = [f"GRANT {_listed(global_held, static)} ON *.* TO {who}"]
    dynamic = [p for p in DYNAMIC if p in global_held]
    if dynamic:
        lines.append(f"GRANT {', '.join(dynamic)} ON *.* TO {who}")
    for (db, table), held in sorted(account.grants.items()):
        if db == "*" or not held:
            continue
        names = [p for p in STATIC if p in held]
        on = f"`{db}`.*" if table == "*" else f"`{db}`.`{table}`"
        lines.append(f"GRANT {_listed(held, names)} ON {on} TO {who}")
    return lines


def _listed(held: set[str], names: list[str]) -> str:
    if "ALL" in held:
        return "ALL PRIVILEGES"
    return ", ".join(names) or "USAGE"


# --- the checks a statement makes ---------------------------------------------------------


def require_global(session: SessionState, *privileges: str) -> None:
    """1227 unless the session's account holds one of `privileges` on *.*, listed as mysqld
    lists them."""
    account = session.account
    if account is None or any(account.holds(p) for p in privileges):
        return
    raise SqlError(
        1227,
        f"Access denied; you need (at least one of) the {', '.join(privileges)} privilege(s) "
        "for this operation",
    )


def require_replication_client(session: SessionState) -> None:
    """SHOW REPLICA/SLAVE STATUS, SHOW BINARY LOGS, SHOW BINARY LOG/MASTER STATUS."""
    require_global(session, "SUPER", "REPLICATION CLIENT")


def require_select(session: SessionState, db: str, table: str, view_reads: frozenset[str]) -> None:
    """SELECT on `db`.`table` (1142), and, for an ndbinfo view (SQL SECURITY INVOKER), on the
    tables under it (1356)."""
    account = session.account
    if account is None or account.everything:
        return
    if not account.holds("SELECT", db, table):
        raise SqlError(
            1142,
            f"SELECT command denied to user '{session.user}'@'{session.host}' for table '{table}'",
        )
    if any(not account.holds("SELECT", db, under) for under in view_reads - {table}):
        raise SqlError(1356, _VIEW_ERROR.format(view=f"{db}.{table}"))


def require_database(session: SessionState, db: str) -> None:
    """USE db, SHOW TABLES FROM db: 1044 without any privilege on it."""
    account = session.account
    if account is None or db.lower() == "information_schema" or account.sees_table(db):
        return
    raise SqlError(
        1044, f"Access denied for user '{session.user}'@'{session.host}' to database '{db}'"
    )


def visible_databases(session: SessionState, names: list[str]) -> list[str]:
    account = session.account
    if account is None:
        return names
    return [n for n in names if n.lower() == "information_schema" or account.sees_database(n)]


def visible_table(session: SessionState, db: str, table: str) -> bool:
    account = session.account
    return account is None or db.lower() == "information_schema" or account.sees_table(db, table)


def require_select_of(session: SessionState, tree: exp.Expression) -> None:
    """Every table a SELECT names, before the tables are opened (as mysqld: no privilege,
    1142 even for a table that does not exist): ndbinfo objects with the tables under each
    view, and the tables of the mysql and performance_schema databases (except those every
    account may read)."""
    account = session.account
    if account is None or account.everything:
        return
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        if not table.db and table.name in ctes:
            continue
        db = table.db or session.database or ""
        if db == SCHEMA:
            reads = session.node.catalog.reads(table.name)
            require_select(session, SCHEMA, table.name, reads)
        elif db.lower() == "mysql" or (
            db.lower() == "performance_schema" and table.name.lower() not in PFS_WORLD_READABLE
        ):
            require_select(session, db.lower(), table.name, frozenset())


# performance_schema tables mysqld lets every account read (pfs_readonly_world_acl); the
# others, the NDB plugin's ndb_sync_* tables among them, need SELECT
PFS_WORLD_READABLE = frozenset(
    {
        "global_status",
        "session_status",
        "global_variables",
        "session_variables",
        "variables_info",
        "persisted_variables",
        "session_account_connect_attrs",
        "session_connect_attrs",
        "variables_metadata",
        "global_variable_attributes",
    }
)


# information_schema tables whose rows each account sees only for what it has privileges on,
# and their schema and table columns
_FILTERED = {"TABLES": ("TABLE_SCHEMA", "TABLE_NAME"), "COLUMNS": ("TABLE_SCHEMA", "TABLE_NAME"),
             "VIEWS": ("TABLE_SCHEMA", "TABLE_NAME"), "STATISTICS": ("TABLE_SCHEMA", "TABLE_NAME"),
             "SCHEMATA": ("SCHEMA_NAME", None)}  # fmt: skip


def filtered_tables(session: SessionState, tree) -> list[str]:
    """The information_schema tables the statement reads whose rows the account sees only in
    part (none for an account with every privilege)."""
    account = session.account
    if account is None or account.everything:
        return []
    return sorted(
        {
            t.name.upper()
            for t in tree.find_all(exp.Table)
            if t.db.lower() == "information_schema" and t.name.upper() in _FILTERED
        }
    )


def delete_unseen(session: SessionState, db: Any, schema: str, tables: list[str]) -> None:
    """Delete from the engine's copies of `tables` (in `schema`) the rows of what the account
    may not see; the caller runs the statement, then rolls the deletes back."""
    account = session.account
    assert account is not None
    for name in tables:
        schema_column, table_column = _FILTERED[name]
        target = f'"{schema}"."{name}"'
        if table_column is None:
            names = [r[0] for r in db.execute(f"SELECT {schema_column} FROM {target}").fetchall()]
            gone = [n for n in names if not _sees(account, n)]
            if gone:
                db.execute(f"DELETE FROM {target} WHERE list_contains(?, {schema_column})", [gone])
            continue
        in_schema = f"{schema_column} = ?"
        schemas = db.execute(f"SELECT DISTINCT {schema_column} FROM {target}").fetchall()
        for (d,) in schemas:
            if not _sees(account, d, tables_of=True):
                db.execute(f"DELETE FROM {target} WHERE {in_schema}", [d])
            elif not account.sees_table(d, _NO_TABLE):  # some tables only
                rows = db.execute(
                    f"SELECT DISTINCT {table_column} FROM {target} WHERE {in_schema}", [d]
                ).fetchall()
                gone = [t for (t,) in rows if not account.sees_table(d, t)]
                if gone:
                    db.execute(
                        f"DELETE FROM {target} WHERE {in_schema} AND list_contains(?, {table_column})",
                        [d, gone],
                    )


_NO_TABLE = "\0"  # a name no table has: who sees it sees every table of the database


def _sees(account: Account, db: str, tables_of: bool = False) -> bool:
    """The database in SCHEMATA, or (`tables_of`) any of its tables in TABLES and the like."""
    if db.lower() == "information_schema":
        return True
    return account.sees_table(db) if tables_of else account.sees_database(db)
