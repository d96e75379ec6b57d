"""The alerts of the compressed-clock test (test_e2e_slow_alerts.py), each with the ndbsim fault
that makes it true and the labels it then carries; the fault-to-alert matrix checks its rows
"compressed clock" against them."""

from __future__ import annotations

from dataclasses import dataclass

CLUSTER = "slow"
# The same simulated cluster through an exporter that reads no management server and only
# the backup collector: where NdbBackupTooOld follows the backups started.
STARTED_ONLY = "slow-no-mgmd"
# The growth faults start at 55%: the alerts' "at least half used" holds at once.
GROWTH_START = 0.55
STUCK_NODE = 4  # stuck-start holds a start that begins while it is set: stop, set, start
# rate: the share of the total the resource grows by a cluster hour
LOG_GROWTH = {"rate": 0.1, "share": GROWTH_START}
SPACE_GROWTH = {"rate": 0.05, "share": GROWTH_START}
# The tablespace's trend reads 6 hours of growth (DataMemory's 1): slower, so that it stays true
# for hours of cluster time after VictoriaMetrics first sees it.
TABLESPACE_GROWTH = {"rate": 0.03, "share": GROWTH_START}


@dataclass(frozen=True)
class Case:
    fault: str
    params: dict[str, float]
    labels: dict[str, str]  # labels the fault gives the alert


# Each alert and the fault that makes it true.
SCENARIO: dict[str, Case] = {
    "NdbDataMemoryExhaustionPredicted": Case("data-memory-growth", SPACE_GROWTH, {}),
    "NdbRedoLogExhaustionPredicted": Case("redo-log-growth", LOG_GROWTH, {}),
    "NdbUndoLogExhaustionPredicted": Case("undo-log-growth", LOG_GROWTH, {}),
    "NdbTablespaceExhaustionPredicted": Case(
        "tablespace-growth", TABLESPACE_GROWTH, {"filegroup": "ts_1"}
    ),
    "NdbBackupNotCompleted": Case("backups-stopped", {}, {"cluster": CLUSTER}),
    "NdbBackupTooOld": Case("backups-stopped", {}, {"cluster": STARTED_ONLY}),
    "NdbRestartPhaseStuck": Case("stuck-start", {"node": STUCK_NODE}, {"node_id": str(STUCK_NODE)}),
    "NdbVersionSkew": Case("old-version", {"node": 3}, {"cluster": CLUSTER}),
    "NdbConfigGenerationSkew": Case("old-config-generation", {"node": 2}, {"node_id": "2"}),
}
