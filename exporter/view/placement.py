"""Fragment placement: which data node holds the primary, backup and dead replicas of each fragment.

One statement reads one running data node's copy of the distribution (table_fragments and
table_replicas are replicated state, so every node's copy is the same) with the table names
and the READ_BACKUP flag.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ndbinfo_exporter.collectors.base import Row, number, text
from ndbinfo_exporter.view.models import (
    DatabaseCount,
    Fragment,
    PlacementNode,
    PlacementTable,
    PlacementView,
)

USER_TABLE = 2  # dict_obj_types: "User table"
OBJECTS = ("table_fragments", "table_replicas", "dict_obj_info", "table_info")

SQL = """SELECT f.table_id, f.fragment_id, f.current_primary, f.preferred_primary,
  r.replica_node_id, r.is_replica_alive, r.is_lcp_ongoing,
  o.fq_name, t.read_backup, t.fully_replicated
FROM ndbinfo.table_fragments f
JOIN ndbinfo.table_replicas r
  ON r.node_id = f.node_id AND r.table_id = f.table_id AND r.fragment_id = f.fragment_id
JOIN ndbinfo.dict_obj_info o ON o.id = f.table_id AND o.type = 2
LEFT JOIN ndbinfo.table_info t ON t.table_id = f.table_id
WHERE f.node_id = {node} AND r.node_id = {node}"""


def sql_for(node_id: int) -> str:
    """The placement statement reading ``node_id``'s copy."""
    return SQL.format(node=int(node_id))


@dataclass
class FragmentPlacement:
    fragment_id: int
    primary: int | None
    preferred_primary: int | None
    backups: list[int] = field(default_factory=list)
    dead: list[int] = field(default_factory=list)
    lcp_ongoing: list[int] = field(default_factory=list)

    @property
    def nodes(self) -> set[int]:
        """Every node with a replica of this fragment, alive or dead: its node group."""
        alive = {self.primary} if self.primary else set()
        return alive | set(self.backups) | set(self.dead)


@dataclass
class TablePlacement:
    db: str
    table: str
    table_id: int
    read_backup: bool | None
    fully_replicated: bool | None
    fragments: list[FragmentPlacement]

    @property
    def dead_replicas(self) -> int:
        return sum(len(f.dead) for f in self.fragments)

    @property
    def nodes(self) -> set[int]:
        return set().union(*(f.nodes for f in self.fragments)) if self.fragments else set()


@dataclass
class Placement:
    source_node: int
    refreshed_at: float
    tables: list[TablePlacement]  # ordered by db, table

    def node_sets(self) -> list[set[int]]:
        """The distinct replica node sets of all fragments (each one is a node group)."""
        seen: list[set[int]] = []
        for table in self.tables:
            for fragment in table.fragments:
                if fragment.nodes and fragment.nodes not in seen:
                    seen.append(fragment.nodes)
        return seen

    def tables_without_read_backup(self) -> list[TablePlacement]:
        return [t for t in self.tables if t.read_backup is False and not t.fully_replicated]


def split_name(fq_name: str) -> tuple[str, str]:
    """``db/def/table`` -> (db, table)."""
    db, sep, table = fq_name.partition("/def/")
    return (db, table) if sep else ("", fq_name)


def natural(name: str) -> list[tuple[int, int | str]]:
    """Case-insensitive sort key that puts t2 before t10."""
    return [
        (0, int(part)) if part.isdigit() else (1, part)
        for part in re.split(r"(\d+)", name.lower())
        if part
    ]


def _flag(value: object) -> bool | None:
    parsed = number(value)
    return None if parsed is None else bool(parsed)


def build(rows: Iterable[Row], source_node: int, refreshed_at: float) -> Placement:
    """One row per replica -> tables with their fragments."""
    tables: dict[int, TablePlacement] = {}
    fragments: dict[tuple[int, int], FragmentPlacement] = {}
    for row in rows:
        table_id = int(number(row["table_id"]) or 0)
        fragment_id = int(number(row["fragment_id"]) or 0)
        table = tables.get(table_id)
        if table is None:
            db, name = split_name(text(row["fq_name"]))
            table = tables[table_id] = TablePlacement(
                db=db,
                table=name,
                table_id=table_id,
                read_backup=_flag(row.get("read_backup")),
                fully_replicated=_flag(row.get("fully_replicated")),
                fragments=[],
            )
        fragment = fragments.get((table_id, fragment_id))
        if fragment is None:
            fragment = fragments[(table_id, fragment_id)] = FragmentPlacement(
                fragment_id=fragment_id,
                primary=int(number(row["current_primary"]) or 0) or None,
                preferred_primary=int(number(row["preferred_primary"]) or 0) or None,
            )
            table.fragments.append(fragment)
        node = int(number(row["replica_node_id"]) or 0)
        if not number(row["is_replica_alive"]):
            fragment.dead.append(node)
        elif node != fragment.primary:
            fragment.backups.append(node)
        if number(row["is_lcp_ongoing"]):
            fragment.lcp_ongoing.append(node)
    for table in tables.values():
        table.fragments.sort(key=lambda f: f.fragment_id)
        for fragment in table.fragments:
            fragment.backups.sort()
            fragment.dead.sort()
            fragment.lcp_ongoing.sort()
    ordered = sorted(tables.values(), key=lambda t: (t.db, natural(t.table), t.table_id))
    return Placement(source_node=source_node, refreshed_at=refreshed_at, tables=ordered)


def matches(table: TablePlacement, db: str | None, name: str | None, node: int | None) -> bool:
    """db: exact database; name: case-insensitive substring of the table name; node: holds a replica."""
    if db is not None and table.db != db:
        return False
    if name and name.lower() not in table.table.lower():
        return False
    return node is None or node in table.nodes


def summarize(
    tables: list[TablePlacement], data_nodes: Mapping[int, tuple[int | None, bool]]
) -> list[PlacementNode]:
    """Primaries, alive and dead replicas per data node over ``tables``.

    ``data_nodes`` maps every known data node to (node group, running) so that nodes
    without any replica of the matching tables still get a column.
    """
    primaries: dict[int, int] = dict.fromkeys(data_nodes, 0)
    replicas: dict[int, int] = dict.fromkeys(data_nodes, 0)
    dead: dict[int, int] = dict.fromkeys(data_nodes, 0)
    for table in tables:
        for fragment in table.fragments:
            if fragment.primary:
                primaries[fragment.primary] = primaries.get(fragment.primary, 0) + 1
                replicas[fragment.primary] = replicas.get(fragment.primary, 0) + 1
            for node in fragment.backups:
                replicas[node] = replicas.get(node, 0) + 1
            for node in fragment.dead:
                dead[node] = dead.get(node, 0) + 1
    nodes = sorted(set(primaries) | set(replicas) | set(dead))
    return [
        PlacementNode(
            node_id=node,
            nodegroup=data_nodes.get(node, (None, True))[0],
            running=data_nodes.get(node, (None, True))[1],
            primaries=primaries.get(node, 0),
            replicas=replicas.get(node, 0),
            dead_replicas=dead.get(node, 0),
        )
        for node in nodes
    ]


def page_view(
    placement: Placement,
    target: str,
    data_nodes: Mapping[int, tuple[int | None, bool]],
    *,
    db: str | None = None,
    table: str | None = None,
    node: int | None = None,
    page: int = 1,
    page_size: int = 50,
) -> PlacementView:
    matched = [t for t in placement.tables if matches(t, db, table, node)]
    pages = max(1, math.ceil(len(matched) / page_size))
    start = (page - 1) * page_size
    databases: dict[str, int] = {}
    for t in matched:
        databases[t.db] = databases.get(t.db, 0) + 1
    return PlacementView(
        target=target,
        source_node=placement.source_node,
        refreshed_at=placement.refreshed_at,
        total_tables=len(placement.tables),
        matched_tables=len(matched),
        page=page,
        page_size=page_size,
        pages=pages,
        databases=[DatabaseCount(db=name, tables=count) for name, count in databases.items()],
        nodes=summarize(matched, data_nodes),
        tables=[_table_model(t) for t in matched[start : start + page_size]],
    )


def _table_model(table: TablePlacement) -> PlacementTable:
    return PlacementTable(
        db=table.db,
        table=table.table,
        table_id=table.table_id,
        read_backup=table.read_backup,
        fully_replicated=table.fully_replicated,
        dead_replicas=table.dead_replicas,
        fragments=[
            Fragment(
                fragment_id=f.fragment_id,
                primary=f.primary,
                preferred_primary=f.preferred_primary,
                backups=f.backups,
                dead=f.dead,
                lcp_ongoing=f.lcp_ongoing,
            )
            for f in table.fragments
        ],
    )
