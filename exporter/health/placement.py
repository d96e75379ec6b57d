"""Fragment placement: primaries, backups and dead replicas of each table per data node.

One statement reads one running data node's copy of the distribution (table_fragments and
table_replicas are replicated state, so every node's copy is the same), aggregated in SQL to a
row per table and data node: at 48 data nodes and 2,000 tables about 100,000 rows instead of
one per replica. The fragments of one table are read only when a user opens that table
(``detail_sql``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ndbinfo_exporter.health.models import (
    DatabaseCount,
    Fragment,
    PlacementNode,
    PlacementTable,
    PlacementView,
    TableFragments,
    TableShare,
)
from ndbinfo_exporter.values import Row, number, text

USER_TABLE = 2  # dict_obj_types: "User table"
OBJECTS = ("table_fragments", "table_replicas", "dict_obj_info", "table_info")

_FROM = """FROM ndbinfo.table_fragments f
JOIN ndbinfo.table_replicas r
  ON r.node_id = f.node_id AND r.table_id = f.table_id AND r.fragment_id = f.fragment_id
JOIN ndbinfo.dict_obj_info o ON o.id = f.table_id AND o.type = 2
LEFT JOIN ndbinfo.table_info t ON t.table_id = f.table_id
WHERE f.node_id = {node} AND r.node_id = {node}"""

# group_peer: a node whose fragments the row's node holds a replica of, so in the same node
# group; the pairs (node, peer) join the node groups (``Placement.node_groups``).
SQL = (
    """SELECT f.table_id, r.replica_node_id AS node_id,
  SUM(CASE WHEN r.is_replica_alive <> 0 AND f.current_primary = r.replica_node_id
      THEN 1 ELSE 0 END) AS primaries,
  SUM(CASE WHEN r.is_replica_alive <> 0 AND f.current_primary <> r.replica_node_id
      THEN 1 ELSE 0 END) AS backups,
  SUM(CASE WHEN r.is_replica_alive = 0 THEN 1 ELSE 0 END) AS dead,
  SUM(r.is_lcp_ongoing) AS lcp_ongoing,
  MIN(f.preferred_primary) AS group_peer,
  MAX(o.fq_name) AS fq_name, MAX(t.read_backup) AS read_backup,
  MAX(t.fully_replicated) AS fully_replicated
"""
    + _FROM
    + "\nGROUP BY f.table_id, r.replica_node_id"
)

DETAIL_SQL = (
    """SELECT f.fragment_id, f.current_primary, f.preferred_primary,
  r.replica_node_id, r.is_replica_alive, r.is_lcp_ongoing
"""
    + _FROM
    + " AND f.table_id = {table}"
)


def sql_for(node_id: int) -> str:
    """The placement statement reading ``node_id``'s copy."""
    return SQL.format(node=int(node_id))


def detail_sql(node_id: int, table_id: int) -> str:
    """The fragments of one table, from ``node_id``'s copy."""
    return DETAIL_SQL.format(node=int(node_id), table=int(table_id))


@dataclass(frozen=True, slots=True)
class Share:
    """One table's replicas on one data node."""

    primaries: int
    backups: int
    dead: int
    lcp_ongoing: int


@dataclass(slots=True)
class TablePlacement:
    db: str
    table: str
    table_id: int
    read_backup: bool | None
    fully_replicated: bool | None
    shares: dict[int, Share] = field(default_factory=dict)  # data node -> its replicas

    @property
    def dead_replicas(self) -> int:
        return sum(share.dead for share in self.shares.values())

    @property
    def fragments(self) -> int:
        """Every fragment has one current primary while one replica of it is alive."""
        return sum(share.primaries for share in self.shares.values())

    @property
    def nodes(self) -> set[int]:
        return set(self.shares)


@dataclass
class Placement:
    source_node: int
    refreshed_at: float
    tables: list[TablePlacement]  # ordered by db, table
    # The data nodes of each node group, as the replicas place them.
    node_groups: list[set[int]] = field(default_factory=list)

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


def _count(row: Row, column: str) -> int:
    return int(number(row[column]) or 0)


def _groups(pairs: Iterable[tuple[int, int]]) -> list[set[int]]:
    """Connected node sets of (node, peer) pairs: the node groups."""
    parent: dict[int, int] = {}

    def root(node: int) -> int:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for node, peer in pairs:
        parent[root(node)] = root(peer)
    groups: dict[int, set[int]] = {}
    for node in parent:
        groups.setdefault(root(node), set()).add(node)
    return sorted(groups.values(), key=min)


def build(rows: Iterable[Row], source_node: int, refreshed_at: float) -> Placement:
    """One row per table and data node -> tables with their replicas per node. Equal shares
    are one object: about 100,000 at 48 data nodes, most of them alike."""
    tables: dict[int, TablePlacement] = {}
    shares: dict[tuple[int, int, int, int], Share] = {}
    pairs: set[tuple[int, int]] = set()
    for row in rows:
        table_id = _count(row, "table_id")
        table = tables.get(table_id)
        if table is None:
            db, name = split_name(text(row["fq_name"]))
            table = tables[table_id] = TablePlacement(
                db=db,
                table=name,
                table_id=table_id,
                read_backup=_flag(row.get("read_backup")),
                fully_replicated=_flag(row.get("fully_replicated")),
            )
        node = _count(row, "node_id")
        counts = (
            _count(row, "primaries"),
            _count(row, "backups"),
            _count(row, "dead"),
            _count(row, "lcp_ongoing"),
        )
        share = shares.get(counts)
        if share is None:
            share = shares[counts] = Share(*counts)
        table.shares[node] = share
        peer = _count(row, "group_peer")
        if peer:
            pairs.add((node, peer))
    ordered = sorted(tables.values(), key=lambda t: (t.db, natural(t.table), t.table_id))
    return Placement(source_node, refreshed_at, ordered, _groups(pairs))


def fragments(rows: Iterable[Row]) -> list[Fragment]:
    """One row per replica of one table -> its fragments."""
    found: dict[int, Fragment] = {}
    for row in rows:
        fragment_id = _count(row, "fragment_id")
        fragment = found.get(fragment_id)
        if fragment is None:
            fragment = found[fragment_id] = Fragment(
                fragment_id=fragment_id,
                primary=_count(row, "current_primary") or None,
                preferred_primary=_count(row, "preferred_primary") or None,
                backups=[],
                dead=[],
                lcp_ongoing=[],
            )
        node = _count(row, "replica_node_id")
        if not number(row["is_replica_alive"]):
            fragment.dead.append(node)
        elif node != fragment.primary:
            fragment.backups.append(node)
        if number(row["is_lcp_ongoing"]):
            fragment.lcp_ongoing.append(node)
    for fragment in found.values():
        fragment.backups.sort()
        fragment.dead.sort()
        fragment.lcp_ongoing.sort()
    return [found[key] for key in sorted(found)]


def table_fragments(
    placement: Placement, table: TablePlacement, rows: Iterable[Row], target: str
) -> TableFragments:
    return TableFragments(
        target=target,
        source_node=placement.source_node,
        db=table.db,
        table=table.table,
        table_id=table.table_id,
        fragments=fragments(rows),
    )


def matches(table: TablePlacement, db: str | None, name: str | None, node: int | None) -> bool:
    """db: exact database; name: case-insensitive substring of the table name; node: holds a replica."""
    if db is not None and table.db != db:
        return False
    if name and name.lower() not in table.table.lower():
        return False
    return node is None or node in table.shares


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
        for node, share in table.shares.items():
            primaries[node] = primaries.get(node, 0) + share.primaries
            replicas[node] = replicas.get(node, 0) + share.primaries + share.backups
            dead[node] = dead.get(node, 0) + share.dead
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


@dataclass(frozen=True)
class TableSelection:
    """The tables matching one filter, with their sums: what every page of it shares."""

    placement: Placement
    tables: list[TablePlacement]
    databases: list[DatabaseCount]
    nodes: list[PlacementNode]

    def pages(self, page_size: int) -> int:
        return max(1, math.ceil(len(self.tables) / page_size))


def select(
    placement: Placement,
    data_nodes: Mapping[int, tuple[int | None, bool]],
    *,
    db: str | None = None,
    table: str | None = None,
    node: int | None = None,
) -> TableSelection:
    """The tables matching the filter, counted per database and summed per data node."""
    matched = [t for t in placement.tables if matches(t, db, table, node)]
    databases: dict[str, int] = {}
    for t in matched:
        databases[t.db] = databases.get(t.db, 0) + 1
    return TableSelection(
        placement,
        matched,
        [DatabaseCount(db=name, tables=count) for name, count in databases.items()],
        summarize(matched, data_nodes),
    )


def page_view(
    selection: TableSelection, target: str, *, page: int, page_size: int
) -> PlacementView:
    start = (page - 1) * page_size
    return PlacementView(
        target=target,
        source_node=selection.placement.source_node,
        refreshed_at=selection.placement.refreshed_at,
        total_tables=len(selection.placement.tables),
        matched_tables=len(selection.tables),
        page=page,
        page_size=page_size,
        pages=selection.pages(page_size),
        databases=selection.databases,
        nodes=selection.nodes,
        tables=[_table_model(t) for t in selection.tables[start : start + page_size]],
    )


def _table_model(table: TablePlacement) -> PlacementTable:
    return PlacementTable(
        db=table.db,
        table=table.table,
        table_id=table.table_id,
        read_backup=table.read_backup,
        fully_replicated=table.fully_replicated,
        fragments=table.fragments,
        dead_replicas=table.dead_replicas,
        nodes=[
            TableShare(
                node_id=node,
                primaries=share.primaries,
                backups=share.backups,
                dead=share.dead,
                lcp_ongoing=share.lcp_ongoing,
            )
            for node, share in sorted(table.shares.items())
        ],
    )
