"""Replication: the source's binlog injector and the replica's channels, side by side.

The ``cluster`` variable takes several clusters: choose the source and the replica (or All).
Series of the binlog injector exist only on SQL nodes that write a binary log of NDB changes,
those of the channels only on replicas, so each panel shows the side it is about and names
the cluster in its legend. Epochs are compared as GCIs (epoch >> 32).
"""

from __future__ import annotations

from .alerts import threshold
from .common import (
    CLUSTER,
    EPOCH_PER_GCI,
    REPLICATION,
    PanelSpec,
    Query,
    alert_steps,
    committed_gci,
    joined_table,
    q,
    rate,
    sel,
    state_code,
    state_timeline_panel,
    timeseries_panel,
    value_text,
)
from .layout import Board, Layout

UID = "ndb-replication"
CHANNEL = "cluster, instance, channel"
INJECTOR = "cluster, instance, server_id"
WHERE = "{{cluster}} {{instance}}"
IO_STATES = (("yes", 2), ("connecting", 1), ("no", 0))
SQL_STATES = (("yes", 1), ("no", 0))
WORKER = "cluster, instance, channel, worker"
WORKER_STATES = (("on", 1), ("off", 0))
WORKER_TEXT = value_text({1: ("on", "green"), 0: ("off", "red")})
IO_TEXT = value_text({2: ("running", "green"), 1: ("connecting", "orange"), 0: ("stopped", "red")})
SQL_TEXT = value_text({1: ("running", "green"), 0: ("stopped", "red")})
# The table of the channels now: column, gauge, unit.
CHANNEL_COLUMNS = (
    ("Source server_id", "ndb_replica_source_server_id", "none"),
    ("Seconds behind source", "ndb_replica_seconds_behind_source", "s"),
    ("Last I/O error", "ndb_replica_last_io_error_number", "none"),
    ("Last SQL error", "ndb_replica_last_sql_error_number", "none"),
)
# The table of each binlog server's binary log files: column, gauge, unit.
FILE_COLUMNS = (
    ("Files", "ndb_binlog_files", "none"),
    ("Size", "ndb_binlog_files_bytes", "bytes"),
    ("Oldest file", "ndb_binlog_first_file_number", "none"),
    ("Newest file", "ndb_binlog_last_file_number", "none"),
)


def _replicated(expr: str, legend: str = "", *, table: bool = False) -> Query:
    """A query of series that exist only where clusters replicate."""
    return q(expr, legend, table=table, fault=REPLICATION)


def _per(labels: str, metric: str) -> str:
    return f"max by ({labels}) ({sel(metric)})"


def _thread_panel(
    title: str, description: str, metric: str, states: tuple, mappings: list
) -> PanelSpec:
    """A replication thread's state per channel over time."""
    query = _replicated(state_code(metric, states, CHANNEL), WHERE)
    return state_timeline_panel(title, description, query, mappings=mappings, width=8)


def _channel_row(layout: Layout) -> None:
    layout.row(
        "Replica: channels",
        _thread_panel(
            "I/O thread",
            "State of each replication channel's receiver (I/O) thread on the replica's SQL "
            "nodes, from SHOW REPLICA STATUS (Replica_IO_Running; SHOW SLAVE STATUS before "
            "8.0.22): running, connecting (it lost the source and retries; see the last I/O "
            "error) or stopped. The default channel has no channel name.",
            "ndb_replica_io_thread_state",
            IO_STATES,
            IO_TEXT,
        ),
        _thread_panel(
            "SQL thread",
            "State of each channel's applier (SQL) thread, from SHOW REPLICA STATUS "
            "(Replica_SQL_Running): running or stopped. A stopped applier stops applying the "
            "source's changes; its last SQL error says why (1590: the source's binary log has "
            "a gap, the replica must be resynchronised).",
            "ndb_replica_sql_thread_state",
            SQL_STATES,
            SQL_TEXT,
        ),
        joined_table(
            "Channels",
            "Each channel now, from SHOW REPLICA STATUS: the source's server_id "
            "(Source_Server_Id), Seconds_Behind_Source (empty while it is NULL: the applier "
            "is stopped or has nothing to compare with) and the last I/O and SQL error "
            "numbers (0 = no error; 2003 = cannot reach the source; 1590 = an incident, lost "
            "events, in the source's binary log).",
            ["cluster", "instance", "channel"],
            [
                (name, _replicated(_per(CHANNEL, metric), table=True), unit)
                for name, metric, unit in CHANNEL_COLUMNS
            ],
            width=8,
        ),
    )


def _applier_row(layout: Layout) -> None:
    layout.row(
        "Replica: applier",
        state_timeline_panel(
            "Applier workers",
            "Each applier worker of each channel over time, from performance_schema."
            "replication_applier_status_by_worker (SERVICE_STATE): on or off. NDB applies with "
            "replica_parallel_workers workers (4 by default) from 8.0.33; worker 0 is the SQL "
            "thread applying without workers. A worker that stops on an error stops the "
            "channel's SQL thread; the table beside names its error.",
            _replicated(
                state_code("ndb_replica_applier_worker_state", WORKER_STATES, WORKER),
                f"{WHERE} {{{{channel}}}} worker {{{{worker}}}}",
            ),
            mappings=WORKER_TEXT,
            width=6,
        ),
        joined_table(
            "Applier workers now",
            "Each worker's last error number (LAST_ERROR_NUMBER; 0 = none): the error that "
            "stopped it, which the channel's Last_SQL_Errno repeats.",
            ["cluster", "instance", "channel", "worker"],
            [
                (
                    "Last error",
                    _replicated(
                        _per(WORKER, "ndb_replica_applier_worker_last_error_number"), table=True
                    ),
                    "none",
                )
            ],
            width=6,
        ),
        timeseries_panel(
            "Relay log",
            "The relay log each channel holds (Relay_Log_Space): what the receiver has read "
            "and the applier not yet applied; it grows while the applier trails.",
            "bytes",
            _replicated(
                _per(CHANNEL, "ndb_replica_relay_log_space_bytes"), f"{WHERE} {{{{channel}}}}"
            ),
            width=6,
        ),
        timeseries_panel(
            "Retried applier transactions",
            "Applier transactions retried per second (COUNT_TRANSACTIONS_RETRIES of "
            "replication_applier_status): temporary errors, such as lock wait timeouts "
            "against the replica cluster's own load, that the applier retried.",
            "ops",
            _replicated(
                f"sum by ({CHANNEL}) ({rate('ndb_replica_transaction_retries_total')})",
                f"{WHERE} {{{{channel}}}}",
            ),
            min_value=0,
            width=6,
        ),
    )


def _lag_row(layout: Layout) -> None:
    lag_seconds = threshold("NdbReplicationLagHigh", after="seconds_behind_source")
    lag_gcis = threshold("NdbReplicationLagHigh", after="applied_gci:lag")
    layout.row(
        "Replication lag",
        timeseries_panel(
            "Seconds behind source",
            "Seconds_Behind_Source of each channel (SHOW REPLICA STATUS): how old the event "
            "the applier works on was when the source wrote it. No value while the applier is "
            f"stopped. NdbReplicationLagHigh fires above {lag_seconds:g} s for 10 minutes.",
            "s",
            _replicated(
                _per(CHANNEL, "ndb_replica_seconds_behind_source"), f"{WHERE} {{{{channel}}}}"
            ),
            min_value=0,
            width=8,
            threshold_line=alert_steps(lag_seconds),
        ),
        timeseries_panel(
            "Epoch lag per source server",
            "GCIs each replica cluster is behind each source SQL node it reads "
            "(cluster:ndb_replica_applied_gci:lag): the newest GCI that binlog server wrote to "
            "its binary log (SHOW ENGINE NDBCLUSTER STATUS, latest_applied_binlog_epoch >> 32, "
            "on the source) minus the newest GCI the replica applied from it "
            "(mysql.ndb_apply_status, epoch >> 32). The source is the cluster named by the "
            "replica's source_cluster label and its server_id. One GCI per "
            "TimeBetweenGlobalCheckpoints (2 s by default): NdbReplicationLagHigh fires above "
            f"{lag_gcis:g} GCIs for 10 minutes.",
            "suffix: GCIs",
            _replicated(
                f"cluster:ndb_replica_applied_gci:lag{{{CLUSTER}}}",
                "{{cluster}} from {{source_cluster}} server_id {{server_id}}",
            ),
            min_value=0,
            width=8,
            threshold_line=alert_steps(lag_gcis),
        ),
        timeseries_panel(
            "Last error numbers",
            "Last_IO_Errno and Last_SQL_Errno of each channel (SHOW REPLICA STATUS); 0 is no "
            "error. 1590 from the SQL thread means the source's binary log holds a LOST_EVENTS "
            "incident: changes are missing on the replica (NdbBinlogGap).",
            "none",
            _replicated(
                _per(CHANNEL, "ndb_replica_last_io_error_number"), f"{WHERE} {{{{channel}}}} I/O"
            ),
            _replicated(
                _per(CHANNEL, "ndb_replica_last_sql_error_number"), f"{WHERE} {{{{channel}}}} SQL"
            ),
            min_value=0,
            width=8,
        ),
    )


def _injector_panels() -> tuple[PanelSpec, ...]:
    gcis = {
        "buffered": "ndb_binlog_buffered_gci",
        "received": "ndb_binlog_received_gci",
        "handled": "ndb_binlog_handled_gci",
        "written": "ndb_binlog_written_gci",
    }
    handled = _per(INJECTOR, gcis["handled"])
    behind = threshold("NdbBinlogInjectorBehind")
    buffered = threshold("NdbEventBufferHigh")
    return (
        timeseries_panel(
            "Binlog injector lag",
            "GCIs the binlog injector of each source SQL node is behind its cluster: the "
            "newest GCI committed in the cluster (Ndb_last_commit_epoch_server / 2^32, the "
            "largest over its SQL nodes) minus the newest GCI the injector finished "
            "(latest_handled_binlog_epoch >> 32 in SHOW ENGINE NDBCLUSTER STATUS). "
            f"NdbBinlogInjectorBehind fires above {behind:g} GCIs for 5 minutes.",
            "suffix: GCIs",
            _replicated(
                f"{committed_gci()} - on (cluster) group_right {handled}",
                f"{WHERE} server_id {{{{server_id}}}}",
            ),
            min_value=0,
            width=8,
            threshold_line=alert_steps(behind),
        ),
        timeseries_panel(
            "Event buffer",
            "Epochs waiting in the binlog injector's event buffer: the newest GCI fully "
            "received into it (latest_epoch >> 32) minus the newest one the injector took "
            "out (latest_received_binlog_epoch >> 32). mysqld reports the buffer's bytes only "
            "in the cluster log; a buffer that overflows loses events and the binary log gets "
            f"a gap. NdbEventBufferHigh fires above {buffered:g} GCIs for 2 minutes.",
            "suffix: GCIs",
            _replicated(
                f"{_per(INJECTOR, gcis['buffered'])} - {_per(INJECTOR, gcis['received'])}",
                f"{WHERE} server_id {{{{server_id}}}}",
            ),
            min_value=0,
            width=8,
            threshold_line=alert_steps(buffered),
        ),
        timeseries_panel(
            "Binlog injector GCIs",
            "Where each epoch is on its way into the binary log, from the binlog row of SHOW "
            "ENGINE NDBCLUSTER STATUS (epoch >> 32): buffered in the event buffer, received "
            "by the injector, handled (empty epochs included) and written with changes; "
            "with the cluster's newest committed GCI for comparison. The lines run together "
            "when the injector keeps up.",
            "none",
            q(committed_gci(), "{{cluster}} committed"),
            # every SQL node buffers epochs (schema distribution), binlog servers alone go on
            q(_per(INJECTOR, gcis["buffered"]), f"{WHERE} buffered"),
            *(
                _replicated(_per(INJECTOR, metric), f"{WHERE} {step}")
                for step, metric in gcis.items()
                if step != "buffered"
            ),
            width=8,
        ),
    )


def _binlog_files_panel() -> PanelSpec:
    return joined_table(
        "Binary log files",
        "Each binlog server's binary log now, from SHOW BINARY LOGS: the files it keeps (the "
        "active one included), their bytes, and the numbers of the oldest and newest file. "
        "A rotation (max_binlog_size, FLUSH BINARY LOGS, a restart) raises the newest number, "
        "a purge (PURGE BINARY LOGS, binlog_expire_logs_seconds) the oldest; a replica can "
        "read only from the files still kept.",
        ["cluster", "instance"],
        [
            (name, _replicated(_per("cluster, instance", metric), table=True), unit)
            for name, metric, unit in FILE_COLUMNS
        ],
        width=24,
        height=6,
    )


def _conflict_row(layout: Layout) -> None:
    layout.row(
        "Conflicts and replicated epochs",
        timeseries_panel(
            "Conflicts by function",
            "Rows per second found in conflict by each conflict detection function "
            "(Ndb_conflict_fn_*: NDB$MAX, NDB$OLD, NDB$EPOCH2 and the others), counted on the "
            "SQL node whose applier detected them. Conflicts arise only with active-active "
            "replication and a conflict function on the table (mysql.ndb_replication). "
            "NdbReplicationConflicts fires on any conflict in 10 minutes.",
            "ops",
            q(
                f"sum by (cluster, instance, function) ({rate('ndb_sql_conflicts_total')})",
                f"{WHERE} {{{{function}}}}",
            ),
            min_value=0,
            width=12,
        ),
        timeseries_panel(
            "Replica's max replicated epoch (GCI)",
            "Ndb_replica_max_replicated_epoch (Ndb_slave_max_replicated_epoch before 8.0.23) "
            "as a GCI (epoch >> 32). The applier raises it only for epochs of this SQL node's "
            "own cluster that come back to it round a circular (active-active) setup: it is "
            "the newest of its own cluster's epochs known to be replicated to the other side "
            "and back, which conflict detection (NDB$EPOCH, NDB$EPOCH2) compares with "
            "Ndb_conflict_last_conflict_epoch. On a one-way replica it stays 0: that is not a "
            "stalled applier (the applier's progress is the epoch lag above).",
            "none",
            q(
                f"floor({_per('cluster, instance', 'ndb_sql_replica_max_replicated_epoch')}"
                f" / {EPOCH_PER_GCI})",
                WHERE,
            ),
            width=12,
        ),
        timeseries_panel(
            "Conflict handling",
            "Per second, on the SQL node whose applier handled them: transactions rejected by "
            "transactional detection (*_TRANS functions) and the rows they realigned with the "
            "transactions depending on them, refresh operations the NDB$EPOCH functions wrote, "
            "reflected operations the NDB$EPOCH2 secondary applied or discarded on an error, "
            "and delete-delete conflicts (a row deleted on both sides).",
            "ops",
            q(
                f"sum by (cluster, instance) "
                f"({rate('ndb_sql_conflict_transactions_rejected_total')})",
                f"{WHERE} transactions rejected",
            ),
            q(
                f"sum by (cluster, instance, outcome) "
                f"({rate('ndb_sql_conflict_transaction_rows_total')})",
                f"{WHERE} rows {{{{outcome}}}}",
            ),
            q(
                f"sum by (cluster, instance) ({rate('ndb_sql_conflict_refresh_operations_total')})",
                f"{WHERE} refresh operations",
            ),
            q(
                f"sum by (cluster, instance, outcome) "
                f"({rate('ndb_sql_conflict_reflected_operations_total')})",
                f"{WHERE} reflected {{{{outcome}}}}",
            ),
            q(
                f"sum by (cluster, instance) ({rate('ndb_sql_conflict_delete_delete_total')})",
                f"{WHERE} delete-delete",
            ),
            min_value=0,
            width=12,
        ),
        timeseries_panel(
            "Active-active: last conflict and last stable epoch (GCI)",
            "On the SQL node of the NDB$EPOCH or NDB$EPOCH2 primary of an active-active pair, "
            "as GCIs: the epoch of its cluster in which it last found a conflict "
            "(Ndb_conflict_last_conflict_epoch), and its newest epoch that came back round the "
            "pair with no conflict since (Ndb_conflict_last_stable_epoch). Once the stable line "
            "reaches the conflict line, every conflict found has been resolved on both sides and "
            "the pair has converged; while it stays below, the realigning refresh operations "
            "have not come back. On a one-way replica the stable epoch stays 0.",
            "none",
            q(
                f"floor({_per('cluster, instance', 'ndb_sql_conflict_last_conflict_epoch')}"
                f" / {EPOCH_PER_GCI})",
                f"{WHERE} last conflict",
            ),
            q(
                f"floor({_per('cluster, instance', 'ndb_sql_conflict_last_stable_epoch')}"
                f" / {EPOCH_PER_GCI})",
                f"{WHERE} last stable",
            ),
            width=12,
        ),
    )


def board() -> Board:
    layout = Layout(
        UID,
        "NDB Cluster / Replication",
        "Source and replica side by side: the replica's channels and their lag, the epoch lag "
        "per source server_id, the source's binlog injector, event buffer and binary log files, "
        "and conflicts. Choose both clusters in the cluster variable.",
        clusters=True,
    )
    _channel_row(layout)
    _applier_row(layout)
    _lag_row(layout)
    layout.row("Source: binlog injector", *_injector_panels())
    layout.row("Source: binary log", _binlog_files_panel())
    _conflict_row(layout)
    return layout.build()
