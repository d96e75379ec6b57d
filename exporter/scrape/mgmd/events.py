"""What the exporter keeps from the cluster log: events counted by type and source node, the
latest RECENT_EVENTS events themselves (for their readers), the backup running (started, not
yet completed or aborted), the last completed backup, backups aborted or failed to start, arbitration results, the nodes that failed, missed heartbeats or
stopped by force (the last stop of each, and the stops by node and exit code), the subscribers
the data nodes disconnected, each SQL node's event buffer and the latest completed global
checkpoint. Only the event loop touches it."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ndbinfo_exporter.scrape.mgmd.exit_codes import stop_forced_text
from ndbinfo_exporter.scrape.mgmd.protocol import (
    ARBIT_CHOOSE,
    ARBIT_CODES,
    ARBIT_ERR_TIMEOUT,
    ARBITRATION_LOST,
    ARBITRATION_OUTCOMES,
    ARBITRATION_WON,
    Event,
)

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
# Fields EventLogger's texts do not send: describe() adds them.
DERIVED_FIELDS = frozenset({"result"})
# The wire keys (ndb_logevent.cpp ndb_logevent_body[]) the exporter reads from each event,
# and `data` for the `data=` words of an event without body rows.
READS = {
    "BackupStarted": ("starting_node", "backup_id"),
    "BackupCompleted": ("backup_id", "n_bytes", "n_bytes_hi", "n_records", "n_records_hi"),
    "BackupAborted": ("backup_id",),
    # read from `dump events` replies (backup_progress.py)
    "BackupStatus": ("backup_id", "n_bytes_lo", "n_bytes_hi", "n_records_lo", "n_records_hi"),
    "ArbitResult": ("code",),
    "ArbitState": ("code",),
    "NDBStopForced": ("action", "signum", "error", "sphase", "extra"),
    "DeadDueToHeartbeat": ("node",),
    "MissedHeartbeat": ("node",),
    "NODE_FAILREP": ("failed_node",),
    "SubscriptionStatus": ("data",),
    "GlobalCheckpointCompleted": ("gci",),
    "EventBufferStatus": ("usage", "alloc", "max"),
    "EventBufferStatus2": ("usage", "alloc", "max"),
    "EventBufferStatus3": ("usage_l", "usage_h", "alloc_l", "alloc_h", "max_l", "max_h"),
}
# SubscriptionStatus report types (Suma.cpp; EventLogger.cpp getTextSubscriptionStatus):
# DISCONNECTED, sent by Suma::checkMaxBufferedEpochs with the words report type, subscriber
# node, epoch low and high word, epochs buffered, MaxBufferedEpochs.
SUBSCRIPTION_DISCONNECTED = 1
# Node ids are 1..255: the labels of the per-node tables stay bounded.
MAX_NODE_ID = 255


@dataclass(frozen=True)
class LoggedEvent:
    """One event as its readers show it."""

    type: str
    time: float  # unix time the exporter received it
    source_node: int
    severity: str  # EventLogger's: INFO, WARNING, ERROR, ALERT
    text: str


@dataclass(frozen=True)
class StartedBackup:
    """The backup the cluster log says runs: BackupStarted received, no BackupCompleted or
    BackupAborted for it yet."""

    backup_id: int
    starting_node: int  # the node that asked for it (the management server, for START BACKUP)
    started_at: float  # unix time the exporter received BackupStarted


@dataclass(frozen=True)
class CompletedBackup:
    backup_id: int
    end_time: float  # unix time the exporter received BackupCompleted
    bytes: int
    records: int


@dataclass(frozen=True)
class ForcedStop:
    """A data node's NDBStopForced, which its angel reports when the node process ended on an
    error or a signal (angel.cpp reportShutdown)."""

    node_id: int
    time: float  # unix time the exporter received it
    error: int  # the ndbd exit code; 0 when a signal stopped the node
    signal: int  # signum: the signal that ended the process, 0 for none
    start_phase: int  # sphase: the start phase it was in; exit_codes.STARTED_PHASE once started
    action: int  # the angel's restart bits (exit_codes.RESTARTING, NO_START, INITIAL)


@dataclass(frozen=True)
class EventBuffer:
    """An SQL node's NDB API event buffer as its last EventBufferStatus* report gave it."""

    used: int
    allocated: int
    max: int  # ndb_eventbuffer_max_alloc, 0 for unlimited


@dataclass(frozen=True)
class GlobalCheckpoint:
    gci: int
    time: float  # unix time the exporter received GlobalCheckpointCompleted


# Events whose count by data node an alert reads (NdbDataNodeForcedStop, NdbLcpKeepGciStuck).
ALERTED_EVENTS = ("NDBStopForced", "LCPStoppedInCalcKeepGci")


@dataclass
class ClusterLogState:
    clock: Callable[[], float] = time.time
    events: dict[tuple[str, str], int] = field(default_factory=dict)  # (type, node id) -> count
    last_seen: dict[str, float] = field(default_factory=dict)  # type -> unix time
    running_backup: StartedBackup | None = None
    last_backup: CompletedBackup | None = None
    backups_aborted: int = 0
    backups_failed_to_start: int = 0
    # (result, ArbitCode name) -> count: every code that ends an arbitration, from 0
    arbitration: dict[tuple[str, str], int] = field(
        default_factory=lambda: dict.fromkeys(ARBITRATION_OUTCOMES, 0)
    )
    recent: deque[LoggedEvent] = field(default_factory=lambda: deque(maxlen=RECENT_EVENTS))
    # per node id (str): the node the event is about, not the one that reported it
    heartbeat_deaths: dict[str, int] = field(default_factory=dict)
    heartbeats_missed: dict[str, int] = field(default_factory=dict)
    node_failures: dict[str, int] = field(default_factory=dict)
    subscribers_disconnected: dict[str, int] = field(default_factory=dict)
    # per source node (str)
    forced_stops: dict[str, ForcedStop] = field(default_factory=dict)
    # (source node, exit code) -> count
    forced_stops_by_error: dict[tuple[str, str], int] = field(default_factory=dict)
    event_buffers: dict[str, EventBuffer] = field(default_factory=dict)
    global_checkpoint: GlobalCheckpoint | None = None

    def know_nodes(self, data_nodes: Iterable[int], api_nodes: Iterable[int]) -> None:
        """Count from 0 for every node the management server lists, in the tables the alerts
        take the increase of: a series that first appears at 1 shows no increase, so that a
        node's first forced stop or heartbeat death would page no one."""
        for node in map(str, data_nodes):
            for table in (self.heartbeat_deaths, self.heartbeats_missed, self.node_failures):
                table.setdefault(node, 0)
            for kind in ALERTED_EVENTS:
                self.events.setdefault((kind, node), 0)
        for node in map(str, api_nodes):
            self.subscribers_disconnected.setdefault(node, 0)

    def record(self, event: Event) -> LoggedEvent:
        key = (event.name, str(event.source_node))
        self.events[key] = self.events.get(key, 0) + 1
        now = self.clock()
        self.last_seen[event.name] = now
        logged = LoggedEvent(event.name, now, event.source_node, event.severity, describe(event))
        self.recent.append(logged)
        handler = HANDLERS.get(event.name)
        if handler is not None:
            handler(self, event, now)
        return logged

    def backup_not_running(self, backup_id: int) -> None:
        """The backup of this id runs no more: its BackupCompleted or BackupAborted arrived,
        or the data nodes report no backup of that id (its end came while the subscription
        was down)."""
        if self.running_backup is not None and self.running_backup.backup_id == backup_id:
            self.running_backup = None

    def _backup_started(self, event: Event, now: float) -> None:
        self.running_backup = StartedBackup(event.u32("backup_id"), event.u32("starting_node"), now)

    def _backup_completed(self, event: Event, now: float) -> None:
        self.last_backup = CompletedBackup(
            event.u32("backup_id"),
            now,
            event.u64("n_bytes", "n_bytes_hi"),
            event.u64("n_records", "n_records_hi"),
        )
        self.backup_not_running(self.last_backup.backup_id)

    def _backup_aborted(self, event: Event, now: float) -> None:
        self.backups_aborted += 1
        self.backup_not_running(event.u32("backup_id"))

    def _backup_failed_to_start(self, event: Event, now: float) -> None:
        self.backups_failed_to_start += 1

    def _arbitration(self, event: Event, now: float) -> None:
        result = arbitration_result(event)
        if result is not None:
            key = (result, ARBIT_CODES[event.u32("code") & 0xFFFF])
            self.arbitration[key] += 1

    def _forced_stop(self, event: Event, now: float) -> None:
        stop = ForcedStop(
            event.source_node,
            now,
            event.u32("error"),
            event.u32("signum"),
            event.u32("sphase"),
            event.u32("action"),
        )
        node = str(stop.node_id)
        self.forced_stops[node] = stop
        key = (node, str(stop.error))
        self.forced_stops_by_error[key] = self.forced_stops_by_error.get(key, 0) + 1

    def _heartbeat_death(self, event: Event, now: float) -> None:
        _count(self.heartbeat_deaths, event.u32("node"))

    def _heartbeat_missed(self, event: Event, now: float) -> None:
        _count(self.heartbeats_missed, event.u32("node"))

    def _node_failure(self, event: Event, now: float) -> None:
        _count(self.node_failures, event.u32("failed_node"))

    def _subscription_status(self, event: Event, now: float) -> None:
        words = event.data
        if len(words) >= 2 and words[0] == SUBSCRIPTION_DISCONNECTED:
            _count(self.subscribers_disconnected, words[1])

    def _global_checkpoint(self, event: Event, now: float) -> None:
        self.global_checkpoint = GlobalCheckpoint(event.u32("gci"), now)

    def _event_buffer(self, event: Event, now: float) -> None:
        self.event_buffers[str(event.source_node)] = EventBuffer(
            event.u32("usage"), event.u32("alloc"), event.u32("max")
        )

    def _event_buffer3(self, event: Event, now: float) -> None:
        self.event_buffers[str(event.source_node)] = EventBuffer(
            event.u64("usage_l", "usage_h"),
            event.u64("alloc_l", "alloc_h"),
            event.u64("max_l", "max_h"),
        )


HANDLERS = {
    "BackupStarted": ClusterLogState._backup_started,
    "BackupCompleted": ClusterLogState._backup_completed,
    "BackupAborted": ClusterLogState._backup_aborted,
    "BackupFailedToStart": ClusterLogState._backup_failed_to_start,
    "ArbitResult": ClusterLogState._arbitration,
    "ArbitState": ClusterLogState._arbitration,
    "NDBStopForced": ClusterLogState._forced_stop,
    "DeadDueToHeartbeat": ClusterLogState._heartbeat_death,
    "MissedHeartbeat": ClusterLogState._heartbeat_missed,
    "NODE_FAILREP": ClusterLogState._node_failure,
    "SubscriptionStatus": ClusterLogState._subscription_status,
    "GlobalCheckpointCompleted": ClusterLogState._global_checkpoint,
    "EventBufferStatus": ClusterLogState._event_buffer,
    "EventBufferStatus2": ClusterLogState._event_buffer,
    "EventBufferStatus3": ClusterLogState._event_buffer3,
}


def _count(table: dict[str, int], node_id: int) -> None:
    """One more for a node id; an id outside 1..MAX_NODE_ID is not a node and is left out."""
    if 0 < node_id <= MAX_NODE_ID:
        key = str(node_id)
        table[key] = table.get(key, 0) + 1


def arbitration_result(event: Event) -> str | None:
    """won, lost or timeout for an ArbitResult that ends an arbitration, and for the
    ArbitState timeout of asking the arbitrator (the nodes shut down after it); None for
    any other arbitration event."""
    code = event.u32("code")
    result, state = code & 0xFFFF, code >> 16
    if event.name == "ArbitState":
        return "timeout" if (result, state) == (ARBIT_ERR_TIMEOUT, ARBIT_CHOOSE) else None
    if result in ARBITRATION_LOST:
        return "lost"
    return "won" if result in ARBITRATION_WON else None


def forced_stop_text(event: Event) -> str:
    return stop_forced_text(
        event.u32("error"),
        event.u32("signum"),
        event.u32("sphase"),
        event.u32("action"),
        event.u32("extra"),
    )


# Events whose text EventLogger builds from NDB's tables rather than a format.
TEXT_FUNCTIONS = {"NDBStopForced": forced_stop_text}


def describe(event: Event) -> str:
    """The event's text: EventLogger's wording for the common events, else its type name and
    (at most MAX_FIELDS_SHOWN of) its fields."""
    function = TEXT_FUNCTIONS.get(event.name)
    if function is not None:
        return function(event)
    fields: dict[str, object] = dict(event.fields)
    if event.name == "BackupCompleted":
        records, size = event.u64("n_records", "n_records_hi"), event.u64("n_bytes", "n_bytes_hi")
        extra = f": {records} records, {size} bytes"
    else:
        extra = ""
    if event.name == "ArbitResult":
        fields["result"] = arbitration_result(event) or "done"
    template = TEXTS.get(event.name)
    if template is not None:
        try:
            return template.format_map(fields) + extra
        except KeyError:
            pass
    shown = " ".join(f"{k}={v}" for k, v in list(fields.items())[:MAX_FIELDS_SHOWN])
    return f"{event.name} {shown}".strip()
