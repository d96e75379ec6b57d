"""The simulated cluster: nodes and their states, the dictionary, checkpoints, workload and faults
over cluster time, written into the engine's ndbinfo tables on `sync`."""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ndbsim.model import api_slots, fault_effects, links, log_events, node_failures
from ndbsim.model.backups import Backups
from ndbsim.model.checkpoints import Checkpoints
from ndbsim.model.cluster_log import ClusterLog
from ndbsim.model.dictionary import Dictionary, build_dictionary
from ndbsim.model.faults import DEFAULT_ABORT_SHARE, START_PHASES, Faults
from ndbsim.model.latency import Latency
from ndbsim.model.memory import PAGE, memory_by_node
from ndbsim.model.node_config import active, build_config, fit_data_memory, fit_limits
from ndbsim.model.spec import ClusterSpec
from ndbsim.model.start_phases import start_phase
from ndbsim.model.topology import MGM, NDB, Topology, build_topology
from ndbsim.model.transactions import Activity
from ndbsim.model.workload import REDO_BYTES_PER_WRITE, Workload, extra_aborts, writes
from ndbsim.versions import NdbVersion

if TYPE_CHECKING:
    from ndbsim.model.replication import ReplicationLink

STARTED, STARTING, STOPPED = "STARTED", "STARTING", "STOPPED"
STEADY_GROWTH = 0.02  # share of DataMemory a healthy workload's rows grow by, at most
# An overloaded link enters overload every 2 and slowdown every cluster second.
OVERLOADS_PER_SECOND = 0.5
SLOWDOWNS_PER_SECOND = 1.0


class NodeError(LookupError):
    """Unknown node id or an operation the node does not support; the message is one line."""


@dataclass
class DataNodeState:
    state: str = STARTED
    started_at: float = 0.0  # cluster time the node last reached STARTED
    restart_begin: float = 0.0
    # cluster time the node's process started: ndbinfo.nodes.uptime counts from there, through
    # the start phases, so that a restart lowers it once
    up_since: float = 0.0
    ops: float = 0.0  # operations handled since the node started
    crashes: int = 0
    stop_gci: int = 0
    start_gci: int = 0
    connect_count: int = 1
    lcp_frozen: tuple[int, int, int, int, int, int] | None = None  # LCP marks when stopped
    restarted: bool = False  # has a restart_info row
    failed_at: float | None = None  # cluster time the node last stopped or failed
    initial_start: bool = False  # its next start is an initial node restart
    held: bool = False  # started while stuck-start was set for it
    # cluster seconds each link (by remote node id) has been overloaded since the node started
    overloaded_seconds: dict[int, float] = field(default_factory=dict)
    # of `ops`, those run while disk-page-buffer-misses was set, and the share of their disk
    # page requests the buffer served, in operations
    cold_ops: float = 0.0
    cold_hit_ops: float = 0.0
    # cluster seconds its redo log writes lagged (gcp-save-lag) since the node started
    redo_io_lag_seconds: float = 0.0


@dataclass
class SqlNodeState:
    """What one SQL node (mysqld) counts since its process started: its share of the
    application's operations and aborts, and how often its API links connected."""

    started_at: float = 0.0  # cluster time its mysqld started
    ops: float = 0.0
    extra_aborts: float = 0.0
    connect_count: int = 1  # the data nodes' transporters to it (connect_count)
    read_ops: float = 0.0  # operations of its read-only transactions (api-writes-only)
    last_commit_epoch: int = 0  # the epoch of its last write (Ndb_last_commit_epoch_server)
    alter_tables: int = 0  # ALTER TABLE statements it began (Com_alter_table)


class Cluster:
    def __init__(
        self,
        spec: ClusterSpec,
        version: NdbVersion,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        spec.validate()
        self.spec = spec
        self.version = version
        self.clock = clock
        self.topology: Topology = build_topology(
            spec.data_nodes, spec.replicas, spec.sql_nodes, spec.mgm_nodes, spec.free_api_slots
        )
        # the SQL nodes (mysqld), each a listener of ndbsim; the first is the binlog server
        # (or the applier of the replica cluster)
        self.sql_node_ids = [n.node_id for n in self.topology.api_nodes if n.process_name]
        self.sql_node_id = self.sql_node_ids[0]
        self.sql_nodes = {n: SqlNodeState() for n in self.sql_node_ids}
        # the API slot each SQL node is connected with (another one when sql-node-slot-taken)
        self.api_slots = {n: n for n in self.sql_node_ids}
        # called with (node id, up) when an SQL node is stopped or started (its listener)
        self.sql_node_listeners: list[Callable[[int, bool], None]] = []
        self._changed_sql_nodes: list[tuple[int, bool]] = []  # told once the lock is released
        self.ldm = spec.ldm_threads
        self.config = build_config(spec, version)
        self.faults = Faults(self.topology)
        self.faults.before_change = self.advance
        self.faults.cluster_time = lambda: self.now
        self.faults.after_change = self._fault_changed
        self.workload = Workload(
            spec.ops_per_second, spec.pruned_scan_share, spec.batching, spec.seed
        )
        first = self.config[self.topology.data_node_ids[0]]
        self.checkpoints = Checkpoints(
            spec.seed,
            int(first["TimeBetweenGlobalCheckpoints"]),
            int(first["TimeBetweenEpochs"]),
        )
        self.dictionary: Dictionary = self._build_dictionary()
        fit_limits(self.config, self.dictionary, spec.config)
        self.node_bytes = memory_by_node(self.dictionary, self.topology)
        fit_data_memory(self.config, self.node_bytes, spec.config)
        rnd = random.Random(spec.seed)
        self.nodes: dict[int, DataNodeState] = {}
        self._started: list[int] | None = None  # started_ids() until a node's state changes
        for node_id in self.topology.data_node_ids:
            started = -rnd.uniform(2 * 86400, 9 * 86400)
            # a RonDB node that is not active (NodeActive=0) never started
            state = STARTED if active(self.config[node_id]) else STOPPED
            self.nodes[node_id] = DataNodeState(state, started, 0.0, started, start_gci=2)
        # the cluster started with the longest-running node; the others restarted since, so
        # restart_info has a completed restart for them
        first = min(s.started_at for s in self.nodes.values())
        for s in self.nodes.values():
            s.restarted = s.started_at > first
        self.other_up: dict[int, bool] = {
            n.node_id: n.connected_by_default
            for n in (*self.topology.mgm_nodes, *self.topology.api_nodes)
        }
        self.president = min(self.topology.data_node_ids)
        self.connect_count = 1
        self.ops_total = 0.0  # operations of the whole cluster
        # transactions of the whole cluster aborted beyond the workload's usual share
        # (transaction-aborts): accumulated like the operations, so the counters only rise
        self.extra_aborts = 0.0
        self.latency = Latency()
        self.activity = Activity()
        self.backups = Backups(rnd.randint(5, 40))
        self.log = ClusterLog()
        self._start = clock()
        self.epoch = wall()  # unix time at cluster time 0 (the hosts' clocks)
        self.now = 0.0
        self._lock = threading.RLock()
        # the links of ndbsim --replica: the one whose binlog servers are this cluster's SQL
        # nodes, and the one its first SQL node applies (both with --active-active)
        self.outbound: ReplicationLink | None = None
        self.inbound: ReplicationLink | None = None
        self.server_id_base = 0  # the replica cluster's SQL nodes count from 101
        self.watcher = log_events.LogWatcher(self)

    # --- time ---------------------------------------------------------------------------------

    def cluster_time(self) -> float:
        """Cluster seconds since the simulator started (whole seconds)."""
        return math.floor((self.clock() - self._start) * self.spec.speed)

    def wall_time(self) -> float:
        """Unix time on the hosts' clocks at the current cluster time."""
        return self.epoch + self.now / self.spec.speed

    def advance(self) -> None:
        """Bring the model to the current cluster time."""
        with self._lock:
            target = self.cluster_time()
            while self.now < target:
                next_event = min(
                    [target]
                    + [
                        s.restart_begin + self.spec.restart_seconds
                        for n, s in self.nodes.items()
                        if s.state == STARTING
                        and self._can_finish_start()
                        and self.held_phase(n) is None
                    ]
                )
                step_end = max(next_event, self.now)
                self._run(step_end - self.now)
                self.now = step_end
                self._finish_restarts()
                self.watcher.observe(self)
            self._finish_restarts()

    def _run(self, dt: float) -> None:
        if dt <= 0:
            return
        self.activity.observe(self)
        if not self.is_up():
            return
        ops = self.workload.ops_between(self.now, self.now + dt)
        self.ops_total += ops
        aborts = self.faults.get("transaction-aborts")
        extra = 0.0
        if aborts is not None:
            extra = extra_aborts(ops, aborts.get("share", DEFAULT_ABORT_SHARE))
            self.extra_aborts += extra
        self._share_among_sql_nodes(ops, extra)
        ready = self.started_ids()
        for node_id in ready:
            self.nodes[node_id].ops += ops / len(ready)
        self.latency.add(self, {node_id: ops / len(ready) for node_id in ready})
        for node_id, remote in self.overloaded_links():
            seconds = self.nodes[node_id].overloaded_seconds
            seconds[remote] = seconds.get(remote, 0.0) + dt
        self._count_cold_cache(ready, ops / len(ready))
        self.checkpoints.gcp_stalled = self.faults.is_active("gcp-stall")
        self.checkpoints.gcp_save_lagging = self.faults.is_active("gcp-save-lag")
        if self.checkpoints.gcp_save_lagging:  # the redo log's disk is slow on every node
            for node_id in ready:
                if fault_effects.redo_lag_slows_checkpoints(self, node_id):
                    self.nodes[node_id].redo_io_lag_seconds += dt
        self.checkpoints.advance(dt, fault_effects.lcp_stalled(self))
        self._note_sql_commits()
        if self.outbound is not None:
            self.outbound.observe(dt, ops)
        self.backups.advance(self, self.now + dt)

    def _share_among_sql_nodes(self, ops: float, aborts: float) -> None:
        """The application's operations go through the SQL nodes that are up, evenly; while
        api-writes-only is set, the SQL nodes' transactions only read."""
        up = self.sql_nodes_up()
        read_only = self.faults.is_active("api-writes-only")
        for node_id in up:
            state = self.sql_nodes[node_id]
            if read_only:
                state.read_ops += ops / len(up)
                continue
            state.ops += ops / len(up)
            state.extra_aborts += aborts / len(up)

    def _note_sql_commits(self) -> None:
        """The SQL nodes that write commit in the current epoch."""
        if self.faults.is_active("api-writes-only"):
            return
        for node_id in self.sql_nodes_up():
            self.sql_nodes[node_id].last_commit_epoch = self.checkpoints.epoch

    def sql_nodes_up(self) -> list[int]:
        return [n for n in self.sql_node_ids if self.other_up[self.api_slots[n]]]

    def _count_cold_cache(self, ready: list[int], ops_per_node: float) -> None:
        """Count the operations whose disk page requests disk-page-buffer-misses makes miss."""
        params = self.faults.get("disk-page-buffer-misses")
        if params is None:
            return
        for node_id in ready:
            s = self.nodes[node_id]
            s.cold_ops += ops_per_node
            s.cold_hit_ops += ops_per_node * params["share"]

    @property
    def backup_id(self) -> int:
        """ndbinfo.backup_id: the last backup that got an id."""
        return self.backups.last_id

    def start_backup(self) -> tuple[int, int]:
        """START BACKUP now: (backup id, 0), or (0, the NDB error) when it fails to start."""
        with self._lock:
            self.advance()
            return self.backups.start(self, self.now)

    def _can_finish_start(self) -> bool:
        groups = self.topology.nodegroups.values()
        return all(any(self.nodes[n].state != STOPPED for n in members) for members in groups)

    def _mark_started(self, s) -> bool:
        """Put a data node in STARTED now; True if that brought the cluster back up (the SQL
        node then reconnects, as Ndb_connect_count shows)."""
        was_down = not self.is_up()
        if s.state == STOPPED:
            s.up_since = self.now
        s.state = STARTED
        self._state_changed()
        s.started_at = self.now
        s.ops = 0.0
        s.start_gci = self.checkpoints.gci
        s.lcp_frozen = None
        s.held = False
        s.initial_start = False
        s.overloaded_seconds = {}
        s.cold_ops = s.cold_hit_ops = 0.0
        s.redo_io_lag_seconds = 0.0
        if was_down:
            self.connect_count += 1
        return was_down

    def _finish_restarts(self) -> None:
        if not self._can_finish_start():
            return
        for node_id, s in self.nodes.items():
            if (
                s.state == STARTING
                and self.now >= s.restart_begin + self.spec.restart_seconds
                and self.held_phase(node_id) is None
                and self._mark_started(s)
            ):
                self.president = node_id
        if self.is_up() and self.president not in self.started_ids():
            self.president = min(self.started_ids())

    # --- states -------------------------------------------------------------------------------

    def started_ids(self) -> list[int]:
        """Asked thousands of times per statement at 48 data nodes (per link, per node), so
        kept until a node's state changes (`_state_changed`)."""
        if self._started is None:
            self._started = [n for n, s in self.nodes.items() if s.state == STARTED]
        return list(self._started)

    def _state_changed(self) -> None:
        self._started = None

    def running_ids(self) -> list[int]:
        """Data nodes with a process (started or starting)."""
        return [n for n, s in self.nodes.items() if s.state != STOPPED]

    def is_up(self) -> bool:
        return bool(self.started_ids())

    def data_nodes_reachable(self) -> bool:
        with self._lock:
            self.advance()
            return self.is_up()

    def node_up(self, node_id: int) -> bool:
        if node_id in self.nodes:
            return self.nodes[node_id].state != STOPPED
        return self.other_up.get(node_id, False)

    def lcp_marks(self, node_id: int) -> tuple[int, int, int, int, int, int]:
        """(last_lcp_id, prev_lcp_id, last started, last completed, prev started, prev
        completed) as the replicas on this node show them."""
        s = self.nodes[node_id]
        if s.lcp_frozen is not None:
            return s.lcp_frozen
        cp = self.checkpoints
        return (
            cp.last.lcp_id,
            cp.prev.lcp_id,
            cp.last.gci_started,
            cp.last.gci_completed,
            cp.prev.gci_started,
            cp.prev.gci_completed,
        )

    def held_phase(self, node_id: int) -> int | None:
        """The start phase a starting data node is held in by stuck-start, if it is."""
        params = self.faults.get("stuck-start")
        s = self.nodes[node_id]
        if params is None or params["node"] != node_id or not s.held or s.state != STARTING:
            return None
        return params["phase"]

    def restart_progress(self, node_id: int) -> float:
        """Share (0..1) of its restart a starting data node has done; a held start stays in
        the middle of its start phase."""
        s = self.nodes[node_id]
        done = (self.now - s.restart_begin) / max(self.spec.restart_seconds, 1e-9)
        phase = self.held_phase(node_id)
        if phase is not None:
            done = min(done, (phase - 0.5) / START_PHASES)
        return min(1.0, done)

    def overloaded_links(self) -> list[tuple[int, int]]:
        """(data node, remote node) of the connected links send-overload keeps overloaded."""
        params = self.faults.get("send-overload")
        if params is None:
            return []
        node_id, remote = params["node"], params.get("remote")
        if node_id not in self.started_ids():
            return []
        return [
            (node_id, r.node_id)
            for r in self.topology.all_nodes
            if r.node_id != node_id
            and remote in (None, r.node_id)
            and links.transporter_connected(self, r.node_id)
        ]

    def link_overloads(self, node_id: int, remote: int) -> tuple[int, int]:
        """(overload_count, slowdown_count) of a link since it connected."""
        seconds = self.nodes[node_id].overloaded_seconds.get(remote, 0.0)
        return int(seconds * OVERLOADS_PER_SECOND), int(seconds * SLOWDOWNS_PER_SECOND)

    def primaries_away_from(self) -> int | None:
        """The data node whose preferred fragments keep their primary elsewhere, if any."""
        params = self.faults.get("primaries-away")
        return None if params is None else params["node"]

    # --- control ------------------------------------------------------------------------------

    def stop_node(self, node_id: int) -> dict[str, Any]:
        """A graceful stop (ndb_mgm's STOP) of a data node; an SQL or management node's
        process stops."""
        with self._sql_node_changes():
            self.advance()
            if node_id in self.nodes:
                s = self.nodes[node_id]
                if s.state != STOPPED:
                    node_failures.stop_gracefully(self, node_id)
                return self.node_status(node_id)
            if node_id not in self.other_up:
                raise NodeError(f"unknown node id {node_id}")
            if self.topology.node(node_id).process_name == "":
                raise NodeError(f"node {node_id} is a free API slot; nothing is connected there")
            was_up, self.other_up[node_id] = self.other_up[node_id], False
            self._disconnect_links(node_id)
            if was_up and node_id in self.sql_nodes:
                self._notify_sql_node(node_id, False)
            return self.node_status(node_id)

    def _disconnect_links(self, node_id: int) -> None:
        """The data nodes' links to a node that went away: a transporter's overload_count and
        slowdown_count count since it connected, so they start from 0 when it reconnects."""
        for s in self.nodes.values():
            s.overloaded_seconds.pop(node_id, None)

    def mark_stopped(self, node_id: int, initial: bool = False) -> None:
        """A data node's process is gone; `initial`: it must start with --initial."""
        self._disconnect_links(node_id)
        s = self.nodes[node_id]
        if s.state == STARTED:
            s.lcp_frozen = self.lcp_marks(node_id)
        s.state = STOPPED
        s.failed_at = self.now
        s.initial_start = initial
        self._state_changed()
        s.crashes += 1
        s.stop_gci = self.checkpoints.gci
        if self.is_up() and self.president == node_id:
            self.president = min(self.started_ids())

    def start_node(self, node_id: int) -> dict[str, Any]:
        with self._sql_node_changes():
            self.advance()
            if node_id in self.nodes:
                s = self.nodes[node_id]
                if not active(self.config[node_id]):
                    raise NodeError(f"data node {node_id} is not active (NodeActive=0)")
                if s.state == STOPPED:
                    s.state = STARTING
                    self._state_changed()
                    s.restart_begin = s.up_since = self.now
                    s.restarted = True
                    s.connect_count += 1
                    held = self.faults.get("stuck-start")
                    s.held = held is not None and held["node"] == node_id
                    log_events.node_starting(self, node_id)
                    self.advance()
                return self.node_status(node_id)
            if node_id not in self.other_up:
                raise NodeError(f"unknown node id {node_id}")
            if self.topology.node(node_id).process_name == "":
                raise NodeError(f"node {node_id} is a free API slot; nothing can be started")
            if not self.other_up[node_id]:
                self._connect_api_node(node_id)
            return self.node_status(node_id)

    def _connect_api_node(self, node_id: int) -> None:
        """A management or SQL node (re)connects; a mysqld starts afresh (restart_sql_node):
        its counters and uptime restart, the data nodes' links to it count one more connect."""
        self.other_up[node_id] = True
        if node_id in self.sql_nodes:
            self.restart_sql_node(node_id)
            self._notify_sql_node(node_id, True)

    def restart_sql_node(self, node_id: int) -> None:
        before = self.sql_nodes[node_id].connect_count
        self.sql_nodes[node_id] = SqlNodeState(started_at=self.now, connect_count=before + 1)

    def _notify_sql_node(self, node_id: int, up: bool) -> None:
        self._changed_sql_nodes.append((node_id, up))

    @contextmanager
    def _sql_node_changes(self) -> Iterator[None]:
        """Tell the listeners which SQL nodes stopped or started, once the model's lock is
        released (a listener may wait for a statement that waits for the lock)."""
        with self._lock:
            try:
                yield
            finally:
                changes, self._changed_sql_nodes = self._changed_sql_nodes, []
        for node_id, up in changes:
            for listener in self.sql_node_listeners:
                listener(node_id, up)

    def share_lock(self, other: Cluster) -> None:
        """Hold the model under `other`'s lock: a replication pair's clusters read each other
        (both ways when active-active), so one lock keeps readers from crossing orders."""
        self._lock = other._lock

    def server_id(self, node_id: int) -> int | None:
        """@@server_id of an SQL node: 1, 2, ... in its cluster (the replica cluster of ndbsim
        --replica counts from 101); None for a lone cluster's first SQL node, which keeps the
        version's default. A mysqld moved to another API slot keeps its server id there."""
        index = self.sql_node_ids.index(api_slots.mysqld_in(self, node_id))
        if index == 0 and self.outbound is None and self.inbound is None:
            return None
        return self.server_id_base + index + 1

    def api_connect_count(self, node_id: int) -> int:
        """connect_count of the data nodes' transporters to a management or API node."""
        if node_id in self.sql_nodes:
            return self.sql_nodes[node_id].connect_count
        return 1 if self.topology.node(node_id).process_name else 0

    def reset(self) -> None:
        """Back to healthy: every node started, no faults."""
        with self._sql_node_changes():
            self.advance()
            self.faults.clear_all()
            for s in self.nodes.values():
                if s.state != STARTED:
                    self._mark_started(s)
            api_slots.restore(self)
            for n in self.other_up:
                if n in self.sql_nodes and not self.other_up[n]:
                    self._connect_api_node(n)
                self.other_up[n] = self.topology.node(n).connected_by_default
            if self.president not in self.started_ids():
                self.president = min(self.started_ids())

    def node_status(self, node_id: int) -> dict[str, Any]:
        node = self.topology.node(node_id)
        kind = {NDB: "NDB", MGM: "MGM"}.get(node.node_type, "API")
        if node_id in self.nodes:
            s = self.nodes[node_id]
            state = s.state
            extra: dict[str, Any] = {"nodegroup": node.nodegroup}
            if s.state == STARTING:
                extra["start_phase"] = start_phase(self, node_id)
        else:
            state = "CONNECTED" if self.node_up(node_id) else "DISCONNECTED"
            extra = {}
        return {"node_id": node_id, "type": kind, "state": state, **extra}

    def status(self) -> dict[str, Any]:
        with self._lock:
            self.advance()
            cp = self.checkpoints
            return {
                "version": self.version.series,
                "version_string": self.version.version_string,
                "cluster_time": self.now,
                "cluster_up": self.is_up(),
                "sql_node_id": self.sql_node_id,
                "sql_node_ids": list(self.sql_node_ids),
                "president": self.president if self.is_up() else 0,
                "gci": cp.gci,
                "lcp_id": cp.last.lcp_id,
                "lcp_ongoing": cp.in_round,
                "nodes": [self.node_status(n.node_id) for n in self.topology.all_nodes],
                "faults": self.faults.active(),
            }

    # --- SQL front ----------------------------------------------------------------------------

    @contextmanager
    def advanced(self) -> Iterator[None]:
        """Hold the model still at now, for a reader that copies it (the SQL engine)."""
        with self._lock:
            self.advance()
            yield

    def global_status(self, node_id: int | None = None) -> dict[int | str]:
        """The Ndb_% status of one SQL node (default the first): its own share of the
        application's operations since its mysqld started, the cluster's epoch as it commits."""
        node_id = self.sql_node_id if node_id is None else node_id
        with self._lock:
            self.advance()
            sql = self.sql_nodes[node_id]
            ready = len(self.started_ids())
            values: dict[str, int | str] = {
                "Ndb_cluster_node_id": self.api_slots[node_id],
                "Ndb_config_from_host": self.topology.mgm_nodes[0].hostname,
                "Ndb_config_from_port": 1186,
                "Ndb_number_of_data_nodes": len(self.nodes),
                "Ndb_number_of_ready_data_nodes": ready,
                "Ndb_connect_count": self.connect_count,
                "Ndb_last_commit_epoch_server": self.last_commit_epoch(node_id),
                "Ndb_system_name": self.spec.system_name,
                "Uptime": int(self.now - sql.started_at),
            }
            if not self.version.is_7x:
                values["Ndb_config_generation"] = 1
            values.update(self.workload.api_counters(sql.ops, sql.extra_aborts))
            values.update(self.workload.sql_counters(sql.ops, sql.extra_aborts))
            values["Com_alter_table"] = sql.alter_tables
            for name, count in self.workload.read_only_counters(sql.read_ops).items():
                values[name] += count
            for link in (self.outbound, self.inbound):
                values.update(link.status_values(self, node_id) if link else {})
            return values

    def last_commit_epoch(self, node_id: int) -> int:
        """The epoch SQL node `node_id`'s last write committed in (Ndb_last_commit_epoch_server,
        latest_trans_epoch): the current one while the application writes through it, its last
        write's while it only reads."""
        if self.spec.ops_per_second <= 0:
            return 0
        if self.faults.is_active("api-writes-only"):
            return self.sql_nodes[node_id].last_commit_epoch
        return self.checkpoints.epoch

    def _fault_changed(self, name: str) -> None:
        """A fault was set or cleared: apply the ones that act at once."""
        with self._sql_node_changes():
            fault_effects.changed(self, name)

    # --- derived quantities used by the row builders ------------------------------------------

    def _build_dictionary(self) -> Dictionary:
        """The dictionary with as many rows as fit in about 40% of DataMemory after the
        per-fragment overhead (an empty fragment still takes pages)."""
        spec = self.spec
        groups = len(self.topology.nodegroups)

        def build(budget: int) -> Dictionary:
            return build_dictionary(
                spec.tables,
                spec.data_nodes,
                groups,
                self.ldm,
                spec.seed,
                not self.version.is_7x,
                budget,
            )

        overhead = max(memory_by_node(build(0), self.topology).values())
        memory = min(int(cfg["DataMemory"]) for cfg in self.config.values())
        room = max(0.0, memory * 0.40 - overhead)
        budget = int(room * groups)
        used = max(memory_by_node(build(budget), self.topology).values()) - overhead
        if used > 0:
            budget = int(budget * room / used)
        return build(budget)

    def data_memory_pages(self, node_id: int) -> tuple[int, int]:
        """(used, total) Data memory pages of a data node."""
        total = int(self.config[node_id]["DataMemory"]) // PAGE
        share = self.faults.share("data-memory")
        if share is not None:
            return int(total * share), total
        grown = self.faults.grown_share("data-memory-growth", self.now)
        if grown is not None:
            return max(self._healthy_data_memory_pages(node_id, total), int(total * grown)), total
        return self._healthy_data_memory_pages(node_id, total), total

    def _healthy_data_memory_pages(self, node_id: int, total: int) -> int:
        # replicas of a node group hold the same rows, but free space in pages differs
        slack = 1 + random.Random(self.spec.seed * 613 + node_id).uniform(0.005, 0.03)
        base = int(self.node_bytes[node_id] * slack) // PAGE + 96
        # the application's inserts outgrow its deletes at first, then both balance: rows
        # written add to the pages used up to a steady state 2% of DataMemory higher
        growth_pages = min(writes(self.nodes[node_id].ops) * 24 / PAGE, total * STEADY_GROWTH)
        used = base + int(growth_pages)
        return min(used, int(total * 0.97))

    def redo_part_bytes(self, node_id: int) -> int:
        cfg = self.config[node_id]
        return int(cfg["NoOfFragmentLogFiles"]) * int(cfg["FragmentLogFileSize"])

    def redo_used(self, node_id: int, part: int) -> int:
        total = self.redo_part_bytes(node_id)
        share = self.faults.share("redo-log")
        if share is not None:
            return int(total * share)
        parts = int(self.config[node_id]["NoOfFragmentLogParts"])
        rate = writes(self.workload.rate(self.now)) / max(1, len(self.started_ids()))
        span = max(0.0, self.checkpoints.up_time - self.checkpoints.release_uptime)
        used = rate * REDO_BYTES_PER_WRITE * span / parts * (0.9 + 0.05 * (part % 4))
        healthy = min(int(used) + 4 * 1024 * 1024, int(total * 0.98))
        grown = self.faults.grown_share("redo-log-growth", self.now)
        if grown is None:
            return healthy
        return min(total, int(total * grown) + healthy)

    def config_generation(self, node_id: int) -> int:
        """The configuration generation a data node runs (ndbinfo.nodes)."""
        params = self.faults.get("old-config-generation")
        if params is None:
            return 1
        return 1 if params["node"] == node_id else 2
