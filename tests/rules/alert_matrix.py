"""The fault-to-alert matrix as data: each ndbsim fault, the alerts it must make active (pending
or firing) on the cluster it hits, and nothing else. docs/alert-matrix.md is this table
(`markdown_table`, held equal by tests/rules/test_alert_matrix.py).

The data names no rule evaluator: a runner (matrix_runner.py) applies each row's steps to a
simulated cluster through ndbsim's control API and asks a rule evaluator which alerts are
active. Alerts are counted by their labels: an alert of a cluster-wide signal is active once
per cluster (its labels name no SQL node: `instance` and `job` aggregated away), whichever
and however many SQL nodes report the signal; an alert of one SQL node's own signal
(PER_SQL_NODE) names that SQL node.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.rules.matrix_judges import expected

# Alerts on one SQL node's (or exporter's) own signal: one per SQL node, with its `instance`.
PER_SQL_NODE = frozenset(
    {
        "NdbExporterDown",
        "NdbSqlNodeUnreachable",
        "NdbEngineUnavailable",
        "NdbExporterCollectorFailing",
        "NdbClusterDown",
        "NdbSqlNodeDisconnected",
        "NdbTransactionAbortsHigh",
        "NdbReplicationStopped",
        "NdbReplicationLagHigh",
        "NdbBinlogInjectorBehind",
        "NdbEventBufferHigh",
        "NdbBinlogGap",
        "NdbReplicationConflicts",
        "NdbSubscriberEpochLagHigh",
    }
)

# How a row is proven end to end:
LIVE = "live"  # the matrix runner, at the shipped scrape and evaluation intervals
FAST = "live, fast cluster"  # the matrix runner, on a cluster whose ndbsim runs 10x faster
COMPRESSED = "compressed clock"  # test_e2e_slow_alerts.py: ndbsim and the rules' clock 900x


@dataclass(frozen=True)
class Step:
    """One action on the simulated cluster: `fault` (set `name` with `params`), `clear`,
    `stop` / `start` (node `node`), `restart` (stop and start `node`), `backup` (START
    BACKUP), `stop-exporter` (the exporter of SQL node `node`), `wait` (`seconds`); and what a
    DBA runs through a MySQL client: `purge-binlogs` (PURGE BINARY LOGS TO the newest file on
    binlog server `node`), `failover` (the manual's channel failover of the replica to binlog
    server `node`)."""

    action: str
    name: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    node: int = 0
    cluster: str | None = None  # "replica": the replica cluster of ndbsim --replica

    def text(self) -> str:
        if self.action in ("fault", "clear"):
            args = " ".join(f"{k}={v}" for k, v in self.params.items())
            return f"{'' if self.action == 'fault' else 'clear '}{self.name} {args}".strip()
        if self.action == "backup":
            return "START BACKUP"
        if self.action == "wait":
            return f"wait {self.params['seconds']} s"
        if self.action == "purge-binlogs":
            return f"PURGE BINARY LOGS on SQL node {self.node}"
        if self.action == "failover":
            return f"the replica's channel failed over to SQL node {self.node}"
        return f"{self.action} {self.node}"

    def undo(self) -> Step | None:
        """The step that takes this one back: a fault is cleared, a stopped node started."""
        if self.action == "fault":
            return Step("clear", self.name, cluster=self.cluster)
        if self.action == "stop":
            return Step("start", node=self.node, cluster=self.cluster)
        return None


def fault(name: str, **params: Any) -> Step:
    return Step("fault", name, params)


def stop(node: int) -> Step:
    return Step("stop", node=node)


def restart(node: int) -> Step:
    return Step("restart", node=node)


@dataclass(frozen=True)
class Row:
    """A fault and the alerts it must make active, and nothing else.

    `lingers`: those of `alerts` that stay active after the fault is cleared, for their
    rule's window (a 5-minute rate, a 15-minute or 1-hour count of restarts, failed backups,
    conflicts): the runner does not wait for them to resolve. `standing`: a fault set when
    ndbsim starts (a command-line option), never cleared. `also_lingering`: alerts that a
    cleared restart leaves active though the fault itself does not name them.

    `evidence`: PromQL expressions that must each return a series of the row's cluster (their
    `CLUSTER` stands for its `cluster` label matcher) once its alerts are active, or at the end
    of its quiet time: what the cluster said that decides the row (an arbitration's result
    code, a forced stop's error). `evidence_seconds`: how long the evidence is waited for, when
    longer than a fault's alerts. `evidence_after_clear`: expressions alike that must return
    a series once the fault is cleared and the alerts resolved (an active-active pair that
    has converged). `quiet_seconds`: how long a row without alerts is watched. `healthy`: a
    row without alerts whose cluster the Overview, the view and `check` must call healthy
    through its quiet time."""

    name: str
    steps: tuple[Step, ...]
    alerts: frozenset[str]
    proof: str = LIVE
    lingers: frozenset[str] = frozenset()
    after_clear: frozenset[str] = frozenset()
    note: str = ""
    ndbsim_args: tuple[str, ...] = ()
    undo: tuple[Step, ...] | None = None  # what clears the fault, if not the steps undone
    final: bool = False  # the cluster is not brought back: the last row of its cluster
    evidence: tuple[str, ...] = ()
    evidence_seconds: float | None = None
    evidence_after_clear: tuple[str, ...] = ()
    healthy: bool = False
    quiet_seconds: float | None = None
    # alerts that may go pending while the change settles (their `for` keeps them from firing)
    settling: frozenset[str] = frozenset()

    @property
    def cluster_scoped(self) -> bool:
        """Every alert of the row is once per cluster (none names an SQL node)."""
        return not self.alerts & PER_SQL_NODE

    @property
    def fault_text(self) -> str:
        if self.ndbsim_args:
            return "ndbsim " + " ".join(self.ndbsim_args)
        return ", ".join(step.text() for step in self.steps)

    def undo_steps(self) -> tuple[Step, ...]:
        """The undo of each step, last first; a node the row starts again itself is not."""
        if self.undo is not None:
            return self.undo
        started = {step.node for step in self.steps if step.action == "start"}
        undo = (step.undo() for step in reversed(self.steps))
        return tuple(s for s in undo if s and not (s.action == "start" and s.node in started))


def _row(
    name: str, steps: tuple[Step, ...] | Step, alerts: set[str] | tuple[str, ...], **kw: Any
) -> Row:
    """`lingers=True`: every alert of the row stays after the clear."""
    steps = steps if isinstance(steps, tuple) else (steps,)
    if kw.get("lingers") is True:
        kw["lingers"] = alerts
    kw = {k: frozenset(v) if k in ("lingers", "after_clear") else v for k, v in kw.items()}
    return Row(name, steps, frozenset(alerts), **kw)


def arbitrated(code: str) -> str:
    """Evidence: the cluster log reported an arbitration decided by `code` (an ArbitCode
    name) in the last ten minutes."""
    return f'increase(ndb_mgmd_arbitration_results_total{{CLUSTER, code="{code}"}}[10m]) > 0'


# Evidence: an SQL node of an active-active pair whose last conflict epoch has come back round,
# its last stable epoch at or past it (ndb_replica.cc Channel::update_global_state).
CONVERGED = (
    "ndb_sql_conflict_last_stable_epoch{CLUSTER} - ndb_sql_conflict_last_conflict_epoch{CLUSTER}"
    " >= 0 and ndb_sql_conflict_last_conflict_epoch{CLUSTER} > 0"
)
# ndbsim's RonDB as rondb-helm lays it out: NoOfReplicas 3, the third data node not active
RONDB_HELM = (
    "--ndb-version",
    "rondb-22.10",
    "--data-nodes",
    "3",
    "--replicas",
    "3",
    "--config",
    "NodeActive=0@3",
)
# A schema change shows at once on the SQL node that runs it (its Com_alter_table moves the ddl
# signal); elsewhere (a copy's #sql- table is hidden from information_schema.TABLES) only once
# the objects signal is read: at the refresh maximum age (120 s in the matrix), at most one
# read for age per scrape (scrape.refresh), so after every collector that aged before it.
SCHEMA_CHANGE_EVIDENCE_SECONDS = 240.0
RESTARTED = {"NdbDataNodeRestarted"}
# A cluster that shut down as the arbitration decides (a whole node group lost, or half the
# data nodes without an arbitrator): every data node down and ndbinfo unreadable, so the
# ndbinfo collectors fail and no alert reads node groups, fragments or the arbitrator; the
# survivors that lost shut down with NDBStopForced (2305, NDBD_EXIT_ARBIT_SHUTDOWN).
CLUSTER_DOWN = {
    "NdbArbitrationLost",
    "NdbClusterDown",
    "NdbDataNodeDown",
    "NdbDataNodeForcedStop",
    "NdbExporterCollectorFailing",
}
# A cluster-wide scrape (30 s) of every restart: each is a drop of the node's uptime.
SCRAPED = Step("wait", params={"seconds": 90})
GROWTH = {"rate": 0.1, "share": 0.55}
DRIFT = "MaxNoOfConcurrentOperations=65536@2"
# MinDiskWriteSpeed raised to MaxDiskWriteSpeed's default on every data node: the disk write
# speed does not adapt, and Backup::calculate_disk_write_speed never counts a redo IO lag.
EQUAL_DISK_WRITE_SPEEDS = ("--config", "MinDiskWriteSpeed=20971520")

ROWS: tuple[Row, ...] = (
    # --- replication: ndbsim --replica, the link between the source and the replica cluster
    _row(
        "replica-sql-error",
        fault("replica-sql-error"),
        {"NdbReplicationStopped"},
        note="an applier worker fails (worker 1 of four on 8.4), the coordinator stops",
        evidence=("ndb_replica_applier_worker_last_error_number{CLUSTER} > 0",),
    ),
    _row("replica-io-disconnect", fault("replica-io-disconnect"), {"NdbReplicationStopped"}),
    _row(
        "replica-behind",
        fault("replica-behind", seconds=900),
        {"NdbReplicationLagHigh"},
        note="in seconds (the applier) and in GCIs (the replica cluster, per source server_id)",
    ),
    _row(
        "subscriber-lag",
        fault("subscriber-lag", gcis=3),
        {"NdbSubscriberEpochLagHigh"},
        note="60 epochs behind: past half of MaxBufferedEpochs (100), short of the disconnect",
    ),
    _row(
        "subscriber-disconnected",
        fault("subscriber-lag", gcis=10),
        {"NdbSubscriberEpochLagHigh", "NdbSubscriberDisconnected"},
        lingers={"NdbSubscriberDisconnected"},
        note="200 epochs behind: SUMA disconnects the subscriber (SubscriptionStatus)",
    ),
    _row(
        "injector-behind",
        fault("injector-behind"),
        {"NdbBinlogInjectorBehind", "NdbEventBufferHigh"},
    ),
    _row(
        "injector-gap",
        fault("injector-behind", gap=True),
        {
            "NdbBinlogInjectorBehind",
            "NdbEventBufferHigh",
            "NdbEventBufferNearMax",
            "NdbBinlogGap",
            "NdbReplicationStopped",
        },
        note="the event buffer at ndb_eventbuffer_max_alloc (EventBufferStatus3)",
    ),
    _row(
        "conflicts",
        fault("conflicts"),
        {"NdbReplicationConflicts"},
        lingers=True,
        note="an active-active pair: the primary (the replica cluster) finds the rows in "
        "conflict, the secondary applies its refresh and reflected operations, and once the "
        "primary's epochs come back round the pair has converged",
        evidence=(
            "ndb_sql_conflict_delete_delete_total{CLUSTER} > 0",
            "ndb_sql_conflict_refresh_operations_total{CLUSTER} > 0",
            'ndb_sql_conflict_reflected_operations_total{CLUSTER, outcome="prepared"} > 0',
        ),
        evidence_after_clear=(CONVERGED,),
    ),
    # --- failover to a standby binlog server (ndbsim --replica --binlog-servers 2)
    _row(
        "standby-purged",
        (fault("replica-behind", seconds=900), Step("purge-binlogs", node=51)),
        {"NdbReplicationLagHigh", "NdbFailoverPositionPurged"},
        note="the standby's binary logs purged past the replica's position (450 GCIs behind)",
    ),
    _row(
        "channel-failover",
        (stop(50), Step("failover", node=51)),
        {"NdbSqlNodeGone", "NdbSqlNodeUnreachable"},
        settling={"NdbReplicationStopped"},
        note="the binlog server's SQL node stopped, the replica repositioned on the standby by "
        "the manual's query: no gap, no lag page",
    ),
    # --- memory, logs and buffers of every data node
    _row(
        "data-memory",
        fault("data-memory", share=0.97),
        {"NdbDataMemoryHigh", "NdbDataMemoryCritical"},
    ),
    _row(
        "redo-log",
        fault("redo-log", share=0.95),
        {"NdbRedoLogSpaceHigh", "NdbRedoLogSpaceCritical"},
    ),
    _row(
        "undo-log",
        fault("undo-log-growth", rate=0.01, share=0.97),
        {"NdbUndoLogSpaceHigh", "NdbUndoLogSpaceCritical"},
    ),
    _row(
        "redo-buffer",
        fault("buffer-full", buffer="redo", share=0.9),
        {"NdbRedoBufferHigh", "NdbRedoWritesLagging"},
        note="a REDO buffer held full is seconds of redo writes waiting for the disk",
    ),
    _row("undo-buffer", fault("buffer-full", buffer="undo", share=0.9), {"NdbUndoBufferHigh"}),
    _row(
        "long-message-buffer",
        fault("buffer-full", buffer="long-message", share=0.9),
        {"NdbLongMessageBufferHigh"},
    ),
    _row("resource-pool", fault("resource-pool", share=0.95), {"NdbResourcePoolHigh"}),
    _row("send-buffer", fault("send-buffer-pressure", node=3), {"NdbSendBufferHigh"}),
    _row("tablespace-full", fault("tablespace-full", share=0.95), {"NdbTablespaceFull"}),
    _row("slow-disk", fault("slow-disk"), set(), note="no alert reads PGMAN latency"),
    _row("metadata-excluded", fault("metadata-excluded", tables=2), set(), note="no alert"),
    # --- checkpoints
    _row(
        "gcp-save-lag",
        fault("gcp-save-lag"),
        {"NdbGlobalCheckpointStalled", "NdbRedoWritesLagging"},
        lingers={"NdbRedoWritesLagging"},
        proof=FAST,
        evidence=("max(ndb_redo_io_lag_seconds_total{CLUSTER}) == 0",),
        note="MinDiskWriteSpeed = MaxDiskWriteSpeed on that cluster: slowdowns_due_to_io_lag"
        " stays 0, the REDO buffers' backlog shows the lag",
    ),
    _row(
        "gcp-save-lag-subscriber",
        (fault("gcp-save-lag"), fault("subscriber-lag", epochs=60)),
        {"NdbGlobalCheckpointStalled", "NdbRedoWritesLagging", "NdbSubscriberEpochLagHigh"},
        lingers={"NdbRedoWritesLagging"},
        note="the GCI stands while the binlog server falls 60 epochs behind: the lag alert"
        " before SUMA's disconnect at MaxBufferedEpochs (100)",
    ),
    _row("gcp-stall", fault("gcp-stall"), {"NdbGlobalCheckpointStalled"}, proof=FAST),
    _row("lcp-stall", fault("lcp-stall"), {"NdbLcpStalled"}, proof=FAST),
    # --- transactions and operations
    _row("arbitrator-lost", fault("arbitrator-lost"), {"NdbNoArbitrator"}),
    _row("long-transaction", fault("long-transaction", node=2), {"NdbLongRunningTransaction"}),
    _row("lock-contention", fault("lock-contention"), {"NdbLockWaits"}),
    _row(
        "latency-degradation",
        fault("latency-degradation", factor=50),
        {"NdbOperationLatencyHigh"},
        lingers=True,
    ),
    _row(
        "operation-errors",
        fault("operation-errors", share=1.0),
        {"NdbOperationErrorsHigh"},
        lingers=True,
    ),
    _row(
        "transaction-aborts",
        fault("transaction-aborts", share=1.0),
        {"NdbTransactionAbortsHigh"},
        lingers=True,
        note="each SQL node's own counters: once per SQL node",
    ),
    _row(
        "disk-page-buffer-misses",
        fault("disk-page-buffer-misses", share=0.2),
        {"NdbDiskPageBufferHitRatioLow"},
        lingers=True,
        proof=FAST,
        note="data nodes up for 30 minutes",
    ),
    _row(
        "send-overload",
        fault("send-overload", node=3, remote=4),
        {"NdbTransporterOverloaded", "NdbTransporterSlowdown"},
        lingers=True,
        proof=FAST,
    ),
    _row(
        "job-buffer-congestion",
        fault("job-buffer-congestion", node=1),
        {"NdbThreadBufferFull"},
        lingers=True,
        proof=FAST,
    ),
    _row(
        "config-drift",
        (),
        {"NdbConfigInconsistent"},
        lingers=True,
        proof=FAST,
        ndbsim_args=("--config", DRIFT),
    ),
    # --- the exporter's view of its SQL node, the management server
    _row(
        "sql-connections-refused",
        (fault("refuse-connections"), fault("drop-connections")),
        {"NdbSqlNodeUnreachable"},
        note="every SQL node refuses: once per SQL node",
    ),
    _row(
        "slow-ndbinfo",
        fault("slow-ndbinfo", seconds=15, table="memoryusage"),
        {"NdbExporterCollectorFailing"},
        note="past the exporter's 10 s query timeout: once per exporter reading it",
    ),
    _row("mgm-down", fault("mgm-down"), {"NdbMgmdUnreachable", "NdbMgmdSubscriptionLost"}),
    _row(
        "sql-node-stopped",
        stop(51),
        {"NdbSqlNodeGone", "NdbSqlNodeUnreachable"},
        note="its exporter's SQL node is gone; the other SQL node reports it",
    ),
    _row(
        "mgm-node-stopped",
        stop(49),
        {
            "NdbManagementNodeDown",
            "NdbNoArbitrator",
            "NdbMgmdUnreachable",
            "NdbMgmdSubscriptionLost",
        },
        note="the only management node, the arbitrator",
    ),
    # --- data nodes stopped and restarted
    _row(
        "stuck-start",
        (stop(4), fault("stuck-start", node=4, phase=4), Step("start", node=4)),
        {"NdbDataNodeNotStarted", "NdbNodeGroupDegraded", "NdbDeadFragmentReplicas", *RESTARTED},
        lingers=RESTARTED,
    ),
    _row(
        "data-node-stopped",
        stop(2),
        {"NdbDataNodeDown", "NdbNodeGroupDegraded", "NdbDeadFragmentReplicas"},
        after_clear=RESTARTED,
        evidence=(arbitrated("WinGroups"),),
        note="two node groups: the other one complete, WinGroups (43) without the arbitrator",
    ),
    _row(
        "three-replicas-node-stopped",
        stop(2),
        {"NdbDataNodeDown", "NdbDeadFragmentReplicas"},
        after_clear=RESTARTED,
        evidence=(arbitrated("WinNodes"),),
        note="one node group of three: two of three left, WinNodes (42), no arbitration alert",
    ),
    _row(
        "data-node-crash",
        fault("data-node-crash", node=3),
        {"NdbDataNodeForcedStop", "NdbDataNodeDown", "NdbDeadFragmentReplicas"},
        lingers={"NdbDataNodeForcedStop"},
        after_clear=RESTARTED,
        undo=(Step("clear", "data-node-crash"), Step("start", node=3)),
        evidence=('ndb_mgmd_node_forced_stop_error{CLUSTER, node_id="3"} == 2341',),
        note="NDBStopForced with ndbd exit code 2341, not a planned stop",
    ),
    _row(
        "node-restart-killed",
        (stop(3), fault("data-node-crash", node=3, error=2303, phase=5), Step("start", node=3)),
        {
            "NdbDataNodeForcedStop",
            "NdbDataNodeDown",
            "NdbNodeGroupDegraded",
            "NdbDeadFragmentReplicas",
        },
        lingers={"NdbDataNodeForcedStop"},
        after_clear=RESTARTED,
        undo=(Step("clear", "data-node-crash"), Step("start", node=3)),
        evidence=(
            'ndb_mgmd_node_forced_stop_error{CLUSTER, node_id="3"} == 2303',
            'ndb_mgmd_node_forced_stop_start_phase{CLUSTER, node_id="3"} == 5',
            'ALERTS{alertname="NdbDataNodeForcedStop", node_id="3", CLUSTER}',
        ),
        note="the restarting node is killed in start phase 5: NDBStopForced 2303 (a node no"
        " other row of its lane restarts: three restarts in an hour are a restart loop)",
    ),
    _row(
        "slow-backup",
        (fault("slow-backup", seconds=40), Step("backup")),
        set(),
        quiet_seconds=75.0,
        evidence=(
            "max_over_time(ndb_mgmd_backup_running{CLUSTER}[3m]) == 1",
            "ndb_mgmd_backup_last_completed_id{CLUSTER} > 0",
        ),
        note="a backup that runs 40 s: shown running, then completed; no alert",
    ),
    _row(
        "copy-alter",
        fault("copy-alter", seconds=900),
        set(),
        quiet_seconds=60.0,
        evidence=("ndb_table_copy_rows{CLUSTER} > 0",),
        evidence_seconds=SCHEMA_CHANGE_EVIDENCE_SECONDS,
        note="a copying ALTER TABLE of the largest table: its #sql- copy fills; no alert",
    ),
    _row(
        "reorganize",
        fault("reorganize", seconds=900),
        set(),
        quiet_seconds=60.0,
        evidence=(
            "ndb_table_reorganize_progress_ratio{CLUSTER} > 0",
            "ndb_distribution_reorg_ongoing_tables{CLUSTER} == 1",
        ),
        evidence_seconds=SCHEMA_CHANGE_EVIDENCE_SECONDS,
        note="ALTER TABLE ... REORGANIZE PARTITION: the new fragments fill; no alert",
    ),
    _row(
        "missed-heartbeats",
        fault("missed-heartbeats", node=2),
        {"NdbHeartbeatsMissed"},
        lingers=True,
    ),
    _row(
        "dead-by-heartbeat",
        fault("missed-heartbeats", node=4, dies=True),
        {
            "NdbNodeDeadByHeartbeat",
            "NdbHeartbeatsMissed",
            "NdbDataNodeForcedStop",
            "NdbDataNodeDown",
            "NdbNodeGroupDegraded",
            "NdbDeadFragmentReplicas",
        },
        lingers={"NdbNodeDeadByHeartbeat", "NdbHeartbeatsMissed", "NdbDataNodeForcedStop"},
        after_clear=RESTARTED,
        undo=(Step("clear", "missed-heartbeats"), Step("start", node=4)),
        evidence=('max_over_time(ndb_mgmd_heartbeat_deaths_total{CLUSTER, node_id="4"}[10m]) > 0',),
        note="declared dead by its neighbour (DeadDueToHeartbeat), then NDBStopForced 2315",
    ),
    _row(
        "lcp-keep-gci-stall",
        fault("lcp-keep-gci-stall"),
        {"NdbLcpKeepGciStuck"},
        lingers=True,
        note="LCPStoppedInCalcKeepGci in the cluster log",
    ),
    _row(
        "sql-node-slot-taken",
        fault("sql-node-slot-taken", node=51),
        set(),
        quiet_seconds=150.0,
        settling=frozenset({"NdbSqlNodeGone"}),
        note="mysqld 51 restarts into a free API slot: its old slot is no SQL node gone (it may"
        " pend for the scrape that sees the old slot empty before the new one taken)",
    ),
    _row(
        "primaries-away",
        (fault("primaries-away", node=2), restart(2)),
        {"NdbPrimariesNotOnPreferredNode", *RESTARTED},
        lingers=RESTARTED,
    ),
    _row(
        "certificate-expiring",
        (fault("certificate-expiring", node=3, days=2), restart(3)),
        {"NdbTlsCertificateExpiring", *RESTARTED},
        lingers=RESTARTED,
        undo=(Step("clear", "certificate-expiring"), restart(3)),
        note="a node reads its certificate when it starts: restarted with it, and again",
    ),
    _row(
        "restart-loop",
        (restart(2), SCRAPED, restart(2), SCRAPED, restart(2)),
        {"NdbDataNodeRestarted", "NdbDataNodeRestartLoop", "NdbTransporterFlapping"},
        lingers=True,
    ),
    _row(
        "backup-abort",
        (fault("backup-abort"), Step("backup")),
        {"NdbBackupFailed"},
        lingers=True,
    ),
    _row(
        "backup-start-failure",
        (fault("backup-start-failure"), Step("backup")),
        {"NdbBackupFailed"},
        lingers=True,
    ),
    # --- RonDB 22.10 as rondb-helm lays it out: three replicas, the third data node not active
    _row(
        "rondb-inactive-replica",
        Step("wait", params={"seconds": 1}),
        set(),
        ndbsim_args=RONDB_HELM,
        healthy=True,
        quiet_seconds=150,
        # pending, never firing, until an exporter has first read the management server's
        # configuration (a scrape of the ndb-cluster job, 30 s, when the first read is late)
        settling={"NdbDataNodeDown"},
        note="node 3 configured but not active (NodeActive=0): no alert, HEALTHY, no finding "
        "above info, check OK",
    ),
    _row(
        "rondb-active-node-stopped",
        stop(1),
        {"NdbDataNodeDown", "NdbNodeGroupDegraded", "NdbDeadFragmentReplicas"},
        after_clear=RESTARTED,
        evidence=(arbitrated("WinChoose"),),
        note="one of the two active data nodes: the node group on its last node, the "
        "arbitrator keeps the survivor (WinChoose); the inactive node counts in neither",
    ),
    _row(
        "node-group-stopped",
        (stop(3), stop(4)),
        CLUSTER_DOWN,
        final=True,
        note="a whole node group: the cluster shuts down",
    ),
    _row(
        "arbitration-lost",
        (fault("arbitrator-lost"), stop(2), stop(4)),
        CLUSTER_DOWN,
        final=True,
        proof=FAST,
        evidence=(arbitrated("LoseNorun"),),
        note="half the data nodes and no arbitrator: LoseNorun (48), they shut down",
    ),
    _row(
        "arbitration-denied",
        (fault("arbitration-denied"), stop(2), stop(4)),
        CLUSTER_DOWN,
        final=True,
        evidence=(arbitrated("LoseChoose"),),
        note="half the data nodes, the arbitrator says no: LoseChoose (47), NDBStopForced 2305",
    ),
    _row(
        "api-writes-only",
        fault("api-writes-only"),
        set(),
        final=True,
        quiet_seconds=480.0,
        note="the healthy cluster: an NDB API application writes, its SQL nodes only read",
    ),
    _row(
        "exporter-stopped",
        Step("stop-exporter", node=51),
        {"NdbExporterDown"},
        final=True,
        note="the exporter is not started again",
    ),
    # --- hours of the rules' windows: on the compressed clock
    _row(
        "data-memory-growth",
        fault("data-memory-growth", **GROWTH),
        {"NdbDataMemoryExhaustionPredicted"},
        proof=COMPRESSED,
    ),
    _row(
        "redo-log-growth",
        fault("redo-log-growth", **GROWTH),
        {"NdbRedoLogExhaustionPredicted"},
        proof=COMPRESSED,
    ),
    _row(
        "undo-log-growth",
        fault("undo-log-growth", **GROWTH),
        {"NdbUndoLogExhaustionPredicted"},
        proof=COMPRESSED,
    ),
    _row(
        "tablespace-growth",
        fault("tablespace-growth", **GROWTH),
        {"NdbTablespaceExhaustionPredicted"},
        proof=COMPRESSED,
    ),
    _row(
        "backups-stopped",
        fault("backups-stopped"),
        {"NdbBackupNotCompleted"},
        proof=COMPRESSED,
        note="NdbBackupTooOld instead where no management server is read",
    ),
    _row(
        "weekly-backups",
        fault("backups-stopped"),
        {"NdbBackupNotCompleted"},
        proof=COMPRESSED,
        note="the runbook's weekly threshold, > 170 h, after an exporter restart: the"
        " completion read back from Prometheus (test_e2e_weekly_backups.py)",
    ),
    _row(
        "restart-phase-stuck",
        (stop(4), fault("stuck-start", node=4), Step("start", node=4)),
        {"NdbRestartPhaseStuck"},
        proof=COMPRESSED,
    ),
    _row("old-version", fault("old-version", node=3), {"NdbVersionSkew"}, proof=COMPRESSED),
    _row(
        "old-config-generation",
        fault("old-config-generation", node=2),
        {"NdbConfigGenerationSkew"},
        proof=COMPRESSED,
    ),
)

BY_NAME = {row.name: row for row in ROWS}


def markdown_table() -> str:
    """The matrix as the Markdown table of docs/alert-matrix.md."""
    lines = [
        "| Row | Fault | Alerts it makes active, and no other | Overview status | View findings "
        "| `check` | Once per cluster | Stay after the clear | Proven |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in ROWS:
        alerts = ", ".join(sorted(row.alerts)) or "none"
        stay = "(not cleared)" if row.final else ", ".join(sorted(row.lingers | row.after_clear))
        note = f" ({row.note})" if row.note else ""
        judged = row.proof in (LIVE, FAST)
        status, view, check = expected(row.alerts) if judged else ("not read",) * 3
        lines.append(
            f"| {row.name} | `{row.fault_text}`{note} | {alerts} | {status} | {view} | {check} | "
            f"{'yes' if row.cluster_scoped else 'per SQL node'} | {stay} | {row.proof} |"
        )
    return "\n".join(lines) + "\n"
