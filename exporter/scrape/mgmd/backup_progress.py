"""A running backup's progress. While the cluster log says a backup runs (events.py
StartedBackup), each read of the management server also asks the data nodes what they have
written of it: `dump events` of BackupStatus, the request of `ndb_mgm -e "ALL REPORT
BACKUPSTATUS"`. Each data node answers with one report (Backup::reportStatus, summed over its
LDM threads by BackupProxy): the backup's id and its data file's bytes and records so far, or
backup id 0 when it runs none ("Backup not started"). The share done is the data bytes so far
over the last completed backup's; the time left is the time since BackupStarted stretched by
what remains at that pace."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from ndbinfo_exporter.collectors.base import gauge
from ndbinfo_exporter.scrape.mgmd import client
from ndbinfo_exporter.scrape.mgmd.client import Address
from ndbinfo_exporter.scrape.mgmd.events import (
    MAX_NODE_ID,
    ClusterLogState,
    CompletedBackup,
    StartedBackup,
)
from ndbinfo_exporter.scrape.mgmd.protocol import EVENT_NUMBERS, Event, ProtocolError
from prometheus_client.core import Metric

BACKUP_STATUS = EVENT_NUMBERS["BackupStatus"]

RUNNING = gauge(
    "ndb_mgmd_backup_running",
    "1 while a backup runs (its BackupStarted received, no BackupCompleted or BackupAborted"
    " for it yet, and the data nodes still report it), else 0.",
)
RUNNING_BYTES = gauge(
    "ndb_mgmd_backup_running_bytes",
    "Data bytes the data node has written of the running backup so far: its BackupStatus"
    " report (dump events, as ALL REPORT BACKUPSTATUS asks), read at each scrape while a"
    " backup runs.",
    ("node_id",),
)
RUNNING_RECORDS = gauge(
    "ndb_mgmd_backup_running_records",
    "Records the data node has written of the running backup so far (its BackupStatus report).",
    ("node_id",),
)
PROGRESS = gauge(
    "ndb_mgmd_backup_progress_ratio",
    "The running backup's data bytes so far (the sum of the data nodes' BackupStatus reports)"
    " over the last completed backup's (BackupCompleted), at most 1; absent without a"
    " completed backup to compare with.",
)
REMAINING = gauge(
    "ndb_mgmd_backup_remaining_seconds",
    "Estimated seconds until the running backup completes: the seconds from its BackupStarted"
    " to the last BackupStatus reports times (1 - progress) / progress; absent while the"
    " progress is 0 or unknown.",
)
METRICS = (RUNNING, RUNNING_BYTES, RUNNING_RECORDS, PROGRESS, REMAINING)


@dataclass(frozen=True)
class NodeBackupStatus:
    """One data node's BackupStatus report of the running backup."""

    node_id: int
    bytes: int  # its data file's bytes so far
    records: int


@dataclass(frozen=True)
class BackupProgress:
    """The data nodes' reports of one running backup, at one read."""

    backup_id: int
    read_at: float  # unix time the reports were read (the cluster log state's clock)
    nodes: tuple[NodeBackupStatus, ...]  # by node id

    @property
    def bytes(self) -> int:
        return sum(n.bytes for n in self.nodes)

    @property
    def records(self) -> int:
        return sum(n.records for n in self.nodes)


def read_progress(
    backup_id: int, reports: Sequence[Event], read_at: float
) -> BackupProgress | None:
    """The reports that name the backup; None when none does (the data nodes run no backup
    of that id)."""
    nodes = tuple(
        NodeBackupStatus(
            e.source_node, e.u64("n_bytes_lo", "n_bytes_hi"), e.u64("n_records_lo", "n_records_hi")
        )
        for e in sorted(reports, key=lambda e: e.source_node)
        if e.name == "BackupStatus"
        and e.u32("backup_id") == backup_id
        and 0 < e.source_node <= MAX_NODE_ID
    )
    return BackupProgress(backup_id, read_at, nodes) if nodes else None


def progress_ratio(progress: BackupProgress | None, last: CompletedBackup | None) -> float | None:
    """The share done: the bytes so far over the last completed backup's, at most 1."""
    if progress is None or last is None or last.bytes <= 0:
        return None
    return min(1.0, progress.bytes / last.bytes)


def remaining_seconds(
    running: StartedBackup, progress: BackupProgress | None, ratio: float | None
) -> float | None:
    """The time left at the pace so far: the time it took to write `ratio` of it, stretched
    over the rest."""
    if progress is None or not ratio:
        return None
    elapsed = max(0.0, progress.read_at - running.started_at)
    return elapsed * (1.0 - ratio) / ratio


class BackupWatch:
    """The running backup's progress as one cluster's reader reads it: the data nodes' last
    reports of the backup the cluster log says runs."""

    def __init__(self, addresses: Sequence[Address]) -> None:
        self.addresses = tuple(addresses)
        self._progress: BackupProgress | None = None

    async def read(self, state: ClusterLogState, deadline: float) -> None:
        """Ask the data nodes for their reports, only while the cluster log says a backup
        runs, so that the exporter asks nothing more of the cluster the rest of the time.
        Reports that do not name the backup end it; no answer within the deadline keeps the
        last reports."""
        running = state.running_backup
        if running is None:
            return
        try:
            reports = await asyncio.wait_for(self._reports(), deadline)
        except TimeoutError:
            return
        if reports is None:
            return
        progress = read_progress(running.backup_id, reports, state.clock())
        if progress is not None:
            self._progress = progress
        elif reports:
            state.backup_not_running(running.backup_id)

    async def _reports(self) -> list[Event] | None:
        """`dump events` of BackupStatus from the first management server that answers."""
        for address in self.addresses:
            try:
                return await client.dump_events(address, BACKUP_STATUS)
            except (OSError, ProtocolError, ValueError):
                continue
        return None

    def progress(self, running: StartedBackup | None) -> BackupProgress | None:
        """The last reports of the backup that runs now, if any."""
        progress = self._progress
        if running is None or progress is None or progress.backup_id != running.backup_id:
            return None
        return progress

    def families(self, state: ClusterLogState) -> list[Metric]:
        running = state.running_backup
        return backup_families(running, self.progress(running), state.last_backup)


def backup_families(
    running: StartedBackup | None, progress: BackupProgress | None, last: CompletedBackup | None
) -> list[Metric]:
    """Whether a backup runs, and while one does what the data nodes have written of it
    (``progress``: their last reports of it) with the estimate."""
    written, records = RUNNING_BYTES.family(), RUNNING_RECORDS.family()
    ratio = remaining = None
    if running is not None and progress is not None:
        for node in progress.nodes:
            written.add_metric([str(node.node_id)], node.bytes)
            records.add_metric([str(node.node_id)], node.records)
        ratio = progress_ratio(progress, last)
        remaining = remaining_seconds(running, progress, ratio)
    out = [written, records]
    for spec, value in (
        (RUNNING, 0.0 if running is None else 1.0),
        (PROGRESS, ratio),
        (REMAINING, remaining),
    ):
        if value is not None:
            family = spec.family()
            family.add_metric([], value)
            out.append(family)
    return out
