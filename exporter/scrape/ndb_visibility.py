"""Whether the exporter's account sees NDB on a SQL node at all: the ndbcluster engine, the
ndbinfo schema and the privilege to read it.

A collector whose ndbinfo table is missing in this NDB version is skipped without a word;
a SQL node without the engine or the schema, or an account that may not read it (the schema
then looks absent), leaves every such collector skipped too, and is told apart here:
exported as ``ndb_engine_visibility{state}`` and logged once when it changes.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from mysql.connector import errors
from ndbinfo_exporter.collectors.base import add_states, text
from prometheus_client.core import GaugeMetricFamily

log = logging.getLogger(__name__)

OK = "ok"
ENGINE_ABSENT = "engine_absent"
NDBINFO_ABSENT = "ndbinfo_absent"
PRIVILEGE_MISSING = "privilege_missing"
STATES = (OK, ENGINE_ABSENT, NDBINFO_ABSENT, PRIVILEGE_MISSING)

# Why NDB is not visible, one line each: the words of the exporter's warning, for every reader.
CAUSES = {
    ENGINE_ABSENT: "the SQL node has no ndbcluster storage engine, or it is disabled",
    NDBINFO_ABSENT: "the SQL node has the ndbcluster engine but no ndbinfo schema",
    PRIVILEGE_MISSING: "the exporter's account may not read the ndbinfo schema"
    " (SELECT on ndbinfo.* is missing)",
}

ENGINE_SQL = "SELECT SUPPORT FROM information_schema.ENGINES WHERE ENGINE = 'ndbcluster'"
GRANTS_SQL = "SHOW GRANTS"

_GRANT = re.compile(r"(?is)^GRANT (?P<privileges>.+?) ON (?P<level>\S+) TO ")
_READ_LEVELS = ("*.*", "ndbinfo.*")
_READ_PRIVILEGES = {"SELECT", "ALL", "ALL PRIVILEGES"}


def may_read_ndbinfo(grants: list[str]) -> bool:
    """True when SHOW GRANTS lists SELECT (or ALL) on every database or on ndbinfo."""
    for line in grants:
        match = _GRANT.match(line)
        if match is None or match["level"].replace("`", "").lower() not in _READ_LEVELS:
            continue
        privileges = {p.strip().upper() for p in match["privileges"].split(",")}
        if privileges & _READ_PRIVILEGES:
            return True
    return False


def _rows(cursor: Any, sql: str) -> list[str] | None:
    """The first column of every row, or None when the server does not answer the statement."""
    try:
        cursor.execute(sql)
        return [text(row[0]) for row in cursor.fetchall()]
    except errors.DatabaseError as exc:
        log.debug("statement not answered", extra={"fields": {"sql": sql, "err": exc.msg}})
        return None


def detect_visibility(cursor: Any, ndbinfo_version: Any, objects: frozenset[str]) -> str:
    """Blocking: one of STATES, from the engine's row in information_schema.ENGINES, the
    ndbinfo objects the account sees, @@ndbinfo_version (set while the ndbinfo plugin runs)
    and, when the schema is not seen, SHOW GRANTS. A statement the server does not answer
    proves nothing: the state then rests on the other evidence."""
    support = _rows(cursor, ENGINE_SQL)
    if support is not None and not any(s.upper() in ("YES", "DEFAULT") for s in support):
        return ENGINE_ABSENT
    if objects:
        return OK
    if ndbinfo_version in (None, "", 0):
        return NDBINFO_ABSENT
    grants = _rows(cursor, GRANTS_SQL)
    return NDBINFO_ABSENT if grants and may_read_ndbinfo(grants) else PRIVILEGE_MISSING


def visibility_family(state: str) -> GaugeMetricFamily:
    family = GaugeMetricFamily(
        "ndb_engine_visibility",
        "What the exporter's account sees of NDB on the SQL node, 1 for the current state: ok,"
        " engine_absent (no ndbcluster engine, or disabled), ndbinfo_absent (no ndbinfo schema)"
        " or privilege_missing (the account may not read ndbinfo). Collectors that need what is"
        " not seen are skipped.",
        labels=["state"],
    )
    add_states(family, [], state, STATES)
    return family


class VisibilityLog:
    """Logs a change of one target's state once: a warning naming the cause when NDB stops
    being visible, an info line when it is visible again. A target starts as ``ok``."""

    def __init__(self, target: str) -> None:
        self._target = target
        self._state = OK

    def observe(self, state: str) -> None:
        before, self._state = self._state, state
        if state == before:
            return
        fields = {"target": self._target, "state": state}
        if state == OK:
            log.info("NDB visible again", extra={"fields": fields})
        else:
            log.warning(f"NDB not visible: {CAUSES[state]}", extra={"fields": fields})
