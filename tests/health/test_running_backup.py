"""The management card's running backup: its id, how far it has got against the last
completed backup and the time left at its pace; once it completed, the completed one."""

from __future__ import annotations

import dataclasses

import pytest
from ndbinfo_exporter.health.management import management_view
from ndbinfo_exporter.scrape.mgmd.backup_progress import BackupProgress, NodeBackupStatus
from ndbinfo_exporter.scrape.mgmd.events import CompletedBackup, StartedBackup
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState

from tests.health.management_state import management_state

LAST = CompletedBackup(7, 500.0, 1000, 100)


def running(progress: BackupProgress | None, last: CompletedBackup | None) -> ManagementState:
    return dataclasses.replace(
        management_state(),
        running_backup=StartedBackup(8, 49, 900.0),
        backup_progress=progress,
        last_backup=last,
    )


def test_a_running_backup_with_its_share_done_and_the_time_left():
    progress = BackupProgress(
        8, 930.0, (NodeBackupStatus(1, 100, 10), NodeBackupStatus(2, 150, 15))
    )
    card = management_view("db:3306", running(progress, LAST)).running_backup
    assert (card.backup_id, card.started_at, card.bytes, card.records) == (8, 900.0, 250, 25)
    assert (card.progress, card.remaining_seconds) == (0.25, 90.0)  # 30 s for a quarter


@pytest.mark.parametrize(
    ("progress", "last", "share"),
    [
        (None, LAST, None),  # no report read yet
        (BackupProgress(8, 930.0, (NodeBackupStatus(1, 0, 0),)), LAST, 0.0),  # nothing written
        (BackupProgress(8, 930.0, (NodeBackupStatus(1, 100, 10),)), None, None),  # no last one
    ],
)
def test_without_a_share_done_there_is_no_estimate(progress, last, share):
    card = management_view("db:3306", running(progress, last)).running_backup
    assert (card.backup_id, card.progress, card.remaining_seconds) == (8, share, None)


def test_a_backup_bigger_than_the_last_is_done_at_1_with_nothing_left():
    progress = BackupProgress(8, 930.0, (NodeBackupStatus(1, 1500, 150),))
    card = management_view("db:3306", running(progress, LAST)).running_backup
    assert (card.progress, card.remaining_seconds) == (1.0, 0.0)


def test_once_completed_the_card_shows_the_completed_backup():
    state = dataclasses.replace(
        management_state(), last_backup=CompletedBackup(8, 990.0, 1100, 110)
    )
    view = management_view("db:3306", state)
    assert view.running_backup is None and view.last_backup.backup_id == 8
