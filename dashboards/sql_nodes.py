"""SQL nodes: how efficiently each MySQL server uses the data nodes.

The descriptions carry the usual NDB tuning advice: fewer round trips (batching, simpler
joins), distribution awareness (partition pruning), and local reads (READ_BACKUP).
"""

from __future__ import annotations

from .common import (
    increase,
    instance_query,
    joined_table,
    per_instance,
    q,
    rate,
    sel,
    timeseries_panel,
)
from .layout import Board, Layout

UID = "ndb-sql-nodes"


def _round_trip_row(layout: Layout) -> None:
    round_trips = rate("ndb_sql_api_round_trips_total")
    commits = rate("ndb_sql_api_transactions_committed_total")
    waits = rate("ndb_sql_api_wait_seconds_total")
    scan_waits = rate("ndb_sql_api_scan_result_waits_total")
    meta_waits = rate("ndb_sql_api_meta_request_waits_total")
    layout.row(
        "Round trips to the data nodes",
        timeseries_panel(
            "Round trips per second",
            "Times per second the SQL node sent a batch of operations to the data nodes and "
            "waited for the answer (Ndb_api_wait_exec_complete_count). Every round trip costs "
            "at least one network latency, so for a given workload fewer is better.",
            "ops",
            instance_query(round_trips),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Round trips per committed transaction",
            "Round trips divided by committed transactions. Lower it by batching: multi-row "
            "INSERT instead of one statement per row, IN (...) lists instead of one SELECT "
            "per key, transaction_allow_batching for several writes in one transaction, and "
            "by replacing deep nested-loop joins (one round trip per outer row) with pushed "
            "joins or a denormalised table.",
            "none",
            q(f"{per_instance(round_trips)} / ({per_instance(commits)} > 0)", "{{instance}}"),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Average wait per data node request",
            "Time the SQL node waited for the data nodes divided by the requests it waited "
            "for (executes, scan batches, metadata). Rising values with steady load point at "
            "busy data node threads, full send buffers or the network.",
            "s",
            q(
                f"{per_instance(waits)} / (({per_instance(round_trips)} + {per_instance(scan_waits)} + {per_instance(meta_waits)}) > 0)",
                "{{instance}}",
            ),
            min_value=0,
            width=8,
        ),
    )


def _scan_row(layout: Layout) -> None:
    scans = rate("ndb_sql_api_scans_total")
    pruned = rate("ndb_sql_api_pruned_scans_total")
    batches = rate("ndb_sql_api_scan_batches_total")
    layout.row(
        "Scans and partition pruning",
        timeseries_panel(
            "Scans by kind",
            "Table scans, ordered-index range scans and the scans pruned to a single "
            "partition, per second. Table scans read every partition on every data node; "
            "they belong in reports, not in the hot path.",
            "ops",
            instance_query(scans, "kind", suffix="scans"),
            instance_query(pruned, suffix="pruned scans"),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Partition-pruning ratio",
            "Share of scans that went to one partition (Ndb_api_pruned_scan_count over all "
            "scans). A pruned scan runs on one data node instead of all of them, which cuts "
            "latency and lets throughput grow with more node groups. Make the application "
            "distribution aware: choose the distribution key (PARTITION BY KEY (col)) so "
            "that related rows share a partition and put an equality on it in the WHERE "
            "clause.",
            "percentunit",
            q(f"{per_instance(pruned)} / ({per_instance(scans)} > 0)", "{{instance}}"),
            min_value=0,
            max_value=1,
            width=8,
        ),
        timeseries_panel(
            "Scan batches per scan",
            "Batches each scan needed to return its rows. Many batches per scan mean large "
            "results are pulled in small pieces; narrow the scan with a better index or "
            "raise ndb_batch_size / BatchSizePerLocalScan for legitimately large scans.",
            "none",
            q(f"{per_instance(batches)} / ({per_instance(scans)} > 0)", "{{instance}}"),
            min_value=0,
            width=8,
        ),
    )


def _rows_row(layout: Layout) -> None:
    keys = rate("ndb_sql_api_key_operations_total")
    rows = rate("ndb_sql_api_read_rows_total")
    local_rows = rate("ndb_sql_api_local_read_rows_total")
    sent = rate("ndb_sql_api_sent_bytes_total")
    received = rate("ndb_sql_api_received_bytes_total")
    layout.row(
        "Key operations, rows and bytes",
        timeseries_panel(
            "Key operations",
            "Primary-key and unique-key operations per second. Primary-key lookups take "
            "constant time regardless of table size and are the cheapest access NDB offers; "
            "unique-key lookups need an extra hop through the hidden index table.",
            "ops",
            instance_query(keys, "key", suffix="key"),
            min_value=0,
            width=6,
        ),
        timeseries_panel(
            "Rows read",
            "Rows per second the SQL node read from the data nodes.",
            "rowsps",
            instance_query(rows),
            min_value=0,
            width=6,
        ),
        timeseries_panel(
            "Rows read locally",
            "Share of rows read that came from the data node that was the transaction's "
            "coordinator (Ndb_api_trans_local_read_row_count): no extra hop between data nodes. "
            "Make transactions distribution aware to raise it: start them with a hint on the "
            "distribution key (the first statement's WHERE clause on it), so that NDB picks "
            "the coordinator that holds the rows; READ_BACKUP or fully replicated tables let "
            "that node answer from its own replica.",
            "percentunit",
            q(f"{per_instance(local_rows)} / ({per_instance(rows)} > 0)", "{{instance}}"),
            min_value=0,
            max_value=1,
            width=6,
        ),
        timeseries_panel(
            "Bytes to and from the data nodes",
            "NDB API bytes per second sent to and received from the data nodes. Many small "
            "requests cost more than a few large ones; SELECT only the columns you need, and "
            "prefer VARCHAR/VARBINARY over BLOB/TEXT (blob parts live in a hidden table and "
            "need extra reads).",
            "Bps",
            instance_query(sent, suffix="sent"),
            instance_query(received, suffix="received"),
            min_value=0,
            width=6,
        ),
    )


def _pushed_join_row(layout: Layout) -> None:
    spj = rate("ndb_block_events_total", 'block="DBSPJ"')
    layout.row(
        "Pushed joins (data node side)",
        timeseries_panel(
            "Pushed join work on the data nodes",
            "Work done by the SPJ block, which executes joins pushed down from the SQL nodes "
            "(ndb_join_pushdown): lookups and scans received and the requests sent on to "
            "local and remote LDM threads. A pushed join replaces one round trip per outer "
            "row with a single request. The SQL nodes' Ndb_pushed_* counters describe only "
            "the exporter's own session and are not exported, so this panel shows the data "
            "node side. Check EXPLAIN for 'pushed join' to see which queries qualify.",
            "ops",
            q(f"sum by (counter) (max by (node_id, counter) ({spj}))", "{{counter}}"),
            min_value=0,
            width=24,
        ),
    )


def _transaction_row(layout: Layout) -> None:
    started = rate("ndb_sql_api_transactions_started_total")
    committed = rate("ndb_sql_api_transactions_committed_total")
    aborted = rate("ndb_sql_api_transactions_aborted_total")
    commands = rate("ndb_sql_commands_total")
    questions = rate("ndb_sql_questions_total")
    layout.row(
        "Transactions and statements",
        timeseries_panel(
            "NDB transactions",
            "NDB transactions started, committed, aborted and closed per second (closed counts "
            "every transaction object released, so it can exceed the others). Aborts come from "
            "lock wait timeouts (TransactionDeadlockDetectionTimeout), temporary errors such "
            "as overloaded send buffers or a node failure, and application rollbacks.",
            "ops",
            instance_query(started, suffix="started"),
            instance_query(committed, suffix="committed"),
            instance_query(aborted, suffix="aborted"),
            instance_query(rate("ndb_sql_api_transactions_closed_total"), suffix="closed"),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Abort ratio",
            "Aborted NDB transactions as a share of started ones. A few per cent under "
            "contention is normal; spikes together with a node failure are expected; a "
            "steady high ratio points at hot rows or too short timeouts.",
            "percentunit",
            q(f"{per_instance(aborted)} / ({per_instance(started)} > 0)", "{{instance}}"),
            min_value=0,
            max_value=1,
            width=8,
        ),
        timeseries_panel(
            "Statements",
            "Statements per second received by each SQL node (Questions) and the DML and "
            "transaction commands among them (Com_*). Compare with NDB round trips: "
            "statements that need many round trips each are the ones to tune.",
            "ops",
            instance_query(questions, suffix="questions"),
            instance_query(commands, "command"),
            min_value=0,
            width=8,
        ),
    )


def _connection_row(layout: Layout) -> None:
    adaptive = rate("ndb_sql_api_adaptive_sends_total")
    connects = increase("ndb_sql_cluster_connects_total")
    layout.row(
        "Cluster connection and sending",
        timeseries_panel(
            "Data nodes ready",
            "Data nodes each SQL node sees as ready (Ndb_number_of_ready_data_nodes) against "
            "the data nodes in the configuration. A SQL node that sees fewer than the data "
            "nodes report started has a network problem of its own.",
            "none",
            q(f"max by (instance) ({sel('ndb_sql_data_nodes_ready')})", "{{instance}} ready"),
            q(
                f"max by (instance) ({sel('ndb_sql_data_nodes_configured')})",
                "{{instance}} configured",
            ),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Adaptive send",
            "How the SQL node's NDB API sent its buffers: forced (sent at once), unforced "
            "(sent by the adaptive algorithm after a short wait, which batches more), and "
            "deferred (left to the send thread). Mostly forced sends mean ndb_force_send is on "
            "or the load is too light to batch.",
            "ops",
            instance_query(adaptive, "mode"),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Cluster reconnects and client connections",
            "Times the SQL node (re)connected to the cluster in the interval, and its open "
            "client connections. A reconnect means the SQL node lost the cluster and its "
            "open NDB transactions failed.",
            "none",
            instance_query(connects, suffix="reconnects"),
            q(
                f"max by (instance) ({sel('ndb_sql_threads_connected')})",
                "{{instance}} client connections",
            ),
            min_value=0,
            width=8,
        ),
    )


def _sql_node_row(layout: Layout) -> None:
    up = sel("ndb_up")
    layout.row(
        "SQL node and exporter",
        joined_table(
            "SQL nodes",
            "Each SQL node: its MySQL and NDB versions, its node id in the cluster "
            "(Ndb_cluster_node_id; 0 before it first connected), the cluster's system name, "
            "how long it has run (a reset is a mysqld restart), the bytes in its index "
            "statistics caches and the version of its exporter.",
            ["instance", "version", "ndb_version", "system_name", "exporter"],
            [
                (
                    None,
                    q(
                        f"max by (instance, version, ndb_version) ({sel('ndb_version_info')})",
                        table=True,
                    ),
                    "none",
                ),
                (
                    None,
                    q(
                        "label_replace(max by (instance, version) ("
                        f"{sel('ndb_exporter_build_info')}), "
                        '"exporter", "$1", "version", "(.*)")',
                        table=True,
                    ),
                    "none",
                ),
                (
                    "node id",
                    q(f"max by (instance) ({sel('ndb_sql_cluster_node_id')})", table=True),
                    "none",
                ),
                (
                    None,
                    q(
                        f"max by (instance, system_name) ({sel('ndb_sql_cluster_info')})",
                        table=True,
                    ),
                    "none",
                ),
                (
                    "uptime",
                    q(f"max by (instance) ({sel('ndb_sql_uptime_seconds')})", table=True),
                    "s",
                ),
                (
                    "index stat cache",
                    q(per_instance(sel("ndb_sql_index_stat_cache_bytes")), table=True),
                    "bytes",
                ),
            ],
            join_on="instance",
            sort_by=("uptime", False),
            width=8,
        ),
        timeseries_panel(
            "Events received",
            "Row change (data) and other (nondata) events per second the SQL node received "
            "from the data nodes, and their bytes: the binlog injector and NDB API event "
            "subscribers pay for every change of the tables they subscribe to.",
            "ops",
            instance_query(rate("ndb_sql_api_events_total"), "kind", suffix="events"),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Event bytes received",
            "Event bytes per second the SQL node received from the data nodes.",
            "Bps",
            instance_query(rate("ndb_sql_api_event_bytes_total")),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Metadata synchronisation",
            "The SQL node's metadata change monitor (NDB 8.0+): dictionary changes detected "
            "and objects synchronised into the MySQL data dictionary per second, objects "
            "waiting to be synchronised and objects excluded after failures (they stay "
            "excluded until they change or are synchronised by hand). Excluded objects are "
            "tables the SQL node cannot use.",
            "none",
            instance_query(rate("ndb_sql_metadata_detected_total"), suffix="detected/s"),
            instance_query(rate("ndb_sql_metadata_synced_total"), suffix="synced/s"),
            q(
                f"{per_instance(sel('ndb_sql_metadata_sync_pending_objects'))}"
                f" or max by (instance) ({up}) * 0",
                "{{instance}} pending",
            ),
            q(
                f"{per_instance(sel('ndb_sql_metadata_sync_excluded_objects'))}"
                f" or max by (instance) ({sel('ndb_sql_metadata_excluded_objects')})",
                "{{instance}} excluded",
            ),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Collectors failing and NDB visibility",
            "Collectors whose last run failed (ndb_exporter_collector_success 0, skipped ones "
            "left out) per SQL node's exporter, and whether NDB is visible to it "
            "(ndb_engine_visibility: 1 unless the state is ok; engine_absent, ndbinfo_absent "
            "or privilege_missing say why), and rows the collectors left out because a value "
            "was not a number. A failing collector leaves its panels empty "
            "(NdbExporterCollectorFailing, NdbEngineUnavailable).",
            "none",
            q(
                f"count by (instance) ({sel('ndb_exporter_collector_success')} == 0"
                f" unless on (instance, collector) {sel('ndb_exporter_collector_skipped')} == 1)"
                f" or max by (instance) ({up}) * 0",
                "{{instance}} collectors failing",
            ),
            q(
                "max by (instance, state) (" + sel("ndb_engine_visibility", 'state!="ok"') + ")",
                "{{instance}} {{state}}",
            ),
            q(
                f"sum by (instance) ({increase('ndb_exporter_rows_skipped_total')})"
                f" or max by (instance) ({up}) * 0",
                "{{instance}} rows skipped",
            ),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Slowest collectors",
            "Seconds each collector took in the last scrape, the ten slowest over the "
            "selected SQL nodes' exporters. A collector near the scrape timeout risks the "
            "whole scrape; the cost of each is in the exporter's documentation.",
            "s",
            q(
                "topk(10, max by (instance, collector) "
                f"({sel('ndb_exporter_collector_duration_seconds')}))",
                "{{instance}} {{collector}}",
            ),
            min_value=0,
            width=8,
        ),
    )


def board() -> Board:
    layout = Layout(
        UID,
        "NDB Cluster / SQL nodes",
        "How each SQL node uses the data nodes: round trips, scans and pruning, rows, pushed "
        "joins, transactions and its cluster connection.",
    )
    _round_trip_row(layout)
    _scan_row(layout)
    _rows_row(layout)
    _pushed_join_row(layout)
    _transaction_row(layout)
    _connection_row(layout)
    _sql_node_row(layout)
    return layout.build()
