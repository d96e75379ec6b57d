"""The SQL node's metadata synchronization with the NDB dictionary
(performance_schema.ndb_sync_pending_objects / ndb_sync_excluded_objects, 8.0.21+).

A healthy SQL node has nothing pending and nothing excluded. The metadata-excluded fault
makes the synchronization fail for some user tables, which it then excludes (as after a
table whose definition the SQL node's data dictionary cannot take)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.model.dictionary import USER_TABLE

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

REASON = "Failed to install object in DD"


def _failing_tables(c: Cluster) -> list[tuple[str, str]]:
    params = c.faults.get("metadata-excluded")
    if params is None:
        return []
    tables = [t for t in c.dictionary.user_tables if t.type == USER_TABLE]
    return [(t.database, t.name) for t in tables[: params["tables"]]]


def pending(c: Cluster) -> list[dict]:
    """Objects detected and queued for synchronization: none once the queue has drained."""
    return []


def excluded(c: Cluster) -> list[dict]:
    return [
        {"SCHEMA_NAME": db, "NAME": name, "TYPE": "TABLE", "REASON": REASON}
        for db, name in _failing_tables(c)
    ]
