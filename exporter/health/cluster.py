"""Topology, LCP progress, memory and redo gauges and SQL-node efficiency from scrape results.

Everything here is derived from the metric families a scrape already produced, so the view
adds no queries of its own for it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ndbinfo_exporter.health.models import (
    ClusterView,
    CollectorFailure,
    DataNode,
    Lcp,
    NodeGroup,
    NodeResources,
    OtherNode,
    SqlEfficiency,
    SqlNode,
    Topology,
)
from ndbinfo_exporter.health.replication import replication
from ndbinfo_exporter.health.restart_progress import restarts
from ndbinfo_exporter.health.samples import Samples, whole
from ndbinfo_exporter.health.schema_change_progress import schema_changes
from ndbinfo_exporter.scrape.scraper import ScrapeResult

DATA_MEMORY = "Data memory"


def ratio(part: float | None, total: float | None) -> float | None:
    if part is None or not total:
        return None
    return part / total


def node_groups_seen(samples: Samples) -> dict[int, int]:
    """Node group of each running data node, from ndbinfo.membership."""
    return {
        int(labels["node_id"]): int(labels["nodegroup"])
        for labels, value in samples.select("ndb_data_node_nodegroup")
        if value
    }


def sql_node(samples: Samples) -> SqlNode:
    version = samples.select("ndb_version_info")
    cluster = samples.select("ndb_sql_cluster_info")
    visibility = [
        labels["state"] for labels, value in samples.select("ndb_engine_visibility") if value
    ]
    return SqlNode(
        version=version[0][0].get("version") if version else None,
        ndb_version=version[0][0].get("ndb_version") if version else None,
        flavour=version[0][0].get("flavour") if version else None,
        flavour_version=version[0][0].get("flavour_version") if version else None,
        node_id=whole(samples.value("ndb_sql_cluster_node_id")),
        system_name=cluster[0][0].get("system_name") if cluster else None,
        data_nodes_configured=whole(samples.value("ndb_sql_data_nodes_configured")),
        data_nodes_ready=whole(samples.value("ndb_sql_data_nodes_ready")),
        ndb_visibility=visibility[0] if visibility else None,
    )


def _node_info(samples: Samples) -> dict[int, dict[str, str]]:
    return {int(labels["node_id"]): labels for labels, _ in samples.select("ndb_node_info")}


def inactive_data_nodes(samples: Samples) -> dict[int, int | None]:
    """The data nodes the configuration has not active (RonDB's NodeActive=0, read from the
    management server) and the node group it gives each."""
    return {
        int(labels["node_id"]): int(labels["nodegroup"]) if labels.get("nodegroup") else None
        for labels, value in samples.select("ndb_mgmd_data_node_active")
        if value == 0
    }


def data_nodes(samples: Samples, known_groups: Mapping[int, int]) -> list[DataNode]:
    """Every configured data node, running or not; stopped ones keep their known node group."""
    info = _node_info(samples)
    states = {
        int(labels["node_id"]): labels["state"]
        for labels, value in samples.select("ndb_data_node_status")
        if value
    }
    ids = set(states)
    ids.update(
        int(labels["node_id"])
        for labels, _ in samples.select("ndb_node_configured", node_type="NDB")
    )
    groups = {**known_groups, **node_groups_seen(samples)}
    phases = samples.by_node("ndb_data_node_start_phase")
    uptimes = samples.by_node("ndb_data_node_uptime_seconds")
    restarting = restarts(samples, (n for n, state in states.items() if state == "STARTING"))
    inactive = inactive_data_nodes(samples)
    for node_id, group in inactive.items():
        if group is not None:
            groups.setdefault(node_id, group)
    nodes = []
    for node_id in sorted(ids):
        details = info.get(node_id, {})
        stopped = "INACTIVE" if node_id in inactive else "STOPPED"
        nodes.append(
            DataNode(
                node_id=node_id,
                nodegroup=groups.get(node_id),
                state=states.get(node_id, stopped),
                running=node_id in states,
                active=node_id not in inactive,
                start_phase=whole(phases.get(node_id)),
                uptime_seconds=uptimes.get(node_id),
                hostname=details.get("hostname") or None,
                version=details.get("node_version") or None,
                restart=restarting.get(node_id),
            )
        )
    return nodes


def other_nodes(samples: Samples, node_type: str) -> list[OtherNode]:
    info = _node_info(samples)
    connected = samples.by_node("ndb_node_connected", node_type=node_type)
    result = []
    for labels, _ in sorted(
        samples.select("ndb_node_configured", node_type=node_type),
        key=lambda s: int(s[0]["node_id"]),
    ):
        node_id = int(labels["node_id"])
        details = info.get(node_id, {})
        result.append(
            OtherNode(
                node_id=node_id,
                node_type=node_type,
                connected=bool(connected.get(node_id)),
                hostname=details.get("hostname") or None,
                version=details.get("node_version") or None,
                process_name=details.get("process_name") or None,
            )
        )
    return result


def topology(samples: Samples, known_groups: Mapping[int, int]) -> Topology:
    nodes = data_nodes(samples, known_groups)
    groups: dict[int, list[DataNode]] = {}
    for node in nodes:
        if node.nodegroup is not None:
            groups.setdefault(node.nodegroup, []).append(node)
    arbitrators = [value for _, value in samples.select("ndb_arbitrator_node_id") if value]
    return Topology(
        node_groups=[
            NodeGroup(nodegroup=group, nodes=members, running=sum(n.running for n in members))
            for group, members in sorted(groups.items())
        ],
        unassigned_data_nodes=[node for node in nodes if node.nodegroup is None],
        management_nodes=other_nodes(samples, "MGM"),
        api_nodes=other_nodes(samples, "API"),
        president_node_id=whole(samples.value("ndb_president_node_id")),
        arbitrator_node_id=int(arbitrators[0]) if arbitrators else None,
    )


def lcp(samples: Samples) -> Lcp:
    ongoing = {
        node: int(value) for node, value in samples.by_node("ndb_replicas_lcp_ongoing").items()
    }
    completed = whole(samples.value("ndb_lcp_completed_gci"))
    current = samples.gci("ndb_sql_last_commit_epoch")
    age = current - completed if current is not None and completed is not None else None
    gcp_ms = [
        value
        for _, value in samples.select("ndb_config_value", param="TimeBetweenGlobalCheckpoints")
    ]
    return Lcp(
        lcp_id=whole(samples.value("ndb_lcp_id")),
        replicas_lcp_ongoing=sum(ongoing.values()) if ongoing else None,
        replicas_lcp_ongoing_by_node=ongoing,
        completed_gci=completed,
        current_gci=current,
        age_gcis=age,
        age_seconds=age * max(gcp_ms) / 1000 if age is not None and gcp_ms else None,
    )


def resources(samples: Samples) -> list[NodeResources]:
    used = samples.by_node("ndb_memory_used_bytes", memory_type=DATA_MEMORY)
    total = samples.by_node("ndb_memory_total_bytes", memory_type=DATA_MEMORY)
    redo_used = samples.by_node("ndb_log_space_used_bytes", log_type="REDO")
    redo_total = samples.by_node("ndb_log_space_total_bytes", log_type="REDO")
    worst: dict[int, float] = {}
    part_totals = {
        _part_key(labels): value
        for labels, value in samples.select("ndb_log_space_total_bytes", log_type="REDO")
    }
    for labels, value in samples.select("ndb_log_space_used_bytes", log_type="REDO"):
        part_ratio = ratio(value, part_totals.get(_part_key(labels)))
        node = int(labels["node_id"])
        if part_ratio is not None:
            worst[node] = max(worst.get(node, 0.0), part_ratio)
    return [
        NodeResources(
            node_id=node,
            data_memory_used_bytes=used.get(node),
            data_memory_total_bytes=total.get(node),
            data_memory_ratio=ratio(used.get(node), total.get(node)),
            redo_used_bytes=redo_used.get(node),
            redo_total_bytes=redo_total.get(node),
            redo_ratio=ratio(redo_used.get(node), redo_total.get(node)),
            redo_worst_part_ratio=worst.get(node),
        )
        for node in sorted(set(used) | set(total) | set(redo_used) | set(redo_total))
    ]


def _part_key(labels: Mapping[str, str]) -> tuple[str, str, str]:
    return labels["node_id"], labels.get("log_id", ""), labels.get("log_part", "")


EFFICIENCY_COUNTERS = {
    "scans": "ndb_sql_api_scans_total",
    "pruned_scans": "ndb_sql_api_pruned_scans_total",
    "commits": "ndb_sql_api_transactions_committed_total",
    "round_trips": "ndb_sql_api_round_trips_total",
    "key_operations": "ndb_sql_api_key_operations_total",
}


def sql_efficiency(
    current: Samples, current_at: float, previous: tuple[Samples, float] | None
) -> SqlEfficiency:
    """Ratios over the counter increase between two scrapes (since start until a second one exists)."""
    now = {key: current.total(name) for key, name in EFFICIENCY_COUNTERS.items()}
    if all(value is None for value in now.values()):
        return SqlEfficiency(basis="no data")
    basis, window, counts = "since SQL node start", None, now
    if previous is not None:
        before_samples, before_at = previous
        before = {key: before_samples.total(name) for key, name in EFFICIENCY_COUNTERS.items()}
        deltas = {
            key: now[key] - before[key]
            if now[key] is not None and before[key] is not None
            else None
            for key in now
        }
        # A counter that went down means the SQL node restarted: the window is not usable.
        if current_at > before_at and all(d is None or d >= 0 for d in deltas.values()):
            basis, window, counts = "two scrapes", current_at - before_at, deltas
    return SqlEfficiency(
        basis=basis,
        window_seconds=window,
        scans=counts["scans"],
        pruned_scans=counts["pruned_scans"],
        pruned_scan_ratio=ratio(counts["pruned_scans"], counts["scans"]),
        commits=counts["commits"],
        round_trips=counts["round_trips"],
        round_trips_per_commit=ratio(counts["round_trips"], counts["commits"]),
        key_operations=counts["key_operations"],
        key_operations_per_round_trip=ratio(counts["key_operations"], counts["round_trips"]),
    )


def cluster_view(
    result: ScrapeResult,
    samples: Samples,
    before: Samples | None,
    previous: ScrapeResult | None,
    known_groups: Mapping[int, int],
) -> ClusterView:
    """The whole cluster page from the newest scrape result and the one before it, with
    their samples indexed."""
    earlier = (
        (before, previous.finished_at) if before is not None and previous is not None else None
    )
    checkpoints = lcp(samples)
    return ClusterView(
        target=result.target,
        up=result.up,
        error=result.error,
        scraped_at=result.finished_at,
        collectors_failed=[
            CollectorFailure(collector=name, error=error)
            for name, error in sorted(result.collector_errors.items())
        ],
        sql_node=sql_node(samples),
        topology=topology(samples, known_groups),
        lcp=checkpoints,
        resources=resources(samples),
        sql_efficiency=sql_efficiency(samples, result.finished_at, earlier),
        replication=replication(samples, checkpoints.current_gci),
        schema_changes=schema_changes(samples),
    )
