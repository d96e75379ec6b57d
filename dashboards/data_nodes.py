"""Data nodes: memory, logs, threads, transporters, disk and restarts of each data node."""

from __future__ import annotations

from .alerts import threshold
from .common import (
    NEUTRAL,
    alert_steps,
    bargauge_panel,
    bottom,
    data_node_state_panel,
    increase,
    joined_table,
    matrix_table,
    per_node,
    q,
    rate,
    sel,
    stat_panel,
    thresholds,
    timeseries_panel,
    top,
)
from .layout import Board, Layout

UID = "ndb-data-nodes"


def _node(metric: str, *matchers: str) -> str:
    return sel(metric, *matchers, node=True)


def _node_rate(metric: str, *matchers: str) -> str:
    return rate(metric, *matchers, node=True)


def _status_row(layout: Layout) -> None:
    layout.row(
        "Status",
        data_node_state_panel(node=True, width=8),
        joined_table(
            "Data node status",
            "Current state of each running data node: start state, start phase (only "
            "meaningful while STARTING), node group, uptime and the configuration generation "
            "it runs, the CPUs available to it and online on its host, the host's CPU model "
            "and memory. Nodes that are down have no row; see the state panel.",
            ["node_id", "state", "nodegroup", "model_name"],
            [
                (
                    None,
                    q(
                        f"max by (node_id, state) ({_node('ndb_data_node_status')} == 1)",
                        table=True,
                    ),
                    "none",
                ),
                (
                    "start phase",
                    q(f"max by (node_id) ({_node('ndb_data_node_start_phase')})", table=True),
                    "none",
                ),
                (
                    None,
                    q(
                        f"max by (node_id, nodegroup) ({_node('ndb_data_node_nodegroup')})",
                        table=True,
                    ),
                    "none",
                ),
                (
                    "uptime",
                    q(f"max by (node_id) ({_node('ndb_data_node_uptime_seconds')})", table=True),
                    "s",
                ),
                (
                    "config generation",
                    q(f"max by (node_id) ({_node('ndb_data_node_config_generation')})", table=True),
                    "none",
                ),
                (
                    "CPUs",
                    q(
                        "max by (node_id) ("
                        + _node("ndb_data_node_cpus", 'kind="available"')
                        + ")",
                        table=True,
                    ),
                    "none",
                ),
                (
                    None,
                    q(
                        f"max by (node_id, model_name) ({_node('ndb_data_node_hardware_info')})",
                        table=True,
                    ),
                    "none",
                ),
                (
                    "host CPUs online",
                    q(f"max by (node_id) ({_node('ndb_host_cpus_online')})", table=True),
                    "none",
                ),
                (
                    "host memory",
                    q(f"max by (node_id) ({_node('ndb_data_node_memory_bytes')})", table=True),
                    "bytes",
                ),
            ],
            join_on="node_id",
            sort_by=("uptime", False),
        ),
        stat_panel(
            "President",
            "The data node that manages membership (ndbinfo.membership): it decides node "
            "failures and runs arbitration. It moves to the oldest surviving node when it "
            "fails.",
            "none",
            q(f"max({sel('ndb_president_node_id')})", instant=True),
            steps=NEUTRAL,
            width=2,
            height=8,
        ),
        stat_panel(
            "Arbitrator",
            "The arbitrator the data nodes know (a management or API node; 0: none). In a "
            "network split, the half that reaches it survives (NdbNoArbitrator).",
            "none",
            q(f"min(max by (node_id) ({sel('ndb_arbitrator_node_id')}))", instant=True),
            steps=thresholds((None, "orange"), (1, "green")),
            width=2,
            height=8,
        ),
    )


def _memory_row(layout: Layout) -> None:
    used = _node("ndb_memory_used_bytes")
    total = _node("ndb_memory_total_bytes")
    res_used = _node("ndb_resource_used_bytes")
    res_max = _node("ndb_resource_max_bytes")
    layout.row(
        "Memory",
        timeseries_panel(
            "Memory used by type",
            "Bytes in use per memory pool (ndbinfo.memoryusage): DataMemory (rows and, since "
            "7.6, hash indexes), the long message buffer, and IndexMemory on 7.5; the ten "
            "largest pools of the selected nodes. The pool sizes are on the Configuration "
            "dashboard.",
            "bytes",
            per_node(used, "memory_type", suffix="used"),
            min_value=0,
        ),
        bargauge_panel(
            "Memory pools used",
            "Share of each memory pool in use, the ten fullest. Little DataMemory left leaves "
            "no room for growth and for the extra copies made during ALTER TABLE and node "
            "restarts (NdbDataMemoryHigh, NdbDataMemoryCritical); a full long message buffer "
            "fails the operations that send long signals (NdbLongMessageBufferHigh, a warning "
            f"from {threshold('NdbLongMessageBufferHigh'):.0%}: its bars turn orange there "
            "and never red).",
            "percentunit",
            q(
                top(
                    f"max by (node_id, memory_type) ({used})"
                    f" / max by (node_id, memory_type) ({total})"
                ),
                "node {{node_id}} {{memory_type}}",
            ),
            steps=alert_steps(threshold("NdbDataMemoryHigh"), threshold("NdbDataMemoryCritical")),
            pattern_steps=[
                (".*Long message buffer", alert_steps(threshold("NdbLongMessageBufferHigh")))
            ],
            max_value=1,
        ),
        timeseries_panel(
            "Resources used",
            "Memory used per resource class (ndbinfo.resources): transaction memory, query "
            "memory, job buffers, transporter and file buffers, disk page buffer, schema "
            "transaction memory. Growth in TRANSACTION_MEMORY follows large or many concurrent "
            "transactions.",
            "bytes",
            per_node(res_used, "resource"),
            min_value=0,
        ),
        bargauge_panel(
            "Resources used of their maximum",
            "Used divided by the configured maximum for resources that have one (a maximum "
            "of 0 means unlimited and is left out), the ten fullest. Near 1 the resource "
            "refuses new allocations: transactions abort or signals queue "
            "(NdbResourcePoolHigh).",
            "percentunit",
            q(
                top(
                    f"max by (node_id, resource) ({res_used})"
                    f" / max by (node_id, resource) ({res_max} > 0)"
                ),
                "node {{node_id}} {{resource}}",
            ),
            steps=alert_steps(threshold("NdbResourcePoolHigh")),
            max_value=1,
        ),
    )


def _log_share(used: str, total: str, log_type: str) -> str:
    """The ten fullest log parts of ``log_type`` (used / total)."""
    matcher = f'log_type="{log_type}"'
    share = f"{_node(used, matcher)} / ({_node(total, matcher)} > 0)"
    return top(f"max by (node_id, log_part) ({share})")


def _log_row(layout: Layout) -> None:
    space_used = _node("ndb_log_space_used_bytes")
    space_total = _node("ndb_log_space_total_bytes")
    buf_used = _node("ndb_log_buffer_used_bytes")
    buf_total = _node("ndb_log_buffer_total_bytes")
    redo = (threshold("NdbRedoLogSpaceHigh"), threshold("NdbRedoLogSpaceCritical"))
    undo = (threshold("NdbUndoLogSpaceHigh"), threshold("NdbUndoLogSpaceCritical"))
    layout.row(
        "Redo and undo logs",
        timeseries_panel(
            "Redo log space used",
            "Share of the redo log in use, the ten fullest log parts (ndbinfo.logspaces). "
            "Redo space is released by completed local checkpoints: a rising line means "
            "checkpoints cannot keep up with the write load (check disk write speed and the "
            f"LCP age). NdbRedoLogSpaceHigh warns above {redo[0]:.0%}, "
            f"NdbRedoLogSpaceCritical above {redo[1]:.0%}.",
            "percentunit",
            q(
                _log_share("ndb_log_space_used_bytes", "ndb_log_space_total_bytes", "REDO"),
                "node {{node_id}} part {{log_part}}",
            ),
            min_value=0,
            max_value=1,
            width=6,
            threshold_line=alert_steps(*redo),
        ),
        timeseries_panel(
            "Undo log space used",
            "Share of the disk-data undo log in use (ndbinfo.logspaces), the ten fullest; "
            "freed by LCPs of disk data. Flat at 0 without disk data tables. "
            f"NdbUndoLogSpaceHigh warns above {undo[0]:.0%}, NdbUndoLogSpaceCritical above "
            f"{undo[1]:.0%}.",
            "percentunit",
            q(
                _log_share("ndb_log_space_used_bytes", "ndb_log_space_total_bytes", "DD-UNDO"),
                "node {{node_id}} part {{log_part}}",
            ),
            min_value=0,
            max_value=1,
            width=6,
            threshold_line=alert_steps(*undo),
        ),
        timeseries_panel(
            "Log buffers used",
            "Share of the redo, undo and backup log buffers in use (ndbinfo.logbuffers), the "
            "ten fullest. A full redo buffer (RedoBuffer) makes commits wait for the disk "
            "('REDO buffers overloaded' errors); raise RedoBuffer or speed up the redo disk. "
            f"NdbRedoBufferHigh and NdbUndoBufferHigh fire above "
            f"{threshold('NdbRedoBufferHigh'):.0%}.",
            "percentunit",
            q(
                top(f"max by (node_id, log_type, log_part) ({buf_used} / ({buf_total} > 0))"),
                "node {{node_id}} {{log_type}} part {{log_part}}",
            ),
            min_value=0,
            max_value=1,
            width=6,
            threshold_line=alert_steps(threshold("NdbRedoBufferHigh")),
        ),
        timeseries_panel(
            "Log space in bytes",
            "Redo and undo log bytes in use per data node (all parts summed), the five "
            "largest, with the total size of the largest logs for reference.",
            "bytes",
            q(
                top(
                    f"sum by (node_id, log_type) (max by (node_id, log_type, log_id, log_part) ({space_used}))",
                    5,
                ),
                "node {{node_id}} {{log_type}} used",
            ),
            q(
                top(
                    f"sum by (node_id, log_type) (max by (node_id, log_type, log_id, log_part) ({space_total}))",
                    5,
                ),
                "node {{node_id}} {{log_type}} size",
            ),
            min_value=0,
            width=6,
        ),
    )


def _thread_row(layout: Layout) -> None:
    cpu = _node_rate("ndb_thread_cpu_seconds_total")
    signals = _node_rate("ndb_thread_signals_executed_total")
    layout.row(
        "Threads",
        timeseries_panel(
            "Thread CPU",
            "CPU time of each data node thread (user + system) as a share of one core "
            "(ndbinfo.threadstat). An ldm, tc, recv or send thread near 100 % is the "
            "bottleneck of that node; spread the work with more threads of that kind "
            "(ThreadConfig / AutomaticThreadConfig) or lock threads to dedicated CPUs. The "
            "ten busiest threads of the selected nodes.",
            "percentunit",
            q(
                top(
                    f"max by (node_id, thread, thr_no) (sum by (instance, job, node_id, thread, thr_no) ({cpu}))"
                ),
                "node {{node_id}} {{thread}} {{thr_no}}",
            ),
            min_value=0,
            width=12,
        ),
        timeseries_panel(
            "Signals executed",
            "Signals executed per second by each thread: the unit of work inside a data node. "
            "Compare with CPU to see how expensive the work is. The ten busiest threads.",
            "ops",
            q(
                top(f"max by (node_id, thread, thr_no) ({signals})"),
                "node {{node_id}} {{thread}} {{thr_no}}",
            ),
            min_value=0,
            width=12,
        ),
    )


def _activity_row(layout: Layout) -> None:
    exec_ratio = _node("ndb_thread_time_ratio", 'activity="exec"')
    stalled = _node("ndb_thread_time_ratio", 'activity="buffer_full"')
    host_idle = _node("ndb_host_cpu_ratio", 'mode="idle"')
    layout.row(
        "Thread saturation",
        timeseries_panel(
            "Busiest thread of each type",
            "Share of the last second the busiest thread of each type spent executing "
            "signals (ndbinfo.cpustat). The type that nears 1 first is the node's bottleneck: "
            "ldm for data access, tc for transaction coordination, recv/send for the network, "
            "main for schema work; give that type more threads (ThreadConfig) before the "
            "others.",
            "percentunit",
            per_node(exec_ratio, "thread"),
            min_value=0,
            max_value=1,
            width=8,
        ),
        timeseries_panel(
            "Job-buffer stalls",
            "Share of the last second the busiest thread of each type slept waiting on a full "
            "job buffer (ndbinfo.cpustat thread_buffer_full), the ten highest: a thread it "
            "sends signals to, most often an overloaded LDM thread, consumes them too slowly. "
            "Full send buffers towards other nodes show on the transporters instead. "
            "NdbThreadBufferFull fires when the 5-minute average stays above "
            f"{threshold('NdbThreadBufferFull'):.0%}.",
            "percentunit",
            per_node(stalled, "thread"),
            min_value=0,
            width=8,
            threshold_line=alert_steps(threshold("NdbThreadBufferFull")),
        ),
        timeseries_panel(
            "Host CPU busy",
            "Share of the last second the data node's host CPUs were not idle, as the OS "
            "reports it (cpudata, 8.0.23+). A busy host beside idle data node threads means "
            "other processes compete for the CPUs.",
            "percentunit",
            q(top(f"1 - max by (node_id) ({host_idle})"), "node {{node_id}}"),
            min_value=0,
            max_value=1,
            width=8,
        ),
    )


def _transactions_row(layout: Layout) -> None:
    open_tx = _node("ndb_transactions_open")
    inactive = _node("ndb_transaction_longest_inactive_seconds")
    locks = _node("ndb_locks")
    longest = _node("ndb_lock_longest_seconds")
    key = rate("ndb_tc_operation_duration_seconds_bucket", 'operation="key"', node=True)
    pgman = rate("ndb_pgman_operation_duration_seconds_bucket", node=True)
    errors = _node_rate("ndb_tc_operation_errors_total")
    operations = _node_rate("ndb_tc_operation_duration_seconds_count")
    layout.row(
        "Latency, transactions and locks",
        timeseries_panel(
            "Key operation latency p99 per node",
            "99th percentile of key operations coordinated by each data node "
            "(tc_time_track_stats), the ten slowest. One node slower than the others points "
            "to that node's threads, disks or links (NdbOperationLatencyHigh).",
            "s",
            q(
                top(
                    f"histogram_quantile(0.99, sum by (node_id, le) (max by (node_id, le) ({key})))"
                ),
                "node {{node_id}}",
            ),
            min_value=0,
            width=8,
            threshold_line=alert_steps(threshold("NdbOperationLatencyHigh")),
        ),
        timeseries_panel(
            "Disk data latency p99",
            "99th percentile of disk data page reads, page writes and undo log waits per "
            "data node (pgman_time_track_stats); flat at 0 without disk data tables.",
            "s",
            q(
                top(
                    "histogram_quantile(0.99, sum by (node_id, operation, le)"
                    f" (max by (node_id, operation, le) ({pgman})))"
                ),
                "node {{node_id}} {{operation}}",
            ),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Open transactions",
            "Transactions open in each data node's transaction coordinators "
            "(cluster_transactions), the ten nodes with the most.",
            "none",
            q(
                top(
                    f"sum by (node_id) (max by (node_id, state) ({open_tx}))"
                    f" or max by (node_id) ({inactive}) * 0"
                ),
                "node {{node_id}} open",
            ),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Longest idle transaction",
            "The longest any open transaction of each data node has been idle waiting for "
            "its client, the ten longest. An idle transaction keeps its locks; "
            "NdbLongRunningTransaction fires above "
            f"{threshold('NdbLongRunningTransaction'):g} s.",
            "s",
            per_node(inactive),
            min_value=0,
            width=8,
            threshold_line=alert_steps(threshold("NdbLongRunningTransaction")),
        ),
        timeseries_panel(
            "Operation errors",
            "Share of the transactions, key operations and scans each data node coordinated "
            "that ended in an error (tc_time_track_stats), the ten highest. Errors include "
            "the application's own (duplicate keys, rows not found) as well as timeouts and "
            "overloads; NdbOperationErrorsHigh fires above "
            f"{threshold('NdbOperationErrorsHigh', after='/'):.0%} at more than one error a "
            "second.",
            "percentunit",
            q(
                top(
                    f"max by (node_id, operation) ({errors}) / ((max by (node_id, operation)"
                    f" ({errors}) + max by (node_id, operation) ({operations})) > 0)"
                ),
                "node {{node_id}} {{operation}}",
            ),
            min_value=0,
            width=8,
            threshold_line=alert_steps(threshold("NdbOperationErrorsHigh", after="/")),
        ),
        timeseries_panel(
            "Row locks",
            "Row locks held and lock requests waiting per data node (cluster_locks). Waiters "
            "at every scrape mean contention on hot rows (NdbLockWaits).",
            "none",
            per_node(locks, "state"),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Longest lock wait and hold",
            "The longest a lock request has waited, and a lock has been held, per data node. "
            "Waits end at TransactionDeadlockDetectionTimeout (1.2 s by default) with error "
            "266; holds grow with idle transactions.",
            "s",
            per_node(longest, "state"),
            min_value=0,
            width=8,
        ),
    )


def _transporter_row(layout: Layout) -> None:
    sent = _node_rate("ndb_transporter_sent_bytes_total")
    received = _node_rate("ndb_transporter_received_bytes_total")
    overloads = _node_rate("ndb_transporter_overloads_total")
    slowdowns = _node_rate("ndb_transporter_slowdowns_total")
    connects = increase("ndb_transporter_connects_total", node=True)
    not_connected = _node("ndb_transporter_links", 'state!="CONNECTED"')
    layout.row(
        "Transporters",
        timeseries_panel(
            "Bytes sent per data node",
            "Bytes per second each data node sends over its transporters (to data, API and "
            "management nodes). Compare with the link speed between the hosts.",
            "Bps",
            q(
                top(f"max by (node_id) ({sent})"),
                "node {{node_id}} sent",
            ),
            q(
                top(f"max by (node_id) ({received})"),
                "node {{node_id}} received",
            ),
            min_value=0,
        ),
        timeseries_panel(
            "Transporter overloads and slowdowns",
            "How often a transporter's send buffer crossed the overload limit (new requests "
            "are refused with error 1218) or the slowdown limit (scans are slowed down), the "
            "ten highest of each. Nonzero rates call for more SendBufferMemory or "
            "TotalSendBufferMemory, or a faster network (NdbTransporterOverloaded).",
            "ops",
            q(
                top(f"max by (node_id) ({overloads})"),
                "node {{node_id}} overloads",
            ),
            q(
                top(f"max by (node_id) ({slowdowns})"),
                "node {{node_id}} slowdowns",
            ),
            min_value=0,
        ),
        timeseries_panel(
            "Transporters not connected",
            "Transporters of each data node to its configured peers that are not CONNECTED. "
            "Transporters to free API slots are DISCONNECTED by design, so compare a node with "
            "its peers and with its own past: a rise means a node is down or the network "
            "between them is broken (per-link states: the transporter_links collector).",
            "none",
            q(
                top(f"sum by (node_id) (max by (node_id, state) ({not_connected}))"),
                "node {{node_id}}",
            ),
            min_value=0,
            height=10,
        ),
        timeseries_panel(
            "Transporter reconnects",
            "New connections made by each data node's transporters in the interval. Repeated "
            "reconnects between the same nodes point at an unstable network or at a node "
            "that keeps restarting.",
            "none",
            q(
                top(f"max by (node_id) ({connects})"),
                "node {{node_id}}",
            ),
            min_value=0,
            height=10,
        ),
        timeseries_panel(
            "Links overloaded and in slowdown now",
            "Transporters of each data node that are overloaded or in slowdown at the scrape "
            "(ndbinfo.transporters), the ten nodes with the most. A link that stays overloaded "
            "refuses new requests (NdbTransporterOverloaded); one in slowdown slows scans. A "
            "scrape sees only the links in slowdown at that moment: the next panel counts them "
            "all.",
            "none",
            per_node(_node("ndb_transporter_overloaded_links"), suffix="overloaded", k=5),
            per_node(_node("ndb_transporter_slowdown_links"), suffix="in slowdown", k=5),
            min_value=0,
            height=10,
        ),
        timeseries_panel(
            "Slowdowns per 5 minutes",
            "Times a data node's links entered slowdown, per 5 minutes at the current rate "
            "(slowdown_count "
            "of ndbinfo.transporters, kept counting across reconnects by the exporter), the ten "
            "nodes with the most. Above the line for 5 minutes: NdbTransporterSlowdown.",
            "none",
            per_node(f"{slowdowns} * 300"),
            min_value=0,
            height=10,
            threshold_line=alert_steps(threshold("NdbTransporterSlowdown", after="[5m])")),
        ),
    )


def _send_buffer_row(layout: Layout) -> None:
    allocated = _node("ndb_send_buffer_allocated_bytes")
    limit = _node("ndb_send_buffer_limit_bytes")
    used = _node("ndb_send_buffer_used_bytes")
    fullest = _node("ndb_send_buffer_fullest_link_bytes")
    layout.row(
        "Send buffers",
        timeseries_panel(
            "Send buffer memory allocated",
            "Share of the send buffer memory a data node may use (TotalSendBufferMemory, the "
            "TRANSPORTER_BUFFERS pool of ndbinfo.resources) that its links hold "
            "(ndbinfo.transporter_details, 8.0.37+). Near the top, links overload and "
            "transactions abort with error 1218; NdbSendBufferHigh fires above "
            f"{threshold('NdbSendBufferHigh'):.0%}. The ten fullest nodes.",
            "percentunit",
            q(
                top(f"max by (node_id) ({allocated}) / (max by (node_id) ({limit}) > 0)"),
                "node {{node_id}}",
            ),
            min_value=0,
            max_value=1,
            threshold_line=alert_steps(threshold("NdbSendBufferHigh")),
        ),
        timeseries_panel(
            "Send buffer bytes waiting",
            "Bytes queued for sending on all links of each data node, and on its fullest "
            "link. A queue that stays up while the traffic does not grow points at a slow "
            "receiver or network, or at busy send threads.",
            "bytes",
            per_node(used, suffix="all links"),
            per_node(fullest, suffix="fullest link"),
            min_value=0,
        ),
    )


def _disk_row(layout: Layout) -> None:
    def requests(result: str) -> str:
        matcher = f'result="{result}"'
        per_node = _node_rate("ndb_disk_page_buffer_page_requests_total", matcher)
        return f"sum by (node_id) (max by (node_id, result) ({per_node}))"

    hits, waits = requests("direct_return"), requests("wait_io")
    hit_ratio = threshold("NdbDiskPageBufferHitRatioLow", after='wait_io"')
    log_waits = _node_rate("ndb_disk_page_buffer_log_waits_total")
    written = _node_rate("ndb_disk_page_buffer_pages_written_total")
    read = _node_rate("ndb_disk_page_buffer_pages_read_total")
    speed = _node("ndb_disk_write_speed_bytes_per_second", 'window="10s"')
    layout.row(
        "Disk",
        timeseries_panel(
            "Disk page buffer hit ratio",
            "Page requests served from the page buffer against those that waited for a disk "
            "read, direct_return / (direct_return + wait_io), the NDB manual's hit ratio "
            "(ndbinfo.diskpagebuffer; requests queued behind a read already in progress are "
            "left out), the ten lowest. Only tables with STORAGE DISK use it. The line is "
            f"{hit_ratio:.0%}, where NdbDiskPageBufferHitRatioLow fires: below it, raise "
            "DiskPageBufferMemory (after a restart the buffer warms up first).",
            "percentunit",
            q(bottom(f"{hits} / (({hits} + {waits}) > 0)"), "node {{node_id}}"),
            min_value=0,
            max_value=1,
            width=8,
            threshold_line=alert_steps(hit_ratio, below=True),
        ),
        timeseries_panel(
            "Disk page buffer I/O",
            "Disk-data pages read into and written from the page buffer per second, the "
            "busiest nodes; writes are split into those made by local checkpoints and the "
            "rest; log waits are page writes that waited for the undo log to be flushed.",
            "ops",
            per_node(read, suffix="read", k=5),
            q(
                top(f"max by (node_id, cause) ({written})", 5),
                "node {{node_id}} written ({{cause}})",
            ),
            per_node(log_waits, suffix="log waits", k=5),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Disk write speed",
            "Bytes per second written by local checkpoints and backups, and by the redo log, "
            "averaged over the last 10 s (ndbinfo.disk_write_speed_aggregate). LCP speed is "
            "adaptive between MinDiskWriteSpeed and MaxDiskWriteSpeed; if it sits at the "
            "maximum while the redo log fills, the disk is too slow for the write load.",
            "Bps",
            per_node(speed, "kind"),
            min_value=0,
            width=8,
        ),
        timeseries_panel(
            "Redo writes lagging",
            "Share of the time the LDM threads' redo log writes lagged behind the disk "
            "(slowdowns_due_to_io_lag of ndbinfo.disk_write_speed_aggregate, which also slows "
            "the checkpoint write speed), the ten nodes with the most. Above the line for 5 "
            "minutes: NdbRedoWritesLagging, which also fires when the REDO log buffers hold "
            "more than 2 seconds of redo writes (this share stays 0 when MinDiskWriteSpeed "
            "equals MaxDiskWriteSpeed); global checkpoints (GCP_SAVE) wait on the same disk.",
            "percentunit",
            per_node(_node_rate("ndb_redo_io_lag_seconds_total")),
            min_value=0,
            width=8,
            threshold_line=alert_steps(
                threshold("NdbRedoWritesLagging", after="ndb_redo_io_lag_seconds_total")
            ),
        ),
    )


def _restart_row(layout: Layout) -> None:
    layout.row(
        "Restarts",
        timeseries_panel(
            "Uptime",
            "Time since each data node started, the ten most recently started. A reset is a "
            "node restart.",
            "s",
            per_node(_node("ndb_data_node_uptime_seconds"), lowest=True),
            min_value=0,
        ),
        timeseries_panel(
            "Start phase",
            "Start phase of each data node; it climbs through the phases during a restart "
            "and is 0 once the node has started. A node that sits in one phase for long is "
            "waiting (for example on a copy of data from its node group peer).",
            "none",
            per_node(_node("ndb_data_node_start_phase")),
            min_value=0,
        ),
        bargauge_panel(
            "Last restart duration",
            "Total duration of each data node's most recent restart and its status "
            "(ndbinfo.restart_info), the ten longest. "
            "Long restarts usually spend their time copying data or executing the redo log; "
            "the table beside it breaks the time down by phase.",
            "s",
            q(
                top(
                    f"max by (node_id) ({_node('ndb_restart_duration_seconds')})"
                    " * on (node_id) group_left (status)"
                    f" max by (node_id, status) ({_node('ndb_restart_status')})"
                ),
                "node {{node_id}}: {{status}}",
                instant=True,
            ),
            steps=NEUTRAL,
        ),
        matrix_table(
            "Restart phases",
            "Seconds each data node spent in each phase of its most recent restart, one "
            "column per node (with --collector.restart_info.phases=true). Copying fragments "
            "and executing the redo log dominate large restarts.",
            q(
                f"max by (node_id, phase) ({_node('ndb_restart_phase_seconds')})",
                table=True,
            ),
            rows="phase",
            columns="node_id",
            unit="s",
        ),
    )


def board() -> Board:
    layout = Layout(
        UID,
        "NDB Cluster / Data nodes",
        "Per data node: memory, redo and undo logs, thread CPU, transporters, disk and restarts.",
        node_filter=True,
    )
    _status_row(layout)
    _memory_row(layout)
    _log_row(layout)
    _thread_row(layout)
    _activity_row(layout)
    _transactions_row(layout)
    _transporter_row(layout)
    _send_buffer_row(layout)
    _disk_row(layout)
    _restart_row(layout)
    return layout.build()
