"""One cluster's management servers as the scrape reads them: node statuses from `get status`
at each scrape (bounded by a deadline, from each management server at once), while a backup
runs the data nodes' reports of it (backup_progress.py, within the same deadline), and the
cluster log kept by the subscription. A management server that does not answer is
`ndb_mgmd_up 0`, never a failed scrape."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from ndbinfo_exporter.collectors.base import MetricSpec, add_states, counter, gauge
from ndbinfo_exporter.scrape.mgmd import backup_progress, client
from ndbinfo_exporter.scrape.mgmd.backup_progress import BackupProgress, BackupWatch
from ndbinfo_exporter.scrape.mgmd.client import Address, Subscription
from ndbinfo_exporter.scrape.mgmd.configuration import DataNodeConfig
from ndbinfo_exporter.scrape.mgmd.event_log import EventLog, event_line
from ndbinfo_exporter.scrape.mgmd.events import (
    ClusterLogState,
    CompletedBackup,
    ForcedStop,
    LoggedEvent,
    StartedBackup,
)
from ndbinfo_exporter.scrape.mgmd.exit_codes import exit_code
from ndbinfo_exporter.scrape.mgmd.protocol import NODE_STATES, Event, NodeStatus, ProtocolError
from prometheus_client.core import Metric

STATUS_DEADLINE = 1.0  # longest a scrape waits for `get status`
CONFIG_MAX_AGE = 300.0  # the configuration (which data nodes are active) is read again after
CONFIG_DEADLINE = 5.0  # longest a scrape waits for it (once every CONFIG_MAX_AGE)
MAX_CLUSTERS = 16  # management server sets read through /probe, the oldest dropped beyond

UP = gauge(
    "ndb_mgmd_up",
    "1 when the management server answered get status within the deadline at this scrape.",
    ("address",),
)
NODE_STATUS = gauge(
    "ndb_mgmd_node_status",
    "Status of every node (data, management and API) as the management server reports it:"
    " 1 for the current state, 0 for the others.",
    ("node_id", "node_type", "state"),
)
START_PHASE = gauge(
    "ndb_mgmd_node_start_phase",
    "Start phase of a data node (meaningful while STARTING).",
    ("node_id",),
)
ACTIVE = gauge(
    "ndb_mgmd_data_node_active",
    "1 for a data node the cluster's configuration has active, 0 for one it has not (RonDB's"
    " NodeActive=0: the node does not start until it is activated), with the node group the"
    " configuration gives it ('' where it gives none); only where the configuration has the"
    " parameter (RonDB).",
    ("node_id", "nodegroup"),
)
CONNECT_COUNT = gauge(
    "ndb_mgmd_node_connect_count",
    "Times the node has connected to the cluster, as the management server counts them.",
    ("node_id",),
)
SUBSCRIPTION_UP = gauge(
    "ndb_mgmd_subscription_up", "1 while the exporter's listen event subscription is open."
)
SUBSCRIPTION_DROPS = counter(
    "ndb_mgmd_subscription_drops_total",
    "Times the listen event subscription was lost (it is re-established with backoff).",
)
SUBSCRIPTION_GAP = counter(
    "ndb_mgmd_subscription_gap_seconds_total",
    "Seconds without a listen event subscription since the first one: events of that time"
    " are not counted.",
)
EVENTS = counter(
    "ndb_mgmd_events_total",
    "Cluster log events received, by event type (Ndb_logevent_type name) and source node.",
    ("type", "node_id"),
)
LAST_EVENT = gauge(
    "ndb_mgmd_last_event_timestamp_seconds",
    "Unix time the exporter last received an event of this type.",
    ("type",),
)
BACKUP_ID = gauge("ndb_mgmd_backup_last_completed_id", "Id of the last completed backup.")
BACKUP_END = gauge(
    "ndb_mgmd_backup_last_completed_timestamp_seconds",
    "Unix time the last backup completed (when its BackupCompleted event arrived).",
)
BACKUP_BYTES = gauge(
    "ndb_mgmd_backup_last_completed_bytes", "Data bytes of the last completed backup."
)
BACKUP_RECORDS = gauge(
    "ndb_mgmd_backup_last_completed_records", "Records of the last completed backup."
)
BACKUPS_ABORTED = counter("ndb_mgmd_backups_aborted_total", "Backups aborted (BackupAborted).")
BACKUPS_FAILED = counter(
    "ndb_mgmd_backups_failed_to_start_total", "Backups that failed to start (BackupFailedToStart)."
)
ARBITRATIONS = counter(
    "ndb_mgmd_arbitration_results_total",
    "Arbitration results after node failures: ArbitResult won or lost, and timeout when the"
    " arbitrator did not answer (ArbitState ErrTimeout while asking it); code is the ArbitCode"
    " that decided (WinGroups: a node group complete, WinNodes: more than half the data nodes,"
    " WinChoose/LoseChoose: the arbitrator's answer, LoseGroups, LoseNodes, LoseNorun, ...).",
    ("result", "code"),
)
HEARTBEAT_DEATHS = counter(
    "ndb_mgmd_heartbeat_deaths_total",
    "Times a node was declared dead for missed heartbeats (DeadDueToHeartbeat), by that node.",
    ("node_id",),
)
HEARTBEATS_MISSED = counter(
    "ndb_mgmd_heartbeats_missed_total",
    "Missed heartbeats reported (MissedHeartbeat), by the node that missed them.",
    ("node_id",),
)
NODE_FAILURES = counter(
    "ndb_mgmd_node_failures_total",
    "Node failures reported by the data nodes (NODE_FAILREP), by the failed node.",
    ("node_id",),
)
SUBSCRIBERS_DISCONNECTED = counter(
    "ndb_mgmd_subscribers_disconnected_total",
    "Times the data nodes disconnected an event subscriber that exceeded MaxBufferedEpochs"
    " (SubscriptionStatus DISCONNECTED), by the subscriber's node id.",
    ("node_id",),
)
FORCED_STOP_ERROR = gauge(
    "ndb_mgmd_node_forced_stop_error",
    "Error code of the data node's last forced stop (NDBStopForced; 0 for a stop by a signal).",
    ("node_id",),
)
FORCED_STOP_PHASE = gauge(
    "ndb_mgmd_node_forced_stop_start_phase",
    "Start phase the data node was in at its last forced stop (NDBStopForced; 255 when it had"
    " started).",
    ("node_id",),
)
FORCED_STOP_INFO = gauge(
    "ndb_mgmd_node_last_forced_stop_info",
    "1 for the data node's last forced stop (NDBStopForced), with its cause: error (the ndbd"
    " exit code, 0 for a stop by a signal), signal, and NDB's words for the code from"
    " ndbd_exit_codes.cpp: message (errArray's text: one per code), classification"
    " (ndbd_exit_cl_*: internal_error, arbitration_error, ...) and status (ndbd_exit_st_*:"
    " temporary, permanent, filesystem_error, ...); empty for error 0.",
    ("node_id", "error", "signal", "message", "classification", "status"),
)
FORCED_STOPS = counter(
    "ndb_mgmd_node_forced_stops_total",
    "Forced stops (NDBStopForced) received, by data node and ndbd exit code (0 for a stop by"
    " a signal).",
    ("node_id", "error"),
)
EVENT_BUFFER_USED = gauge(
    "ndb_mgmd_eventbuffer_used_bytes",
    "Bytes of the NDB API event buffer in use, as the SQL node's last EventBufferStatus"
    " report gave it, by its node id.",
    ("node_id",),
)
EVENT_BUFFER_ALLOCATED = gauge(
    "ndb_mgmd_eventbuffer_allocated_bytes",
    "Bytes allocated to the NDB API event buffer, as the SQL node's last report gave it.",
    ("node_id",),
)
EVENT_BUFFER_MAX = gauge(
    "ndb_mgmd_eventbuffer_max_bytes",
    "The event buffer's limit (ndb_eventbuffer_max_alloc), 0 for unlimited, as the SQL node's"
    " last report gave it.",
    ("node_id",),
)
GCI = gauge(
    "ndb_mgmd_global_checkpoint_gci",
    "GCI of the latest completed global checkpoint (GlobalCheckpointCompleted).",
)
GCI_TIME = gauge(
    "ndb_mgmd_global_checkpoint_timestamp_seconds",
    "Unix time the exporter received the latest GlobalCheckpointCompleted.",
)
METRICS = (
    UP,
    NODE_STATUS,
    ACTIVE,
    START_PHASE,
    CONNECT_COUNT,
    SUBSCRIPTION_UP,
    SUBSCRIPTION_DROPS,
    SUBSCRIPTION_GAP,
    EVENTS,
    LAST_EVENT,
    BACKUP_ID,
    BACKUP_END,
    BACKUP_BYTES,
    BACKUP_RECORDS,
    *backup_progress.METRICS,
    BACKUPS_ABORTED,
    BACKUPS_FAILED,
    ARBITRATIONS,
    HEARTBEAT_DEATHS,
    HEARTBEATS_MISSED,
    NODE_FAILURES,
    SUBSCRIBERS_DISCONNECTED,
    FORCED_STOP_ERROR,
    FORCED_STOP_PHASE,
    FORCED_STOP_INFO,
    FORCED_STOPS,
    EVENT_BUFFER_USED,
    EVENT_BUFFER_ALLOCATED,
    EVENT_BUFFER_MAX,
    GCI,
    GCI_TIME,
)


@dataclass(frozen=True)
class ManagementState:
    """What the reader knows of one cluster at one moment, for its readers: the
    last `get status` (its time, which management servers answered, every node), the
    subscription, the backups and the latest events, newest first."""

    read_at: float | None  # unix time of the last get status, None before the first
    answered: tuple[tuple[str, bool], ...]  # (address, answered the last get status)
    nodes: tuple[NodeStatus, ...]
    subscription_up: bool
    listening_since: float | None  # unix time the first subscription was established
    last_backup: CompletedBackup | None
    backups_aborted: int
    backups_failed_to_start: int
    last_backup_failure: float | None  # unix time of the last BackupAborted/FailedToStart
    events: tuple[LoggedEvent, ...]
    forced_stops: tuple[ForcedStop, ...] = ()  # each data node's last, by node id
    running_backup: StartedBackup | None = None
    backup_progress: BackupProgress | None = None  # the data nodes' last reports of it
    # the data nodes of the configuration (get config_v2): which are active (RonDB)
    configured: tuple[DataNodeConfig, ...] = ()

    @property
    def reachable(self) -> bool:
        return any(up for _, up in self.answered)


class MgmdReader:
    """The management servers of one cluster (two for failover count once)."""

    def __init__(self, addresses: Sequence[Address], event_log: EventLog | None = None) -> None:
        self.addresses = tuple(addresses)
        self.state = ClusterLogState()
        self.event_log = event_log
        self.subscription = Subscription(self.addresses, self._received)
        self._answered: tuple[tuple[str, bool], ...] = ()
        self._nodes: tuple[NodeStatus, ...] = ()
        self._read_at: float | None = None
        self._config: tuple[DataNodeConfig, ...] = ()
        self._config_at: float | None = None
        self.backup = BackupWatch(self.addresses)

    def _received(self, event: Event) -> None:
        logged = self.state.record(event)
        if self.event_log is not None:
            names = ",".join(map(client.address_name, self.addresses))
            self.event_log.write(event_line(event, logged.text, logged.time, names))

    async def families(self, timeout: float) -> list[Metric]:
        """The families of one scrape, after a `get status`."""
        await self._read_status(timeout)
        return [
            up_family(self._answered),
            *node_families(self._nodes),
            active_family(self._config),
            *log_families(self.state, self.subscription),
            *self.backup.families(self.state),
        ]

    async def current(self, timeout: float, max_age: float) -> ManagementState:
        """The state, after a `get status` when the last one (a scrape's) is older than
        ``max_age`` seconds."""
        if self._read_at is None or time.time() - self._read_at >= max_age:
            await self._read_status(timeout)
        return self.snapshot()

    async def _read_status(self, timeout: float) -> None:
        """`get status` from every management server at once, within the deadline: which
        answered, and the nodes as the first that answered reports them; while a backup runs,
        the data nodes' reports of it within the same deadline. Starts the subscription on
        first use."""
        self.subscription.start()
        deadline = max(0.1, min(STATUS_DEADLINE, timeout))
        answers, _, _ = await asyncio.gather(
            asyncio.gather(*(self._status(a, deadline) for a in self.addresses)),
            self.backup.read(self.state, deadline),
            self._read_config(max(0.1, min(CONFIG_DEADLINE, timeout))),
        )
        self._answered = tuple(
            (client.address_name(address), nodes is not None)
            for address, nodes in zip(self.addresses, answers, strict=True)
        )
        nodes = next((n for n in answers if n is not None), [])
        self._nodes, self._read_at = tuple(nodes), time.time()
        self.state.know_nodes(
            (n.node_id for n in nodes if n.type == "NDB"),
            (n.node_id for n in nodes if n.type == "API"),
        )

    def snapshot(self) -> ManagementState:
        state = self.state
        failures = [state.last_seen.get(k) for k in ("BackupAborted", "BackupFailedToStart")]
        return ManagementState(
            read_at=self._read_at,
            answered=self._answered,
            nodes=self._nodes,
            subscription_up=self.subscription.up,
            listening_since=self.subscription.established_at,
            last_backup=state.last_backup,
            backups_aborted=state.backups_aborted,
            backups_failed_to_start=state.backups_failed_to_start,
            last_backup_failure=max((t for t in failures if t is not None), default=None),
            events=tuple(reversed(state.recent)),
            forced_stops=tuple(sorted(state.forced_stops.values(), key=lambda s: s.node_id)),
            running_backup=state.running_backup,
            backup_progress=self.backup.progress(state.running_backup),
            configured=self._config,
        )

    async def _read_config(self, deadline: float) -> None:
        """The configuration's data nodes, from the first management server that gives them,
        when the last read is older than CONFIG_MAX_AGE; kept as they were when none does."""
        if self._config_at is not None and time.time() - self._config_at < CONFIG_MAX_AGE:
            return
        for address in self.addresses:
            try:
                nodes = await asyncio.wait_for(client.get_config(address), deadline)
            except (OSError, TimeoutError, ProtocolError, ValueError, asyncio.IncompleteReadError):
                continue
            self._config, self._config_at = tuple(nodes), time.time()
            return

    @staticmethod
    async def _status(address: Address, deadline: float) -> list[NodeStatus] | None:
        try:
            return await asyncio.wait_for(client.get_status(address), deadline)
        except (OSError, TimeoutError, ProtocolError, ValueError):
            return None

    async def close(self) -> None:
        await self.subscription.close()


def up_family(answered: Sequence[tuple[str, bool]]) -> Metric:
    """``ndb_mgmd_up`` of every management server: whether it answered `get status`."""
    up = UP.family()
    for address, answered_it in answered:
        up.add_metric([address], 1.0 if answered_it else 0.0)
    return up


def active_family(nodes: Sequence[DataNodeConfig]) -> Metric:
    """``ndb_mgmd_data_node_active`` of the data nodes whose configuration says (RonDB)."""
    active = ACTIVE.family()
    for node in nodes:
        if node.active is not None:
            group = "" if node.nodegroup is None else str(node.nodegroup)
            active.add_metric([str(node.node_id), group], 1.0 if node.active else 0.0)
    return active


def node_families(nodes: Sequence[NodeStatus]) -> list[Metric]:
    status, phase, connects = NODE_STATUS.family(), START_PHASE.family(), CONNECT_COUNT.family()
    for node in nodes:
        node_id = str(node.node_id)
        add_states(status, [node_id, node.type], node.status, NODE_STATES)
        if node.type == "NDB":
            phase.add_metric([node_id], node.start_phase)
        connects.add_metric([node_id], node.connect_count)
    return [status, phase, connects]


def log_families(state: ClusterLogState, subscription: Subscription) -> list[Metric]:
    out = []
    for spec, value in (
        (SUBSCRIPTION_UP, 1.0 if subscription.up else 0.0),
        (SUBSCRIPTION_DROPS, subscription.drops),
        (SUBSCRIPTION_GAP, subscription.gap_seconds),
        (BACKUPS_ABORTED, state.backups_aborted),
        (BACKUPS_FAILED, state.backups_failed_to_start),
    ):
        out.append(_single(spec, value))
    events, last = EVENTS.family(), LAST_EVENT.family()
    for (kind, node), count in sorted(state.events.items()):
        events.add_metric([kind, node], count)
    for kind, when in sorted(state.last_seen.items()):
        last.add_metric([kind], when)
    arbitrations = ARBITRATIONS.family()
    for (result, code), count in sorted(state.arbitration.items()):
        arbitrations.add_metric([result, code], count)
    out += [events, last, arbitrations, *per_node_families(state), *forced_stop_families(state)]
    checkpoint = state.global_checkpoint
    if checkpoint is not None:
        out += [_single(GCI, checkpoint.gci), _single(GCI_TIME, checkpoint.time)]
    backup = state.last_backup
    if backup is not None:
        for spec, value in (
            (BACKUP_ID, backup.backup_id),
            (BACKUP_END, backup.end_time),
            (BACKUP_BYTES, backup.bytes),
            (BACKUP_RECORDS, backup.records),
        ):
            out.append(_single(spec, value))
    return out


def per_node_families(state: ClusterLogState) -> list[Metric]:
    """The cluster log's tables by node id, sorted."""
    tables = [
        (HEARTBEAT_DEATHS, state.heartbeat_deaths),
        (HEARTBEATS_MISSED, state.heartbeats_missed),
        (NODE_FAILURES, state.node_failures),
        (SUBSCRIBERS_DISCONNECTED, state.subscribers_disconnected),
        (FORCED_STOP_ERROR, {n: s.error for n, s in state.forced_stops.items()}),
        (FORCED_STOP_PHASE, {n: s.start_phase for n, s in state.forced_stops.items()}),
        (EVENT_BUFFER_USED, {n: b.used for n, b in state.event_buffers.items()}),
        (EVENT_BUFFER_ALLOCATED, {n: b.allocated for n, b in state.event_buffers.items()}),
        (EVENT_BUFFER_MAX, {n: b.max for n, b in state.event_buffers.items()}),
    ]
    out = []
    for spec, values in tables:
        family = spec.family()
        for node, value in sorted(values.items(), key=lambda item: int(item[0])):
            family.add_metric([node], value)
        out.append(family)
    return out


def forced_stop_families(state: ClusterLogState) -> list[Metric]:
    """Each data node's last forced stop with its cause, and the stops by node and code."""
    info, counts = FORCED_STOP_INFO.family(), FORCED_STOPS.family()
    for node, stop in sorted(state.forced_stops.items(), key=lambda item: int(item[0])):
        info.add_metric([node, str(stop.error), str(stop.signal), *_cause(stop.error)], 1.0)
    for (node, error), count in sorted(
        state.forced_stops_by_error.items(), key=lambda item: (int(item[0][0]), int(item[0][1]))
    ):
        counts.add_metric([node, error], count)
    return [info, counts]


def _cause(error: int) -> tuple[str, str, str]:
    """message, classification and status of an exit code; empty for 0 (a signal), which
    EventLogger does not look up either."""
    if not error:
        return ("", "", "")
    code = exit_code(error)
    return (code.message, code.classification, code.status)


def _single(spec: MetricSpec, value: float) -> Metric:
    family = spec.family()
    family.add_metric([], value)
    return family


class MgmdReaders:
    """A reader per set of management servers: the configured one, and those /probe names
    (at most MAX_CLUSTERS, the least recently used closed beyond)."""

    def __init__(self, event_log: EventLog | None = None) -> None:
        self.event_log = event_log
        self._readers: OrderedDict[tuple[Address, ...], MgmdReader] = OrderedDict()

    def get(self, addresses: Sequence[Address]) -> MgmdReader:
        key = tuple(addresses)
        reader = self._readers.get(key)
        if reader is None:
            reader = self._readers[key] = MgmdReader(key, self.event_log)
        self._readers.move_to_end(key)
        while len(self._readers) > MAX_CLUSTERS:
            _, oldest = self._readers.popitem(last=False)
            asyncio.get_running_loop().create_task(oldest.close())
        return reader

    async def close(self) -> None:
        """The subscriptions, and the event log they write to."""
        for reader in self._readers.values():
            await reader.close()
        self._readers.clear()
        if self.event_log is not None:
            self.event_log.close()
