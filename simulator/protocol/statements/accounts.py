"""Accounts and grants: CREATE USER, DROP USER, GRANT, REVOKE, SHOW GRANTS and FLUSH
PRIVILEGES, with mysqld's syntax and errors. Only the account of the command line (every
privilege) manages accounts."""

from __future__ import annotations

import re

from ndbsim.engine.catalog import SCHEMA
from ndbsim.errors import SqlError
from ndbsim.protocol import privileges, replies
from ndbsim.protocol.privileges import Account, Level
from ndbsim.protocol.sqltext import literal, syntax_near, unquote
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.results import WireResult, plain

_QUOTED = r"(?:'[^']*'|\"[^\"]*\"|`[^`]*`|[\w.$-]+)"
_ACCOUNT = rf"(?P<user>{_QUOTED})(?:@(?P<host>{_QUOTED}))?"
_LEVEL = r"(?P<level>\*\.\*|\*|(?:`[^`]+`|[\w$]+)\.(?:\*|`[^`]+`|[\w$]+))"
_CREATE_USER = re.compile(
    rf"(?i)^CREATE USER (?P<if>IF NOT EXISTS )?{_ACCOUNT} IDENTIFIED "
    rf"(?:WITH \w+ )?BY (?P<password>'[^']*'|\"[^\"]*\")"
    r"(?: WITH MAX_USER_CONNECTIONS (?P<max>\d+))?$"
)
_DROP_USER = re.compile(r"(?i)^DROP USER (?P<if>IF EXISTS )?(?P<accounts>.+)$")
_GRANT = re.compile(
    rf"(?i)^(?P<verb>GRANT|REVOKE) (?P<privileges>[A-Z_, ]+?) ON (?:TABLE )?{_LEVEL} "
    rf"(?:TO|FROM) {_ACCOUNT}$"
)
_SHOW_GRANTS = re.compile(rf"(?i)^SHOW GRANTS(?: FOR (?:CURRENT_USER(?:\(\))?|{_ACCOUNT}))?$")


def _account_name(m: re.Match) -> tuple[str, str]:
    return unquote(literal(m["user"])), unquote(literal(m["host"] or "'%'"))


def _only_admin(s: Statement, privilege: str) -> None:
    account = s.session.account
    if account is not None and not account.everything:
        raise SqlError(
            1227,
            f"Access denied; you need (at least one of) the {privilege} privilege(s) for this "
            "operation",
        )


def _failed(operation: str, user: str, host: str) -> SqlError:
    return SqlError(1396, f"Operation {operation} failed for '{user}'@'{host}'")


@statement("create", pattern=_CREATE_USER)
async def _create_user(s: Statement) -> None:
    _only_admin(s, "CREATE USER")
    user, host = _account_name(s.match)
    password = literal(s.match["password"])
    created = s.session.node.accounts.create(user, host, password, int(s.match["max"] or 0))
    if created:
        return
    if not s.match["if"]:
        raise _failed("CREATE USER", user, host)
    s.warnings.append(("Note", 3163, f"Authorization ID '{user}'@'{host}' already exists."))


@statement("drop", pattern=_DROP_USER)
async def _drop_user(s: Statement) -> None:
    _only_admin(s, "CREATE USER")
    accounts = s.session.node.accounts
    names = []
    for text in s.match["accounts"].split(","):
        m = re.match(rf"^{_ACCOUNT}$", text.strip())
        if m is None:
            raise SqlError(1064, syntax_near(text))
        names.append(_account_name(m))
    missing = [n for n in names if accounts.find(*n) is None]
    if missing and not s.match["if"]:
        raise _failed("DROP USER", *missing[0])
    for user, host in names:
        if accounts.find(user, host) is accounts.admin:
            raise _failed("DROP USER", user, host)
        accounts.drop(user, host)


@statement("grant", "revoke", pattern=_GRANT)
async def _grant(s: Statement) -> None:
    session, m = s.session, s.match
    granting = m["verb"].upper() == "GRANT"
    level = _level(s, m["level"])
    if session.account is not None and not session.account.everything:
        raise SqlError(
            1044 if level[0] != "*" else 1045,
            f"Access denied for user '{session.user}'@'{session.host}'"
            + (f" to database '{level[0]}'" if level[0] != "*" else " (using password: YES)"),
        )
    names = privileges.parse_privileges(m["privileges"], session.node.version)
    privileges.check_level(names, level)
    user, host = _account_name(m)
    account = session.node.accounts.find(user, host)
    if account is None:
        if granting and session.node.version.is_7x:  # NO_AUTO_CREATE_USER
            raise SqlError(1133, "Can't find any matching row in the user table")
        if granting:
            raise SqlError(1410, "You are not allowed to create a user with GRANT")
        raise SqlError(1141, f"There is no such grant defined for user '{user}' on host '{host}'")
    if account.everything:
        return
    if granting:
        account.grants.setdefault(level, set()).update(names - {"USAGE"})
    else:
        _revoke(account, level, names)


def _level(s: Statement, text: str) -> Level:
    """*.*, db.* or db.table; a table of ndbinfo must exist."""
    if text in ("*", "*.*"):
        return ("*", "*") if text == "*.*" else (s.session.database or "*", "*")
    db_text, _, table_text = text.partition(".")
    db, table = unquote(db_text), unquote(table_text)
    if db != SCHEMA:
        db = db.lower()
    if table != "*" and db == SCHEMA and s.session.node.catalog.get(table) is None:
        raise SqlError(1146, f"Table '{db}.{table}' doesn't exist")
    return (db, table if table == "*" else table.lower())


def _revoke(account: Account, level: Level, names: set[str]) -> None:
    held = account.grants.get(level)
    if not held and level != ("*", "*"):
        if level[1] == "*":
            raise SqlError(
                1141,
                f"There is no such grant defined for user '{account.user}' on host "
                f"'{account.host}'",
            )
        raise SqlError(
            1147,
            f"There is no such grant defined for user '{account.user}' on host "
            f"'{account.host}' on table '{level[1]}'",
        )
    if held is None:
        return
    if "ALL" in names:
        held.clear()
    else:
        held -= names
    if not held:
        del account.grants[level]


@statement("show", pattern=_SHOW_GRANTS)
async def _show_grants(s: Statement) -> WireResult:
    session, m = s.session, s.match
    version = session.node.version
    account = session.account
    if m["user"]:
        user, host = _account_name(m)
        if account is not None and (user, host) != (account.user, account.host):
            if not account.everything:
                raise SqlError(
                    1044,
                    f"Access denied for user '{session.user}'@'{session.host}' to database 'mysql'",
                )
            account = session.node.accounts.find(user, host)
            if account is None:
                raise SqlError(
                    1141, f"There is no such grant defined for user '{user}' on host '{host}'"
                )
    if account is None or account.everything:
        name = account.user if account else session.user
        return plain([f"Grants for {name}@%"], replies.grants(name, version))
    lines = privileges.grant_lines(account, version)
    return plain([f"Grants for {account.user}@{account.host}"], [(line,) for line in lines])


@statement("flush", pattern=re.compile(r"(?i)^FLUSH (?:NO_WRITE_TO_BINLOG |LOCAL )?PRIVILEGES$"))
async def _flush_privileges(s: Statement) -> None:
    """Grants apply at once here: reloading them has nothing to do."""
    _only_admin(s, "RELOAD")
