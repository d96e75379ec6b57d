"""ScrapeResult-shaped data for the health layer's unit tests (and the view's and the report's):
metric families as the collectors build them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ndbinfo_exporter.collectors.base import TargetInfo
from ndbinfo_exporter.health.cluster import cluster_view
from ndbinfo_exporter.health.parameters import config_view
from ndbinfo_exporter.health.samples import Samples
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

GIB = 1024**3
OBJECTS = frozenset(
    {"nodes", "table_fragments", "table_replicas", "dict_obj_info", "table_info", "memoryusage"}
)


@dataclass(frozen=True)
class Result:
    target: str = "127.0.0.1:3306"
    up: bool = True
    families: list[Metric] = field(default_factory=list)
    target_info: TargetInfo | None = TargetInfo("8.4.3-cluster", (8, 4, 3), OBJECTS)
    error: str | None = None
    finished_at: float = 1000.0
    collector_errors: dict[str, str] = field(default_factory=dict)

    def kept(self) -> Result:
        return self


def gauge(name: str, labels: dict[str, str] | None = None, value: float = 1.0) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, "test", labels=list(labels or {}))
    family.add_metric(list((labels or {}).values()), value)
    return family


def counter(name: str, value: float, labels: dict[str, str] | None = None) -> CounterMetricFamily:
    family = CounterMetricFamily(name, "test", labels=list(labels or {}))
    family.add_metric(list((labels or {}).values()), value)
    return family


def cluster(
    *,
    stopped: tuple[int, ...] = (),
    data_memory: dict[int, float] | None = None,
    primaries: dict[int, float] | None = None,
    counters: dict[str, float] | None = None,
    read_backup_off: int = 3,
    inconsistent: dict[str, dict[int, float]] | None = None,
    lcp_completed_gci: int = 5000,
    current_gci: int = 5010,
    finished_at: float = 1000.0,
) -> Result:
    """Four data nodes in two node groups (1,2 and 3,4), one management node, two SQL nodes."""
    running = [n for n in (1, 2, 3, 4) if n not in stopped]
    memory = data_memory or {n: 0.25 for n in running}
    primary_counts = primaries or {n: 40.0 for n in running}
    values = {
        "ndb_sql_api_scans_total": 1000.0,
        "ndb_sql_api_pruned_scans_total": 800.0,
        "ndb_sql_api_round_trips_total": 3000.0,
        "ndb_sql_api_transactions_committed_total": 1000.0,
        "ndb_sql_api_key_operations_total": 6000.0,
        **(counters or {}),
    }
    families: list[Metric] = [
        gauge("ndb_up"),
        gauge("ndb_version_info", {"version": "8.4.3-cluster", "ndb_version": "8.4.3"}),
        gauge("ndb_engine_visibility", {"state": "ok"}),
        gauge("ndb_sql_cluster_node_id", value=51),
        gauge("ndb_sql_cluster_info", {"system_name": "demo_cluster"}),
        gauge("ndb_sql_data_nodes_configured", value=4),
        gauge("ndb_sql_data_nodes_ready", value=len(running)),
        gauge("ndb_sql_last_commit_epoch", value=current_gci * 2**32 + 7),
        gauge("ndb_president_node_id", value=running[0]),
    ]
    for name, value in values.items():
        family = CounterMetricFamily(name.removesuffix("_total"), "test")
        family.add_metric([], value)
        families.append(family)
    configured = GaugeMetricFamily("ndb_node_configured", "t", labels=["node_id", "node_type"])
    connected = GaugeMetricFamily("ndb_node_connected", "t", labels=["node_id", "node_type"])
    info = GaugeMetricFamily(
        "ndb_node_info",
        "t",
        labels=["node_id", "node_type", "hostname", "node_version", "process_name"],
    )
    for node, kind, process in [
        (1, "NDB", "ndbmtd"),
        (2, "NDB", "ndbmtd"),
        (3, "NDB", "ndbmtd"),
        (4, "NDB", "ndbmtd"),
        (49, "MGM", "ndb_mgmd"),
        (51, "API", "mysqld"),
        (52, "API", ""),
    ]:
        up = node not in stopped and process != ""
        configured.add_metric([str(node), kind], 1)
        connected.add_metric([str(node), kind], 1 if up else 0)
        info.add_metric(
            [str(node), kind, f"host{node}", "8.4.3" if up else "", process if up else ""], 1
        )
    families += [configured, connected, info]
    status = GaugeMetricFamily("ndb_data_node_status", "t", labels=["node_id", "state"])
    group = GaugeMetricFamily("ndb_data_node_nodegroup", "t", labels=["node_id", "nodegroup"])
    uptime = GaugeMetricFamily("ndb_data_node_uptime_seconds", "t", labels=["node_id"])
    used = GaugeMetricFamily("ndb_memory_used_bytes", "t", labels=["node_id", "memory_type"])
    total = GaugeMetricFamily("ndb_memory_total_bytes", "t", labels=["node_id", "memory_type"])
    redo_used = GaugeMetricFamily(
        "ndb_log_space_used_bytes", "t", labels=["node_id", "log_type", "log_id", "log_part"]
    )
    redo_total = GaugeMetricFamily(
        "ndb_log_space_total_bytes", "t", labels=["node_id", "log_type", "log_id", "log_part"]
    )
    prim = GaugeMetricFamily("ndb_fragment_primaries", "t", labels=["node_id"])
    ongoing = GaugeMetricFamily("ndb_replicas_lcp_ongoing", "t", labels=["node_id"])
    for node in running:
        for state in ("STARTING", "STARTED"):
            status.add_metric([str(node), state], 1 if state == "STARTED" else 0)
        group.add_metric([str(node), str((node - 1) // 2)], 1)
        uptime.add_metric([str(node)], 3600)
        used.add_metric([str(node), "Data memory"], memory.get(node, 0.25) * GIB)
        total.add_metric([str(node), "Data memory"], GIB)
        for part in range(4):
            redo_used.add_metric([str(node), "REDO", "0", str(part)], (10 + part * 10) * 2**20)
            redo_total.add_metric([str(node), "REDO", "0", str(part)], 256 * 2**20)
        prim.add_metric([str(node)], primary_counts.get(node, 0))
        ongoing.add_metric([str(node)], 2)
    families += [status, group, uptime, used, total, redo_used, redo_total, prim, ongoing]
    families += [
        gauge("ndb_fragments_with_dead_replicas", value=80 if stopped else 0),
        gauge("ndb_lcp_id", value=42),
        gauge("ndb_lcp_completed_gci", value=lcp_completed_gci),
    ]
    tables = GaugeMetricFamily(
        "ndb_user_tables",
        "t",
        labels=["read_backup", "fully_replicated", "storage_type", "partition_balance"],
    )
    tables.add_metric(["1", "0", "MEMORY", "FOR_RP_BY_LDM"], 17)
    tables.add_metric(["0", "0", "MEMORY", "FOR_RP_BY_LDM"], read_backup_off)
    families.append(tables)
    families += _config(running, inconsistent or {})
    return Result(families=families, finished_at=finished_at)


def _config(running: list[int], inconsistent: dict[str, dict[int, float]]) -> list[Metric]:
    value = GaugeMetricFamily("ndb_config_value", "t", labels=["node_id", "param"])
    default = GaugeMetricFamily("ndb_config_default_value", "t", labels=["param"])
    bad = GaugeMetricFamily("ndb_config_inconsistent", "t", labels=["param"])
    params = {"DataMemory": (GIB, 98 * 2**20), "TimeBetweenGlobalCheckpoints": (2000, 2000)}
    for param, (current, dflt) in params.items():
        default.add_metric([param], dflt)
        for node in running:
            node_value = inconsistent.get(param, {}).get(node, current)
            value.add_metric([str(node), param], node_value)
    for param in inconsistent:
        bad.add_metric([param], 1)
    return [
        value,
        default,
        bad,
        gauge("ndb_config_inconsistent_params", value=len(inconsistent)),
    ]


def later(result: Result, seconds: float, **counters: float) -> Result:
    """The same cluster ``seconds`` later with some counters raised."""
    families = []
    for family in result.families:
        name = family.name + "_total" if family.type == "counter" else family.name
        if name in counters:
            family = counter(family.name, counters[name])
        families.append(family)
    return replace(result, families=families, finished_at=result.finished_at + seconds)


def placement_rows(
    *, stopped: tuple[int, ...] = (), tables: int = 3, dbs: tuple[str, ...] = ("app",)
) -> list[dict[str, Any]]:
    """Rows of the placement query (a row per table and data node) over ``replica_rows``."""
    shares: dict[tuple[int, int], dict[str, Any]] = {}
    for row in replica_rows(stopped=stopped, tables=tables, dbs=dbs):
        node = row["replica_node_id"]
        share = shares.setdefault(
            (row["table_id"], node),
            {
                "table_id": row["table_id"],
                "node_id": node,
                "primaries": 0,
                "backups": 0,
                "dead": 0,
                "lcp_ongoing": 0,
                "group_peer": row["preferred_primary"],
                "fq_name": row["fq_name"],
                "read_backup": row["read_backup"],
                "fully_replicated": row["fully_replicated"],
            },
        )
        alive = bool(row["is_replica_alive"])
        share["primaries"] += alive and node == row["current_primary"]
        share["backups"] += alive and node != row["current_primary"]
        share["dead"] += not alive
        share["lcp_ongoing"] += row["is_lcp_ongoing"]
        share["group_peer"] = min(share["group_peer"], row["preferred_primary"])
    return list(shares.values())


def replica_rows(
    *, stopped: tuple[int, ...] = (), tables: int = 3, dbs: tuple[str, ...] = ("app",)
) -> list[dict[str, Any]]:
    """A row per replica (the fragment query's): 4 fragments per table, two node groups,
    NoOfReplicas=2."""
    rows = []
    table_id = 10
    for db in dbs:
        for t in range(tables):
            table_id += 1
            for fragment in range(4):
                group = (1, 2) if fragment % 2 == 0 else (3, 4)
                preferred = group[(fragment // 2) % 2]
                other = group[1 - (fragment // 2) % 2]
                primary = other if preferred in stopped else preferred
                for node in group:
                    rows.append(
                        {
                            "table_id": table_id,
                            "fragment_id": fragment,
                            "current_primary": primary,
                            "preferred_primary": preferred,
                            "replica_node_id": node,
                            "is_replica_alive": 0 if node in stopped else 1,
                            "is_lcp_ongoing": 0,
                            "fq_name": f"{db}/def/t{t}",
                            "read_backup": 0 if t == 0 else 1,
                            "fully_replicated": 0,
                        }
                    )
    return rows


def arbitration(result: Result, arbitrator: int) -> Result:
    """``result`` with ndbinfo.membership's arbitration columns for data nodes 1-4."""
    node = GaugeMetricFamily("ndb_arbitrator_node_id", "t", labels=["node_id"])
    connected = GaugeMetricFamily("ndb_arbitrator_connected", "t", labels=["node_id"])
    state = GaugeMetricFamily("ndb_arbitration_state", "t", labels=["node_id", "state"])
    for data_node in ("1", "2", "3", "4"):
        node.add_metric([data_node], arbitrator)
        connected.add_metric([data_node], 1 if arbitrator else 0)
        for name in ("ARBIT_NULL", "ARBIT_RUN"):
            running = (name == "ARBIT_RUN") == bool(arbitrator)
            state.add_metric([data_node, name], 1 if running else 0)
    return replace(result, families=[*result.families, node, connected, state])


def links(result: Result, overloaded: set[tuple[str, str]], overloads: float) -> Result:
    """``result`` with two transporters, 1 → 2 and 2 → 1."""
    now = GaugeMetricFamily(
        "ndb_transporter_link_overloaded", "t", labels=["node_id", "remote_node_id"]
    )
    total = CounterMetricFamily(
        "ndb_transporter_link_overloads", "t", labels=["node_id", "remote_node_id"]
    )
    for key in (("1", "2"), ("2", "1")):
        now.add_metric(list(key), 1 if key in overloaded else 0)
        total.add_metric(list(key), overloads)
    return replace(result, families=[*result.families, now, total])


@dataclass(frozen=True)
class Channel:
    """One row of SHOW REPLICA STATUS, as the replica_status collector exports it, and the
    channel's applier as applier_workers does: ``workers`` (worker id, state, last error)."""

    name: str = ""
    io: str = "yes"
    sql: str = "yes"
    io_error: int = 0
    sql_error: int = 0
    behind: float | None = 0.0
    source_server_id: int = 1
    relay_log_space: int | None = None
    retries: int | None = None
    workers: tuple[tuple[int, str, int], ...] = ()


REPLICATION_COLLECTORS = ("replica_status", "applier_workers", "apply_status", "binlog")


def replication(
    result: Result,
    channels: tuple[Channel, ...] = (),
    applied: dict[int, int] | None = None,
    binlog: dict[str, int] | None = None,
    server_id: int | str = 1,
    read: tuple[str, ...] = REPLICATION_COLLECTORS,
) -> Result:
    """``result`` with the families of the replication collectors: ``channels`` of
    replica_status, ``applied`` GCIs per source server_id of apply_status, ``binlog`` GCIs
    (buffered, received, handled, written) of this SQL node's injector; ``read`` names the
    collectors that succeeded in the scrape."""
    families: list[Metric] = []
    for channel in channels:
        # The default channel '' carries no channel label, as the collector exports it.
        labels = {"channel": channel.name} if channel.name else {}
        for name, states, current in (
            ("ndb_replica_io_thread_state", ("yes", "connecting", "no"), channel.io),
            ("ndb_replica_sql_thread_state", ("yes", "no"), channel.sql),
        ):
            families += [
                gauge(name, {**labels, "state": state}, 1 if state == current else 0)
                for state in states
            ]
        values = {
            "ndb_replica_last_io_error_number": channel.io_error,
            "ndb_replica_last_sql_error_number": channel.sql_error,
            "ndb_replica_seconds_behind_source": channel.behind,
            "ndb_replica_source_server_id": channel.source_server_id,
            "ndb_replica_relay_log_space_bytes": channel.relay_log_space,
        }
        families += [
            gauge(name, labels, value) for name, value in values.items() if value is not None
        ]
        families += _applier(labels, channel)
    for source, gci in (applied or {}).items():
        families.append(gauge("ndb_replica_applied_gci", {"server_id": str(source)}, gci))
    for step, gci in (binlog or {}).items():
        families.append(gauge(f"ndb_binlog_{step}_gci", {"server_id": str(server_id)}, gci))
    families += [gauge("ndb_exporter_collector_success", {"collector": name}) for name in read]
    return replace(result, families=[*result.families, *families])


def _applier(labels: dict[str, str], channel: Channel) -> list[Metric]:
    """The families applier_workers exports for the channel."""
    families: list[Metric] = []
    for worker, current, error in channel.workers:
        at = {**labels, "worker": str(worker)}
        families += [
            gauge(
                "ndb_replica_applier_worker_state",
                {**at, "state": state},
                1.0 if state == current else 0.0,
            )
            for state in ("on", "off")
        ]
        families.append(gauge("ndb_replica_applier_worker_last_error_number", at, error))
    if channel.retries is not None:
        families.append(counter("ndb_replica_transaction_retries", channel.retries, labels))
    return families


def view_of(result: Result, previous: Result | None = None, groups=None):
    """The cluster view of ``result`` (and the scrape before it), as the view source builds it."""
    before = Samples(previous.families) if previous is not None else None
    return cluster_view(result, Samples(result.families), before, previous, groups or {})


def config_of(result: Result):
    return config_view(result, Samples(result.families))
