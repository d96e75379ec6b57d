"""The statements that steer replication: STOP/START REPLICA (SLAVE) and CHANGE REPLICATION
SOURCE (MASTER) TO on the replica's applier, PURGE BINARY (MASTER) LOGS on a binlog server,
with the words each version knows (REPLICA from MySQL 8.0.22, REPLICATION SOURCE and the
SOURCE_ options from 8.0.23; SLAVE, MASTER and the MASTER_ options until 8.4)."""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING

from ndbsim.errors import SqlError
from ndbsim.protocol import privileges, sysvars
from ndbsim.protocol.sqltext import string_literal, syntax_near
from ndbsim.protocol.statements.applier_threads import new_words
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.select import select

if TYPE_CHECKING:
    from ndbsim.protocol.sqlnode import SqlNode

_THREAD = r"(?:IO_THREAD|SQL_THREAD)"
_CHANNEL = r"(?: FOR CHANNEL (?P<channel>'[^']*'|\"[^\"]*\"|`[^`]*`|\w+))?"
_START_STOP = re.compile(
    rf"(?i)^(?P<verb>START|STOP) (?P<word>REPLICA|SLAVE)"
    rf"(?: (?P<threads>{_THREAD}(?: ?, ?{_THREAD})*))?{_CHANNEL}$"
)
_CHANGE = re.compile(
    r"(?is)^\s*CHANGE\s+(?P<word>REPLICATION\s+SOURCE|MASTER)\s+TO\s+(?P<options>.*?)"
    r"(?:\s+FOR\s+CHANNEL\s+(?P<channel>'[^']*'|\"[^\"]*\"|`[^`]*`|\w+))?\s*;?\s*$"
)
_OPTION = re.compile(r"\s*(?P<name>\w+)\s*=\s*")
_VALUE = re.compile(r"(?P<value>'(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\"|\d+)\s*(?:,|$)")
_PURGE = re.compile(
    r"(?is)^\s*PURGE\s+(?P<word>BINARY|MASTER)\s+LOGS\s+"
    r"(?:TO\s+(?P<to>'[^']*'|\"[^\"]*\")|BEFORE\s+(?P<before>.+?))\s*;?\s*$"
)
# mysqld spells it runnning
_ALREADY_RUNNING = ("Note", 3083, "Replication thread(s) for channel '' are already runnning.")
_ALREADY_STOPPED = ("Note", 3084, "Replication thread(s) for channel '' are already stopped.")
# CHANGE ... TO options ndbsim models, by the word after SOURCE_ / MASTER_: a string or a number
_OPTIONS = {"HOST": str, "PORT": int, "USER": str, "PASSWORD": str, "LOG_FILE": str, "LOG_POS": int}


def _server(node: SqlNode) -> tuple[int, ...]:
    return sysvars.server_version(node.version)


def _knows(node: SqlNode, word: str) -> bool:
    """REPLICA from MySQL 8.0.22, REPLICATION SOURCE and SOURCE_ from 8.0.23; SLAVE, MASTER
    and MASTER_ until 8.4; BINARY (LOGS) always."""
    word = " ".join(word.upper().split())
    server = _server(node)
    if word in ("SLAVE", "MASTER"):
        return server < (8, 4)
    if word == "BINARY":
        return True
    return server >= ((8, 0, 22) if word == "REPLICA" else (8, 0, 23))


def _require_admin(s: Statement) -> None:
    """REPLICATION_SLAVE_ADMIN (or SUPER) from MySQL 8.0, SUPER on 5.7."""
    dynamic = ("REPLICATION_SLAVE_ADMIN",) if _server(s.session.node) >= (8, 0) else ()
    privileges.require_global(s.session, "SUPER", *dynamic)


def _default_channel(node: SqlNode, text: str | None) -> None:
    """The replica has one channel, the default ''."""
    name = (text or "''").strip("'\"`")
    if name:
        replica = "Replica" if new_words(node) else "Slave"
        raise SqlError(3074, f"{replica} channel '{name}' does not exist.")


def _threads(text: str | None) -> tuple[bool, bool]:
    """(I/O thread, SQL thread) a statement names: both when it names none."""
    if not text:
        return True, True
    upper = text.upper()
    return "IO_THREAD" in upper, "SQL_THREAD" in upper


@statement("start", "stop", pattern=_START_STOP)
async def _start_stop(s: Statement) -> None:
    node = s.session.node
    if not _knows(node, s.match["word"]):
        raise SqlError(1064, syntax_near(s.text.split(" ", 1)[1]))
    _require_admin(s)
    _default_channel(node, s.match["channel"])
    io, sql = _threads(s.match["threads"])
    starting = s.match["verb"].upper() == "START"
    link = node.applier_link
    if link is None and starting:
        raise SqlError(1200, _not_configured(node))
    if link is None or not (link.start if starting else link.stop)(io, sql):
        s.warnings.append(_ALREADY_RUNNING if starting else _ALREADY_STOPPED)


@statement("start", "stop", pattern=re.compile(r"(?i)^(?:START|STOP) (?:REPLICA|SLAVE)\b"))
async def _start_stop_unmodelled(s: Statement) -> None:
    """START REPLICA UNTIL, with USER/PASSWORD, ...: ndbsim starts and stops the threads only."""
    if not _knows(s.session.node, s.text.split()[1]):
        raise SqlError(1064, syntax_near(s.text.split(" ", 1)[1]))
    raise SqlError(1235, f"This version of MySQL doesn't yet support '{s.text[:60]}'")


def _not_configured(node: SqlNode) -> str:
    if new_words(node):
        return (
            "The server is not configured as replica; fix in config file or with "
            "CHANGE REPLICATION SOURCE TO"
        )
    return "The server is not configured as slave; fix in config file or with CHANGE MASTER TO"


@statement("change", pattern=_CHANGE, raw=True)
async def _change_source(s: Statement) -> None:
    """CHANGE REPLICATION SOURCE TO on the applier: another binlog server (SOURCE_HOST,
    SOURCE_PORT) and where to read from (SOURCE_LOG_FILE, SOURCE_LOG_POS), literals only, as
    mysqld's grammar takes them (a user variable is a syntax error). The I/O thread must be
    stopped first (rpl_replica.cc change_master)."""
    node = s.session.node
    if not _knows(node, s.match["word"]):
        raise SqlError(1064, syntax_near(s.sql.strip().split(None, 1)[1]))
    options = _options(node, s.match["options"])
    _require_admin(s)
    _default_channel(node, s.match["channel"])
    link = node.applier_link
    if link is None:
        word = " ".join(s.match["word"].upper().split())
        raise SqlError(
            1235, f"This version of MySQL doesn't yet support 'CHANGE {word} on an SQL node "
            "that is not the replica cluster's applier'"
        )  # fmt: skip
    if link.io_running() != "No":
        words = ("replica", "REPLICA") if new_words(node) else ("slave", "SLAVE")
        raise SqlError(
            3021, f"This operation cannot be performed with a running {words[0]} io thread; "
            f"run STOP {words[1]} IO_THREAD FOR CHANNEL '' first."
        )  # fmt: skip
    link.change(
        host=options.get("HOST"),
        port=options.get("PORT"),
        file=options.get("LOG_FILE"),
        position=options.get("LOG_POS"),
        user=options.get("USER"),
    )


def _options(node: SqlNode, text: str) -> dict[str, str | int]:
    """The NAME = value list of CHANGE ... TO, by the word after SOURCE_ / MASTER_."""
    found: dict[str, str | int] = {}
    at = 0
    text = text.strip()
    while at < len(text):
        m = _OPTION.match(text, at)
        prefix, _, name = m["name"].upper().partition("_") if m else ("", "", "")
        kind = _OPTIONS.get(name)
        if kind is None or prefix not in ("SOURCE", "MASTER") or not _knows(node, prefix):
            raise SqlError(1064, syntax_near(text[at:].strip()))
        value = _VALUE.match(text, m.end())
        if value is None or (kind is int) != value["value"].isdigit():
            raise SqlError(1064, syntax_near(text[m.end() :]))
        raw = value["value"]
        found[name] = int(raw) if kind is int else string_literal(raw)
        at = value.end()
    if not found:
        raise SqlError(1064, syntax_near(""))
    return found


@statement("purge", pattern=_PURGE, raw=True)
async def _purge(s: Statement) -> None:
    """PURGE BINARY LOGS TO 'file' | BEFORE datetime on a binlog server: the files before it
    go, with their ndb_binlog_index rows; nothing happens on an SQL node without a binary
    log (purge_source_logs_to_file answers OK)."""
    node = s.session.node
    if not _knows(node, s.match["word"]):
        raise SqlError(1064, syntax_near(s.sql.strip().split(None, 1)[1]))
    dynamic = ("BINLOG_ADMIN",) if _server(node) >= (8, 0) else ()
    privileges.require_global(s.session, "SUPER", *dynamic)
    if node.binlog_link is None:
        return
    before = None
    if s.match["before"] is not None:
        before = await _unix_time(s, s.match["before"])
    to = string_literal(s.match["to"]) if s.match["to"] else None
    try:
        node.binlog_link.purge(node.node_id, to, before)
    except KeyError:
        raise SqlError(1373, "Target log not found in binlog index") from None


async def _unix_time(s: Statement, expression: str) -> float:
    """The DATETIME a PURGE ... BEFORE expression stands for, as unix time (the server's time
    zone is UTC); mysqld refuses anything else (ER_WRONG_ARGUMENTS)."""
    result = await select(s.session, f"SELECT {expression}", [])
    value = result.rows[0][0] if result.rows else None
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value)
        except ValueError:
            value = None
    if not isinstance(value, dt.datetime):
        raise SqlError(1210, "Incorrect arguments to PURGE LOGS BEFORE")
    return value.replace(tzinfo=dt.UTC).timestamp()
