"""Replication status: SHOW SLAVE/REPLICA STATUS, MASTER/BINARY LOG STATUS, BINARY LOGS and
SLAVE HOSTS/REPLICAS, with the words each version knows. The SQL node replicates nothing: the
listings are empty."""

from __future__ import annotations

import re

from ndbsim.errors import SqlError
from ndbsim.protocol import replies, sysvars
from ndbsim.protocol.sqltext import syntax_near
from ndbsim.protocol.statements.registry import Statement, statement
from ndbsim.protocol.statements.results import WireResult, plain


@statement(
    "show",
    pattern=re.compile(r"(?i)^SHOW (?P<word>SLAVE|REPLICA) STATUS(?: FOR CHANNEL .+)?$"),
)
async def _replica_status(s: Statement) -> WireResult:
    replica = s.match["word"].upper() == "REPLICA"
    return plain(replies.replica_status(s.session.node.version, replica), [])


@statement("show", pattern=re.compile(r"(?i)^SHOW (?P<word>MASTER|BINARY LOG) STATUS$"))
async def _binary_log_status(s: Statement) -> WireResult:
    new_words = s.match["word"].upper().startswith("BINARY")
    return plain(replies.binary_log_status(s.session.node.version, new_words), [])


@statement("show", pattern=re.compile(r"(?i)^SHOW (?:BINARY|MASTER) LOGS$"))
async def _binary_logs(s: Statement) -> WireResult:
    text = s.text
    if text.upper().startswith("SHOW MASTER") and _from_84(s):
        raise SqlError(1064, syntax_near(text[5:]))
    raise SqlError(1381, "You are not using binary logging")


@statement("show", pattern=re.compile(r"(?i)^SHOW (?P<word>SLAVE HOSTS|REPLICAS)$"))
async def _replicas(s: Statement) -> WireResult:
    if s.match["word"].upper() == "SLAVE HOSTS" and _from_84(s):
        raise SqlError(1064, syntax_near(s.text[5:]))
    return plain(["Server_id", "Host", "Port", "Source_id", "Replica_UUID"], [])


def _from_84(s: Statement) -> bool:
    """MySQL 8.4 removed the MASTER and SLAVE words."""
    return sysvars.server_version(s.session.node.version) >= (8, 4)
