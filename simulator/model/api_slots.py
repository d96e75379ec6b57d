"""An SQL node whose API slot is taken (sql-node-slot-taken): ndb_restore holds the node id the
mysqld's connection string names, so the restarted mysqld gets the first free API slot's id
(as ndb_mgmd allocates an id to a connection without a fixed one). The old slot then shows as a
free, unconnected API slot; the mysqld's process and counters restart. Its listener and
@@ndb_nodeid stay those of the first id (see docs/ndbsim.md)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ndbsim.model.topology import Node

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster


def mysqld_in(c: Cluster, slot: int) -> int:
    """The SQL node (its first node id) whose mysqld holds API slot `slot` now; `slot` itself
    for any other node."""
    return next((sql_node for sql_node, held in c.api_slots.items() if held == slot), slot)


def take(c: Cluster, sql_node: int) -> None:
    """The mysqld of `sql_node` restarts into the first free API slot."""
    if c.api_slots[sql_node] != sql_node:
        return
    free = next(n.node_id for n in c.topology.api_nodes if not n.process_name)
    _move(c, sql_node, sql_node, free)


def restore(c: Cluster) -> None:
    """Every moved mysqld restarts into its own slot again."""
    for sql_node, slot in list(c.api_slots.items()):
        if slot != sql_node:
            _move(c, sql_node, slot, sql_node)


def _move(c: Cluster, sql_node: int, old: int, new: int) -> None:
    """Swap the two API slots' roles and reconnect the mysqld with the new one."""
    mysqld, free = c.topology.node(old), c.topology.node(new)
    swapped = {
        new: dataclasses.replace(mysqld, node_id=new),
        old: Node(old, free.node_type, "", None, "", connected_by_default=False),
    }
    api = tuple(swapped.get(n.node_id, n) for n in c.topology.api_nodes)
    c.topology = dataclasses.replace(c.topology, api_nodes=api)
    c.faults.topology = c.topology
    mgm, when = c.topology.mgm_nodes[0].node_id, c.wall_time()
    c.other_up[old] = False
    c.log.emit("Disconnected", mgm, when, f"Node {old} Disconnected", node=old)
    c.api_slots[sql_node] = new
    c.other_up[new] = True
    c.log.emit("Connected", mgm, when, f"Node {new} Connected", node=new)
    c.restart_sql_node(sql_node)
