"""Replication findings: a replica's channels stopped, behind or facing a gap in the source's
binary log, and a binlog server's injector falling behind its cluster.

A SQL node that does not replicate passes these checks quietly: when the collector that
reads them succeeded, no channel and no binlog row are not a problem. They are unknown when
that collector did not run (off, skipped) or failed.
"""

from __future__ import annotations

from collections.abc import Callable

from ndbinfo_exporter.health import thresholds
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.findings.wording import count, gcis, joined
from ndbinfo_exporter.health.models import BinlogInjector, Evidence, Finding, ReplicaChannel

REPLICA_STATUS_SQL = "SHOW REPLICA STATUS  -- SHOW SLAVE STATUS before 8.0.22: a row per channel"
BINLOG_SQL = (
    "SHOW ENGINE NDBCLUSTER STATUS  -- the row named binlog: latest_epoch,\n"
    "  -- latest_received_binlog_epoch, latest_handled_binlog_epoch, latest_applied_binlog_epoch\n"
    "SHOW GLOBAL STATUS LIKE 'Ndb_last_commit_epoch_server';  -- GCI = epoch >> 32"
)
GUIDE = "Replication (MySQL manual, NDB Cluster Replication)"
NOT_A_REPLICA = "This SQL node has no replica channel: it is not a replica."
NO_BINLOG = "This SQL node writes no binary log of NDB changes: it is no binlog server."


def channel_name(channel: ReplicaChannel) -> str:
    return f"channel '{channel.channel}'" if channel.channel else "the default channel"


def _error(number: int | None) -> str:
    return "n/a" if number is None else str(number)


def channel_state(channel: ReplicaChannel) -> str:
    return (
        f"I/O {channel.io_thread or 'n/a'} (error {_error(channel.last_io_error_number)}), "
        f"SQL {channel.sql_thread or 'n/a'} (error {_error(channel.last_sql_error_number)})"
    )


def _read(inputs: Inputs, collector: str) -> bool:
    """The collector ran in this scrape and succeeded."""
    return inputs.samples.value("ndb_exporter_collector_success", collector=collector) == 1


def replica_check(
    problem: Callable[[ReplicaChannel], bool],
    evidence: Callable[[ReplicaChannel], str],
    ok: str,
    found: str,
) -> Callable[[Check, Inputs], Finding]:
    """A check of each channel: ``found`` is formatted with the channels where ``problem``
    holds ({channels})."""

    def evaluate(check: Check, inputs: Inputs) -> Finding:
        if not _read(inputs, "replica_status"):
            return check.no_data("replica_status")
        channels = inputs.cluster.replication.channels
        if not channels:
            return check.finding("ok", NOT_A_REPLICA)
        bad = [c for c in channels if problem(c)]
        shown = [Evidence(label=channel_name(c), value=evidence(c)) for c in bad or channels]
        if not bad:
            return check.finding("ok", ok, shown)
        names = joined([channel_name(c) for c in bad])
        return check.finding("problem", found.format(channels=names), shown)

    return evaluate


def _stopped(channel: ReplicaChannel) -> bool:
    return channel.io_thread not in (None, "yes") or channel.sql_thread not in (None, "yes")


REPLICATION_STOPPED = Check(
    id="replication_stopped",
    title="Replication stopped",
    severity="critical",
    promql=(
        'ndb_replica_io_thread_state{state!="yes"} == 1\n'
        '  or ndb_replica_sql_thread_state{state!="yes"} == 1'
    ),
    sql=REPLICA_STATUS_SQL
    + "\n  -- Replica_IO_Running, Replica_SQL_Running, Last_IO_Errno, Last_SQL_Errno",
    guide=GUIDE,
    advice=(
        "Read Last_IO_Error and Last_SQL_Error in SHOW REPLICA STATUS. An I/O thread that is "
        "connecting cannot reach the source (2003: network, the source's mysqld, the "
        "replication user); a stopped SQL thread stopped on an error it names. Fix the "
        "cause, then START REPLICA; the replica resumes from the epoch in "
        "mysql.ndb_apply_status."
    ),
    family="replication",
    reads=("replica_status",),
    evaluate=replica_check(
        _stopped,
        channel_state,
        ok="The I/O and SQL threads of every channel run.",
        found="Replication is stopped on {channels}: the replica no longer follows its source.",
    ),
)


def _behind(channel: ReplicaChannel) -> str:
    seconds = channel.seconds_behind_source
    return "n/a (applier stopped)" if seconds is None else f"{seconds:,.0f} s behind the source"


REPLICATION_LAG_HIGH = Check(
    id="replication_lag_high",
    title="Replica far behind its source",
    severity="warning",
    promql=(
        f"ndb_replica_seconds_behind_source > {thresholds.REPLICATION_LAG_SECONDS}\n"
        f"  or cluster:ndb_replica_applied_gci:lag > {thresholds.REPLICATION_LAG_GCIS}"
    ),
    sql=REPLICA_STATUS_SQL
    + "  -- Seconds_Behind_Source\n"
    + "SELECT server_id, epoch >> 32 AS gci FROM mysql.ndb_apply_status;  -- on the replica",
    guide=GUIDE,
    advice=(
        "The applier does not keep up: look for a large transaction or a table without a "
        "primary key on the source, data nodes of the replica short of resources, or a slow "
        "network to the source. The epoch lag per source server_id (the source's written "
        "GCI minus the applied GCI here) needs both clusters in Prometheus: see the "
        "Replication dashboard."
    ),
    family="replication",
    reads=("replica_status",),
    evaluate=replica_check(
        lambda c: (c.seconds_behind_source or 0) > thresholds.REPLICATION_LAG_SECONDS,
        _behind,
        ok=f"No channel is more than {thresholds.REPLICATION_LAG_SECONDS} s behind its source.",
        found=(
            "Replication on {channels} is more than "
            f"{thresholds.REPLICATION_LAG_SECONDS} s behind the source."
        ),
    ),
)

BINLOG_GAP = Check(
    id="binlog_gap",
    title="Gap in the source's binary log",
    severity="critical",
    promql=f"ndb_replica_last_sql_error_number == {thresholds.BINLOG_GAP_ERROR}",
    sql=REPLICA_STATUS_SQL + "  -- Last_SQL_Errno, Last_SQL_Error",
    guide=GUIDE,
    advice=(
        "Error 1590: the source's binary log holds an incident (LOST_EVENTS), written when "
        "its binlog injector lost changes (the event buffer overflowed, the SQL node "
        "restarted or lost the cluster). The replica misses those changes: skipping the "
        "incident leaves it inconsistent. Resynchronise it: restore a backup of the source "
        "on the replica and start replication from the epoch the backup holds."
    ),
    family="replication",
    reads=("replica_status",),
    evaluate=replica_check(
        lambda c: c.last_sql_error_number == thresholds.BINLOG_GAP_ERROR,
        channel_state,
        ok="No channel stopped on a gap in the source's binary log.",
        found=(
            "Replication on {channels} stopped on error 1590: the source's binary log has a "
            "gap, changes are missing on the replica."
        ),
    ),
)


def injector_check(
    lag: Callable[[BinlogInjector], int | None], limit: int, what: str
) -> Callable[[Check, Inputs], Finding]:
    """A check of the binlog injector: ``lag`` in GCIs against ``limit``."""

    def evaluate(check: Check, inputs: Inputs) -> Finding:
        if not _read(inputs, "binlog"):
            return check.no_data("binlog")
        injector = inputs.cluster.replication.binlog
        if injector is None:
            return check.finding("ok", NO_BINLOG)
        behind = lag(injector)
        evidence = [
            Evidence(label=label, value=count(value))
            for label, value in (
                ("committed GCI", injector.committed_gci),
                ("buffered GCI", injector.buffered_gci),
                ("received GCI", injector.received_gci),
                ("handled GCI", injector.handled_gci),
                ("written GCI", injector.written_gci),
            )
        ]
        if behind is None:
            return check.finding("unknown", f"The {what} cannot be computed.", evidence)
        summary = f"The {what} is {gcis(behind)} (threshold {limit})."
        return check.finding("problem" if behind > limit else "ok", summary, evidence)

    return evaluate


BINLOG_INJECTOR_BEHIND = Check(
    id="binlog_injector_behind",
    title="Binlog injector behind its cluster",
    severity="warning",
    promql=(
        "floor(max by (cluster) (ndb_sql_last_commit_epoch) / 2^32)\n"
        f"  - on (cluster) group_right ndb_binlog_handled_gci > {thresholds.INJECTOR_LAG_GCIS}"
    ),
    sql=BINLOG_SQL,
    guide=GUIDE,
    advice=(
        "The binlog injector of this SQL node handles epochs more slowly than the cluster "
        "commits them: the replicas fall behind, and the event buffer fills until it "
        "overflows and the binary log gets a gap. Look for CPU or disk limits of this mysqld "
        "(binary log writes, sync_binlog), or very large transactions."
    ),
    family="replication",
    reads=("binlog", "status"),
    evaluate=injector_check(
        lambda i: i.injector_lag_gcis, thresholds.INJECTOR_LAG_GCIS, "binlog injector's lag"
    ),
)

EVENT_BUFFER_BACKLOG = Check(
    id="event_buffer_backlog",
    title="Event buffer backlog",
    severity="warning",
    promql=(f"ndb_binlog_buffered_gci - ndb_binlog_received_gci > {thresholds.EVENT_BUFFER_GCIS}"),
    sql=BINLOG_SQL,
    guide=GUIDE,
    advice=(
        "Epochs wait in the event buffer because the injector takes them out more slowly "
        "than the data nodes deliver them. When ndb_eventbuffer_max_alloc is reached the "
        "buffer overflows, events are lost and the binary log gets a LOST_EVENTS incident "
        "(the replica stops with 1590). The cluster log's 'Event buffer status' lines give "
        "its bytes; raise ndb_eventbuffer_max_alloc only with memory to spare."
    ),
    family="replication",
    reads=("binlog", "status"),
    evaluate=injector_check(
        lambda i: i.event_buffer_gcis, thresholds.EVENT_BUFFER_GCIS, "event buffer"
    ),
)
