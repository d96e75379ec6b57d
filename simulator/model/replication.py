"""Asynchronous NDB replication from a source cluster to a replica cluster.

The source cluster's SQL node runs the binlog injector: it receives the cluster's epochs
(epoch = GCI << 32 | micro GCI) into its event buffer, handles them, and writes those with
changes into the binary log (files binlog.NNNNNN, rotated at max_binlog_size) and into
mysql.ndb_binlog_index. The replica cluster's SQL node reads that log (I/O thread) and applies
it (SQL thread), recording the newest applied epoch in mysql.ndb_apply_status. Conflict
detection runs where changes are applied: with the `conflicts` fault, each epoch transaction the
replica's applier commits moves its SQL node's Ndb_conflict_* counters.

The link advances with the source cluster (`observe` runs in each step of its model) and reads
the link faults from the source cluster's faults.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ndbsim.model.faults import DEFAULT_BEHIND_SECONDS
from ndbsim.model.workload import writes

if TYPE_CHECKING:
    from ndbsim.model.checkpoints import Checkpoints
    from ndbsim.model.cluster import Cluster

SOURCE_SERVER_ID = 1  # @@server_id of the source SQL node (the replica is 2)
INJECTOR_BEHIND_GCIS = 40  # injector-behind: handled epoch this many GCIs behind the cluster
SUBSCRIBER_LAG_GCIS = 10  # subscriber-lag without gcis: 200 epochs at the default timing
MAX_BINLOG_SIZE = 1 << 30  # max_binlog_size default
BINLOG_BYTES_PER_WRITE = 120  # a row event of the workload's narrow rows
BINLOG_BYTES_PER_EPOCH = 420  # BEGIN, the ndb_apply_status write, COMMIT
EVENT_BYTES_PER_WRITE = 160  # bytes the event buffer receives per row change
CONFLICTS_PER_SECOND = 3.0
INCIDENT_BYTES = 40
BINLOG_DIR = "./"  # ndb_binlog_index.File names the file with its path, relative to the datadir
# binlog_expire_logs_seconds default from 8.0 (30 days); 7.x keeps the files (expire_logs_days 0)
EXPIRE_SECONDS = 30 * 86400
REPLICA_SERVER_ID_BASE = 100  # @@server_id of the replica cluster's SQL nodes: 101, 102, ...
# the I/O thread's connection attempts (SOURCE_RETRY_COUNT default: 10 from 8.4, else 86400)
RETRIES_FROM_84, RETRIES_BEFORE_84 = 10, 86400
RETRY_SECONDS = 60  # SOURCE_CONNECT_RETRY default
# conflicts of the *_TRANS functions: conflicting rows per rejected transaction, and the rows
# such a transaction and those depending on it realign
ROWS_IN_CONFLICT_PER_TRANSACTION = 1.5
ROWS_REJECTED_PER_TRANSACTION = 4.0


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


@dataclass
class BinlogFile:
    name: str
    size: int
    closed_at: float | None = None  # cluster time it was rotated away from


@dataclass(frozen=True)
class IndexRow:
    """One mysql.ndb_binlog_index row: an epoch with changes and where it is in the binlog."""

    position: int
    file: str
    epoch: int
    inserts: int
    updates: int
    deletes: int
    next_position: int
    next_file: str

    @property
    def gci(self) -> int:
        return self.epoch >> 32


@dataclass(frozen=True)
class Segment:
    """Epochs the injector wrote in one step, one after the other in one binlog file, each
    with the same row changes: their ndb_binlog_index rows, kept as one record (a day holds
    about 864,000 epochs; one record per step keeps every row the server keeps)."""

    last_epoch: int
    count: int
    per_gci: int  # micro GCIs in a GCI
    file: str
    position: int  # where its first epoch's transaction starts
    size: int  # bytes of each epoch's transaction
    inserts: int
    updates: int
    deletes: int
    next_file: str  # after its last epoch (the next file when that epoch closed its file)
    next_position: int

    def epoch(self, i: int) -> int:
        """The epoch of its i-th row (0 the oldest)."""
        return _step_back(self.last_epoch, self.count - 1 - i, self.per_gci)

    @property
    def first_epoch(self) -> int:
        return self.epoch(0)

    def rows_up_to(self, epoch: int) -> int:
        """How many of its rows have an epoch up to `epoch`."""
        return bisect_right(range(self.count), epoch, key=self.epoch)

    def row(self, i: int) -> IndexRow:
        start = self.position + i * self.size
        last = i == self.count - 1
        return IndexRow(
            start, self.file, self.epoch(i), self.inserts, self.updates, self.deletes,
            self.next_position if last else start + self.size,
            self.next_file if last else self.file,
        )  # fmt: skip


@dataclass(frozen=True)
class Sample:
    epoch: int  # newest epoch with changes written
    file: str
    position: int  # end of that epoch's transaction


@dataclass(frozen=True)
class ThreadError:
    errno: int
    since: float  # unix time


class ReplicationLink:
    """The link between the two clusters of ndbsim --replica; `snapshot` is what both SQL
    nodes show of it."""

    def __init__(self, source: Cluster, replica: Cluster, first_position: int) -> None:
        self.source, self.replica = source, replica
        self.first_position = first_position  # after the format description event
        self.files = [BinlogFile("binlog.000001", first_position)]
        self.segments: deque[Segment] = deque()  # ndb_binlog_index, oldest first
        self.end: Sample | None = None  # the binlog's end at the last step
        self.written_epoch = 0
        self.data_events = 0.0
        self.nondata_events = 0.0
        self.event_bytes = 0.0
        self.conflicts: dict[str, float] = {}  # conflict function -> rows in conflict
        self.last_conflict_epoch = 0
        self.conflict_epochs = 0
        self.incident: Sample | None = None  # LOST_EVENTS written by injector-behind gap=true
        self.applied: Sample | None = None  # what the replica's SQL thread applied
        self.received: Sample | None = None  # what its I/O thread read
        self.applied_writes = 0.0
        self.applied_epochs = 0
        self.io_error: ThreadError | None = None
        self.sql_error: ThreadError | None = None
        self.io_attempts = 0
        self.source_server_id = SOURCE_SERVER_ID
        replica.server_id_base = REPLICA_SERVER_ID_BASE
        self.io_retries = RETRIES_FROM_84 if source.version.at_least(8, 4) else RETRIES_BEFORE_84
        # binlog_expire_logs_seconds from 8.0; 7.x keeps every file (expire_logs_days 0)
        self.expire_seconds = None if source.version.is_7x else EXPIRE_SECONDS
        self.source_host, self.source_port = "127.0.0.1", 3306  # the source SQL node's address
        self.replica_port = 3306  # the replica SQL node's port, as it registers with the source
        source.replication = replica.replication = self
        source.faults.link = replica.faults.link = True

    # --- the source: the binlog injector ------------------------------------------------------

    def observe(self, dt: float, ops: float) -> None:
        """The source cluster ran dt more seconds, with `ops` operations."""
        cp = self.source.checkpoints
        changed = writes(ops)
        epochs = max(1, round(dt / cp.epoch_interval))
        self.data_events += changed
        self.nondata_events += epochs
        self.event_bytes += changed * EVENT_BYTES_PER_WRITE
        handled = self.handled_epoch()
        if changed > 0:
            self._write(handled, changed, epochs)
        self._catch_up()

    def _catch_up(self) -> None:
        """Bring the binlog's end and the replica's threads to the faults of this moment."""
        gap = (self.source.faults.get("injector-behind") or {}).get("gap", False)
        if gap and self.incident is None:
            self.incident = self._append(INCIDENT_BYTES, self.handled_epoch())
        elif not gap:
            self.incident = None
        self.end = Sample(self.written_epoch, self.files[-1].name, self.position)
        self._replica_step()

    def _write(self, handled: int, changed: float, epochs: int) -> None:
        """The epochs handled since the last write, up to the step's count, each with its
        share of the changes: one ndb_binlog_index row each, as the injector writes them."""
        cp = self.source.checkpoints
        per_gci = max(1, math.ceil(cp.gcp_interval / cp.epoch_interval - 1e-9))
        count = min(epochs, _epochs_after(self.written_epoch, handled, per_gci))
        if count <= 0:
            return
        rows = changed / count
        size = int(rows * BINLOG_BYTES_PER_WRITE) + BINLOG_BYTES_PER_EPOCH
        inserts, updates = int(rows * 0.3), int(rows * 0.6)
        deletes = max(0, int(rows) - inserts - updates)
        while count > 0:
            current = self.files[-1]
            # the epoch whose transaction reaches max_binlog_size is the file's last
            fit = min(count, max(1, math.ceil((MAX_BINLOG_SIZE - current.size) / size)))
            start = current.size
            self._grow(fit * size)
            self.segments.append(
                Segment(
                    _step_back(handled, count - fit, per_gci), fit, per_gci, current.name,
                    start, size, inserts, updates, deletes, self.files[-1].name, self.position,
                )
            )  # fmt: skip
            count -= fit
        self.written_epoch = handled

    def _append(self, size: int, epoch: int) -> Sample:
        self._grow(size)
        return Sample(epoch, self.files[-1].name, self.position)

    def _grow(self, size: int) -> None:
        current = self.files[-1]
        current.size += size
        if current.size >= MAX_BINLOG_SIZE:
            number = int(current.name.rsplit(".", 1)[1]) + 1
            current.closed_at = self.source.now
            self.files.append(BinlogFile(f"binlog.{number:06d}", self.first_position))
            self._purge()

    def _purge(self) -> None:
        """At a rotation, the server purges the files closed longer ago than the expiry,
        and their ndb_binlog_index rows with them."""
        if self.expire_seconds is None:
            return
        horizon = self.source.now - self.expire_seconds
        expired = {f.name for f in self.files[:-1] if (f.closed_at or 0.0) < horizon}
        self.files = [f for f in self.files if f.name not in expired]
        while self.segments and self.segments[0].file in expired:
            self.segments.popleft()

    @property
    def position(self) -> int:
        return self.files[-1].size

    def buffered_epoch(self) -> int:
        """latest_epoch: the newest epoch complete in the event buffer, subscriber-lag's
        epochs behind the cluster's."""
        if not self.source.is_up():
            return self.handled_epoch()
        return epoch_before(self.source.checkpoints, subscriber_lag_epochs(self.source))

    def handled_epoch(self) -> int:
        """latest_handled_binlog_epoch (and latest_received_binlog_epoch), never past the
        event buffer's latest_epoch."""
        epoch = self.source.checkpoints.epoch
        if self.source.faults.is_active("injector-behind"):
            epoch -= INJECTOR_BEHIND_GCIS << 32
        if self.source.faults.is_active("subscriber-lag"):
            epoch = min(epoch, self.buffered_epoch())
        return max(0, epoch)

    # --- the replica: I/O and SQL threads -----------------------------------------------------

    def _replica_step(self) -> None:
        faults = self.source.faults
        wall = self.source.wall_time()
        if faults.is_active("replica-io-disconnect"):
            if self.io_error is None:
                self.io_error = ThreadError(2003, wall)
            # the first attempt at once, then one each SOURCE_CONNECT_RETRY seconds
            elapsed = wall - self.io_error.since
            self.io_attempts = min(self.io_retries, 1 + int(elapsed / RETRY_SECONDS))
        else:
            self.io_error = None
            self.received = self.end
        sql_errno = 0
        if faults.is_active("replica-sql-error"):
            sql_errno = 1032
        elif self.incident is not None:
            sql_errno = 1590
        if sql_errno:
            if self.sql_error is None or self.sql_error.errno != sql_errno:
                self.sql_error = ThreadError(sql_errno, wall)
            return
        self.sql_error = None
        target = self.received or self.end
        if self.applied is None or target.epoch > self.applied.epoch:
            before = self.applied.epoch if self.applied else target.epoch
            self.applied_epochs += max(0, (target.epoch >> 32) - (before >> 32))
            self.applied_writes += self.writes_between(before, target.epoch)
            self._commit_conflicts(self.epochs_between(before, target.epoch))
            self.applied = target

    def _commit_conflicts(self, committed: int) -> None:
        """The conflicts of `committed` epoch transactions the applier commits with the
        `conflicts` fault set: CONFLICTS_PER_SECOND rows a second of the source's epochs. The
        counters move only as an applier transaction commits (ndb_applier.cc
        atTransactionCommit -> ndb_replica.cc Channel::update_global_state; an aborted one
        discards its counts), so never while the SQL thread is stopped or has nothing to
        apply; Ndb_conflict_last_conflict_epoch is the epoch the replica cluster committed it
        in."""
        conflicts = self.source.faults.get("conflicts")
        if conflicts is None or committed <= 0:
            return
        rows = CONFLICTS_PER_SECOND * committed * self.source.checkpoints.epoch_interval
        function = conflicts["function"]
        before = self.conflicts.get(function, 0.0)
        self.conflicts[function] = before + rows
        found = _whole(before + rows) - _whole(before)
        if found:
            # epoch transactions with a conflict: at most one per row in conflict
            self.conflict_epochs += min(committed, found)
            self.last_conflict_epoch = self.replica.checkpoints.epoch

    def _rows_between(self, older: int, newer: int) -> Iterator[tuple[Segment, int]]:
        """The segments with epochs written after `older` up to `newer`, each with how many."""
        start = max(0, bisect_right(self.segments, older, key=lambda g: g.last_epoch))
        for i in range(start, len(self.segments)):
            seg = self.segments[i]
            if seg.first_epoch > newer:
                break
            yield seg, seg.rows_up_to(newer) - seg.rows_up_to(older)

    def writes_between(self, older: int, newer: int) -> int:
        """Row changes of the epochs written after `older` up to `newer`."""
        return sum(
            rows * (seg.inserts + seg.updates + seg.deletes)
            for seg, rows in self._rows_between(older, newer)
        )

    def epochs_between(self, older: int, newer: int) -> int:
        """Epoch transactions (epochs with changes) written after `older` up to `newer`."""
        return sum(rows for _, rows in self._rows_between(older, newer))

    def row_event_kind(self, epoch: int) -> str | None:
        """The rows event that takes most of the epoch transaction after `epoch`: `write`,
        `update` or `delete` (None: none written after it)."""
        for seg, rows in self._rows_between(epoch, 1 << 64):
            if rows:
                changes = {"write": seg.inserts, "update": seg.updates, "delete": seg.deletes}
                return max(changes, key=changes.__getitem__)
        return None

    def index_rows(self, after: int = 0) -> Iterator[IndexRow]:
        """The ndb_binlog_index rows the source keeps of the epochs after `after` (0: all),
        oldest first."""
        segments = list(self.segments)
        start = bisect_right(segments, after, key=lambda g: g.last_epoch)
        for seg in segments[start:]:
            for i in range(seg.rows_up_to(after), seg.count):
                yield seg.row(i)

    def oldest_epoch(self) -> int:
        """The oldest epoch ndb_binlog_index keeps (0: none)."""
        return self.segments[0].first_epoch if self.segments else 0

    def transaction_of(self, epoch: int) -> tuple[str, int, int] | None:
        """(file, start, end) of the newest epoch transaction up to `epoch` as the source wrote it
        into its binary log; before the oldest one kept, an empty span at that one's start."""
        if not self.segments:
            return None
        i = bisect_right(self.segments, epoch, key=lambda g: g.first_epoch)
        if i == 0:
            oldest = self.segments[0]
            return oldest.file, oldest.position, oldest.position
        seg = self.segments[i - 1]
        row = seg.row(seg.rows_up_to(epoch) - 1)
        if row.next_file == row.file:
            return row.file, row.position, row.next_position
        # the transaction closed its file: it ends where that file ends
        size = next(f.size for f in self.files if f.name == row.file)
        return row.file, row.position, size

    def io_gave_up(self) -> bool:
        """The I/O thread stops when its last attempt fails: rpl_replica.cc connect_to_master
        breaks off once its count of failed attempts reaches SOURCE_RETRY_COUNT, without
        another wait (8.4: the tenth attempt, nine retry intervals after the first)."""
        return self.io_error is not None and self.io_attempts >= self.io_retries

    def behind_seconds(self) -> float:
        params = self.source.faults.get("replica-behind")
        if params is None:
            return 0.0
        return params.get("seconds", DEFAULT_BEHIND_SECONDS)

    def snapshot(self) -> dict[str, Any]:
        """The link as both SQL nodes show it, at the source cluster's current time."""
        with self.source.advanced():
            self._catch_up()
            cp = self.source.checkpoints
            applied = self.applied or self.end
            lag = self.behind_seconds()
            handled = self.handled_epoch()
            # an injector put behind has not written what it handled before
            written = min(self.written_epoch, handled)
            applied_epoch = min(applied.epoch, written) if applied else 0
            if lag and applied_epoch:
                gcis = math.ceil(lag / cp.gcp_interval)
                applied_epoch = max(0, applied_epoch - (gcis << 32))
            transaction = self.transaction_of(applied_epoch) if applied else None
            if lag and transaction is not None:
                # the SQL thread stands at the end of the epoch it applied last
                applied = Sample(applied_epoch, transaction[0], transaction[2])
            io_running = "Connecting" if self.io_error else "Yes"
            if self.io_gave_up():
                io_running = "No"
            sql_running = "No" if self.sql_error else "Yes"
            # the SQL thread has relay log left to apply while it trails the source
            applying = bool(lag) and self.sql_error is None
            return {
                "source_gci": cp.gci,
                "buffered_epoch": self.buffered_epoch(),
                "received_epoch": handled,
                "handled_epoch": handled,
                "written_epoch": written,
                "last_commit_epoch": cp.epoch if self.source.spec.ops_per_second > 0 else 0,
                "binlog_file": self.files[-1].name,
                "binlog_position": self.position,
                "files": [(f.name, f.size) for f in self.files],
                "received": self.received,
                "applied": applied,
                "applied_epoch": applied_epoch,
                "applied_transaction": transaction,
                "io_running": io_running,
                "sql_running": sql_running,
                "io_error": self.io_error,
                "io_attempts": self.io_attempts,
                "sql_error": self.sql_error,
                "incident": self.incident,
                "seconds_behind": self._seconds_behind(lag, applying),
                "applying": self.row_event_kind(applied_epoch) if applying else None,
                "data_events": int(self.data_events),
                "nondata_events": int(self.nondata_events),
                "event_bytes": int(self.event_bytes),
                "conflicts": sum(_whole(n) for n in self.conflicts.values()),
                "conflicts_by_function": {f: _whole(n) for f, n in self.conflicts.items()},
                "last_conflict_epoch": self.last_conflict_epoch,
                "conflict_epochs": self.conflict_epochs,
                "applied_writes": int(self.applied_writes),
                "applied_epochs": self.applied_epochs,
            }

    def _seconds_behind(self, lag: float, applying: bool) -> int | None:
        """Seconds_Behind_Source as rpl_replica.cc show_slave_status_send_data computes it:
        NULL while the SQL thread is stopped; computed while it has relay log left to apply,
        whatever the I/O thread does; at the end of the relay log 0 while the I/O thread is
        connected, else NULL."""
        if self.sql_error is not None:
            return None
        if applying:
            return int(lag)
        return 0 if self.io_error is None else None

    def status_values(self, cluster: Cluster, node_id: int) -> dict[str, int]:
        """The Ndb_% status variables the link moves on an SQL node: the source's binlog
        server runs the injector, the replica's applier node applies."""
        if node_id != cluster.sql_node_id:
            return {}
        s = self.snapshot()
        if cluster is self.source:
            return {
                "Ndb_api_event_data_count_injector": s["data_events"],
                "Ndb_api_event_nondata_count_injector": s["nondata_events"],
                "Ndb_api_event_bytes_count_injector": s["event_bytes"],
                "Ndb_api_event_data_count": s["data_events"],
                "Ndb_api_event_nondata_count": s["nondata_events"],
                "Ndb_api_event_bytes_count": s["event_bytes"],
            }
        applied, txns = s["applied_writes"], s["applied_epochs"]
        # Ndb_replica_max_replicated_epoch rises only for ndb_apply_status rows carrying one of
        # this cluster's own server ids (its epochs come back round a circular setup;
        # ndb_applier.cc atApplyStatusWrite, ndb_replica.cc Channel::update_global_state): on
        # this one-way replica, whose rows carry the source's server id, it stays 0
        values = {"Ndb_replica_max_replicated_epoch": 0, "Ndb_slave_max_replicated_epoch": 0}
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
        values.update(_conflict_values(s))
        return values


def _conflict_values(s: dict[str, Any]) -> dict[str, int]:
    """Ndb_conflict_* of the applying SQL node: one Ndb_conflict_fn_* per function (rows in
    conflict); the Ndb_conflict_trans_* counters for the transactional functions (*_TRANS):
    the rows in conflict belong to fewer rejected transactions, whose rows (and those of the
    transactions depending on them) are all realigned; each epoch transaction with a conflict
    commits after one dependency-tracking pass (ndb_applier.cc atConflictPreCommit counts
    trans_detect_iter_count there; ndb_replica.cc update_global_state counts the commit).
    The NDB$EPOCH family refreshes every realigned row (Ndb_conflict_refresh_op_count).
    Ndb_conflict_last_stable_epoch is the max replicated epoch at the last commit without
    conflicts that had come round to Ndb_conflict_last_conflict_epoch (update_global_state):
    0 on a one-way replica, whose max replicated epoch stays 0."""
    by_function = s["conflicts_by_function"]
    values = {
        "Ndb_conflict_fn_" + function.removeprefix("NDB$").lower(): count
        for function, count in by_function.items()
    }
    rows = sum(n for function, n in by_function.items() if not function.endswith("_TRANS"))
    trans_rows = sum(n for function, n in by_function.items() if function.endswith("_TRANS"))
    rejected = trans_rows / ROWS_IN_CONFLICT_PER_TRANSACTION
    realigned = int(rejected * ROWS_REJECTED_PER_TRANSACTION)
    if trans_rows:
        epochs = min(s["conflict_epochs"], int(rejected))
        values.update(
            {
                "Ndb_conflict_trans_row_conflict_count": trans_rows,
                "Ndb_conflict_trans_row_reject_count": realigned,
                "Ndb_conflict_trans_reject_count": int(rejected),
                "Ndb_conflict_trans_detect_iter_count": epochs,
                "Ndb_conflict_trans_conflict_commit_count": epochs,
            }
        )
    if by_function:
        values["Ndb_conflict_refresh_op_count"] = rows + realigned
        values["Ndb_conflict_last_conflict_epoch"] = s["last_conflict_epoch"]
        values["Ndb_conflict_last_stable_epoch"] = 0
    return values


def _whole(rows: float) -> int:
    """Whole rows of a count summed from fractions of a second (0.1 s epochs add up to
    29.999... for 30)."""
    return math.floor(rows + 1e-6)


def _step_back(epoch: int, steps: int, per_gci: int) -> int:
    """The epoch `steps` before `epoch` (micro GCIs 0..per_gci-1 in each GCI)."""
    gci, micro = epoch >> 32, epoch & 0xFFFFFFFF
    if steps <= micro:
        return (gci << 32) | (micro - steps)
    steps -= micro + 1
    return ((gci - 1 - steps // per_gci) << 32) | (per_gci - 1 - steps % per_gci)


def _epochs_after(older: int, newer: int, per_gci: int) -> int:
    """How many epochs follow `older` up to `newer` (all of them when `older` is 0)."""
    if newer <= older:
        return 0
    if older == 0:
        return 1 << 62
    (og, om), (ng, nm) = (older >> 32, older & 0xFFFFFFFF), (newer >> 32, newer & 0xFFFFFFFF)
    if ng == og:
        return nm - om
    return max(0, per_gci - 1 - om) + (ng - og - 1) * per_gci + nm + 1
