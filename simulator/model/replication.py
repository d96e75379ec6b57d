"""Asynchronous NDB replication from a source cluster to a replica cluster.

The source cluster's binlog servers (its first SQL nodes, log_bin ON) each run a binlog
injector: it receives the cluster's epochs (epoch = GCI << 32 | micro GCI) into its event
buffer, handles them, and writes those with changes into its own binary log and
mysql.ndb_binlog_index (binlog.py). The replica cluster's SQL node reads one of them on its
channel (I/O thread) and applies it (SQL thread), recording the newest epoch it applied from
each binlog server in mysql.ndb_apply_status. STOP REPLICA, CHANGE REPLICATION SOURCE TO and
START REPLICA move the channel to another binlog server and position. Conflict detection runs
where changes are applied: with the `conflicts` fault, each epoch transaction the replica's
applier commits moves its SQL node's Ndb_conflict_* counters (conflicts.py). With
--active-active a second link runs the other way, from the replica cluster's first SQL node
to the source cluster's: the pair's secondary applies the primary's changes, and each
cluster's own epochs come back round to it.

The link advances with the source cluster (`observe` runs in each step of its model) and reads
the link faults from the source cluster's faults; the faults of the binlog injector act on the
first binlog server.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ndbsim.model.binlog import MAX_BINLOG_SIZE, BinlogServer, EpochLog, Incident, Sample, log_order
from ndbsim.model.conflicts import (
    CONFLICTS_PER_SECOND,
    PRIMARY,
    SECONDARY,
    ApplierConflicts,
    ReturnedEpochs,
    whole,
)
from ndbsim.model.faults import DEFAULT_BEHIND_SECONDS
from ndbsim.model.workload import writes

if TYPE_CHECKING:
    from ndbsim.model.checkpoints import Checkpoints
    from ndbsim.model.cluster import Cluster

INJECTOR_BEHIND_GCIS = 40  # injector-behind: handled epoch this many GCIs behind the cluster
SUBSCRIBER_LAG_GCIS = 10  # subscriber-lag without gcis: 200 epochs at the default timing
EVENT_BYTES_PER_WRITE = 160  # bytes the event buffer receives per row change
# binlog_expire_logs_seconds default from 8.0 (30 days); 7.x keeps the files (expire_logs_days 0)
EXPIRE_SECONDS = 30 * 86400
REPLICA_SERVER_ID_BASE = 100  # @@server_id of the replica cluster's SQL nodes: 101, 102, ...
# the I/O thread's connection attempts (SOURCE_RETRY_COUNT default: 10 from 8.4, else 86400)
RETRIES_FROM_84, RETRIES_BEFORE_84 = 10, 86400
RETRY_SECONDS = 60  # SOURCE_CONNECT_RETRY default
CONNECT_ERROR = 2003  # CR_CONN_HOST_ERROR: nothing answers at the source's address
# the source's error when it refuses a dump request (ER_SOURCE_FATAL_ERROR_READING_BINLOG); the
# I/O thread reports it under a number of its own from MySQL 8.0 (see replication.json)
SOURCE_REFUSED = 1236
INBOUND_PORT = 3306  # --port default: the source SQL nodes listen on it and after it
# the user tables the conflicting changes fall on: the applier's busiest ones
TABLES_IN_CONFLICT = 3
# why the source refuses a dump request (rpl_binlog_sender.cc, Binlog_sender::check_start_file)
NO_BINARY_LOG = "Binary log is not open"
NO_SUCH_FILE = "Could not find first log file name in binary log index file"
PAST_FILE_END = "Client requested {source} to start replication from position > file size"


def epochs_per_gci(cp: Checkpoints) -> int:
    """The micro GCPs of a GCI at the configured timing: TimeBetweenGlobalCheckpoints /
    TimeBetweenEpochs (20 at the defaults)."""
    return max(1, round(cp.gcp_interval / cp.epoch_interval))


def epoch_before(cp: Checkpoints, epochs: int) -> int:
    """The cluster's epoch `epochs` micro GCPs before its current one: in the current GCI while
    its micro GCP counter reaches back that far (a GCI standing while GCP_SAVE lags holds
    hundreds of epochs), else in the GCIs before it, of epochs_per_gci each."""
    micro = cp.epoch & 0xFFFFFFFF
    if epochs <= micro:
        return cp.epoch - epochs
    per_gci = epochs_per_gci(cp)
    index = max(0, (cp.epoch >> 32) * per_gci - (epochs - micro))
    return (index // per_gci) << 32 | index % per_gci


def subscriber_lag_epochs(c: Cluster) -> int:
    """The epochs the subscriber-lag fault holds the binlog server's event buffer behind:
    its `epochs`, or its `gcis` (default 10) whole GCIs of epochs_per_gci; 0 without it."""
    params = c.faults.get("subscriber-lag")
    if params is None:
        return 0
    if "epochs" in params:
        return params["epochs"]
    return params.get("gcis", SUBSCRIBER_LAG_GCIS) * epochs_per_gci(c.checkpoints)


@dataclass(frozen=True)
class ThreadError:
    errno: int
    since: float  # unix time
    detail: str = ""  # the incident's message (1590), the source's refusal (SOURCE_REFUSED)


@dataclass
class Channel:
    """The replica's default channel '': where its source is, and its two threads. `received`
    is where the I/O thread has read to, `applied` where the SQL thread has applied to (the
    end of the newest epoch transaction it applied)."""

    node_id: int | None  # the source SQL node at host:port (None: none listens there)
    host: str
    port: int
    user: str = "repl"
    io_on: bool = True  # started (START REPLICA) and not stopped (STOP REPLICA, the source)
    sql_on: bool = True
    connected: bool = False  # the source answered the I/O thread's dump request
    source_node: int | None = None  # the source SQL node it connected to since CHANGE ... TO
    received: Sample | None = None
    applied: Sample | None = None
    applied_from: int = 0  # the epoch the SQL thread started after on this source
    io_error: ThreadError | None = None
    sql_error: ThreadError | None = None
    io_attempts: int = 0
    # ndb_apply_status rows (server_id -> epoch, log_name, start_pos, end_pos) of the binlog
    # servers the channel read before
    past_rows: dict[int, tuple] = field(default_factory=dict)


class ReplicationLink:
    """The link between the two clusters of ndbsim --replica; `snapshot` is what the replica's
    SQL node shows of it, `binlog_view` what a binlog server shows of its own log."""

    def __init__(
        self,
        source: Cluster,
        replica: Cluster,
        first_position: int,
        binlog_servers: int = 1,
        max_binlog_size: int = MAX_BINLOG_SIZE,
    ) -> None:
        self.source, self.replica = source, replica
        source.outbound = replica.inbound = self
        replica.share_lock(source)
        source.faults.link = replica.faults.link = True
        if replica.outbound is None:  # a cluster that replicates back keeps its server ids
            replica.server_id_base = REPLICA_SERVER_ID_BASE
        self.epochs = EpochLog()
        # binlog_expire_logs_seconds from 8.0; 7.x keeps every file (expire_logs_days 0)
        expire = None if source.version.is_7x else EXPIRE_SECONDS
        self.binlogs: dict[int, BinlogServer] = {}
        for index, node_id in enumerate(source.sql_node_ids[:binlog_servers]):
            server = BinlogServer(
                node_id, source.server_id(node_id), first_position, lambda: self.source.now,
                expire, max_binlog_size,
            )  # fmt: skip
            if index:
                # a standby's mysqld restarted since its binary log began: binlog.000002 opens
                # with a `mysqld startup` incident
                server.restart(0)
            self.binlogs[node_id] = server
        self.primary = self.binlogs[source.sql_node_id]  # the injector faults act on it
        self.gap_incident: Incident | None = None  # written by injector-behind gap=true
        self.data_events = 0.0
        self.nondata_events = 0.0
        self.event_bytes = 0.0
        # the replica's applier: the primary of the pair, or with --active-active the
        # secondary where the primary replicates back
        role = SECONDARY if replica.outbound is not None else PRIMARY
        self.conflicts = ApplierConflicts(role)
        self.returned = ReturnedEpochs()  # the source's epochs as the replica applied them
        self.applied_writes = 0.0
        self.applied_epochs = 0  # epoch transactions the applier committed
        self.io_retries = RETRIES_FROM_84 if source.version.at_least(8, 4) else RETRIES_BEFORE_84
        self.source_host = "127.0.0.1"
        # the source SQL nodes' listener ports, as with the default --port
        self.source_ports = {n: INBOUND_PORT + i for i, n in enumerate(source.sql_node_ids)}
        self.replica_port = 3306  # the replica SQL node's port, as it registers with the source
        self.channel = Channel(self.primary.node_id, self.source_host, INBOUND_PORT)

    def listen_at(self, host: str, ports: dict[int, int]) -> None:
        """The source SQL nodes' listeners; the channel reads the first binlog server's."""
        self.source_host, self.source_ports = host, dict(ports)
        self.channel.host, self.channel.port = host, ports[self.primary.node_id]

    # --- the source: the binlog injectors -----------------------------------------------------

    def observe(self, dt: float, ops: float) -> None:
        """The source cluster ran dt more seconds, with `ops` operations."""
        cp = self.source.checkpoints
        changed = writes(ops)
        epochs = max(1, round(dt / cp.epoch_interval))
        self.data_events += changed
        self.nondata_events += epochs
        self.event_bytes += changed * EVENT_BYTES_PER_WRITE
        per_gci = max(1, math.ceil(cp.gcp_interval / cp.epoch_interval - 1e-9))
        self.epochs.record(cp.epoch, epochs, changed, per_gci)
        self._follow_mysqlds()
        running = [s for s in self.binlogs.values() if s.up]
        for server in running:
            server.write(self.epochs, self.handled_epoch(server))
        written = [s.written_epoch for s in running]
        self.epochs.forget_up_to(min(written, default=self.epochs.newest))
        self._catch_up()

    def _follow_mysqlds(self) -> None:
        """A binlog server writes while its mysqld runs; started again, it opens a new file
        with an incident (BinlogServer.restart)."""
        up = set(self.source.sql_nodes_up())
        for server in self.binlogs.values():
            if server.node_id not in up:
                server.up = False
            elif not server.up:
                server.restart(self.handled_epoch(server))

    def _catch_up(self) -> None:
        """Bring the binlog ends and the replica's threads to the faults of this moment."""
        self._follow_mysqlds()
        gap = (self.source.faults.get("injector-behind") or {}).get("gap", False)
        if gap and self.gap_incident is None:
            self.gap_incident = self.primary.add_incident("cluster disconnect")
        elif not gap and self.gap_incident is not None:
            if self.gap_incident in self.primary.incidents:
                self.primary.incidents.remove(self.gap_incident)
            self.gap_incident = None
        self._receive()
        self._apply()

    def buffered_epoch(self, server: BinlogServer) -> int:
        """latest_epoch: the newest epoch complete in the server's event buffer; the first
        binlog server's is subscriber-lag's epochs behind the cluster's."""
        if not self.source.is_up():
            return self.handled_epoch(server)
        lag = subscriber_lag_epochs(self.source) if server is self.primary else 0
        return epoch_before(self.source.checkpoints, lag)

    def handled_epoch(self, server: BinlogServer) -> int:
        """latest_handled_binlog_epoch (and latest_received_binlog_epoch), never past the
        event buffer's latest_epoch."""
        epoch = self.source.checkpoints.epoch
        if server is not self.primary:
            return epoch
        if self.source.faults.is_active("injector-behind"):
            epoch -= INJECTOR_BEHIND_GCIS << 32
        if self.source.faults.is_active("subscriber-lag"):
            epoch = min(epoch, self.buffered_epoch(server))
        return max(0, epoch)

    def _view(self, server: BinlogServer) -> dict[str, Any]:
        cp = self.source.checkpoints
        handled = self.handled_epoch(server)
        return {
            "source_gci": cp.gci,
            "buffered_epoch": self.buffered_epoch(server),
            "received_epoch": handled,
            "handled_epoch": handled,
            # an injector put behind has not written what it handled before
            "written_epoch": min(server.written_epoch, handled),
            "last_commit_epoch": self.source.last_commit_epoch(server.node_id),
            "binlog_file": server.files[-1].name,
            "binlog_position": server.position,
            "files": [(f.name, f.size) for f in server.files],
        }

    def binlog_view(self, node_id: int) -> dict[str, Any]:
        """What the binlog server `node_id` shows of its injector and binary log now."""
        with self.source.advanced():
            self._catch_up()
            return self._view(self.binlogs[node_id])

    def index_rows(self, node_id: int, after: int) -> tuple[list, int]:
        """The ndb_binlog_index rows of binlog server `node_id` after epoch `after`, and the
        oldest epoch it keeps, at this moment."""
        with self.source.advanced():
            self._catch_up()
            server = self.binlogs[node_id]
            return list(server.index_rows(after)), server.oldest_epoch()

    def purge(self, node_id: int, to: str | None, before: float | None) -> list[str]:
        """PURGE BINARY LOGS on binlog server `node_id`, TO a file or BEFORE a unix time: the
        file names purged; KeyError for a file not in its index."""
        with self.source.advanced():
            self._catch_up()
            server = self.binlogs[node_id]
            if to is not None:
                return server.purge_to(to)
            return server.purge_before((before - self.source.epoch) * self.source.spec.speed)

    # --- the replica: its channel -------------------------------------------------------------

    def source_node_at(self, host: str, port: int) -> int | None:
        """The source SQL node listening at host:port (None: none)."""
        if host != self.source_host:
            return None
        return next((n for n, p in self.source_ports.items() if p == port), None)

    def stop(self, io: bool, sql: bool) -> bool:
        """STOP REPLICA: the named threads stop; False when they were all stopped already."""
        with self.source.advanced():
            self._catch_up()
            ch = self.channel
            running = (io and self.io_running() != "No") or (sql and self.sql_running() == "Yes")
            if io:
                ch.io_on = ch.connected = False
                if ch.io_error and ch.io_error.errno == CONNECT_ERROR:
                    ch.io_error = None
            if sql:
                ch.sql_on = False
            return running

    def start(self, io: bool, sql: bool) -> bool:
        """START REPLICA: the named threads start (with their last errors cleared); False
        when they were all running already."""
        with self.source.advanced():
            self._catch_up()
            ch = self.channel
            starting = False
            if io and self.io_running() == "No":
                ch.io_on, ch.io_error, ch.io_attempts, ch.connected = True, None, 0, False
                starting = True
            if sql and self.sql_running() != "Yes":
                ch.sql_on, ch.sql_error = True, None
                starting = True
            self._catch_up()
            return starting

    def change(
        self,
        host: str | None = None,
        port: int | None = None,
        file: str | None = None,
        position: int | None = None,
        user: str | None = None,
    ) -> None:
        """CHANGE REPLICATION SOURCE TO with the I/O thread stopped: another source (whose log
        the channel then reads from its first file unless given one) and where to read from;
        a file without a position keeps the position, a position is at least 4, the first
        event of a file (rpl_replica.cc change_receive_options)."""
        with self.source.advanced():
            self._catch_up()
            ch = self.channel
            row = self._apply_status_row(self.behind_seconds() if ch.sql_on else 0.0)
            if row is not None:  # the ndb_apply_status row stays; the relay log goes
                ch.past_rows[row[0]] = row[1:]
            # a host or port, even the same, names another source (Master_info::clean_info)
            moved = host is not None or port is not None
            ch.host = ch.host if host is None else host
            ch.port = ch.port if port is None else port
            ch.user = ch.user if user is None else user
            ch.node_id = self.source_node_at(ch.host, ch.port)
            current = ch.received or Sample(0, "", 4)
            if moved:
                # mysqld forgets the old source's id, uuid and coordinates: '' and 4 unless given
                ch.source_node, current = None, Sample(0, "", 4)
            if moved or file is not None or position is not None:
                file = current.file if file is None else file
                self._reposition(file, max(4, current.position if position is None else position))
            ch.connected = False

    def _reposition(self, file: str, position: int) -> None:
        """Both threads go on from `position` of `file` (the source's first file when '')
        of the channel's source; the relay log of the old position is gone."""
        ch = self.channel
        server = self.binlogs.get(ch.node_id)
        if server is not None and not file:
            file = server.files[0].name
        epoch = server.epoch_before(file, position) if server is not None and file else 0
        ch.received = ch.applied = Sample(epoch, file, position)
        ch.applied_from = epoch

    def _unreachable(self) -> bool:
        ch = self.channel
        return (
            self.source.faults.is_active("replica-io-disconnect")
            or ch.node_id is None
            or ch.node_id not in self.source.sql_nodes_up()
        )

    def _receive(self) -> None:
        """The I/O thread: connect (again), ask the source for its log from where it stands,
        read to the end."""
        ch = self.channel
        if not ch.io_on:
            return
        wall = self.source.wall_time()
        if self._unreachable():
            if ch.io_error is None:
                ch.io_error = ThreadError(CONNECT_ERROR, wall)
                ch.connected = False
            # the first attempt at once, then one each SOURCE_CONNECT_RETRY seconds
            elapsed = wall - ch.io_error.since
            ch.io_attempts = min(self.io_retries, 1 + int(elapsed / RETRY_SECONDS))
            return
        ch.io_error = None
        if not ch.connected:
            refusal = self._dump_refusal()
            if refusal is not None:
                # handle_slave_io: a fatal error reading the source's log stops the thread
                ch.io_on = False
                ch.io_error = ThreadError(SOURCE_REFUSED, wall, refusal)
                return
            ch.connected, ch.source_node = True, ch.node_id
        ch.received = self.binlogs[ch.node_id].end

    def _dump_refusal(self) -> str | None:
        """Why the source refuses to send its log from the I/O thread's position
        (Binlog_sender::init, check_start_file), None when it sends it."""
        ch = self.channel
        server = self.binlogs.get(ch.node_id)
        if server is None:
            return NO_BINARY_LOG
        if ch.received is None:
            return None
        size = server.file_size(ch.received.file)
        if size is None:
            return NO_SUCH_FILE
        if ch.received.position > size:
            return PAST_FILE_END
        return None

    def _apply(self) -> None:
        """The SQL thread: apply what the I/O thread received, unless an error stops it."""
        ch = self.channel
        server = self.binlogs.get(ch.node_id)
        target = ch.received
        if not ch.sql_on or server is None or target is None:
            return
        errno, detail = 0, ""
        incident = server.incident_between(ch.applied or target, target)
        if self.source.faults.is_active("replica-sql-error"):
            errno = 1032
        elif incident is not None:
            errno, detail = 1590, incident.message
        if errno:
            if ch.sql_error is None or ch.sql_error.errno != errno:
                ch.sql_error = ThreadError(errno, self.source.wall_time(), detail)
            return
        ch.sql_error = None
        applied = ch.applied or target
        if log_order(target.file, target.position) > log_order(applied.file, applied.position):
            committed = server.epochs_between(applied.epoch, target.epoch)
            self.applied_epochs += committed
            self.applied_writes += server.writes_between(applied.epoch, target.epoch)
            self._commit(committed, applied.epoch, target.epoch)
        ch.applied = target

    def _commit(self, committed: int, after: int, upto: int) -> None:
        """The applier commits `committed` epoch transactions, the source's epochs after
        `after` up to `upto`: the primary finds CONFLICTS_PER_SECOND rows in conflict a
        second of them with the `conflicts` fault set, the secondary applies what the primary
        logged to realign them (conflicts.py). The counters move only as an applier
        transaction commits (an aborted one discards its counts), so never while the SQL
        thread is stopped or has nothing to apply."""
        if committed <= 0:
            return
        # the replica cluster's epoch of the commit: after any it has written so far (its
        # model may not have reached this moment yet, and never advances from here)
        epoch = self.replica.checkpoints.epoch + 1
        conflicted = False
        fault = self.source.faults.get("conflicts")
        if self.conflicts.role == PRIMARY and fault is not None:
            rows = CONFLICTS_PER_SECOND * committed * self.source.checkpoints.epoch_interval
            conflicted = self.conflicts.detect(fault["function"], rows, committed, epoch)
        elif self.conflicts.role == SECONDARY and self.circular:
            primary = self.source.inbound.conflicts
            conflicted = self.conflicts.apply_realignments(primary, after, upto)
        self.conflicts.commit(epoch, self.back_round(upto), conflicted)
        if self.circular:
            self.returned.record(epoch, upto)

    @property
    def circular(self) -> bool:
        """The replica cluster replicates back to the source (ndbsim --active-active)."""
        back = self.replica.outbound
        return back is not None and back.replica is self.source

    def back_round(self, source_epoch: int) -> int:
        """The replica cluster's own newest epoch come back round in the source's epochs up
        to `source_epoch`: the source's binlog servers log the ndb_apply_status writes of
        its applier (ndb_log_apply_status); 0 on a one-way link."""
        return self.replica.outbound.returned.back_at(source_epoch) if self.circular else 0

    def exceptions_rows(self) -> dict[tuple[str, str], int]:
        """(database, table) -> rows of the table's exceptions table `table$EX` on the
        replica: the applier writes a row there for each row it handles in conflict (the rows
        it refreshes), spread over the busiest user tables by their share of the writes;
        nothing once written is removed (the operator reconciles and deletes them). Empty
        before the first conflict."""
        self.snapshot()  # the link at this moment
        handled = self.conflicts.rows_handled()
        if not handled:
            return {}
        tables = sorted(
            (t for t in self.replica.dictionary.user_tables if t.database != "mysql"),
            key=lambda t: (-t.weight, t.table_id),
        )[:TABLES_IN_CONFLICT]
        total = sum(t.weight for t in tables)
        out, share = {}, 0.0
        for t in tables:
            before = whole(handled * share / total)
            share += t.weight
            out[(t.database, t.name)] = whole(handled * share / total) - before
        return out

    def io_gave_up(self) -> bool:
        """The I/O thread stops when its last attempt fails: rpl_replica.cc connect_to_master
        breaks off once its count of failed attempts reaches SOURCE_RETRY_COUNT, without
        another wait (8.4: the tenth attempt, nine retry intervals after the first)."""
        ch = self.channel
        error = ch.io_error
        return (
            error is not None and error.errno == CONNECT_ERROR and ch.io_attempts >= self.io_retries
        )

    def io_running(self) -> str:
        ch = self.channel
        if not ch.io_on or self.io_gave_up():
            return "No"
        return "Connecting" if ch.io_error else "Yes"

    def sql_running(self) -> str:
        ch = self.channel
        return "Yes" if ch.sql_on and ch.sql_error is None else "No"

    def registered(self, node_id: int) -> bool:
        """The replica is registered with source SQL node `node_id`: its I/O thread is
        connected there (its dump thread runs)."""
        ch = self.channel
        return ch.node_id == node_id and ch.io_on and ch.connected and ch.io_error is None

    def source_server_id(self) -> int:
        """@@server_id of the source the channel connected to (0 before it did)."""
        node_id = self.channel.source_node
        return 0 if node_id is None else self.source.server_id(node_id)

    def behind_seconds(self) -> float:
        params = self.source.faults.get("replica-behind")
        if params is None:
            return 0.0
        return params.get("seconds", DEFAULT_BEHIND_SECONDS)

    def _shown_applied(self, lag: float) -> tuple[Sample | None, int, tuple | None]:
        """What the replica shows it applied: its position, epoch and that epoch's transaction
        (file, start, end) on the channel's source (None before it applied one from there);
        never past what the source shows written, and `lag` seconds behind."""
        ch = self.channel
        server = self.binlogs.get(ch.node_id)
        applied = ch.applied or ch.received
        if server is None or applied is None:
            return applied, 0, None
        # an injector put behind has not written what it handled before
        applied_epoch = min(applied.epoch, server.written_epoch, self.handled_epoch(server))
        if lag and applied_epoch:
            gcis = math.ceil(lag / self.source.checkpoints.gcp_interval)
            applied_epoch = max(ch.applied_from, applied_epoch - (gcis << 32))
        if applied_epoch <= ch.applied_from:
            return applied, applied_epoch, None
        transaction = server.transaction_of(applied_epoch)
        if lag and transaction is not None:
            # the SQL thread stands at the end of the epoch it applied last
            applied = Sample(applied_epoch, transaction[0], transaction[2])
        return applied, applied_epoch, transaction

    def _apply_status_row(self, lag: float) -> tuple | None:
        """The ndb_apply_status row of the channel's source: server_id, epoch, log_name,
        start_pos, end_pos."""
        _, epoch, transaction = self._shown_applied(lag)
        if transaction is None:
            return None
        return (self.binlogs[self.channel.node_id].server_id, epoch, *transaction)

    def snapshot(self) -> dict[str, Any]:
        """The link as the replica's SQL node shows it (with the first binlog server's
        injector), at the source cluster's current time."""
        with self.source.advanced():
            self._catch_up()
            ch = self.channel
            server = self.binlogs.get(ch.node_id)
            lag = self.behind_seconds() if ch.sql_on else 0.0
            applied, applied_epoch, transaction = self._shown_applied(lag)
            apply_status = dict(ch.past_rows)
            if (row := self._apply_status_row(lag)) is not None:
                apply_status[row[0]] = row[1:]
            sql_running = self.sql_running()
            # the SQL thread has relay log left to apply while it trails the source
            applying = bool(lag) and sql_running == "Yes" and server is not None
            return {
                **self._view(self.primary),
                "received": ch.received,
                "applied": applied,
                "applied_epoch": applied_epoch,
                "applied_transaction": transaction,
                "apply_status": sorted((sid, *row) for sid, row in apply_status.items()),
                "io_running": self.io_running(),
                "sql_running": sql_running,
                "io_error": ch.io_error,
                "io_attempts": ch.io_attempts,
                "sql_error": ch.sql_error,
                "incident": self.gap_incident,
                "seconds_behind": self._seconds_behind(lag, applying),
                "applying": server.row_event_kind(applied_epoch) if applying else None,
                "data_events": int(self.data_events),
                "nondata_events": int(self.nondata_events),
                "event_bytes": int(self.event_bytes),
                "conflicts": sum(self.conflicts.whole_rows().values()),
                "applied_writes": int(self.applied_writes),
                "applied_epochs": self.applied_epochs,
            }

    def _seconds_behind(self, lag: float, applying: bool) -> int | None:
        """Seconds_Behind_Source as rpl_replica.cc show_slave_status_send_data computes it:
        NULL while the SQL thread is stopped; computed while it has relay log left to apply,
        whatever the I/O thread does; at the end of the relay log 0 while the I/O thread is
        connected, else NULL."""
        if self.sql_running() != "Yes":
            return None
        if applying:
            return int(lag)
        return 0 if self.io_running() == "Yes" else None

    def status_values(self, cluster: Cluster, node_id: int) -> dict[str, int]:
        """The Ndb_% status variables the link moves on an SQL node: the source's binlog
        servers run the injector, the replica's applier node applies."""
        if cluster is self.source:
            if node_id not in self.binlogs:
                return {}
            with self.source.advanced():
                self._catch_up()
            counts = (int(self.data_events), int(self.nondata_events), int(self.event_bytes))
            values = {}
            for suffix in ("_injector", ""):
                for kind, count in zip(("data", "nondata", "bytes"), counts, strict=True):
                    values[f"Ndb_api_event_{kind}_count{suffix}"] = count
            return values
        if node_id != cluster.sql_node_id:
            return {}
        s = self.snapshot()
        applied, txns = s["applied_writes"], s["applied_epochs"]
        # Ndb_replica_max_replicated_epoch rises only for ndb_apply_status rows carrying one of
        # this cluster's own server ids (its epochs come back round a circular setup;
        # ndb_applier.cc atApplyStatusWrite, ndb_replica.cc Channel::update_global_state): on
        # a one-way replica, whose rows carry the source's server ids, it stays 0
        max_rep = self.conflicts.max_rep_epoch
        values = {
            "Ndb_replica_max_replicated_epoch": max_rep,
            "Ndb_slave_max_replicated_epoch": max_rep,
        }
        for suffix in ("replica", "slave"):
            values.update(
                {
                    f"Ndb_api_trans_start_count_{suffix}": txns,
                    f"Ndb_api_trans_commit_count_{suffix}": txns,
                    f"Ndb_api_trans_close_count_{suffix}": txns,
                    f"Ndb_api_pk_op_count_{suffix}": applied,
                    f"Ndb_api_wait_exec_complete_count_{suffix}": txns * 2,
                    f"Ndb_api_wait_nanos_count_{suffix}": txns * 2_400_000,
                    f"Ndb_api_bytes_sent_count_{suffix}": applied * 140,
                    f"Ndb_api_bytes_received_count_{suffix}": txns * 96,
                }
            )
        values.update(self.conflicts.status_values())
        return values
