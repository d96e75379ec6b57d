"""Node layout of the simulated cluster: data nodes 1..N in node groups, the management
node(s) from 49, this SQL node and the other SQL/API nodes after them, plus free API slots."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

NDB, API, MGM = 0, 1, 2  # node_type values of ndbinfo (processes, config_nodes)
MAX_DATA_NODES = 48
FIRST_MGM_ID = 49


@dataclass(frozen=True)
class Node:
    node_id: int
    node_type: int
    hostname: str
    nodegroup: int | None = None  # data nodes only
    process_name: str = ""
    connected_by_default: bool = True  # False for free API slots


@dataclass(frozen=True)
class Topology:
    data_nodes: tuple[Node, ...]
    mgm_nodes: tuple[Node, ...]
    api_nodes: tuple[Node, ...]  # SQL nodes (this one first) and free API slots
    replicas: int

    @cached_property
    def all_nodes(self) -> tuple[Node, ...]:
        return tuple(
            sorted((*self.data_nodes, *self.mgm_nodes, *self.api_nodes), key=lambda n: n.node_id)
        )

    @property
    def data_node_ids(self) -> list[int]:
        return [n.node_id for n in self.data_nodes]

    @property
    def nodegroups(self) -> dict[int, list[int]]:
        groups: dict[int, list[int]] = {}
        for node in self.data_nodes:
            groups.setdefault(node.nodegroup, []).append(node.node_id)
        return groups

    @cached_property
    def _by_id(self) -> dict[int, Node]:
        return {n.node_id: n for n in self.all_nodes}

    def node(self, node_id: int) -> Node | None:
        return self._by_id.get(node_id)


def build_topology(
    data_nodes: int, replicas: int, sql_nodes: int, mgm_nodes: int, free_api_slots: int
) -> Topology:
    """The layout; ValueError with a one-line message when the numbers do not fit NDB's rules
    (the ranges of the data nodes and replicas are ClusterSpec's)."""
    if data_nodes % replicas:
        raise ValueError(
            f"data nodes ({data_nodes}) must be a multiple of replicas ({replicas}): "
            "every node group holds one replica of its fragments on each member"
        )
    if not 1 <= mgm_nodes <= 2:
        raise ValueError(f"management nodes must be 1..2, got {mgm_nodes}")
    if not 1 <= sql_nodes <= 16:
        raise ValueError(f"SQL nodes must be 1..16, got {sql_nodes}")
    data = tuple(
        Node(i, NDB, f"192.168.56.{113 + i}", (i - 1) // replicas, "ndbmtd")
        for i in range(1, data_nodes + 1)
    )
    mgm = tuple(
        Node(FIRST_MGM_ID + i, MGM, f"192.168.56.{101 + i}", None, "ndb_mgmd")
        for i in range(mgm_nodes)
    )
    first_api = FIRST_MGM_ID + mgm_nodes
    sql = tuple(
        Node(first_api + i, API, f"192.168.56.{201 + i}", None, "mysqld") for i in range(sql_nodes)
    )
    free = tuple(
        Node(first_api + sql_nodes + i, API, "", None, "", connected_by_default=False)
        for i in range(free_api_slots)
    )
    return Topology(data, mgm, (*sql, *free), replicas)
