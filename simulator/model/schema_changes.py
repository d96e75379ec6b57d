"""Schema changes that move rows over cluster time: a copying ALTER TABLE (copy-alter) and
ALTER TABLE ... REORGANIZE PARTITION (reorganize).

A copying ALTER (sql_table.cc copy_data_between_tables) creates a table `#sql-<hex>` in the same
database through ha_ndbcluster and copies the rows into it; once copied, the copy is renamed over
the table and the old one dropped. REORGANIZE PARTITION adds fragments to the table (DIH
add_fragments_to_table: the new fragment ids follow the old ones) and the data nodes' reorg
triggers move the rows that hash to them, so the new fragments fill while the old ones empty.
The dictionary stays as built; the change is laid over it: an extra table for the copy, the
fragment count and the moved share for the reorganization.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ndbsim.model.dictionary import HASH_MAP, INDEX_TRIGGER, USER_TABLE, DictObject, DihTable

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

COPY, REORGANIZE = "copy-alter", "reorganize"
COPY_PREFIX = "#sql-"
OWN_ID_SPACE = (INDEX_TRIGGER, HASH_MAP)  # the other objects share the table ids


@dataclass(frozen=True)
class Reorganization:
    """The table being reorganized: its fragments before and after, the share moved."""

    table_id: int
    old_fragments: int
    fragments: int
    moved: float


def progress(c: Cluster, name: str) -> float | None:
    """The share done (0..1) of the schema change `name` at the cluster's now, or None when
    it is not set."""
    params = c.faults.get(name)
    if params is None:
        return None
    return min(1.0, max(0.0, c.now - params["since"]) / params["seconds"])


def largest_table(c: Cluster) -> DihTable:
    """The user table (not a blob part table, not of the mysql database) with the most data."""
    tables = [
        t for t in c.dictionary.user_tables if t.database != "mysql" and not t.fully_replicated
    ]
    return max(tables, key=lambda t: (t.rows * (t.row_bytes + t.var_bytes), -t.table_id))


def copy_table(c: Cluster) -> DihTable | None:
    """The `#sql-` table of a running copying ALTER, its rows those copied so far."""
    done = progress(c, COPY)
    if done is None or done >= 1.0:
        return None
    source = largest_table(c)
    next_id = max(o.id for o in c.dictionary.objects if o.type not in OWN_ID_SPACE) + 1
    return replace(
        source,
        table_id=next_id,
        base_id=next_id,
        name=f"{COPY_PREFIX}{c.spec.seed + 0x3A41:x}_{source.table_id + 8:x}",
        rows=int(source.rows * done),
        seq=len(c.dictionary.dih),
        weight=0.0,
    )


def reorganization(c: Cluster) -> Reorganization | None:
    """The table a REORGANIZE PARTITION works on: twice its fragments, the share moved; once
    done, it keeps them with nothing left to move."""
    done = progress(c, REORGANIZE)
    if done is None:
        return None
    table = largest_table(c)
    new = 2 * table.fragments
    return Reorganization(table.table_id, new if done >= 1.0 else table.fragments, new, done)


def dih(c: Cluster) -> list[DihTable]:
    """The objects with fragments, with the schema changes laid over the dictionary's."""
    tables = list(c.dictionary.dih)
    copy = copy_table(c)
    if copy is not None:
        tables.append(copy)
    reorg = reorganization(c)
    if reorg is not None:
        tables = [
            replace(t, partitions=reorg.fragments, fragments=reorg.fragments)
            if t.table_id == reorg.table_id
            else t
            for t in tables
        ]
    return tables


def objects(c: Cluster) -> list[DictObject]:
    """The dictionary's objects with the `#sql-` table of a running copy."""
    copy = copy_table(c)
    if copy is None:
        return list(c.dictionary.objects)
    added = DictObject(USER_TABLE, copy.table_id, 1, 0, 0, f"{copy.database}/def/{copy.name}")
    return sorted([*c.dictionary.objects, added], key=lambda o: (o.type, o.id))


def layout(c: Cluster) -> tuple:
    """What the fragments follow: the copy table that exists and the reorganized table's
    fragments (the rows moved are ``moved_rows``)."""
    copy = copy_table(c)
    reorg = reorganization(c)
    return (
        None if copy is None else copy.table_id,
        None if reorg is None else (reorg.table_id, reorg.fragments, reorg.moved >= 1.0),
    )


def moved_rows(c: Cluster) -> list[tuple[int, int, int, float]]:
    """(table id, rows, old fragments, share moved) of the tables whose rows move now."""
    out = []
    copy = copy_table(c)
    if copy is not None:
        out.append((copy.table_id, copy.rows, copy.fragments, 0.0))
    reorg = reorganization(c)
    if reorg is not None and reorg.moved < 1.0:
        rows = next(t.rows for t in c.dictionary.dih if t.table_id == reorg.table_id)
        out.append((reorg.table_id, rows, reorg.old_fragments, reorg.moved))
    return out
