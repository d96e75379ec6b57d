"""Cluster overview: is the cluster whole, redundant, checkpointing and busy?

The first screen answers "is the cluster healthy, and if not, where?": one cluster status,
the firing alerts, a stat per failure the alerts page on (each coloured at its alert's
threshold), and the fullest data nodes, each bar a link to that node on the Data nodes
dashboard.
"""

from __future__ import annotations

from .alerts import threshold
from .common import (
    NEUTRAL,
    RATE,
    ZERO_IS_GOOD,
    ZERO_IS_GOOD_WARNING,
    PanelSpec,
    alert_list_panel,
    alert_steps,
    bargauge_panel,
    bottom,
    committed_gci,
    data_node_link,
    heatmap_panel,
    per_node,
    q,
    rate,
    sel,
    stat_panel,
    thresholds,
    timeseries_panel,
    top,
    value_text,
)
from .layout import Board, Layout

UID = "ndb-overview"

# The cluster's verdict, recorded from the firing alerts (provisioning/prometheus/rules/
# ndb-verdict.yml): the codes of its states, with their text and colour.
STATUS = "cluster:ndb_status:min"
STATUS_TEXT = value_text(
    {
        0: ("NO DATA", "text"),
        1: ("DOWN", "dark-red"),
        2: ("NO REDUNDANCY", "red"),
        3: ("CRITICAL", "red"),
        4: ("DEGRADED", "orange"),
        5: ("HEALTHY", "green"),
    }
)
STATUS_STEPS = thresholds((None, "text"), (1, "dark-red"), (2, "red"), (4, "orange"), (5, "green"))
SQL_NODES_GONE = "cluster:ndb_sql_nodes_gone:count"
ARBITRATION_TEXT = value_text({1: ("ready", "green"), 0: ("not ready", "orange")})


STARTED = 'state="STARTED"'
NOT_SPARE = 'nodegroup!="65536"'  # data nodes without a node group yet


def _replicas() -> str:
    return "max(" + sel("ndb_config_value", 'param="NoOfReplicas"') + ")"


def _started() -> str:
    return "max by (node_id) (" + sel("ndb_data_node_status", STARTED) + ")"


def _configured(node_type: str) -> str:
    return "max by (node_id) (" + sel("ndb_node_configured", f'node_type="{node_type}"') + ")"


def _connected(node_type: str) -> str:
    return "max by (node_id) (" + sel("ndb_node_connected", f'node_type="{node_type}"') + ")"


def _of_configured(missing: str, node_type: str) -> str:
    """``missing`` (a number) labelled with how many ``node_type`` nodes are configured, for a
    legend "of N configured"."""
    count = f'count_values("configured", count({_configured(node_type)}))'
    return f"({missing}) + on () group_left (configured) ({count} * 0)"


def _lcp_age() -> str:
    """GCIs the cluster committed since the GCI up to which the last LCP made data durable,
    while the cluster writes (NdbLcpStalled's guard: an idle cluster runs no LCP, and the
    committed GCI, read from the SQL nodes' last commit, stands still)."""
    lcp = f"max by (cluster) ({sel('ndb_lcp_completed_gci')})"
    commits = f"rate({sel('ndb_sql_api_transactions_committed_total', per_cluster=True)}[{RATE}])"
    writes = rate("ndb_block_events_total", 'counter="WRITES"')
    writing = f"(sum({commits}) > 0 or sum({writes}) > 0)"
    return f"max({committed_gci()} - on (cluster) {lcp}) and on () {writing}"


def _inactive() -> str:
    """The data nodes the configuration has not active (RonDB's NodeActive=0, from the
    management server): kept out of the cluster on purpose, never counted as missing."""
    return f"max by (node_id, nodegroup) ({sel('ndb_mgmd_data_node_active')}) == 0"


def _running_by_group() -> str:
    return f"max by (nodegroup) ({sel('ndb_nodegroup_running_data_nodes', NOT_SPARE)})"


def _present_by_group() -> str:
    """Each node group's data nodes running or not active: below NoOfReplicas an active one
    is missing, as NdbNodeGroupDegraded judges it."""
    running = _running_by_group()
    return f"({running} + on (nodegroup) count by (nodegroup) ({_inactive()})) or {running}"


def _node_group_state() -> str:
    """2 while every node group runs all its (active) replicas, 1 when one runs short, 0 when
    one has none left (the cluster is down)."""
    fewest, running = f"min({_present_by_group()})", f"min({_running_by_group()})"
    return f"({running} > bool 0) + ({fewest} >= bool {_replicas()})"


def _gcis_per_minute() -> str:
    """GCIs completed in the last minute, read where NdbGlobalCheckpointStalled reads the
    GCI: the management server's GlobalCheckpointCompleted while an exporter's subscription
    is up, else the newest epoch the SQL nodes' event buffers received. Not the epoch of the
    SQL nodes' commits: micro GCPs raise it while GCP_SAVE holds the GCI."""
    gci = sel("ndb_mgmd_global_checkpoint_gci")
    subscribed = f"({sel('ndb_mgmd_subscription_up')} == 1)"
    mgmd = f"max({gci} - {gci} offset 1m and on (cluster, instance, job) {subscribed})"
    buffered = sel("ndb_binlog_buffered_gci", per_cluster=True)
    return f"{mgmd} or (max({buffered}) - max({buffered} offset 1m))"


def _arbitration() -> str:
    """1 when a data node knows an arbitrator, one is connected to it and the president runs
    arbitration (ARBIT_RUN), else 0: NdbNoArbitrator fires on the maximum over the data
    nodes of each."""
    known = f"(max({sel('ndb_arbitrator_node_id')}) > bool 0)"
    connected = f"max({sel('ndb_arbitrator_connected')})"
    running = "max(" + sel("ndb_arbitration_state", 'state="ARBIT_RUN"') + ")"
    return f"({known} * {connected} * {running})"


def _short_node_groups(left: str) -> str:
    """Node groups running fewer data nodes than NoOfReplicas with ``left`` (a comparison)
    of them running, as NdbNodeGroupDegraded's two severities split them."""
    short = f"({_present_by_group()} < on () group_left () {_replicas()})"
    return f"count(({_running_by_group()} {left}) and on (nodegroup) {short}) or vector(0)"


LAST_REPLICA = "on their last data node"
SQL_NODES_DOWN = "SQL nodes not answering"


def _status_stats() -> tuple[PanelSpec, ...]:
    inactive = f"(count({_inactive()}) or vector(0))"
    not_started = f"count({_configured('NDB')}) - {inactive} - (sum({_started()}) or vector(0))"
    mgm_missing = f"count({_configured('MGM')}) - (sum({_connected('MGM')}) or vector(0))"
    exporters = sel("up", 'job=~".*ndb.*"')
    sql_nodes = sel("ndb_up", per_cluster=True)
    return (
        stat_panel(
            "Data nodes not started",
            "Configured data nodes that are not STARTED (down, starting or stopping), of the "
            "data nodes in the configuration; RonDB's data nodes that are not active "
            "(NodeActive=0) are kept out on purpose and not counted. One is enough to leave its node group without "
            "a replica (NdbDataNodeDown); the Data nodes dashboard shows which.",
            "none",
            q(_of_configured(not_started, "NDB"), "of {{configured}} configured", instant=True),
            steps=ZERO_IS_GOOD_WARNING,
            named=True,
            width=3,
        ),
        stat_panel(
            "Node groups short of replicas",
            "Node groups running fewer data nodes than NoOfReplicas (ndbinfo.membership), as "
            "NdbNodeGroupDegraded judges them: in red those on their last data node (critical: "
            "their data has no second copy, and one more failure there shuts the cluster "
            "down), in orange those with more left (warning, with three or four replicas).",
            "none",
            q(_short_node_groups("== 1"), LAST_REPLICA, instant=True),
            q(_short_node_groups("> 1"), "with more left", instant=True),
            steps=ZERO_IS_GOOD_WARNING,
            field_steps=[(LAST_REPLICA, ZERO_IS_GOOD)],
            named=True,
            width=3,
        ),
        stat_panel(
            "Global checkpoints per minute",
            "GCIs completed in the last minute, read as NdbGlobalCheckpointStalled reads them: "
            "the management server's GlobalCheckpointCompleted, or without one the newest "
            "epoch the SQL nodes' event buffers received. About 30 at the default "
            "TimeBetweenGlobalCheckpoints of 2 s; 0 means GCP_SAVE holds the global checkpoint "
            "(a GCP stop) and the alert fires after 30 s more. 'not read' when no exporter "
            "reads a management server and no SQL node runs a binlog thread.",
            "none",
            q(_gcis_per_minute(), instant=True),
            steps=thresholds((None, "red"), (1, "green")),
            no_value="not read",
            width=3,
        ),
        stat_panel(
            "LCP age",
            "GCIs committed since the GCI up to which the last local checkpoint made the "
            "data durable: the newest GCI committed in the cluster (largest over its SQL "
            "nodes) minus ndb_lcp_completed_gci, while the cluster writes ('idle' otherwise: "
            "no LCP runs then, and the committed GCI stands still). It grows while an LCP "
            "runs and drops when one completes; NdbLcpStalled fires above "
            f"{threshold('NdbLcpStalled'):g} GCIs for 5 minutes, when the redo log is no "
            "longer being freed.",
            "suffix: GCI",
            q(_lcp_age(), instant=True),
            steps=alert_steps(critical=threshold("NdbLcpStalled")),
            no_value="idle",
            width=3,
        ),
        stat_panel(
            "Arbitrator",
            "Whether the cluster can survive a network split: a data node knows an "
            "arbitrator (a management or API node), one is connected to it, and the "
            "president runs arbitration (ARBIT_RUN, ndbinfo.membership). NdbNoArbitrator "
            "fires when no data node does: a split that leaves no node group wholly on one "
            "side then shuts the cluster down.",
            "none",
            q(_arbitration(), instant=True),
            steps=thresholds((None, "orange"), (1, "green")),
            mappings=ARBITRATION_TEXT,
            width=3,
        ),
        stat_panel(
            "Management nodes not connected",
            "Configured management server slots with no process connected, of the ones "
            "configured. Data and SQL nodes run on without one, but restarts, configuration "
            "fetches and the cluster log need one, and it is often the arbitrator "
            "(NdbManagementNodeDown).",
            "none",
            q(_of_configured(mgm_missing, "MGM"), "of {{configured}} configured", instant=True),
            steps=ZERO_IS_GOOD_WARNING,
            named=True,
            width=3,
        ),
        stat_panel(
            "SQL nodes gone away",
            "SQL nodes (mysqld) connected to the cluster within the last day that have not "
            "been for 2 minutes: the SQL nodes NdbSqlNodeGone fires for. NDB API tools that "
            "come and go (ndb_restore, ndb_mgm) and spare [api] slots are left out.",
            "none",
            q(f"{sel(SQL_NODES_GONE)} or vector(0)", instant=True),
            steps=ZERO_IS_GOOD_WARNING,
            width=3,
        ),
        stat_panel(
            "SQL nodes and exporters",
            "In orange the exporters Prometheus cannot scrape (up 0 in every job: "
            "NdbExporterDown), in red the SQL nodes whose exporter answers but cannot query "
            "them (ndb_up 0: NdbSqlNodeUnreachable). The cluster is still read through the "
            "others; those SQL nodes' own counters are missing.",
            "none",
            q(
                f"count(min by (instance) ({exporters}) == 0) or vector(0)",
                "exporters down",
                instant=True,
            ),
            q(
                f"count(min by (instance) ({sql_nodes}) == 0) or vector(0)",
                SQL_NODES_DOWN,
                instant=True,
            ),
            steps=ZERO_IS_GOOD_WARNING,
            field_steps=[(SQL_NODES_DOWN, ZERO_IS_GOOD)],
            named=True,
            width=3,
        ),
    )


def _status_row(layout: Layout) -> None:
    layout.row(
        "Cluster status",
        stat_panel(
            "Cluster status",
            "The verdict of the alerts (recording rule cluster:ndb_status:min): NO DATA when no "
            "exporter of the cluster reads it (no SQL node answers); DOWN when every SQL node "
            "that answers sees no ready data node (NdbClusterDown); NO REDUNDANCY when a node "
            "group runs on its last data node (NdbNodeGroupDegraded, critical); CRITICAL "
            "while another critical NDB alert fires; DEGRADED while a warning fires (a data, "
            "SQL, API or management node lost, no arbitrator, ...); HEALTHY otherwise. The "
            "firing alerts beside it say why.",
            "none",
            q(f"min({sel(STATUS)}) or vector(0)", instant=True),
            steps=STATUS_STEPS,
            mappings=STATUS_TEXT,
            width=6,
            height=8,
        ),
        alert_list_panel(
            "Firing alerts",
            "Firing and pending alerts of the NDB alert rules whose labels match the selected "
            "cluster. Read the alert's description for the runbook.",
            '{cluster=~"$cluster"}',
            width=18,
        ),
        *_status_stats(),
    )


def _fullest_row(layout: Layout) -> None:
    used = sel("ndb_memory_used_bytes", 'memory_type="Data memory"')
    total = sel("ndb_memory_total_bytes", 'memory_type="Data memory"')
    redo_used = sel("ndb_log_space_used_bytes", 'log_type="REDO"')
    redo_total = sel("ndb_log_space_total_bytes", 'log_type="REDO"')
    layout.row(
        "Fullest data nodes",
        bargauge_panel(
            "DataMemory used (fullest nodes)",
            "Share of DataMemory in use on the fullest data nodes; click a bar for that node. "
            "Inserts fail with 'table is full' when it runs out; since NDB 7.6 it also holds "
            "primary-key hash indexes. NdbDataMemoryHigh warns above "
            f"{threshold('NdbDataMemoryHigh'):.0%}, NdbDataMemoryCritical above "
            f"{threshold('NdbDataMemoryCritical'):.0%}.",
            "percentunit",
            q(
                top(f"max by (node_id) ({used}) / max by (node_id) ({total})"),
                "node {{node_id}}",
                instant=True,
            ),
            steps=alert_steps(threshold("NdbDataMemoryHigh"), threshold("NdbDataMemoryCritical")),
            max_value=1,
            links=[data_node_link()],
        ),
        bargauge_panel(
            "Redo log used (fullest nodes)",
            "Share of the redo log in use in the fullest log part of the fullest data nodes; "
            "click a bar for that node. The redo log is freed when a local checkpoint "
            "completes; when it fills, writes abort with 'out of redo log' errors. "
            f"NdbRedoLogSpaceHigh warns above {threshold('NdbRedoLogSpaceHigh'):.0%}, "
            f"NdbRedoLogSpaceCritical above {threshold('NdbRedoLogSpaceCritical'):.0%}.",
            "percentunit",
            q(
                top(f"max by (node_id) ({redo_used} / ({redo_total} > 0))"),
                "node {{node_id}}",
                instant=True,
            ),
            steps=alert_steps(
                threshold("NdbRedoLogSpaceHigh"), threshold("NdbRedoLogSpaceCritical")
            ),
            max_value=1,
            links=[data_node_link()],
        ),
    )


def _nodes_row(layout: Layout) -> None:
    status = sel("ndb_data_node_status")
    configured = _configured("NDB")
    not_running = (
        f"count({configured} unless on (node_id) max by (node_id) ({status})"
        f" unless on (node_id) {_inactive()}) or vector(0)"
    )
    running = sel("ndb_nodegroup_running_data_nodes", NOT_SPARE)
    replicas = _replicas()
    dead = sel("ndb_replicas", 'state="dead"')
    layout.row(
        "Data nodes and node groups",
        timeseries_panel(
            "Data nodes by state",
            "Data nodes in each start state over time (ndbinfo.nodes), and configured data "
            "nodes with no running process ('not running', from config_nodes). Any band other "
            "than STARTED is a node restarting, stopping or down; the Data nodes dashboard "
            "names them.",
            "none",
            q(f"count by (state) (max by (node_id, state) ({status}) == 1)", "{{state}}"),
            q(not_running, "not running"),
            stack=True,
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Node groups short of replicas",
            "Node groups running fewer data nodes than NoOfReplicas over time "
            "(ndbinfo.membership; RonDB's data nodes that are not active count as present), beside the fewest data nodes any node group runs. A node "
            "group with one data node left has no redundancy; with none the cluster is down.",
            "none",
            q(
                f"count({_present_by_group()} < on () group_left () {replicas}) or vector(0)",
                "node groups short of replicas",
            ),
            q(f"min(max by (nodegroup) ({running}))", "fewest data nodes in a node group"),
            q(replicas, "NoOfReplicas"),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Dead replicas (most affected nodes)",
            "Fragment replicas the distribution information marks dead, on the data nodes "
            "with the most. They stay dead from a node's failure until it has copied the data "
            "back during its restart (NdbDeadFragmentReplicas).",
            "none",
            per_node(dead),
            min_value=0,
            width=8,
            links=[data_node_link()],
        ),
    )


def _checkpoint_row(layout: Layout) -> None:
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
            "Global checkpoints since the last completed LCP, for the cluster: the newest GCI "
            "committed in it (the largest Ndb_last_commit_epoch_server / 2^32 over its SQL "
            "nodes) minus the GCI at which the last LCP completed. About 2 s per GCI by "
            "default (TimeBetweenGlobalCheckpoints). It grows while an LCP runs and drops "
            f"when one completes; NdbLcpStalled fires above {threshold('NdbLcpStalled'):g}.",
            "suffix: GCI",
            q(_lcp_age(), "LCP age"),
            min_value=0,
            threshold_line=alert_steps(critical=threshold("NdbLcpStalled")),
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
            steps=NEUTRAL,
            width=4,
            height=8,
        ),
        stat_panel(
            "Rows read locally",
            "Share of rows the SQL nodes read that came from the data node that was the "
            "transaction's coordinator (Ndb_api_trans_local_read_row_count): no extra hop between "
            "data nodes. Distribution-aware transactions raise it: start the transaction with "
            "a hint on the distribution key, so that NDB picks the coordinator that holds the "
            "rows; READ_BACKUP or fully replicated tables let any replica answer.",
            "percentunit",
            q(f"sum({local_rows}) / (sum({rows}) > 0)", instant=True),
            steps=NEUTRAL,
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
    slowest = q(f"max(histogram_quantile(0.99, {key}))", "p99 of the slowest data node")
    layout.row(
        "Latency",
        timeseries_panel(
            "Key operation latency",
            "Quantiles of the time primary and unique key reads and writes take in the data "
            "nodes, as their transaction coordinators measure it (tc_time_track_stats), over "
            "all data nodes, and the p99 of the slowest data node. A healthy in-memory cluster "
            "stays well below a millisecond; NdbOperationLatencyHigh fires for a data node "
            "whose own p99 stays above "
            f"{threshold('NdbOperationLatencyHigh') * 1000:g} ms: the line is for the slowest "
            "node's p99, which the cluster-wide quantiles can hide.",
            "s",
            *quantiles,
            slowest,
            min_value=0,
            width=8,
            threshold_line=alert_steps(threshold("NdbOperationLatencyHigh")),
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
    warning = threshold("NdbTlsCertificateExpiring", "warning")
    critical = threshold("NdbTlsCertificateExpiring", "critical")
    layout.row(
        "TLS certificates",
        bargauge_panel(
            "Time until each node's TLS certificate expires",
            "From ndbinfo.certificates (NDB 8.3+), to the start of the expiry day. Renew a "
            "certificate with ndb_sign_keys well before it expires: with RequireTls a node "
            "whose certificate has expired cannot reconnect. NdbTlsCertificateExpiring warns "
            f"at {warning / 86400:g} days and is critical at {critical / 86400:g}. The "
            "certificates that expire first are shown.",
            "s",
            q(
                bottom(f"min by (node_id) ({expiry}) - time()"),
                "node {{node_id}}",
                instant=True,
            ),
            steps=alert_steps(warning, critical, below=True),
            width=24,
        ),
    )


def board() -> Board:
    layout = Layout(
        UID,
        "NDB Cluster / Overview",
        "Health of an NDB Cluster at a glance: nodes, redundancy, memory, checkpoints and load.",
    )
    _status_row(layout)
    _fullest_row(layout)
    _nodes_row(layout)
    _checkpoint_row(layout)
    _latency_row(layout)
    _operations_row(layout)
    _tls_row(layout)
    return layout.build()
