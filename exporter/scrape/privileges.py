"""A collector refused for lack of a privilege: which privilege on which object, logged once
when it starts (and when it ends), not at every scrape.

mysqld refuses a statement with 1142 (a table privilege), 1356 (a view whose SQL SECURITY
INVOKER tables the account may not read: the ndbinfo views over their ndb$ tables), 1227 (a
global privilege such as PROCESS or REPLICATION CLIENT) or 1044 (no privilege on a database).
"""

from __future__ import annotations

import logging
import re

from ndbinfo_exporter.collectors.base import Collector

log = logging.getLogger(__name__)

TABLE_DENIED, DATABASE_DENIED, GLOBAL_DENIED, VIEW_DENIED = 1142, 1044, 1227, 1356

_TABLE = re.compile(
    r"^(?P<privilege>[A-Z ]+?) command denied to user .* for table '(?P<table>[^']+)'"
)
_GLOBAL = re.compile(r"you need \(at least one of\) the (?P<privileges>.+?) privilege")
_DATABASE = re.compile(r"to database '(?P<db>[^']+)'")
_VIEW = re.compile(r"^View '(?P<view>[^']+)'")


def missing_privilege(exc: BaseException, collector: Collector) -> tuple[str, str] | None:
    """(privilege, object) when ``exc`` is mysqld refusing the collector's statement for lack
    of a privilege; None for any other failure."""
    errno = getattr(exc, "errno", None)
    text = getattr(exc, "msg", None) or str(exc)
    if errno == TABLE_DENIED and (m := _TABLE.search(text)):
        return m["privilege"], _qualified(collector, m["table"])
    if errno == VIEW_DENIED and (m := _VIEW.search(text)):
        return "SELECT", f"the tables under the view {m['view']}"
    if errno == GLOBAL_DENIED and (m := _GLOBAL.search(text)):
        return " or ".join(m["privileges"].split(", ")), _statement(collector)
    if errno == DATABASE_DENIED and (m := _DATABASE.search(text)):
        return "SELECT", f"{m['db']}.*"
    return None


def _statement(collector: Collector) -> str:
    """What a global privilege is missing for: the statement, or for a collector whose
    statement depends on the version, the forms it sends."""
    if isinstance(collector.sql, str):
        return " ".join(collector.sql.split())
    return " or ".join(collector.server_reads)


def _qualified(collector: Collector, table: str) -> str:
    """The table as schema.table, from what the collector declares it reads."""
    if table in collector.reads:
        return f"ndbinfo.{table}"
    for name in collector.server_reads:
        if name.rpartition(".")[2].lower() == table.lower():
            return name
    return table


class PrivilegeLog:
    """The missing privilege of one target's collectors, logged when it changes: a warning
    naming the privilege and the object when a collector is refused, an info line when it
    succeeds again."""

    def __init__(self, target: str) -> None:
        self._target = target
        self._missing: dict[str, tuple[str, str]] = {}  # by collector name

    def observe(self, collector: str, missing: tuple[str, str] | None) -> None:
        before = self._missing.get(collector)
        if missing == before:
            return
        fields = {"target": self._target, "collector": collector}
        if missing is None:
            del self._missing[collector]
            log.info("collector has its privilege again", extra={"fields": fields})
            return
        self._missing[collector] = missing
        privilege, obj = missing
        fields.update(privilege=privilege, object=obj)
        log.warning(f"collector lacks the {privilege} privilege", extra={"fields": fields})
