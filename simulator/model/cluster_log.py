"""The cluster log: typed events the data nodes, SQL nodes and management server report, as the
management server keeps and forwards them. Each event type is declared once, with its number,
category, level threshold, severity and named fields as NDB declares them
(storage/ndb/include/mgmapi/ndb_logevent.h, src/mgmapi/ndb_logevent.cpp,
src/common/debugger/EventLogger.cpp), read from the tables of data/ndb-mgm/ (ndb_tables)."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

from ndbsim.model import ndb_tables

LOG_SIZE = 2000  # events kept; a listener further behind misses the oldest
# The block numbers the events name (kernel/BlockNumbers.h): MemoryUsage's DBACC and DBTUP, and
# the blocks that report their part of a node failure's handling (NodeFailCompleted).
DBTC, DBDIH, DBLQH, DBACC, DBTUP, DBDICT = 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA
PAGE_SIZE_BYTES = 32768

# ndb_mgm_event_category: CFG_LOGLEVEL_* numbers by the names a listen event filter accepts
CATEGORIES = ndb_tables.categories()
_CATEGORY_NAMES = {number: name for name, number in CATEGORIES.items()}


@dataclass(frozen=True)
class EventType:
    name: str
    number: int  # Ndb_logevent_type
    category: str  # a key of CATEGORIES
    threshold: int  # the listener's level for the category must be at least this
    severity: str  # Logger level: INFO, WARNING, ERROR, ALERT
    fields: tuple[str, ...]  # the parsable reply's named fields, in order


EVENT_TYPES: dict[str, EventType] = {
    name: EventType(name, number, _CATEGORY_NAMES[category], threshold, severity, fields)
    for name, (number, category, threshold, severity, fields) in ndb_tables.event_rows().items()
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
        unknown = set(f) - set(kind.fields)
        if unknown:
            raise ValueError(f"{name} has no field(s) {', '.join(sorted(unknown))}")
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
