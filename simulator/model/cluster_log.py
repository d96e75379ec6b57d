"""The cluster log: typed events the data nodes, SQL nodes and management server report, as the
management server keeps and forwards them. Each event type is declared once, with its number,
category, level threshold, severity and named fields as NDB declares them
(storage/ndb/include/mgmapi/ndb_logevent.h, src/mgmapi/ndb_logevent.cpp,
src/common/debugger/EventLogger.cpp)."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

LOG_SIZE = 2000  # events kept; a listener further behind misses the oldest
# The block numbers MemoryUsage reports name (kernel/BlockNumbers.h).
DBACC, DBTUP = 0xF8, 0xF9
PAGE_SIZE_BYTES = 32768

# ndb_mgm_event_category: CFG_LOGLEVEL_* numbers and the names a listen event filter accepts
CATEGORIES = {
    "STARTUP": 250,
    "SHUTDOWN": 251,
    "STATISTICS": 252,
    "CHECKPOINT": 253,
    "NODERESTART": 254,
    "CONNECTION": 255,
    "INFO": 256,
    "WARNING": 257,
    "ERROR": 258,
    "CONGESTION": 259,
    "DEBUG": 260,
    "BACKUP": 261,
    "SCHEMA": 262,
}


@dataclass(frozen=True)
class EventType:
    name: str
    number: int  # Ndb_logevent_type
    category: str  # a key of CATEGORIES
    threshold: int  # the listener's level for the category must be at least this
    severity: str  # Logger level: INFO, WARNING, ERROR, ALERT
    fields: tuple[str, ...]  # the parsable reply's named fields, in order


EVENT_TYPES: dict[str, EventType] = {
    t.name: t
    for t in (
        EventType("GlobalCheckpointCompleted", 5, "CHECKPOINT", 10, "INFO", ("gci",)),
        EventType(
            "LocalCheckpointStarted",
            6,
            "CHECKPOINT",
            7,
            "INFO",
            ("lci", "keep_gci", "restore_gci"),
        ),
        EventType("LocalCheckpointCompleted", 7, "CHECKPOINT", 7, "INFO", ("lci",)),
        EventType("NDBStartStarted", 10, "STARTUP", 1, "INFO", ("version",)),
        EventType("NDBStartCompleted", 11, "STARTUP", 1, "INFO", ("version",)),
        EventType("StartPhaseCompleted", 13, "STARTUP", 4, "INFO", ("phase", "starttype")),
        EventType("NDBStopStarted", 17, "STARTUP", 1, "INFO", ("stoptype",)),
        EventType("NDBStopCompleted", 53, "STARTUP", 1, "INFO", ("action", "signum")),
        EventType(
            "NodeFailCompleted",
            27,
            "NODERESTART",
            8,
            "ALERT",
            ("block", "failed_node", "completing_node"),
        ),
        EventType(
            "ArbitState",
            29,
            "NODERESTART",
            6,
            "INFO",
            ("code", "arbit_node", "ticket_0", "ticket_1"),
        ),
        EventType(
            "ArbitResult",
            30,
            "NODERESTART",
            2,
            "ALERT",
            ("code", "arbit_node", "ticket_0", "ticket_1"),
        ),
        EventType(
            "MemoryUsage",
            50,
            "STATISTICS",
            5,
            "INFO",
            ("gth", "page_size_bytes", "pages_used", "pages_total", "block"),
        ),
        EventType("WarningEvent", 46, "ERROR", 2, "WARNING", ()),
        EventType(
            "EventBufferStatus",
            58,
            "INFO",
            7,
            "INFO",
            ("usage", "alloc", "max", "apply_gci_l", "apply_gci_h", "latest_gci_l", "latest_gci_h"),
        ),
        EventType("BackupStarted", 54, "BACKUP", 7, "INFO", ("starting_node", "backup_id")),
        EventType("BackupFailedToStart", 55, "BACKUP", 7, "ALERT", ("starting_node", "error")),
        EventType(
            "BackupCompleted",
            56,
            "BACKUP",
            7,
            "INFO",
            (
                "starting_node",
                "backup_id",
                "start_gci",
                "stop_gci",
                "n_bytes",
                "n_records",
                "n_log_bytes",
                "n_log_records",
                "n_bytes_hi",
                "n_records_hi",
                "n_log_bytes_hi",
                "n_log_records_hi",
            ),
        ),
        EventType(
            "BackupAborted", 57, "BACKUP", 7, "ALERT", ("starting_node", "backup_id", "error")
        ),
        EventType(
            "BackupStatus",
            62,
            "BACKUP",
            7,
            "INFO",
            (
                "starting_node",
                "backup_id",
                "n_bytes_lo",
                "n_bytes_hi",
                "n_records_lo",
                "n_records_hi",
                "n_log_bytes_lo",
                "n_log_bytes_hi",
                "n_log_records_lo",
                "n_log_records_hi",
            ),
        ),
    )
}
EVENTS_BY_NUMBER = {t.number: t for t in EVENT_TYPES.values()}


@dataclass(frozen=True)
class LogEvent:
    seq: int
    type: EventType
    source_node: int
    time: float  # unix time on the hosts' clocks
    fields: dict[str, int]
    text: str  # what the cluster log file and a plain listener show after "Node N: "
    words: tuple[int, ...] = ()  # the body of an event without named fields (WarningEvent)


def text_words(text: str) -> tuple[int, ...]:
    """A text event's body as the 32-bit words the data node sends (NUL-terminated)."""
    raw = text.encode() + b"\0"
    raw += b"\0" * (-len(raw) % 4)
    return tuple(int.from_bytes(raw[i : i + 4], "little") for i in range(0, len(raw), 4))


class ClusterLog:
    """A bounded, ordered log of events; readers poll `since(seq)`. Thread-safe."""

    def __init__(self) -> None:
        self._events: deque[LogEvent] = deque(maxlen=LOG_SIZE)
        self._seq = 0
        self._lock = threading.Lock()
        self.listener_generation = 0  # raised to make the management server drop listeners

    def emit(
        self, name: str, source: int, when: float, text: str, words: tuple[int, ...] = (), **f: int
    ) -> LogEvent:
        kind = EVENT_TYPES[name]
        fields = {key: int(f.get(key, 0)) for key in kind.fields}
        with self._lock:
            self._seq += 1
            event = LogEvent(self._seq, kind, source, when, fields, text, words)
            self._events.append(event)
        return event

    def last_seq(self) -> int:
        with self._lock:
            return self._seq

    def since(self, seq: int) -> list[LogEvent]:
        """Events after `seq`, oldest first."""
        with self._lock:
            return [e for e in self._events if e.seq > seq]

    def drop_listeners(self) -> int:
        """Ask the management server to close every listen event subscription."""
        with self._lock:
            self.listener_generation += 1
            return self.listener_generation
