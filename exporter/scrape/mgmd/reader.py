"""One cluster's management servers as the scrape reads them: node statuses from `get status`
at each scrape (bounded by a deadline, from each management server at once), and the cluster
log kept by the subscription. A management server that does not answer is `ndb_mgmd_up 0`,
never a failed scrape."""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from ndbinfo_exporter.collectors.base import add_states, counter, gauge
from ndbinfo_exporter.scrape.mgmd import client
from ndbinfo_exporter.scrape.mgmd.client import Address, Subscription
from ndbinfo_exporter.scrape.mgmd.events import ClusterLogState, CompletedBackup, LoggedEvent
from ndbinfo_exporter.scrape.mgmd.protocol import NODE_STATES, NodeStatus, ProtocolError
from prometheus_client.core import Metric

STATUS_DEADLINE = 1.0  # longest a scrape waits for `get status`
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
    "Arbitration results after node failures (ArbitResult), won or lost.",
    ("result",),
)
METRICS = (
    UP,
    NODE_STATUS,
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
    BACKUPS_ABORTED,
    BACKUPS_FAILED,
    ARBITRATIONS,
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

    @property
    def reachable(self) -> bool:
        return any(up for _, up in self.answered)


class MgmdReader:
    """The management servers of one cluster (two for failover count once)."""

    def __init__(self, addresses: Sequence[Address]) -> None:
        self.addresses = tuple(addresses)
        self.state = ClusterLogState()
        self.subscription = Subscription(self.addresses, self.state.record)
        self._answered: tuple[tuple[str, bool], ...] = ()
        self._nodes: tuple[NodeStatus, ...] = ()
        self._read_at: float | None = None

    async def families(self, timeout: float) -> list[Metric]:
        """The families of one scrape; starts the subscription on first use."""
        self.subscription.start()
        deadline = max(0.1, min(STATUS_DEADLINE, timeout))
        answers = await asyncio.gather(*(self._status(a, deadline) for a in self.addresses))
        up = UP.family()
        self._answered = tuple(
            (client.address_name(address), nodes is not None)
            for address, nodes in zip(self.addresses, answers, strict=True)
        )
        for name, answered in self._answered:
            up.add_metric([name], 1.0 if answered else 0.0)
        nodes = next((n for n in answers if n is not None), [])
        self._nodes, self._read_at = tuple(nodes), time.time()
        return [up, *node_families(nodes), *log_families(self.state, self.subscription)]

    async def current(self, timeout: float, max_age: float) -> ManagementState:
        """The state, after a `get status` when the last one (a scrape's) is older than
        ``max_age`` seconds."""
        if self._read_at is None or time.time() - self._read_at >= max_age:
            await self.families(timeout)
        return self.snapshot()

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
        )

    @staticmethod
    async def _status(address: Address, deadline: float) -> list[NodeStatus] | None:
        try:
            return await asyncio.wait_for(client.get_status(address), deadline)
        except (OSError, TimeoutError, ProtocolError, ValueError):
            return None

    async def close(self) -> None:
        await self.subscription.close()


def node_families(nodes: list[NodeStatus]) -> list[Metric]:
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
        family = spec.family()
        family.add_metric([], value)
        out.append(family)
    events, last = EVENTS.family(), LAST_EVENT.family()
    for (kind, node), count in sorted(state.events.items()):
        events.add_metric([kind, node], count)
    for kind, when in sorted(state.last_seen.items()):
        last.add_metric([kind], when)
    arbitrations = ARBITRATIONS.family()
    for result, count in sorted(state.arbitration.items()):
        arbitrations.add_metric([result], count)
    out += [events, last, arbitrations]
    backup = state.last_backup
    if backup is not None:
        for spec, value in (
            (BACKUP_ID, backup.backup_id),
            (BACKUP_END, backup.end_time),
            (BACKUP_BYTES, backup.bytes),
            (BACKUP_RECORDS, backup.records),
        ):
            family = spec.family()
            family.add_metric([], value)
            out.append(family)
    return out


class MgmdReaders:
    """A reader per set of management servers: the configured one, and those /probe names
    (at most MAX_CLUSTERS, the least recently used closed beyond)."""

    def __init__(self, configured: Sequence[Address] = ()) -> None:
        self.configured = tuple(configured)
        self._readers: OrderedDict[tuple[Address, ...], MgmdReader] = OrderedDict()

    def get(self, addresses: Sequence[Address]) -> MgmdReader:
        key = tuple(addresses)
        reader = self._readers.get(key)
        if reader is None:
            reader = self._readers[key] = MgmdReader(key)
        self._readers.move_to_end(key)
        while len(self._readers) > MAX_CLUSTERS:
            _, oldest = self._readers.popitem(last=False)
            asyncio.get_running_loop().create_task(oldest.close())
        return reader

    async def close(self) -> None:
        for reader in self._readers.values():
            await reader.close()
        self._readers.clear()
