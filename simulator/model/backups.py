"""Native backups (START BACKUP): scheduled every few cluster hours or requested through the
management server. A backup takes an id (ndbinfo.backup_id), runs for a few cluster seconds (as
long as slow-backup says, for one started under it) and completes with its size, unless
backup-abort aborts it or backup-start-failure refuses it; each step is logged to the cluster
log as the master data node's Backup block reports it. While it runs, each data node reports
what it has written so far (node_progress: the BackupStatus report of `ALL REPORT BACKUP`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ndbsim.model.ndb_errors import mgm_error_code

if TYPE_CHECKING:
    from ndbsim.model.cluster import Cluster

BACKUP_INTERVAL = 4 * 3600.0  # cluster seconds between the scheduled backups
BACKUP_SECONDS = 3.0  # cluster seconds a backup runs
DEFAULT_ABORT_ERROR = 1325  # File or scan error
DEFAULT_START_ERROR = 1342
NODE_FAILURE_ERROR = 1326  # Backup aborted due to node failure  # Backup failed to allocate buffers (check configuration)
LOG_BYTES_PER_SECOND = 64 * 1024  # the backup log's growth while a backup runs
LOG_RECORD_BYTES = 128
# The share of a backup's time its data scan takes: the data files grow over it, then the
# backup waits for its stop GCI and closes its files with every record written.
SCAN_SHARE = 0.9


@dataclass
class RunningBackup:
    backup_id: int
    starting_node: int  # the node that asked: the management server
    started_at: float  # cluster time
    start_gci: int
    seconds: float = BACKUP_SECONDS  # cluster seconds it runs


@dataclass(frozen=True)
class NodeProgress:
    """What one data node has written of the running backup (Backup::reportStatus: its data
    and log files' totals so far)."""

    records: int
    data_bytes: int
    log_records: int
    log_bytes: int


class Backups:
    def __init__(self, first_id: int) -> None:
        self.last_id = first_id  # ndbinfo.backup_id: the last backup that got an id
        self.next_scheduled = BACKUP_INTERVAL
        self.running: RunningBackup | None = None

    def advance(self, c: Cluster, until: float) -> None:
        """Complete or abort the running backup, start the scheduled ones up to `until`;
        none starts while backups-stopped is set (those are missed, not caught up)."""
        self._finish(c, until)
        while self.next_scheduled <= until:
            at = self.next_scheduled
            self.next_scheduled += BACKUP_INTERVAL
            if not c.faults.is_active("backups-stopped"):
                self.start(c, at)
                self._finish(c, until)

    def start(self, c: Cluster, at: float, backup_id: int = 0) -> tuple[int, int]:
        """Start a backup at cluster time `at` (with the id asked for, when not 0): (backup
        id, 0) or (0, NDB error code). With no data node running, the management server has
        no node to send BACKUP_REQ to and answers its own error (MgmtSrvr::startBackup), which
        no data node logs."""
        if not c.running_ids():
            return 0, mgm_error_code("SEND_OR_RECEIVE_FAILED")
        master = c.president
        requester = c.topology.mgm_nodes[0].node_id
        when = c.epoch + at / c.spec.speed
        refused = c.faults.get("backup-start-failure")
        if refused is not None or self.running is not None or not c.is_up():
            error = 1302 if self.running is not None else DEFAULT_START_ERROR
            if refused is not None:
                error = refused.get("error", DEFAULT_START_ERROR)
            c.log.emit(
                "BackupFailedToStart",
                master,
                when,
                f"Backup request from {requester} failed to start. Error: {error}",
                starting_node=requester,
                error=error,
            )
            return 0, error
        chosen = backup_id or self.last_id + 1
        self.last_id = max(self.last_id, chosen)
        slow = c.faults.get("slow-backup")
        seconds = BACKUP_SECONDS if slow is None else slow["seconds"]
        self.running = RunningBackup(chosen, requester, at, c.checkpoints.gci, seconds)
        c.log.emit(
            "BackupStarted",
            master,
            when,
            f"Backup {chosen} started from node {requester}",
            starting_node=requester,
            backup_id=chosen,
        )
        return chosen, 0

    def node_failed(self, c: Cluster) -> None:
        """A data node failed: the running backup aborts (error 1326)."""
        if self.running is not None:
            self._abort(c, c.wall_time(), NODE_FAILURE_ERROR)

    def _abort(self, c: Cluster, when: float, error: int) -> None:
        run, self.running = self.running, None
        c.log.emit(
            "BackupAborted",
            c.president,
            when,
            f"Backup {run.backup_id} started from {run.starting_node} has been aborted. "
            f"Error: {error}",
            starting_node=run.starting_node,
            backup_id=run.backup_id,
            error=error,
        )

    def _finish(self, c: Cluster, until: float) -> None:
        run = self.running
        if run is None:
            return
        aborted = c.faults.get("backup-abort")
        end = run.started_at + run.seconds
        if aborted is None and until < end:
            return
        at = min(until, end) if aborted is None else until
        when = c.epoch + at / c.spec.speed
        if aborted is not None:
            self._abort(c, when, aborted.get("error", DEFAULT_ABORT_ERROR))
            return
        self.running = None
        master = c.president
        records, data_bytes = backup_size(c)
        log_bytes = int(run.seconds * LOG_BYTES_PER_SECOND)
        log_records = log_bytes // LOG_RECORD_BYTES
        stop_gci = c.checkpoints.gci
        c.log.emit(
            "BackupCompleted",
            master,
            when,
            f"Backup {run.backup_id} started from node {run.starting_node} completed. "
            f"StartGCP: {run.start_gci} StopGCP: {stop_gci} #Records: {records} "
            f"#LogRecords: {log_records} Data: {data_bytes} bytes Log: {log_bytes} bytes",
            starting_node=run.starting_node,
            backup_id=run.backup_id,
            start_gci=run.start_gci,
            stop_gci=stop_gci,
            n_bytes=data_bytes & 0xFFFFFFFF,
            n_records=records & 0xFFFFFFFF,
            n_log_bytes=log_bytes,
            n_log_records=log_records,
            n_bytes_hi=data_bytes >> 32,
            n_records_hi=records >> 32,
        )


def backup_size(c: Cluster) -> tuple[int, int]:
    """(records, data bytes) a backup writes: one copy of every logged user table's rows."""
    tables = [t for t in c.dictionary.user_tables if t.logged]
    records = sum(t.rows for t in tables)
    data_bytes = sum(c.node_bytes.values()) // max(1, c.topology.replicas)
    return records, data_bytes


def node_progress(c: Cluster, run: RunningBackup) -> dict[int, NodeProgress]:
    """What each started data node has written of the running backup at the model's time: its
    part of one copy of the data (its primary fragments, in proportion to the data it holds)
    as the scan goes, and of the log. The parts add up to what BackupCompleted reports."""
    elapsed = max(0.0, c.now - run.started_at)
    scanned = min(1.0, elapsed / (run.seconds * SCAN_SHARE))
    records, data_bytes = backup_size(c)
    log_bytes = int(min(elapsed, run.seconds) * LOG_BYTES_PER_SECOND)
    weights = {n: c.node_bytes[n] for n in c.started_ids()}
    parts = [
        split(int(total), weights) for total in (records * scanned, data_bytes * scanned, log_bytes)
    ]
    return {
        n: NodeProgress(parts[0][n], parts[1][n], parts[2][n] // LOG_RECORD_BYTES, parts[2][n])
        for n in weights
    }


def split(total: int, weights: dict[int, int]) -> dict[int, int]:
    """`total` shared in proportion to the weights, in whole units that add up to it."""
    whole = sum(weights.values()) or 1
    out, before, running = {}, 0, 0
    for key, weight in weights.items():
        running += weight
        upto = total * running // whole
        out[key], before = upto - before, upto
    return out
