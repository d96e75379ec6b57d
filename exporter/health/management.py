"""The management server's card: what the scrape layer's management server reader keeps of
one cluster (scrape/mgmd: the last get status, the backups, the running one with its
progress and estimate, the latest events, each data node's last forced stop), as the API
serves it."""

from __future__ import annotations

from ndbinfo_exporter.health.forced_stops import forced_stop_cards
from ndbinfo_exporter.health.models import (
    LastBackup,
    LogEvent,
    ManagedNode,
    ManagementServer,
    ManagementView,
    RunningBackup,
)
from ndbinfo_exporter.scrape.mgmd.backup_progress import progress_ratio, remaining_seconds
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState


def management_view(target: str, state: ManagementState) -> ManagementView:
    backup = state.last_backup
    return ManagementView(
        target=target,
        read_at=state.read_at,
        servers=[ManagementServer(address=a, answered=up) for a, up in state.answered],
        nodes=[
            ManagedNode(
                node_id=n.node_id,
                node_type=n.type,
                status=n.status,
                start_phase=n.start_phase if n.type == "NDB" else None,
                connect_count=n.connect_count,
                version=version_text(n.version),
            )
            for n in state.nodes
        ],
        subscription_up=state.subscription_up,
        listening_since=state.listening_since,
        last_backup=None
        if backup is None
        else LastBackup(
            backup_id=backup.backup_id,
            completed_at=backup.end_time,
            bytes=backup.bytes,
            records=backup.records,
        ),
        running_backup=running_backup(state),
        backups_aborted=state.backups_aborted,
        backups_failed_to_start=state.backups_failed_to_start,
        events=[
            LogEvent(
                type=e.type,
                time=e.time,
                source_node=e.source_node,
                severity=e.severity,  # type: ignore[arg-type]
                text=e.text,
            )
            for e in state.events
        ],
        forced_stops=forced_stop_cards(
            state.forced_stops, {n.node_id: n.status for n in state.nodes}
        ),
    )


def running_backup(state: ManagementState) -> RunningBackup | None:
    """The running backup with what the data nodes reported of it and the estimate."""
    running, progress = state.running_backup, state.backup_progress
    if running is None:
        return None
    ratio = progress_ratio(progress, state.last_backup)
    return RunningBackup(
        backup_id=running.backup_id,
        started_at=running.started_at,
        bytes=None if progress is None else progress.bytes,
        records=None if progress is None else progress.records,
        read_at=None if progress is None else progress.read_at,
        progress=ratio,
        remaining_seconds=remaining_seconds(running, progress, ratio),
    )


def version_text(version: int) -> str | None:
    """NDB_MAKE_VERSION(major, minor, build) as `major.minor.build`; None for 0."""
    if version <= 0:
        return None
    return f"{(version >> 16) & 0xFF}.{(version >> 8) & 0xFF}.{version & 0xFF}"
