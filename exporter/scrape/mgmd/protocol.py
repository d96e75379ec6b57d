"""ndb_mgmd's plain-text protocol as its source defines it (storage/ndb/src/mgmsrv/Services.cpp,
src/mgmapi/mgmapi.cpp, ndb_logevent.cpp): a command line, `name: value` lines, a blank line;
replies the same way; a listener receives `log event reply` blocks of `name=value` lines and
`<PING>`. Parsing only, no I/O."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PORT = 1186
# Ndb_logevent_type numbers and their names (storage/ndb/include/mgmapi/ndb_logevent.h): the
# bounded set of `type` label values; any other number is counted as "other".
EVENT_NAMES = {
    0: "Connected",
    1: "Disconnected",
    2: "CommunicationClosed",
    3: "CommunicationOpened",
    4: "GlobalCheckpointStarted",
    5: "GlobalCheckpointCompleted",
    6: "LocalCheckpointStarted",
    7: "LocalCheckpointCompleted",
    8: "LCPStoppedInCalcKeepGci",
    10: "NDBStartStarted",
    11: "NDBStartCompleted",
    13: "StartPhaseCompleted",
    17: "NDBStopStarted",
    18: "NDBStopAborted",
    24: "NR_CopyFragsStarted",
    26: "NR_CopyFragsCompleted",
    27: "NodeFailCompleted",
    28: "NODE_FAILREP",
    29: "ArbitState",
    30: "ArbitResult",
    42: "TransporterError",
    43: "TransporterWarning",
    44: "MissedHeartbeat",
    45: "DeadDueToHeartbeat",
    46: "WarningEvent",
    49: "InfoEvent",
    50: "MemoryUsage",
    51: "ConnectedApiVersion",
    52: "SingleUser",
    53: "NDBStopCompleted",
    54: "BackupStarted",
    55: "BackupFailedToStart",
    56: "BackupCompleted",
    57: "BackupAborted",
    58: "EventBufferStatus",
    59: "NDBStopForced",
    60: "StartReport",
    62: "BackupStatus",
    69: "SubscriptionStatus",
    73: "RedoStatus",
}
OTHER = "other"
# The Logger severity of each event type that is not INFO (EventLogger.cpp, the matrix).
SEVERITIES = {
    "Disconnected": "ALERT",
    "LCPStoppedInCalcKeepGci": "ALERT",
    "NDBStopForced": "ALERT",
    "NodeFailCompleted": "ALERT",
    "NODE_FAILREP": "ALERT",
    "ArbitResult": "ALERT",
    "TransporterError": "ERROR",
    "TransporterWarning": "WARNING",
    "MissedHeartbeat": "WARNING",
    "DeadDueToHeartbeat": "ALERT",
    "WarningEvent": "WARNING",
    "SubscriptionStatus": "WARNING",
    "BackupFailedToStart": "ALERT",
    "BackupAborted": "ALERT",
}
# The categories and levels the exporter listens to: every event it counts, not the
# statistics and per-GCP chatter above level 8 (GlobalCheckpointCompleted is level 10).
LISTEN_FILTER = "STARTUP=8 SHUTDOWN=8 CHECKPOINT=8 NODERESTART=8 CONNECTION=8 ERROR=8 INFO=8 BACKUP=15 STATISTICS=5"
# ArbitCode values that mean the arbitration was lost (kernel/signaldata/ArbitSignalData.hpp)
ARBITRATION_LOST = {42, 44, 47, 48, 49}
ARBITRATION_WON = {41, 43, 46}
NODE_STATES = (
    "UNKNOWN",
    "NO_CONTACT",
    "NOT_STARTED",
    "STARTING",
    "STARTED",
    "SHUTTING_DOWN",
    "RESTARTING",
    "SINGLEUSER",
    "RESUME",
    "CONNECTED",
)


class ProtocolError(ValueError):
    """A reply that does not follow the protocol; the message is one line."""


@dataclass(frozen=True)
class Event:
    type: int
    source_node: int
    fields: dict[str, int]

    @property
    def name(self) -> str:
        return EVENT_NAMES.get(self.type, OTHER)

    @property
    def severity(self) -> str:
        return SEVERITIES.get(self.name, "INFO")


@dataclass(frozen=True)
class NodeStatus:
    node_id: int
    type: str  # NDB, MGM, API
    status: str
    start_phase: int
    connect_count: int
    version: int


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
    """The nodes of a `get status` reply (`node.ID.key: value`)."""
    ids = sorted(
        {
            int(k.split(".")[1])
            for k in values
            if k.startswith("node.") and k.count(".") == 2 and k.split(".")[1].isdigit()
        }
    )
    if "nodes" not in values or int(values["nodes"]) != len(ids):
        raise ProtocolError("get status: the node count does not match the nodes listed")
    return [_node(values, n) for n in ids]


def _node(values: dict[str, str], n: int) -> NodeStatus:
    def get(key: str, default: str = "0") -> str:
        return values.get(f"node.{n}.{key}", default)

    return NodeStatus(
        node_id=n,
        type=get("type", "API"),
        status=get("status", "UNKNOWN"),
        start_phase=_int(get("startphase")),
        connect_count=_int(get("connect_count")),
        version=_int(get("version")),
    )


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def event(lines: list[str]) -> Event:
    """A parsable event: the `name=value` lines after `log event reply`."""
    values: dict[str, int] = {}
    for line in lines:
        name, sep, value = line.partition("=")
        if not sep:
            raise ProtocolError(f"event line without '=': {line[:80]!r}")
        values[name.strip()] = _int(value.strip().split(" ")[0])
    if "type" not in values or "source_nodeid" not in values:
        raise ProtocolError("event without type or source_nodeid")
    kind, source = values.pop("type"), values.pop("source_nodeid")
    values.pop("time", None)
    return Event(kind, source, values)
