"""Every threshold of the cluster view's findings, beside the alert rule it mirrors.

The view's findings and the alerts (provisioning/prometheus/rules) must not disagree on when
something is a problem: tests/health/test_thresholds.py reads the alert rules and checks each
alert named here compares with the same number.
"""

from __future__ import annotations

DATA_MEMORY_WARNING = 0.8  # NdbDataMemoryHigh
DATA_MEMORY_CRITICAL = 0.95  # NdbDataMemoryCritical
REDO_WARNING = 0.7  # NdbRedoLogSpaceHigh
REDO_CRITICAL = 0.9  # NdbRedoLogSpaceCritical
# NdbLcpStalled: 10 minutes at the default TimeBetweenGlobalCheckpoints of 2 s.
LCP_AGE_GCIS = 300
SEND_BUFFER_WARNING = 0.8  # NdbSendBufferHigh
SEND_BUFFER_CRITICAL = 0.95
TABLESPACE_WARNING = 0.8
TABLESPACE_CRITICAL = 0.9  # NdbTablespaceFull (under 10 % of the extents free)
IDLE_TRANSACTION_SECONDS = 60  # NdbLongRunningTransaction
REPLICATION_LAG_SECONDS = 300  # NdbReplicationLagHigh: Seconds_Behind_Source
# NdbReplicationLagHigh: the epoch lag, one GCI per TimeBetweenGlobalCheckpoints (2 s): 300 s.
REPLICATION_LAG_GCIS = 150
INJECTOR_LAG_GCIS = 30  # NdbBinlogInjectorBehind
EVENT_BUFFER_GCIS = 10  # NdbEventBufferHigh
# NdbBinlogGap: Last_SQL_Errno 1590 (ER_REPLICA_INCIDENT), the source's binary log has a
# LOST_EVENTS incident: a gap.
BINLOG_GAP_ERROR = 1590

PRUNED_SCAN_RATIO_LOW = 0.5
ROUND_TRIPS_PER_COMMIT_HIGH = 4.0
PRIMARY_SPREAD_HIGH = 0.2  # (max - min) / max of the primaries within one node group
HOT_TABLE_SHARE = 0.3  # of the key reads of the tables the hot_tables collector exports
LDM_SATURATED = 0.85  # exec share of the last second
TC_IDLE = 0.3

# Fewer samples than these in the window say nothing about pruning or round trips.
MIN_SCANS = 20
MIN_COMMITS = 20

# NdbOperationErrorsHigh: more than 5% of a data node's transactions, key operations or scans
# end in an error, at more than one error a second.
OPERATION_ERROR_SHARE = 0.05
OPERATION_ERRORS_MIN_PER_SECOND = 1
# NdbDataNodeRestarted: a data node whose uptime went back to zero within 15 minutes.
RESTART_RECENT_SECONDS = 15 * 60

# NdbBackupNotCompleted: hours since the last backup completed (as the management server's
# cluster log says), 26 so that a daily backup may run two hours late.
BACKUP_AGE_HOURS = 26

# Alert name -> the threshold (or thresholds) its expression compares with.
ALERTS: dict[str, float | tuple[float, ...]] = {
    "NdbDataMemoryHigh": DATA_MEMORY_WARNING,
    "NdbDataMemoryCritical": DATA_MEMORY_CRITICAL,
    "NdbRedoLogSpaceHigh": REDO_WARNING,
    "NdbRedoLogSpaceCritical": REDO_CRITICAL,
    "NdbLcpStalled": LCP_AGE_GCIS,
    "NdbSendBufferHigh": SEND_BUFFER_WARNING,
    "NdbLongRunningTransaction": IDLE_TRANSACTION_SECONDS,
    "NdbReplicationLagHigh": (REPLICATION_LAG_SECONDS, REPLICATION_LAG_GCIS),
    "NdbBinlogInjectorBehind": INJECTOR_LAG_GCIS,
    "NdbEventBufferHigh": EVENT_BUFFER_GCIS,
    "NdbOperationErrorsHigh": (OPERATION_ERRORS_MIN_PER_SECOND, OPERATION_ERROR_SHARE),
    "NdbBackupNotCompleted": BACKUP_AGE_HOURS,
}
# Alert name -> the window, in seconds, of its range selector.
WINDOW_ALERTS = {
    "NdbDataNodeRestarted": RESTART_RECENT_SECONDS,
}
# Alert name -> the value its expression tests for equality.
EQUALITY_ALERTS = {
    "NdbBinlogGap": BINLOG_GAP_ERROR,
}
# Alert name -> the used share whose complement, the free share, its expression stays above.
FREE_SHARE_ALERTS = {
    "NdbTablespaceFull": TABLESPACE_CRITICAL,
}

# NdbDiskPageBufferHitRatioLow: the manual's hit ratio of the disk page buffer,
# direct_return / (direct_return + wait_io), judged at 10 page requests a second or more and
# once a (re)started node has run 30 minutes (its cache is cold before).
DISK_PAGE_BUFFER_HIT_RATIO_LOW = 0.95
DISK_PAGE_BUFFER_MIN_REQUESTS_PER_SECOND = 10
DISK_PAGE_BUFFER_WARMUP_SECONDS = 1800
ALERTS["NdbDiskPageBufferHitRatioLow"] = (
    DISK_PAGE_BUFFER_MIN_REQUESTS_PER_SECOND,
    DISK_PAGE_BUFFER_WARMUP_SECONDS,
)
# Alert name -> the threshold its expression fires below.
BELOW_ALERTS = {
    "NdbDiskPageBufferHitRatioLow": DISK_PAGE_BUFFER_HIT_RATIO_LOW,
}

# A restarted data node is done when its mean operation latency (each of transactions, key
# operations and scans, as its TC measures them) is at most this many times the median of its
# started peers', judged once it has run this many operations of the kind.
RESTART_LATENCY_FACTOR = 2.0
RESTART_LATENCY_MIN_OPERATIONS = 100
