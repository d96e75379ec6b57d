"""SQL node status: server-wide NDB API counters and cluster connection state.

Only the un-suffixed ``Ndb_api_*_count`` variables are server-wide. ``Ndb_execute_count``,
``Ndb_scan_count``, ``Ndb_pruned_scan_count``, ``Ndb_pushed_*`` and every ``*_session``
variable are read from the connection that runs SHOW STATUS, even under SHOW GLOBAL STATUS,
so they would only describe the exporter's own queries and are not exported.
"""

from __future__ import annotations

from collections.abc import Iterable

from .base import Collector, Context, Row, add_value, counter, gauge, number, text

PER_CONNECTION_NOTE = (
    " Ndb_execute_count, Ndb_scan_count, Ndb_pruned_scan_count and the *_session variables"
    " count only the exporter's own connection and are not exported."
)

COMMANDS = ("select", "insert", "update", "delete", "commit", "rollback")

# Conflict detection function per Ndb_conflict_fn_* suffix.
CONFLICT_FUNCTIONS = {
    "max": "NDB$MAX",
    "old": "NDB$OLD",
    "max_del_win": "NDB$MAX_DELETE_WIN",
    "max_ins": "NDB$MAX_INS",
    "max_del_win_ins": "NDB$MAX_DEL_WIN_INS",
    "epoch": "NDB$EPOCH",
    "epoch_trans": "NDB$EPOCH_TRANS",
    "epoch2": "NDB$EPOCH2",
    "epoch2_trans": "NDB$EPOCH2_TRANS",
}

# What the replica applier's conflict handling did (ndb_replica.cc update_global_state, the
# default channel): transactional detection (the *_TRANS functions), the NDB$EPOCH family's
# refresh and reflected operations, and the two epochs that tell whether an active-active
# pair has converged (the primary's last stable epoch reaching its last conflict epoch).
CONFLICT_HANDLING = (
    (
        counter(
            "ndb_sql_conflict_transactions_rejected_total",
            "Transactions the replica applier found in conflict under transactional conflict"
            " detection (*_TRANS functions) and rejected (Ndb_conflict_trans_reject_count).",
        ),
        "Ndb_conflict_trans_reject_count",
        1,
    ),
    (
        counter(
            "ndb_sql_conflict_detection_passes_total",
            "Passes of transaction dependency tracking over an epoch transaction with conflicts"
            " (Ndb_conflict_trans_detect_iter_count).",
        ),
        "Ndb_conflict_trans_detect_iter_count",
        1,
    ),
    (
        counter(
            "ndb_sql_conflict_epoch_transactions_total",
            "Epoch transactions committed after transactional conflict handling"
            " (Ndb_conflict_trans_conflict_commit_count).",
        ),
        "Ndb_conflict_trans_conflict_commit_count",
        1,
    ),
    (
        counter(
            "ndb_sql_conflict_delete_delete_total",
            "Delete-delete conflicts found by NDB$EPOCH functions: a row deleted on both sides"
            " (Ndb_conflict_epoch_delete_delete_count).",
        ),
        "Ndb_conflict_epoch_delete_delete_count",
        1,
    ),
    (
        counter(
            "ndb_sql_conflict_refresh_operations_total",
            "Refresh operations the NDB$EPOCH functions wrote to realign rows in conflict"
            " (Ndb_conflict_refresh_op_count).",
        ),
        "Ndb_conflict_refresh_op_count",
        1,
    ),
    (
        gauge(
            "ndb_sql_conflict_last_conflict_epoch",
            "Epoch of this SQL node's cluster in which the replica applier last found a"
            " conflict or applied reflected or refresh operations"
            " (Ndb_conflict_last_conflict_epoch); 0 for none.",
        ),
        "Ndb_conflict_last_conflict_epoch",
        1,
    ),
    (
        gauge(
            "ndb_sql_conflict_last_stable_epoch",
            "Newest epoch of this SQL node's cluster that came back round an active-active"
            " pair with no conflict found since it was logged (Ndb_conflict_last_stable_epoch):"
            " on the NDB$EPOCH primary, the conflicts are resolved on both sides once it"
            " reaches ndb_sql_conflict_last_conflict_epoch; 0 on a one-way replica.",
        ),
        "Ndb_conflict_last_stable_epoch",
        1,
    ),
)

# Unlabelled metrics: (spec, status variable, scale).
SIMPLE = (
    (
        gauge(
            "ndb_sql_cluster_node_id",
            "Node id of this SQL node in the cluster (0 before the first connect).",
        ),
        "Ndb_cluster_node_id",
        1,
    ),
    (
        gauge("ndb_sql_data_nodes_configured", "Data nodes in the cluster configuration."),
        "Ndb_number_of_data_nodes",
        1,
    ),
    (
        gauge("ndb_sql_data_nodes_ready", "Data nodes this SQL node sees connected and ready."),
        "Ndb_number_of_ready_data_nodes",
        1,
    ),
    (
        counter(
            "ndb_sql_cluster_connects_total",
            "Times this SQL node has (re)connected to the cluster.",
        ),
        "Ndb_connect_count",
        1,
    ),
    (
        gauge(
            "ndb_sql_config_generation",
            "Generation of the cluster configuration in use (NDB 8.0+).",
        ),
        "Ndb_config_generation",
        1,
    ),
    (
        gauge(
            "ndb_sql_last_commit_epoch",
            "Latest epoch committed as seen by this SQL node; GCI = floor(epoch / 2^32).",
        ),
        "Ndb_last_commit_epoch_server",
        1,
    ),
    (
        counter(
            "ndb_sql_api_round_trips_total",
            "Times a thread of this SQL node waited for an execute() round trip to the data nodes (all connections)."
            + PER_CONNECTION_NOTE,
        ),
        "Ndb_api_wait_exec_complete_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_scan_result_waits_total",
            "Times a thread of this SQL node waited for scan results (all connections).",
        ),
        "Ndb_api_wait_scan_result_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_meta_request_waits_total",
            "Times a thread of this SQL node waited for a dictionary request (all connections).",
        ),
        "Ndb_api_wait_meta_request_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_wait_seconds_total",
            "Time threads of this SQL node spent waiting for the data nodes (all connections).",
        ),
        "Ndb_api_wait_nanos_count",
        1e-9,
    ),
    (
        counter("ndb_sql_api_sent_bytes_total", "Bytes this SQL node sent to the data nodes."),
        "Ndb_api_bytes_sent_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_received_bytes_total", "Bytes this SQL node received from the data nodes."
        ),
        "Ndb_api_bytes_received_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_transactions_started_total", "NDB transactions started by this SQL node."
        ),
        "Ndb_api_trans_start_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_transactions_committed_total",
            "NDB transactions committed by this SQL node.",
        ),
        "Ndb_api_trans_commit_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_transactions_aborted_total", "NDB transactions aborted by this SQL node."
        ),
        "Ndb_api_trans_abort_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_transactions_closed_total",
            "NDB transactions closed by this SQL node (can exceed committed + aborted).",
        ),
        "Ndb_api_trans_close_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_pruned_scans_total",
            "Scans of this SQL node pruned to one partition (Ndb_api_pruned_scan_count, all connections)."
            + PER_CONNECTION_NOTE,
        ),
        "Ndb_api_pruned_scan_count",
        1,
    ),
    (
        counter("ndb_sql_api_scan_batches_total", "Scan result batches received by this SQL node."),
        "Ndb_api_scan_batch_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_read_rows_total", "Rows read by this SQL node (key operations and scans)."
        ),
        "Ndb_api_read_row_count",
        1,
    ),
    (
        counter(
            "ndb_sql_api_local_read_rows_total",
            "Rows read from the data node that was also the transaction coordinator.",
        ),
        "Ndb_api_trans_local_read_row_count",
        1,
    ),
    (
        counter("ndb_sql_api_event_bytes_total", "Event bytes received by this SQL node."),
        "Ndb_api_event_bytes_count",
        1,
    ),
    (
        counter(
            "ndb_sql_metadata_detected_total",
            "NDB dictionary changes detected by the metadata change monitor (NDB 8.0+).",
        ),
        "Ndb_metadata_detected_count",
        1,
    ),
    (
        counter(
            "ndb_sql_metadata_synced_total",
            "Objects synchronized from the NDB dictionary into the MySQL data dictionary (NDB 8.0+).",
        ),
        "Ndb_metadata_synced_count",
        1,
    ),
    (
        gauge(
            "ndb_sql_metadata_excluded_objects",
            "Objects excluded from metadata synchronization after failures (NDB 8.0+).",
        ),
        "Ndb_metadata_excluded_count",
        1,
    ),
    (
        counter("ndb_sql_questions_total", "Statements executed by this SQL node (Questions)."),
        "Questions",
        1,
    ),
    (gauge("ndb_sql_uptime_seconds", "Uptime of this SQL node."), "Uptime", 1),
    (
        gauge("ndb_sql_threads_connected", "Client connections open on this SQL node."),
        "Threads_connected",
        1,
    ),
    *CONFLICT_HANDLING,
)

# Labelled metrics: (spec, ((label value, status variable), ...)).
LABELLED = (
    (
        counter(
            "ndb_sql_api_key_operations_total",
            "Primary and unique key operations of this SQL node.",
            ("key",),
        ),
        (("primary", "Ndb_api_pk_op_count"), ("unique", "Ndb_api_uk_op_count")),
    ),
    (
        counter(
            "ndb_sql_api_scans_total",
            "Table and range scans started by this SQL node (Ndb_api_*_scan_count, all connections)."
            + PER_CONNECTION_NOTE,
            ("kind",),
        ),
        (("table", "Ndb_api_table_scan_count"), ("range", "Ndb_api_range_scan_count")),
    ),
    (
        counter(
            "ndb_sql_api_adaptive_sends_total",
            "Adaptive send calls of this SQL node by outcome.",
            ("mode",),
        ),
        (
            ("forced", "Ndb_api_adaptive_send_forced_count"),
            ("unforced", "Ndb_api_adaptive_send_unforced_count"),
            ("deferred", "Ndb_api_adaptive_send_deferred_count"),
        ),
    ),
    (
        counter(
            "ndb_sql_api_events_total",
            "Row change (data) and other (nondata) events received by this SQL node.",
            ("kind",),
        ),
        (("data", "Ndb_api_event_data_count"), ("nondata", "Ndb_api_event_nondata_count")),
    ),
    (
        gauge(
            "ndb_sql_index_stat_cache_bytes", "Bytes in the index statistics caches.", ("cache",)
        ),
        (("query", "Ndb_index_stat_cache_query"), ("clean", "Ndb_index_stat_cache_clean")),
    ),
    (
        counter("ndb_sql_commands_total", "Statements by command (Com_*).", ("command",)),
        tuple((command, f"Com_{command}") for command in COMMANDS),
    ),
    (
        counter(
            "ndb_sql_conflicts_total",
            "Rows found in conflict by each replication conflict detection function (Ndb_conflict_fn_*).",
            ("function",),
        ),
        tuple(
            (function, f"Ndb_conflict_fn_{suffix}")
            for suffix, function in CONFLICT_FUNCTIONS.items()
        ),
    ),
    (
        counter(
            "ndb_sql_conflict_transaction_rows_total",
            "Rows of transactions under transactional conflict detection (*_TRANS): in_conflict"
            " (Ndb_conflict_trans_row_conflict_count), rejected with their transaction and the"
            " transactions depending on it (Ndb_conflict_trans_row_reject_count).",
            ("outcome",),
        ),
        (
            ("in_conflict", "Ndb_conflict_trans_row_conflict_count"),
            ("rejected", "Ndb_conflict_trans_row_reject_count"),
        ),
    ),
    (
        counter(
            "ndb_sql_conflict_reflected_operations_total",
            "Reflected operations the NDB$EPOCH2 secondary received from the primary:"
            " prepared (defined) to be applied (Ndb_conflict_reflected_op_prepare_count), and"
            " not applied as they hit an error (Ndb_conflict_reflected_op_discard_count).",
            ("outcome",),
        ),
        (
            ("prepared", "Ndb_conflict_reflected_op_prepare_count"),
            ("discarded", "Ndb_conflict_reflected_op_discard_count"),
        ),
    ),
)

CLUSTER_INFO = gauge(
    "ndb_sql_cluster_info", "Cluster system name (Ndb_system_name); always 1.", ("system_name",)
)
REPLICA_EPOCH = gauge(
    "ndb_sql_replica_max_replicated_epoch",
    "Newest epoch of this SQL node's own cluster that the replica applier saw come back"
    " round a circular replication setup (Ndb_replica_max_replicated_epoch,"
    " Ndb_slave_max_replicated_epoch before NDB 8.0.23); 0 on a one-way replica.",
)

VARIABLES = (
    *(variable for _, variable, _ in SIMPLE),
    *(variable for _, series in LABELLED for _, variable in series),
    "Ndb_system_name",
    "Ndb_replica_max_replicated_epoch",
    "Ndb_slave_max_replicated_epoch",
)
SQL = "SHOW GLOBAL STATUS WHERE Variable_name IN (" + ", ".join(f"'{v}'" for v in VARIABLES) + ")"


def _values(rows: list[Row]) -> dict[str, str]:
    values = {}
    for row in rows:
        name = text(row.get("Variable_name", row.get("VARIABLE_NAME")))
        values[name] = row.get("Value", row.get("VARIABLE_VALUE"))
    return values


def collect(rows: list[Row], ctx: Context) -> Iterable:
    values = _values(rows)
    for spec, variable, scale in SIMPLE:
        if variable in values and number(values[variable]) is not None:
            family = spec.family()
            family.add_metric([], number(values[variable]) * scale)
            yield family
    for spec, series in LABELLED:
        present = [(label, variable) for label, variable in series if variable in values]
        if present:
            family = spec.family()
            for label, variable in present:
                add_value(family, [label], number(values[variable]))
            yield family
    if "Ndb_system_name" in values:
        family = CLUSTER_INFO.family()
        family.add_metric([text(values["Ndb_system_name"])], 1.0)
        yield family
    epoch = values.get(
        "Ndb_replica_max_replicated_epoch", values.get("Ndb_slave_max_replicated_epoch")
    )
    if number(epoch) is not None:
        family = REPLICA_EPOCH.family()
        family.add_metric([], number(epoch))
        yield family


COLLECTOR = Collector(
    name="status",
    help="SHOW GLOBAL STATUS of the SQL node: server-wide NDB API counters, cluster connection,"
    " replication conflicts. On by default: one statement answered by the SQL node alone.",
    default_enabled=True,
    reads={},
    min_version=(7, 5, 0),
    sql=SQL,
    collect=collect,
    metrics=(
        *(spec for spec, _, _ in SIMPLE),
        *(spec for spec, _ in LABELLED),
        CLUSTER_INFO,
        REPLICA_EPOCH,
    ),
)
