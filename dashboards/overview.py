"""Cluster overview: is the cluster whole, redundant, checkpointing and busy?"""

from __future__ import annotations

from .common import (
    EPOCH_PER_GCI,
    USAGE,
    ZERO_IS_GOOD,
    Board,
    Layout,
    PanelSpec,
    alert_list_panel,
    bargauge_panel,
    data_node_state_panel,
    heatmap_panel,
    per_node,
    q,
    rate,
    sel,
    stat_panel,
    state_timeline_panel,
    thresholds,
    timeseries_panel,
    value_text,
)

UID = "ndb-overview"

CONNECTED_TEXT = value_text({1: ("connected", "green"), 0: ("not connected", "red")})


def _node_count_stat(title: str, node_type: str, description: str) -> PanelSpec:
    connected = sel("ndb_node_connected", f'node_type="{node_type}"')
    configured = sel("ndb_node_configured", f'node_type="{node_type}"')
    return stat_panel(
        title,
        description,
        "none",
        q(f"sum(max by (node_id) ({connected}))", "connected", instant=True),
        q(f"count(max by (node_id) ({configured}))", "configured", instant=True),
    )


def _nodes_row(layout: Layout) -> None:
    started = sel("ndb_data_node_status", 'state="STARTED"')
    configured = sel("ndb_node_configured", 'node_type="NDB"')
    layout.row(
        "Nodes",
        stat_panel(
            "Data nodes started",
            "Data nodes in state STARTED against the data nodes in the configuration. Fewer "
            "started than configured means a node group is running without its full set of "
            "replicas; one more failure in that node group shuts the cluster down.",
            "none",
            q(f"sum(max by (node_id) ({started}))", "started", instant=True),
            q(f"count(max by (node_id) ({configured}))", "configured", instant=True),
        ),
        _node_count_stat(
            "Management nodes connected",
            "MGM",
            "Management server slots with a connected process. Data and SQL nodes keep running "
            "without a management node, but restarts, configuration fetches and cluster logs "
            "need one, and it is often the arbitrator.",
        ),
        _node_count_stat(
            "API and SQL slots connected",
            "API",
            "[mysqld] and [api] slots with a connected process. Free slots are normal (spare "
            "slots for connection pools and tools); a drop in connected slots means SQL nodes "
            "or NDB API applications lost the cluster.",
        ),
        stat_panel(
            "SQL nodes answering",
            "Exporters whose SQL node answered the last scrape (ndb_up) against all exporters "
            "of this cluster. An SQL node that does not answer hides its own counters, not the "
            "cluster's: ndbinfo is still read through the others.",
            "none",
            q(f"sum(max by (instance) ({sel('ndb_up')}))", "answering", instant=True),
            q(f"count(max by (instance) ({sel('ndb_up')}))", "exporters", instant=True),
        ),
        stat_panel(
            "Fragments with dead replicas",
            "Table fragments that have at least one replica on a node that is down. Nonzero "
            "while a data node is stopped or restarting; the data is still served by the "
            "surviving replica but is not redundant until the node has restarted.",
            "none",
            q(f"max({sel('ndb_fragments_with_dead_replicas')})", instant=True),
            steps=ZERO_IS_GOOD,
        ),
        stat_panel(
            "Crashed replicas",
            "Replicas recorded as crashed in the distribution information (table_replicas). "
            "They are rebuilt from a live replica when their node restarts.",
            "none",
            q(f"sum(max by (node_id) ({sel('ndb_replicas_crashed')}))", instant=True),
            steps=ZERO_IS_GOOD,
        ),
        state_timeline_panel(
            "Node connections",
            "Every configured node (management, data, API/SQL) and whether a process is "
            "connected in its slot (ndbinfo.processes joined with config_nodes). Red rows for "
            "data or management nodes need attention; red API rows are often idle spare slots.",
            q(
                f"max by (node_type, node_id) ({sel('ndb_node_connected')})",
                "{{node_type}} {{node_id}}",
            ),
            mappings=CONNECTED_TEXT,
        ),
        data_node_state_panel(),
    )


def _redundancy_row(layout: Layout) -> None:
    running = sel("ndb_nodegroup_running_data_nodes")
    replicas = sel("ndb_config_value", 'param="NoOfReplicas"')
    dead = sel("ndb_replicas", 'state="dead"')
    layout.row(
        "Node groups and redundancy",
        bargauge_panel(
            "Node group redundancy",
            "Running data nodes of each node group divided by NoOfReplicas (1 = every replica "
            "up). Below 1 the node group has lost a replica; if it reaches 0 the cluster shuts "
            "down. Needs the membership and config collectors.",
            "percentunit",
            q(
                f"max by (nodegroup) ({running}) / on () group_left () max({replicas})",
                "node group {{nodegroup}}",
                instant=True,
            ),
            steps=thresholds((None, "red"), (0.01, "orange"), (1, "green")),
            max_value=1,
        ),
        timeseries_panel(
            "Running data nodes per node group",
            "Running data nodes per node group over time (ndbinfo.membership). Dips show node "
            "failures and restarts; compare with NoOfReplicas.",
            "none",
            q(f"max by (nodegroup) ({running})", "node group {{nodegroup}}"),
            q(f"max({replicas})", "NoOfReplicas"),
            min_value=0,
        ),
        timeseries_panel(
            "Dead replicas by node",
            "Fragment replicas on each node that the distribution information marks dead. "
            "They stay dead from a node's failure until it has copied the data back during "
            "its restart.",
            "none",
            per_node(dead),
            min_value=0,
        ),
        alert_list_panel(
            "Firing alerts",
            "Firing and pending alerts of the NDB alert rules whose labels match the selected "
            "cluster. Read the alert's description for the runbook.",
            '{cluster="$cluster"}',
        ),
    )


def _memory_row(layout: Layout) -> None:
    used = sel("ndb_memory_used_bytes", 'memory_type="Data memory"')
    total = sel("ndb_memory_total_bytes", 'memory_type="Data memory"')
    redo_used = sel("ndb_log_space_used_bytes", 'log_type="REDO"')
    redo_total = sel("ndb_log_space_total_bytes", 'log_type="REDO"')
    layout.row(
        "Memory and redo log",
        bargauge_panel(
            "DataMemory used",
            "Share of DataMemory in use on each data node. Inserts fail with 'table is full' "
            "when it runs out; since NDB 7.6 it also holds primary-key hash indexes. Plan more "
            "memory or more node groups well before 80 %.",
            "percentunit",
            q(f"max by (node_id) ({used}) / max by (node_id) ({total})", "node {{node_id}}"),
            steps=USAGE,
            max_value=1,
        ),
        bargauge_panel(
            "Redo log used (fullest log part)",
            "Share of the redo log in use, for the fullest log part of each data node. The "
            "redo log is freed when a local checkpoint completes; when it fills, writes abort "
            "with 'out of redo log' errors. A steadily rising value points at a slow or stuck "
            "LCP.",
            "percentunit",
            q(
                f"max by (node_id) ({redo_used} / ({redo_total} > 0))",
                "node {{node_id}}",
            ),
            steps=USAGE,
            max_value=1,
        ),
    )


def _checkpoint_row(layout: Layout) -> None:
    epoch = sel("ndb_sql_last_commit_epoch")
    lcp_gci = sel("ndb_lcp_completed_gci")
    layout.row(
        "Checkpoints",
        timeseries_panel(
            "Last completed LCP id",
            "Id of the newest completed local checkpoint (table_replicas). It should step up "
            "regularly; a flat line while the cluster takes writes means local checkpoints "
            "have stalled, and the redo log will fill.",
            "none",
            q(f"max({sel('ndb_lcp_id')})", "LCP id"),
        ),
        timeseries_panel(
            "LCP age in global checkpoints",
            "Global checkpoints since the last completed LCP: the newest GCI the SQL node saw "
            "committed (epoch / 2^32) minus the GCI at which the last LCP completed. Measured "
            "in cluster time, about 2 s per GCI by default (TimeBetweenGlobalCheckpoints). It "
            "grows while an LCP runs and drops when one completes; steady growth is an LCP "
            "stall. It only advances while the SQL node sees commits.",
            "suffix: GCI",
            q(
                f"floor({epoch} / {EPOCH_PER_GCI}) - on (cluster, instance) max by (cluster, instance) ({lcp_gci})",
                "{{instance}}",
            ),
            min_value=0,
        ),
    )


def _operations_row(layout: Layout) -> None:
    tc = rate(
        "ndb_block_events_total",
        'block="DBTC"',
        'counter=~"READS|SIMPLE_READS|WRITES|COMMITS|ABORTS|TABLE_SCANS|RANGE_SCANS"',
    )
    round_trips = rate("ndb_sql_api_round_trips_total")
    commits = rate("ndb_sql_api_transactions_committed_total")
    pruned = rate("ndb_sql_api_pruned_scans_total")
    scans = rate("ndb_sql_api_scans_total")
    local_rows = rate("ndb_sql_api_local_read_rows_total")
    rows = rate("ndb_sql_api_read_rows_total")
    layout.row(
        "Load and SQL node efficiency",
        timeseries_panel(
            "Data node operations",
            "Operations handled by the transaction coordinators (DBTC counters) of all data "
            "nodes, per second. Reads, writes, commits, aborts and scans together show the "
            "load the cluster carries; a rise in aborts or table scans deserves a look.",
            "ops",
            q(
                f"sum by (counter) (max by (node_id, counter) ({tc}))",
                "{{counter}}",
            ),
            width=12,
        ),
        stat_panel(
            "Partition-pruned scans",
            "Share of scans that the SQL nodes sent to a single partition. Pruned scans touch "
            "one data node instead of all; raise it by making the distribution key part of "
            "the WHERE clause (PARTITION BY KEY on the column queries filter on).",
            "percentunit",
            q(f"sum({pruned}) / (sum({scans}) > 0)", instant=True),
            steps=thresholds((None, "orange"), (0.5, "green")),
            width=4,
            height=8,
        ),
        stat_panel(
            "Round trips per committed transaction",
            "Round trips from the SQL nodes to the data nodes for each committed transaction. "
            "Every round trip costs network latency; batch statements (multi-row INSERT, "
            "IN lists, transaction_allow_batching) and denormalise deep joins to lower it.",
            "none",
            q(f"sum({round_trips}) / (sum({commits}) > 0)", instant=True),
            width=4,
            height=8,
        ),
        stat_panel(
            "Rows read locally",
            "Share of rows the SQL nodes read from a data node on the same host. With "
            "READ_BACKUP tables (or fully replicated ones) reads can be served by the local "
            "replica instead of crossing the network to the primary.",
            "percentunit",
            q(f"sum({local_rows}) / (sum({rows}) > 0)", instant=True),
            width=4,
            height=8,
        ),
    )


def _tc_buckets(operation: str) -> str:
    """Bucket rates of a TC latency histogram, each data node once (every SQL node's exporter
    reports the same data nodes)."""
    buckets = rate("ndb_tc_operation_duration_seconds_bucket", f'operation="{operation}"')
    return f"max by (node_id, le) ({buckets})"


def _latency_row(layout: Layout) -> None:
    key = _tc_buckets("key")
    quantiles = [
        q(f"histogram_quantile({quantile}, sum by (le) ({key}))", f"p{label}")
        for quantile, label in ((0.5, "50"), (0.95, "95"), (0.99, "99"))
    ]
    layout.row(
        "Latency",
        timeseries_panel(
            "Key operation latency",
            "Quantiles of the time primary and unique key reads and writes take in the data "
            "nodes, as their transaction coordinators measure it (tc_time_track_stats), over "
            "all data nodes. A healthy in-memory cluster stays well below a millisecond; "
            "NdbOperationLatencyHigh fires when a node's p99 stays above 10 ms.",
            "s",
            *quantiles,
            min_value=0,
            width=8,
        ),
        heatmap_panel(
            "Key operation latency distribution",
            "How many key operations per second fell in each latency bucket over time: a "
            "second band or a shift upwards shows a part of the load getting slower.",
            q(f"sum by (le) ({key})", "{{le}}", heatmap=True),
            width=8,
        ),
        timeseries_panel(
            "Transaction and scan latency (p99)",
            "99th percentile of whole transactions (from start to commit, including the "
            "application's round trips) and of scans, over all data nodes.",
            "s",
            *(
                q(
                    f"histogram_quantile(0.99, sum by (le) ({_tc_buckets(operation)}))",
                    operation,
                )
                for operation in ("transaction", "scan")
            ),
            min_value=0,
            width=8,
        ),
    )


def _tls_row(layout: Layout) -> None:
    expiry = sel("ndb_tls_certificate_expiry_timestamp_seconds")
    layout.row(
        "TLS certificates",
        bargauge_panel(
            "Time until each node's TLS certificate expires",
            "From ndbinfo.certificates (NDB 8.3+), to the start of the expiry day. Renew a "
            "certificate with ndb_sign_keys well before it expires: with RequireTls a node "
            "whose certificate has expired cannot reconnect. NdbTlsCertificateExpiring warns "
            "at 14 days and is critical at 3.",
            "s",
            q(f"min by (node_id) ({expiry}) - time()", "node {{node_id}}", instant=True),
            steps=thresholds((None, "red"), (3 * 86400, "orange"), (14 * 86400, "green")),
            width=24,
        ),
    )


def board() -> Board:
    layout = Layout(
        UID,
        "NDB Cluster / Overview",
        "Health of an NDB Cluster at a glance: nodes, redundancy, memory, checkpoints and load.",
    )
    _nodes_row(layout)
    _redundancy_row(layout)
    _memory_row(layout)
    _checkpoint_row(layout)
    _latency_row(layout)
    _operations_row(layout)
    _tls_row(layout)
    return layout.build()
