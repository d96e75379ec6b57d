"""What the exporter keeps from the cluster log: events counted by type and source node, the
latest RECENT_EVENTS events themselves (for their readers), the last
completed backup, backups aborted or failed to start, arbitration results. Only the event
loop touches it."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ndbinfo_exporter.scrape.mgmd.protocol import ARBITRATION_LOST, ARBITRATION_WON, Event

RECENT_EVENTS = 50
# The text of the most frequent events, after EventLogger.cpp's getText functions; any
# other event is its type name and its fields.
TEXTS = {
    "NDBStartStarted": "Start initiated",
    "NDBStartCompleted": "Started",
    "StartPhaseCompleted": "Start phase {phase} completed",
    "NDBStopStarted": "Shutdown initiated",
    "NDBStopCompleted": "Node shutdown completed",
    "NodeFailCompleted": "Node failure of node {failed_node} completed",
    "LocalCheckpointStarted": "Local checkpoint {lci} started",
    "LocalCheckpointCompleted": "Local checkpoint {lci} completed",
    "BackupStarted": "Backup {backup_id} started from node {starting_node}",
    "BackupCompleted": "Backup {backup_id} started from node {starting_node} completed",
    "BackupAborted": "Backup {backup_id} started from {starting_node} has been aborted."
    " Error: {error}",
    "BackupFailedToStart": "Backup request from {starting_node} failed to start. Error: {error}",
    "ArbitResult": "Arbitration check {result} (code {code})",
}
MAX_FIELDS_SHOWN = 8


@dataclass(frozen=True)
class LoggedEvent:
    """One event as its readers show it."""

    type: str
    time: float  # unix time the exporter received it
    source_node: int
    severity: str  # EventLogger's: INFO, WARNING, ERROR, ALERT
    text: str


@dataclass(frozen=True)
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
    recent: deque[LoggedEvent] = field(default_factory=lambda: deque(maxlen=RECENT_EVENTS))

    def record(self, event: Event) -> None:
        key = (event.name, str(event.source_node))
        self.events[key] = self.events.get(key, 0) + 1
        now = self.clock()
        self.last_seen[event.name] = now
        self.recent.append(
            LoggedEvent(event.name, now, event.source_node, event.severity, describe(event))
        )
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
            result = arbitration_result(f.get("code", 0))
            if result is not None:
                self.arbitration[result] += 1


def arbitration_result(code: int) -> str | None:
    code &= 0xFFFF
    if code in ARBITRATION_LOST:
        return "lost"
    return "won" if code in ARBITRATION_WON else None


def describe(event: Event) -> str:
    """The event's text: EventLogger's wording for the common events, else its type name and
    (at most MAX_FIELDS_SHOWN of) its fields."""
    fields = dict(event.fields)
    if event.name == "BackupCompleted":
        extra = f": {_u64(fields, 'n_records')} records, {_u64(fields, 'n_bytes')} bytes"
    else:
        extra = ""
    if event.name == "ArbitResult":
        fields["result"] = arbitration_result(fields.get("code", 0)) or "done"
    template = TEXTS.get(event.name)
    if template is not None:
        try:
            return template.format_map(fields) + extra
        except KeyError:
            pass
    shown = " ".join(f"{k}={v}" for k, v in list(fields.items())[:MAX_FIELDS_SHOWN])
    return f"{event.name} {shown}".strip()


def _u64(fields: dict[str, int], name: str) -> int:
    """A 64-bit count sent as its low word and, from NDB 7.6 on, a `_hi` word."""
    return (fields.get(f"{name}_hi", 0) << 32) | (fields.get(name, 0) & 0xFFFFFFFF)
