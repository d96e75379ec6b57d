"""The binary logs of the source cluster's binlog servers and their mysql.ndb_binlog_index.

The cluster commits its changes in epochs (epoch = GCI << 32 | micro GCI); the EpochLog keeps
those with changes until every running binlog server has written them. Each binlog server (an
SQL node with log_bin ON) runs its own binlog injector: it writes every epoch with changes it
has handled into its own binary log (files binlog.NNNNNN, rotated at max_binlog_size), one
transaction per epoch, and a row into its own ndb_binlog_index (ha_ndbcluster_binlog.cc,
Ndb_binlog_thread::commit_trans: File/Position where the transaction starts,
next_file/next_position where it ends; empty epochs only with ndb_log_empty_epochs, off by
default). The same epochs therefore sit at other files and positions on each binlog server.
Purging a file deletes its rows (ndbcluster_binlog_index_purge_file ->
Ndb_binlog_index_table_util::remove_rows_for_file: DELETE ... WHERE File=<file>).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

MAX_BINLOG_SIZE = 1 << 30  # max_binlog_size default
BINLOG_BYTES_PER_WRITE = 120  # a row event of the workload's narrow rows
BINLOG_BYTES_PER_EPOCH = 420  # BEGIN, the ndb_apply_status write, COMMIT
INCIDENT_BYTES = 40
STOP_EVENT_BYTES = 23  # the Stop event a mysqld writes as it shuts down: header and checksum
BINLOG_DIR = "./"  # ndb_binlog_index.File names the file with its path, relative to the datadir
FIRST_FILE = "binlog.000001"


def log_order(file: str, position: int) -> tuple[int, int]:
    """A binary log coordinate as the order of the log: file number, then position."""
    return int(file.rsplit(".", 1)[1]), position


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
class Sample:
    epoch: int  # newest epoch with changes written (or applied)
    file: str
    position: int  # end of that epoch's transaction


@dataclass(frozen=True)
class Incident:
    """A LOST_EVENTS incident event in a binary log: `cluster disconnect` when the event
    buffer overflowed, `mysqld startup` at the head of the file a restarted mysqld opens
    (Ndb_binlog_thread::check_reconnect_incident; none in binlog.000001)."""

    file: str
    start: int
    message: str


@dataclass(frozen=True)
class EpochRun:
    """Epochs the cluster committed one after the other in one step of the model, each with
    the same row changes (a day holds about 864,000 epochs; one record per step)."""

    last_epoch: int
    count: int
    per_gci: int  # micro GCIs in a GCI
    inserts: int
    updates: int
    deletes: int

    def epoch(self, i: int) -> int:
        """Its i-th epoch (0 the oldest)."""
        return _step_back(self.last_epoch, self.count - 1 - i, self.per_gci)

    @property
    def first_epoch(self) -> int:
        return self.epoch(0)

    def epochs_up_to(self, epoch: int) -> int:
        """How many of its epochs are up to `epoch`."""
        return bisect_right(range(self.count), epoch, key=self.epoch)

    @property
    def transaction_bytes(self) -> int:
        """Bytes of each epoch's transaction in a binary log."""
        rows = self.inserts + self.updates + self.deletes
        return rows * BINLOG_BYTES_PER_WRITE + BINLOG_BYTES_PER_EPOCH


@dataclass(frozen=True)
class Segment:
    """Epochs of a run a binlog server wrote one after the other into one binlog file: their
    ndb_binlog_index rows, kept as one record."""

    run: EpochRun
    first: int  # index of its first epoch in the run
    count: int
    file: str
    position: int  # where its first epoch's transaction starts
    next_file: str  # after its last epoch (the next file when that epoch closed its file)
    next_position: int

    def epoch(self, i: int) -> int:
        """The epoch of its i-th row (0 the oldest)."""
        return self.run.epoch(self.first + i)

    @property
    def first_epoch(self) -> int:
        return self.epoch(0)

    @property
    def last_epoch(self) -> int:
        return self.epoch(self.count - 1)

    @property
    def size(self) -> int:
        return self.run.transaction_bytes

    @property
    def changes(self) -> int:
        """Row changes of each of its epochs."""
        return self.run.inserts + self.run.updates + self.run.deletes

    def rows_up_to(self, epoch: int) -> int:
        """How many of its rows have an epoch up to `epoch`."""
        return max(0, min(self.count, self.run.epochs_up_to(epoch) - self.first))

    def rows_before(self, position: int) -> int:
        """How many of its transactions start before `position` of its file."""
        return max(0, min(self.count, math.ceil((position - self.position) / self.size)))

    def row(self, i: int) -> IndexRow:
        start = self.position + i * self.size
        last = i == self.count - 1
        run = self.run
        return IndexRow(
            start, self.file, self.epoch(i), run.inserts, run.updates, run.deletes,
            self.next_position if last else start + self.size,
            self.next_file if last else self.file,
        )  # fmt: skip


class EpochLog:
    """The cluster's epochs with changes, as every binlog server's injector receives them,
    kept until every running binlog server has written them."""

    def __init__(self) -> None:
        self.runs: deque[EpochRun] = deque()
        self.newest = 0  # the newest epoch recorded

    def record(self, cluster_epoch: int, epochs: int, changes: float, per_gci: int) -> None:
        """The changes of a step of `epochs` epochs up to the cluster's epoch, spread evenly
        over the epochs not recorded yet (none when the epoch stood still)."""
        count = min(epochs, _epochs_after(self.newest, cluster_epoch, per_gci))
        if count <= 0 or changes <= 0:
            return
        rows = changes / count
        inserts, updates = int(rows * 0.3), int(rows * 0.6)
        deletes = max(0, int(rows) - inserts - updates)
        self.runs.append(EpochRun(cluster_epoch, count, per_gci, inserts, updates, deletes))
        self.newest = cluster_epoch

    def between(self, older: int, newer: int) -> Iterator[tuple[EpochRun, int, int]]:
        """(run, first index, end index) of the recorded epochs after `older` up to `newer`."""
        start = bisect_right(self.runs, older, key=lambda r: r.last_epoch)
        for i in range(start, len(self.runs)):
            run = self.runs[i]
            if run.first_epoch > newer:
                break
            first, end = run.epochs_up_to(older), run.epochs_up_to(newer)
            if end > first:
                yield run, first, end

    def forget_up_to(self, epoch: int) -> None:
        while self.runs and self.runs[0].last_epoch <= epoch:
            self.runs.popleft()


class BinlogServer:
    """One SQL node's binary log and its mysql.ndb_binlog_index."""

    def __init__(
        self,
        node_id: int,
        server_id: int,
        first_position: int,
        clock: Callable[[], float],
        expire_seconds: float | None,
        max_binlog_size: int = MAX_BINLOG_SIZE,
    ) -> None:
        self.node_id, self.server_id = node_id, server_id
        self.first_position = first_position  # after the format description event
        self.clock = clock  # cluster time
        self.expire_seconds = expire_seconds  # binlog_expire_logs_seconds (None: keep all)
        self.max_binlog_size = max_binlog_size
        self.files = [BinlogFile(FIRST_FILE, first_position)]
        self.segments: deque[Segment] = deque()  # ndb_binlog_index, oldest first
        self.written_epoch = 0
        self.incidents: list[Incident] = []
        self.up = True  # its mysqld runs

    # --- writing ------------------------------------------------------------------------------

    def write(self, log: EpochLog, handled: int) -> None:
        """The recorded epochs after the last one written up to `handled`, one transaction and
        one ndb_binlog_index row each."""
        for run, first, end in log.between(self.written_epoch, handled):
            self._write_run(run, first, end)
            self.written_epoch = run.epoch(end - 1)

    def _write_run(self, run: EpochRun, first: int, end: int) -> None:
        size = run.transaction_bytes
        while first < end:
            current = self.files[-1]
            # the epoch whose transaction reaches max_binlog_size is the file's last
            room = math.ceil((self.max_binlog_size - current.size) / size)
            fit = min(end - first, max(1, room))
            start = current.size
            self._grow(fit * size)
            last = self.files[-1]
            self.segments.append(
                Segment(run, first, fit, current.name, start, last.name, last.size)
            )
            first += fit

    def add_incident(self, message: str) -> Incident:
        """A LOST_EVENTS incident event at the end of the binary log."""
        incident = Incident(self.files[-1].name, self.position, message)
        self.incidents.append(incident)
        self._grow(INCIDENT_BYTES)
        return incident

    def restart(self, handled: int) -> None:
        """The mysqld stopped (a Stop event closes its file) and started again: it opens the
        next file with a `mysqld startup` incident, since the epochs of its downtime are not
        in its log, and goes on from the epoch it handles now."""
        self.files[-1].size += STOP_EVENT_BYTES
        self._rotate()
        self.add_incident("mysqld startup")
        self.written_epoch = max(self.written_epoch, handled)
        self.up = True

    def _grow(self, size: int) -> None:
        self.files[-1].size += size
        if self.files[-1].size >= self.max_binlog_size:
            self._rotate()

    def _rotate(self) -> None:
        current = self.files[-1]
        current.closed_at = self.clock()
        number = log_order(current.name, 0)[0] + 1
        self.files.append(BinlogFile(f"binlog.{number:06d}", self.first_position))
        self._purge_expired()

    @property
    def position(self) -> int:
        return self.files[-1].size

    @property
    def end(self) -> Sample:
        return Sample(self.written_epoch, self.files[-1].name, self.position)

    # --- purging ------------------------------------------------------------------------------

    def _purge_expired(self) -> None:
        """At a rotation, the server purges the files closed longer ago than the expiry,
        and their ndb_binlog_index rows with them."""
        if self.expire_seconds is None:
            return
        horizon = self.clock() - self.expire_seconds
        self._remove([f.name for f in self.files[:-1] if (f.closed_at or 0.0) < horizon])

    def purge_to(self, name: str) -> list[str]:
        """PURGE BINARY LOGS TO: the files before `name` (MYSQL_BIN_LOG::purge_logs); KeyError
        when `name` is not in the index. A connected replica reads the active file, which
        stays."""
        names = [f.name for f in self.files]
        if name not in names:
            raise KeyError(name)
        return self._remove(names[: names.index(name)])

    def purge_before(self, cluster_time: float) -> list[str]:
        """PURGE BINARY LOGS BEFORE: the oldest files closed before `cluster_time`, up to the
        first that is not (MYSQL_BIN_LOG::purge_logs_before_date)."""
        wanted = []
        for f in self.files[:-1]:
            if f.closed_at is None or f.closed_at >= cluster_time:
                break
            wanted.append(f.name)
        return self._remove(wanted)

    def _remove(self, names: Iterable[str]) -> list[str]:
        gone = set(names)
        if not gone:
            return []
        self.files = [f for f in self.files if f.name not in gone]
        while self.segments and self.segments[0].file in gone:
            self.segments.popleft()
        self.incidents = [i for i in self.incidents if i.file not in gone]
        return sorted(gone)

    # --- reading ------------------------------------------------------------------------------

    def file_size(self, name: str) -> int | None:
        return next((f.size for f in self.files if f.name == name), None)

    def epoch_before(self, file: str, position: int) -> int:
        """The newest epoch whose transaction starts before `position` of `file` (0: none
        kept): a reader starting there goes on with the epochs after it."""
        at = log_order(file, position)
        i = bisect_left(self.segments, at, key=lambda g: log_order(g.file, g.position))
        if i == 0:
            return 0
        seg = self.segments[i - 1]
        if seg.file != file:
            return seg.last_epoch
        return seg.epoch(seg.rows_before(position) - 1)

    def incident_between(self, older: Sample, newer: Sample) -> Incident | None:
        """The first incident a reader meets going from `older` to `newer`."""
        low, high = log_order(older.file, older.position), log_order(newer.file, newer.position)
        return next((i for i in self.incidents if low <= log_order(i.file, i.start) < high), None)

    def _rows_between(self, older: int, newer: int) -> Iterator[tuple[Segment, int]]:
        """The segments with epochs written after `older` up to `newer`, each with how many."""
        start = bisect_right(self.segments, older, key=lambda g: g.last_epoch)
        for i in range(start, len(self.segments)):
            seg = self.segments[i]
            if seg.first_epoch > newer:
                break
            yield seg, seg.rows_up_to(newer) - seg.rows_up_to(older)

    def writes_between(self, older: int, newer: int) -> int:
        """Row changes of the epochs written after `older` up to `newer`."""
        return sum(rows * seg.changes for seg, rows in self._rows_between(older, newer))

    def epochs_between(self, older: int, newer: int) -> int:
        """Epoch transactions (epochs with changes) written after `older` up to `newer`."""
        return sum(rows for _, rows in self._rows_between(older, newer))

    def row_event_kind(self, epoch: int) -> str | None:
        """The rows event that takes most of the epoch transaction after `epoch`: `write`,
        `update` or `delete` (None: none written after it)."""
        for seg, rows in self._rows_between(epoch, 1 << 64):
            if rows:
                run = seg.run
                changes = {"write": run.inserts, "update": run.updates, "delete": run.deletes}
                return max(changes, key=changes.__getitem__)
        return None

    def index_rows(self, after: int = 0) -> Iterator[IndexRow]:
        """The ndb_binlog_index rows kept of the epochs after `after` (0: all), oldest first."""
        segments = list(self.segments)
        start = bisect_right(segments, after, key=lambda g: g.last_epoch)
        for seg in segments[start:]:
            for i in range(seg.rows_up_to(after), seg.count):
                yield seg.row(i)

    def oldest_epoch(self) -> int:
        """The oldest epoch ndb_binlog_index keeps (0: none)."""
        return self.segments[0].first_epoch if self.segments else 0

    def transaction_of(self, epoch: int) -> tuple[str, int, int] | None:
        """(file, start, end) of the newest epoch transaction up to `epoch` as this server wrote
        it; before the oldest one kept, an empty span at that one's start."""
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
        return row.file, row.position, self.file_size(row.file) or row.next_position


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
