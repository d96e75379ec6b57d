"""What the exporter keeps from the cluster log: events counted by type and source node, the
last completed backup, backups aborted or failed to start, arbitration results. Only the
event loop touches it."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ndbinfo_exporter.scrape.mgmd.protocol import ARBITRATION_LOST, ARBITRATION_WON, Event


@dataclass
class CompletedBackup:
    backup_id: int
    end_time: float  # unix time the exporter received BackupCompleted
    bytes: int
    records: int


@dataclass
class ClusterLogState:
    clock: Callable[[], float] = time.time
    events: dict[tuple[str, str], int] = field(default_factory=dict)  # (type, node id) -> count
    last_seen: dict[str, float] = field(default_factory=dict)  # type -> unix time
    last_backup: CompletedBackup | None = None
    backups_aborted: int = 0
    backups_failed_to_start: int = 0
    arbitration: dict[str, int] = field(default_factory=lambda: {"won": 0, "lost": 0})

    def record(self, event: Event) -> None:
        key = (event.name, str(event.source_node))
        self.events[key] = self.events.get(key, 0) + 1
        now = self.clock()
        self.last_seen[event.name] = now
        f = event.fields
        if event.name == "BackupCompleted":
            self.last_backup = CompletedBackup(
                f.get("backup_id", 0),
                now,
                _u64(f, "n_bytes"),
                _u64(f, "n_records"),
            )
        elif event.name == "BackupAborted":
            self.backups_aborted += 1
        elif event.name == "BackupFailedToStart":
            self.backups_failed_to_start += 1
        elif event.name == "ArbitResult":
            code = f.get("code", 0) & 0xFFFF
            if code in ARBITRATION_LOST:
                self.arbitration["lost"] += 1
            elif code in ARBITRATION_WON:
                self.arbitration["won"] += 1


def _u64(fields: dict[str, int], name: str) -> int:
    """A 64-bit count sent as its low word and, from NDB 7.6 on, a `_hi` word."""
    return (fields.get(f"{name}_hi", 0) << 32) | (fields.get(name, 0) & 0xFFFFFFFF)
