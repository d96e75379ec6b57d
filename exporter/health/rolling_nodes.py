"""What the rolling restart answers read of the nodes: which node an id names, which nodes are
starting or stopping, the arbitrator and its candidates, the SQL nodes that write a binary log,
and how a data node's operation latency compares with its peers'."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import joined, named_nodes
from ndbinfo_exporter.health.models import ClusterView, DataNode, OtherNode
from ndbinfo_exporter.health.samples import Samples

STARTED = "STARTED"
# membership.group_id of a data node in no node group (ndb_limits.h NDB_NO_NODEGROUP): it
# holds no fragments.
NO_NODEGROUP = 65536
# restart_info.node_restart_status of a node that is neither restarting nor failing, as
# Dbdih::get_status_str words it: RESTART_COMPLETED and NODE_ACTIVE, NODE_FAILURE_COMPLETED,
# NODE_NOT_RESTARTED_YET. Every other text is a restart under way or a node failure still
# being handled.
SETTLED_RESTART = frozenset(
    {"Restart completed", "Node failure handling complete", "Initial state", ""}
)
# `get status` states of a node on its way up or down (mgmapi.cpp status_values).
MOVING_STATES = frozenset({"STARTING", "SHUTTING_DOWN", "RESTARTING"})
SQL_PROCESS = "mysqld"
# The binlog_replicas collector: the replicas registered with the SQL node read.
REPLICAS_ATTACHED = "ndb_binlog_replicas_attached"
REPLICA_INFO = "ndb_binlog_replica_info"
LATENCY = "ndb_tc_operation_duration_seconds"
OPERATIONS = ("transaction", "key", "scan")


class UnknownNode(LookupError):
    """The id names no node of the cluster; the message says so in one line."""


@dataclass(frozen=True)
class Node:
    """One configured node: a data node (``data`` set) or a management or API node
    (``other`` set)."""

    node_id: int
    data: DataNode | None = None
    other: OtherNode | None = None

    @property
    def kind(self) -> str:
        if self.data is not None:
            return "data node"
        if self.other is not None and self.other.node_type == "MGM":
            return "management node"
        if self.other is not None and self.other.process_name == SQL_PROCESS:
            return "SQL node"
        return "API node"

    @property
    def name(self) -> str:
        return f"{self.kind} {self.node_id}"

    @property
    def up(self) -> bool:
        """Its process runs: a data node with a row in ndbinfo.nodes, another node connected."""
        if self.data is not None:
            return self.data.running
        return self.other is not None and self.other.connected


def data_nodes(cluster: ClusterView) -> list[DataNode]:
    topology = cluster.topology
    return [n for g in topology.node_groups for n in g.nodes] + topology.unassigned_data_nodes


def find(cluster: ClusterView, node_id: int) -> Node:
    """The node ``node_id`` names, or UnknownNode."""
    for data in data_nodes(cluster):
        if data.node_id == node_id:
            return Node(node_id, data=data)
    topology = cluster.topology
    for other in [*topology.management_nodes, *topology.api_nodes]:
        if other.node_id == node_id:
            return Node(node_id, other=other)
    known = sorted(n.node_id for n in data_nodes(cluster)) + sorted(
        n.node_id for n in [*topology.management_nodes, *topology.api_nodes]
    )
    listed = joined(known) if known else "none (the nodes and processes collectors gave none)"
    raise UnknownNode(f"node {node_id} is not a node of this cluster; its nodes: {listed}")


def start_phase_text(node: DataNode) -> str:
    return f", start phase {node.start_phase}" if node.start_phase is not None else ""


def restart_statuses(samples: Samples) -> dict[int, str]:
    """ndbinfo.restart_info's status text per data node (the restart_info collector)."""
    return {
        int(labels["node_id"]): labels.get("status", "")
        for labels, _ in samples.select("ndb_restart_status")
    }


def moving(inputs: Inputs, but: int) -> list[str]:
    """Each node other than ``but`` that is starting or stopping, one line each: data nodes
    whose ndbinfo.nodes state is not STARTED or whose restart_info status is not settled,
    and, with a management server read, any node `get status` shows on its way up or down."""
    found: dict[int, list[str]] = {}
    for node in data_nodes(inputs.cluster):
        if node.node_id != but and node.running and node.state != STARTED:
            found.setdefault(node.node_id, []).append(
                f"ndbinfo.nodes says {node.state}{start_phase_text(node)}"
            )
    for node_id, status in sorted(restart_statuses(inputs.samples).items()):
        if node_id != but and status not in SETTLED_RESTART:
            found.setdefault(node_id, []).append(f"restart_info says '{status}'")
    if inputs.management is not None:
        for status in inputs.management.nodes:
            if status.node_id != but and status.status in MOVING_STATES:
                found.setdefault(status.node_id, []).append(
                    f"the management server says {status.status}"
                )
    return [
        f"node {node_id} is starting or stopping: {'; '.join(why)}"
        for node_id, why in sorted(found.items())
    ]


def arbitrator(cluster: ClusterView) -> int | None:
    """The arbitrator the data nodes know (ndbinfo.membership.arbitrator); 0 for none, None
    when membership gave no data."""
    return cluster.topology.arbitrator_node_id


def arbitrator_candidates(cluster: ClusterView, but: int) -> list[int]:
    """Connected management nodes other than ``but``: the nodes with ArbitrationRank 1 by
    default. ndbinfo does not show a node's ArbitrationRank, so an SQL or API node configured
    with one is not counted."""
    return [
        n.node_id for n in cluster.topology.management_nodes if n.connected and n.node_id != but
    ]


def binlog_servers(clusters: Iterable[ClusterView], system_name: str | None) -> dict[int, bool]:
    """SQL node id -> it writes a binary log of NDB changes, for each SQL node read (each
    cluster view is one SQL node's, its replication card says whether it has a binlog
    injector); only the views of the cluster named ``system_name``."""
    found: dict[int, bool] = {}
    for cluster in clusters:
        node = cluster.sql_node
        if cluster.up and node.node_id is not None and node.system_name == system_name:
            found[node.node_id] = cluster.replication.binlog is not None
    return found


def replicas_reading(node: Node, inputs: Inputs) -> str | None:
    """What the replicas registered with SQL node ``node`` (the binlog_replicas collector) lose
    with it: "replica server 101 (host dr-sql1:3306) reads its binary log and ..."; None when
    none is or they are not known: they are read from the SQL node the cluster was read
    through only."""
    if node.node_id != inputs.cluster.sql_node.node_id:
        return None
    attached = inputs.samples.value(REPLICAS_ATTACHED)
    listed = sorted(
        (int(labels["server_id"]), labels.get("host", ""), labels.get("port", ""))
        for labels, _ in inputs.samples.select(REPLICA_INFO)
    )
    if not attached or not listed:
        return None
    named = [
        f"{server_id} (host {host}:{port})" if host else f"{server_id} (no report_host)"
        for server_id, host, port in listed
    ]
    more = int(attached) - len(listed)
    if more > 0:
        named.append(f"{more} more")
    one = len(named) == 1
    return (
        f"replica server{'' if one else 's'} {joined(named)} {'reads' if one else 'read'} its "
        f"binary log and {'loses its' if one else 'lose their'} source while it is down"
    )


def binlog_reasons(node: Node, inputs: Inputs, servers: Mapping[int, bool]) -> list[str]:
    """Why stopping SQL node ``node`` would leave the replicas without a binlog server; []
    when it writes none or another connected one writes too. Whether a SQL node writes a
    binary log is known for the SQL nodes read only; the replicas it would leave are named
    when they are known (replicas_reading)."""
    cluster = inputs.cluster
    if node.node_id not in servers:
        return [
            f"whether {node.name} writes a binary log is not known: it was not read (ask "
            "through it: check -H, or the view's ?target=)"
        ]
    if not servers[node.node_id]:
        return []
    connected = {n.node_id for n in cluster.topology.api_nodes if n.connected}
    others = [n for n, writes in servers.items() if writes and n != node.node_id and n in connected]
    if others:
        return []
    unread = sorted(
        n.node_id
        for n in cluster.topology.api_nodes
        if n.connected and n.process_name == SQL_PROCESS and n.node_id not in servers
    )
    not_read = f"; not read: {named_nodes('SQL node', unread)}" if unread else ""
    losing = replicas_reading(node, inputs) or (
        "a replica reading its binary log loses its source while it is down"
    )
    return [
        f"{node.name} is the only binlog server read: {losing}; start another binlog server "
        f"or move the replica's channels first{not_read}"
    ]


def binlog_note(node: Node, cluster: ClusterView, servers: Mapping[int, bool]) -> str:
    """What the binary log check found for an SQL node that may stop."""
    if not servers.get(node.node_id):
        return f"{node.name} writes no binary log"
    connected = {n.node_id for n in cluster.topology.api_nodes if n.connected}
    others = [n for n, w in servers.items() if w and n != node.node_id and n in connected]
    return f"{named_nodes('SQL node', others)} also write{'s' if len(others) == 1 else ''} the binary log"


@dataclass(frozen=True)
class Latency:
    """Mean operation latency of one data node and the median of its peers' means."""

    operation: str
    node_seconds: float
    peers_seconds: float
    operations: float  # of the node, in the window


def _means(samples: Samples, operation: str) -> dict[int, tuple[float, float]]:
    """(sum, count) of each data node's operations of one kind (the tc_latency histograms)."""
    sums = samples.by_node(f"{LATENCY}_sum", operation=operation)
    counts = samples.by_node(f"{LATENCY}_count", operation=operation)
    return {node: (sums[node], counts[node]) for node in sums.keys() & counts.keys()}


def _window(
    now: dict[int, tuple[float, float]], before: dict[int, tuple[float, float]], node: int
) -> tuple[float, float]:
    """The node's (sum, count) between the two scrapes when its counts grew, else since it
    started (a node that restarted counts from zero again)."""
    total, done = now[node]
    if node in before and before[node][1] <= done:
        return total - before[node][0], done - before[node][1]
    return total, done


def latencies(inputs: Inputs, node_id: int, peers: list[int]) -> list[Latency] | None:
    """Per operation kind, the node's mean latency beside its started peers'; None when the
    tc_latency collector gave no per-node figures for the node or its peers."""
    found = []
    for operation in OPERATIONS:
        now = _means(inputs.samples, operation)
        before = _means(inputs.previous, operation) if inputs.previous is not None else {}
        if node_id not in now:
            continue
        means = []
        for peer in (p for p in peers if p in now):
            total, done = _window(now, before, peer)
            if done > 0:
                means.append(total / done)
        total, done = _window(now, before, node_id)
        if means and done > 0:
            found.append(Latency(operation, total / done, statistics.median(means), done))
    return found or None
