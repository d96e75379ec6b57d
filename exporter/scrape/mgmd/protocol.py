"""ndb_mgmd's plain-text protocol as its source defines it (storage/ndb/src/mgmsrv/Services.cpp,
src/mgmapi/mgmapi.cpp, ndb_logevent.cpp): a command line, `name: value` lines, a blank line;
replies the same way; a listener receives `log event reply` blocks of `name=value` lines and
`<PING>`. Parsing only, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field

from ndbinfo_exporter.scrape.mgmd.event_types import EVENT_TYPES

DEFAULT_PORT = 1186
# The bounded set of `type` label values: every Ndb_logevent_type; any other number is
# counted as "other".
EVENT_NAMES = {event.number: event.name for event in EVENT_TYPES}
EVENT_NUMBERS = {event.name: event.number for event in EVENT_TYPES}
SEVERITIES = {event.name: event.severity for event in EVENT_TYPES}
OTHER = "other"
# The level asked of each category: every event the exporter counts or reads, up to
# GlobalCheckpointCompleted (CHECKPOINT 10, one per GCI) and not the statistics and
# per-fragment chatter above (LCPFragmentCompleted is CHECKPOINT 11).
LISTEN_LEVELS = {
    "STARTUP": 8,
    "NODERESTART": 8,
    "CONNECTION": 8,
    "CHECKPOINT": 10,
    "ERROR": 8,
    "INFO": 8,
    "BACKUP": 15,
    "STATISTICS": 5,
}
LISTEN_FILTER = " ".join(f"{name}={level}" for name, level in LISTEN_LEVELS.items())
# ArbitCode values (kernel/signaldata/ArbitSignalData.hpp) of the arbitration results and the
# one error the exporter tells apart. Qmgr::handleArbitCheck (QmgrMain.cpp) reports the
# result of the check after a node failure; Partitioning (45) is reported only on the way to
# asking the arbitrator, whose answer (WinChoose, LoseChoose) or timeout follows, so it is
# neither won nor lost. WinWaitExternal (50): with Arbitration=WaitExternal the nodes wait
# ArbitrationTimeout for an external arbitrator to kill one side, then continue: they survive.
ARBIT_CODES = {
    41: "LoseNodes",
    42: "WinNodes",
    43: "WinGroups",
    44: "LoseGroups",
    45: "Partitioning",
    46: "WinChoose",
    47: "LoseChoose",
    48: "LoseNorun",
    49: "LoseNocfg",
    50: "WinWaitExternal",
    94: "ErrTimeout",
}
ARBITRATION_LOST = frozenset({41, 44, 47, 48, 49})
ARBITRATION_WON = frozenset({42, 43, 46, 50})
ARBITRATION_PENDING = frozenset({45})
ARBIT_ERR_TIMEOUT = 94
# Every (result, code name) the exporter counts: a bounded label set, present from the start.
ARBITRATION_OUTCOMES = (
    *(("won", ARBIT_CODES[c]) for c in sorted(ARBITRATION_WON)),
    *(("lost", ARBIT_CODES[c]) for c in sorted(ARBITRATION_LOST)),
    ("timeout", ARBIT_CODES[ARBIT_ERR_TIMEOUT]),
)
# Qmgr's ArbitState value in the high 16 bits of an ArbitState event's code
# (Qmgr::reportArbitEvent): ARBIT_CHOOSE (Qmgr.hpp) is asking the arbitrator after a
# possible partition, where a timeout shuts the nodes down (Qmgr::stateArbitChoose).
ARBIT_CHOOSE = 7
# mgmapi.cpp status_values[]: the text `get status` sends -> the ndb_mgm_node_status name
# (without NDB_MGM_NODE_STATUS_) the exporter labels it with; ndb_mgm_match_node_status
# makes any other text UNKNOWN.
NODE_STATUS_TEXTS = {
    "UNKNOWN": "UNKNOWN",
    "NO_CONTACT": "NO_CONTACT",
    "NOT_STARTED": "NOT_STARTED",
    "STARTING": "STARTING",
    "STARTED": "STARTED",
    "SHUTTING_DOWN": "SHUTTING_DOWN",
    "RESTARTING": "RESTARTING",
    "SINGLE USER MODE": "SINGLEUSER",
    "RESUME": "RESUME",
    "CONNECTED": "CONNECTED",
}
NODE_STATES = tuple(dict.fromkeys(NODE_STATUS_TEXTS.values()))
# mgmapi.cpp type_values[] (ndb_mgm_match_node_type): "DB" is the old name of NDB.
NODE_TYPE_TEXTS = {"NDB": "NDB", "DB": "NDB", "API": "API", "MGM": "MGM"}
# The per-node keys status_ackumulate accepts; any other fails the reply, as in mgmapi.
STATUS_KEYS = frozenset(
    {
        "type",
        "status",
        "startphase",
        "dynamic_id",
        "node_group",
        "version",
        "connect_count",
        "address",
        "mysql_version",
        "is_single_user",
    }
)


# `dump events` answers with at most two reports (MemoryUsage) from each of the 144 data
# nodes a cluster can have (MAX_NDB_NODES - 1): a larger count is not a reply to read.
MAX_DUMPED_EVENTS = 2 * 144


class ProtocolError(ValueError):
    """A reply that does not follow the protocol; the message is one line."""


@dataclass(frozen=True)
class Event:
    """One event: its fields as sent (`%d`, so a 32-bit word past 2^31 arrives negative: read
    it with u32), and the words of the `data=` line that an event without body rows in
    ndb_logevent.cpp gets instead (theData[1..], `%u` each)."""

    type: int
    source_node: int
    fields: dict[str, int]
    data: tuple[int, ...] = field(default=())

    @property
    def name(self) -> str:
        return EVENT_NAMES.get(self.type, OTHER)

    @property
    def severity(self) -> str:
        return SEVERITIES.get(self.name, "INFO")

    def u32(self, name: str) -> int:
        """A field as the unsigned 32-bit word the data node sent."""
        return self.fields.get(name, 0) & 0xFFFFFFFF

    def u64(self, low: str, high: str) -> int:
        """A 64-bit value sent as two words."""
        return (self.u32(high) << 32) | self.u32(low)


@dataclass(frozen=True)
class NodeStatus:
    """One node of `get status`, as mgmapi's status_ackumulate reads it. A key the reply
    leaves out keeps its default: mgmapi leaves the field unset."""

    node_id: int
    type: str  # NDB, API, MGM, UNKNOWN
    status: str  # one of NODE_STATES
    start_phase: int = 0
    connect_count: int = 0
    version: int = 0
    node_group: int | None = None
    dynamic_id: int | None = None


def command(name: str, args: dict[str, object] | None = None) -> bytes:
    lines = [name, *(f"{k}: {v}" for k, v in (args or {}).items()), "", ""]
    return "\n".join(lines).encode()


def reply_values(lines: list[str], header: str) -> dict[str, str]:
    """The `name: value` lines of a reply whose first line must be `header`."""
    if not lines or lines[0] != header:
        first = lines[0][:80] if lines else "nothing"
        raise ProtocolError(f"expected {header!r}, got {first!r}")
    values = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            values[name.strip()] = value.strip()
    return values


def node_statuses(values: dict[str, str]) -> list[NodeStatus]:
    """The nodes of a `get status` reply (`node.ID.key: value`), checked as
    ndb_mgm_get_status2 checks them: a node id that is not a number above 0 or a node count
    other than `nodes:` fail the reply. A key status_ackumulate does not read is passed over,
    so that a newer management server's additions leave the reply readable."""
    per_node: dict[int, dict[str, str]] = {}
    for name, value in values.items():
        if name == "nodes":
            continue
        prefix, _, rest = name.partition(".")
        node, _, key = rest.partition(".")
        if prefix != "node" or not node.isdigit() or int(node) == 0:
            raise ProtocolError(f"get status: illegal node status line {name[:40]!r}")
        keys = per_node.setdefault(int(node), {})
        if key in STATUS_KEYS:
            keys[key] = value
    if "nodes" not in values or _int(values["nodes"]) != len(per_node):
        raise ProtocolError("get status: the node count does not match the nodes listed")
    return [_node(n, per_node[n]) for n in sorted(per_node)]


def _node(node_id: int, keys: dict[str, str]) -> NodeStatus:
    def number(key: str) -> int | None:
        return _int(keys[key]) if key in keys else None

    return NodeStatus(
        node_id=node_id,
        type=NODE_TYPE_TEXTS.get(keys.get("type", ""), "UNKNOWN"),
        status=NODE_STATUS_TEXTS.get(keys.get("status", ""), "UNKNOWN"),
        start_phase=number("startphase") or 0,
        connect_count=number("connect_count") or 0,
        version=number("version") or 0,
        node_group=number("node_group"),
        dynamic_id=number("dynamic_id"),
    )


def _int(text: str) -> int:
    """atoi: the leading whole number, 0 without one."""
    digits = text.strip().split(" ")[0]
    try:
        return int(digits)
    except ValueError:
        return 0


def event(lines: list[str]) -> Event:
    """A parsable event: the `name=value` lines after `log event reply`."""
    values: dict[str, int] = {}
    data: tuple[int, ...] = ()
    for line in lines:
        name, sep, value = line.partition("=")
        if not sep:
            raise ProtocolError(f"event line without '=': {line[:80]!r}")
        values[name.strip()] = _int(value)
        if name.strip() == "data":
            data = tuple(_int(word) for word in value.split())
    if "type" not in values or "source_nodeid" not in values:
        raise ProtocolError("event without type or source_nodeid")
    kind, source = values.pop("type"), values.pop("source_nodeid")
    values.pop("time", None)
    return Event(kind, source, values, data)


DUMP_EVENTS_REPLY = "dump events reply"  # MgmApiSession::dump_events, Services.cpp


def dumped_event_count(values: dict[str, str]) -> int:
    """The number of events a `dump events` reply announces (its `events:` line), checked as
    ndb_mgm_dump_events checks it: a result other than Ok is the server's refusal, a missing
    count an illegal reply."""
    result = values.get("result", "")
    if result != "Ok":
        raise ProtocolError(f"dump events refused: {result[:200] or 'no result'}")
    if "events" not in values:
        raise ProtocolError("dump events: the number of events is missing")
    count = _int(values["events"])
    if not 0 <= count <= MAX_DUMPED_EVENTS:
        raise ProtocolError(f"dump events: {count} events announced")
    return count


def dumped_event(lines: list[str]) -> Event:
    """One event of a `dump events` reply: a `log event reply` block as logevent2str writes
    it."""
    if not lines or lines[0] != "log event reply":
        first = lines[0][:80] if lines else "nothing"
        raise ProtocolError(f"expected 'log event reply', got {first!r}")
    return event(lines[1:])
