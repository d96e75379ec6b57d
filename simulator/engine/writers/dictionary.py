"""ndb$dict_obj_info: the dictionary's objects, written as the model starts and again when a
schema change adds or removes one; RonDB's ndb$table_map."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndbsim.engine.writers.registry import written_once
from ndbsim.model import schema_changes

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


@written_once("ndb$dict_obj_info")
def dict_obj_info(c: Cluster) -> list[dict]:
    return [
        {
            "type": o.type,
            "id": o.id,
            "version": o.version,
            "state": o.state,
            "parent_obj_type": o.parent_type,
            "parent_obj_id": o.parent_id,
            "fq_name": o.fq_name,
        }
        for o in schema_changes.objects(c)
    ]


@written_once("ndb$table_map")
def table_map(c: Cluster) -> list[dict]:
    """RonDB: each table id with fragments under the name of the user table it belongs to (a
    blob or unique index table under its base table's)."""
    by_id = {t.table_id: t for t in c.dictionary.dih}
    return [
        {
            "table_id": t.table_id,
            "database_name": by_id[t.base_id].database,
            "table_name": by_id[t.base_id].name,
        }
        for t in c.dictionary.dih
        if t.base_id in by_id
    ]
