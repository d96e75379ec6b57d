"""Every check in a fixed order, and the findings as the view lists them."""

from __future__ import annotations

from collections.abc import Sequence

from ndbinfo_exporter.health.findings import (
    availability,
    configuration,
    distribution,
    management,
    network,
    performance,
    queries,
    replication,
    storage,
)
from ndbinfo_exporter.health.findings.check import Check
from ndbinfo_exporter.health.findings.inputs import Inputs
from ndbinfo_exporter.health.models import Finding

# Findings of equal status and severity keep this order.
CHECKS: tuple[Check, ...] = (
    availability.NDB_NOT_VISIBLE,
    availability.CLUSTER_NOT_VISIBLE,
    availability.DEAD_REPLICAS,
    availability.NO_ARBITRATOR,
    availability.NODES_GONE,
    availability.DATA_NODE_RESTARTED,
    management.BACKUP_FAILED,
    management.BACKUP_NOT_COMPLETED,
    management.MGMD_UNREACHABLE,
    replication.REPLICATION_STOPPED,
    replication.BINLOG_GAP,
    replication.REPLICATION_LAG_HIGH,
    replication.BINLOG_INJECTOR_BEHIND,
    replication.EVENT_BUFFER_BACKLOG,
    network.TRANSPORTER_OVERLOADED,
    storage.DATA_MEMORY_FULL,
    storage.REDO_LOG_FULL,
    storage.LCP_OLD,
    distribution.READ_BACKUP_OFF,
    queries.LOW_PARTITION_PRUNING,
    queries.MANY_ROUND_TRIPS,
    distribution.UNBALANCED_PRIMARIES,
    configuration.CONFIG_INCONSISTENT,
    configuration.VERSION_SKEW,
    configuration.CONFIG_GENERATION_SKEW,
    performance.HOT_TABLE_PRIMARY_READS,
    performance.LDM_SATURATED_TC_IDLE,
    performance.IDLE_TRANSACTIONS_HOLDING_LOCKS,
    performance.OPERATION_ERRORS_HIGH,
    network.SEND_BUFFERS_FULL,
    storage.TABLESPACE_FULL,
    storage.DISK_PAGE_BUFFER_HIT_LOW,
)

ORDER = {"problem": 0, "unknown": 1, "ok": 2}
SEVERITY = {"critical": 0, "warning": 1, "info": 2}
# Critical problems under which nothing is judged healthy, and how the other checks say so.
BLINDING = {
    availability.NDB_NOT_VISIBLE.id: "NDB is not visible",
    availability.CLUSTER_NOT_VISIBLE.id: "no data node is ready",
}


def evaluate(inputs: Inputs) -> list[Finding]:
    """Every check, problems first (most severe first), then unknown, then ok."""
    return evaluated(CHECKS, inputs)


def evaluated(checks: Sequence[Check], inputs: Inputs) -> list[Finding]:
    """These checks, in the order of ``evaluate``. With NDB not visible or no data node ready
    nothing is judged healthy: a check that passed on what the SQL node alone reports (its
    counters) is unknown too."""
    findings = [check(inputs) for check in checks]
    blind = next(
        (
            BLINDING[f.id]
            for f in findings
            if f.id in BLINDING and f.status == "problem" and f.severity == "critical"
        ),
        None,
    )
    if blind is not None:
        findings = [
            f.model_copy(
                update={"status": "unknown", "summary": f"Not judged while {blind}. {f.summary}"}
            )
            if f.status == "ok"
            else f
            for f in findings
        ]
    return ordered(findings)


def ordered(findings: Sequence[Finding]) -> list[Finding]:
    """Problems first (most severe first), then unknown, then ok; equal ones keep their order."""
    return sorted(findings, key=lambda f: (ORDER[f.status], SEVERITY[f.severity]))
