"""Refresh on change: when a slowly changing collector's rows are read again.

Fragment placement, replicas, the dictionary and the configuration cost the data nodes a
scan of whole tables (hundreds of thousands of rows at thousands of tables) but change only
when a node stops or starts, a table is created, altered or dropped, or the configuration is
reloaded. Before the slowly changing collectors are handed to the pool, one cheap statement
reads the signals of those changes (``SIGNAL_SQL``: ndbinfo.nodes, a few status variables and
the SQL node's own count of NDB tables, a row per data node). The safety net for a change
that the cheap signals missed is the "objects" signal: the count and the sums of ids,
partitions and fragments of the distributed objects, in one data node's copy of
table_distribution_status, which the table_distribution collector's rows carry (read at
least every maximum age); a second statement (``OBJECTS_SQL``) reads it alone before the
first reads, and at the maximum age where table_distribution does not run. For the
collectors of connected processes and their certificates,
a third one reads the "links" signal (``links_sql``: the first answering data node's links to
every other node, with their state and connect count, a scan that ends after one data node's
rows): a management or API node connecting, going away or reconnecting moves it.

A collector declared ``SlowChanging`` is read again when a signal it follows differs from the
one seen at its last read, or when its last rows describe a transition (at the next scrapes,
then less often while it lasts); an ``aged`` one also when its rows reach the maximum age.
One whose rows count activity (the latency histograms) is read at every scrape unless its
last rows were ``idle`` (nothing counted yet: no disk data page read, no transaction since the
data nodes started); then it follows its signals and the maximum age like the others. At
most one read is made for age alone per scrape (the objects signal included), the oldest
first, so that the safety reads are spread over scrapes instead of falling on one. Between
reads the scrape serves the last families. Signals the SQL node answers with an error count
as changed, so a failure never hides state; signals that do not arrive in time (a slow SQL
node) leave the last rows served.

A target's ``Refresher`` (part of its ``scrape.target_state.TargetState``) is used from the
event loop only: the signals are read on a pool thread (``Refresher.signals_job``), then the
scrape asks once for its ``RefreshPlan``: which collectors are due (only those go to the
pool), which serve their last families, and the signals each read is recorded with.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from mysql.connector import errors
from ndbinfo_exporter.collectors._one_copy import OBJECT_SUMS, objects_fingerprint
from ndbinfo_exporter.collectors.base import Collector, Row, number, text
from ndbinfo_exporter.scrape.pool import PooledConnection

log = logging.getLogger(__name__)

STATUS_SIGNALS = {
    "Ndb_number_of_ready_data_nodes": "nodes",
    "Ndb_config_generation": "config",
    "Ndb_metadata_detected_count": "ddl",
    "Ndb_metadata_synced_count": "ddl",
    # counted as an ALTER TABLE starts (global status sums the running sessions' counts): a
    # copying ALTER's #sql- table is hidden from information_schema.TABLES
    "Com_alter_table": "ddl",
}

# One statement, one round trip: ndbinfo.nodes (a row per running data node), a few status
# variables and the NDB tables the SQL node's data dictionary knows (no data node row).
# A data node's uptime tells a restart that no scrape saw in progress (shorter than the scrape
# interval): its state, phase and ready count are the same before and after.
SIGNAL_SQL = (
    "SELECT 'node' AS kind, CAST(node_id AS CHAR) AS name,"
    " CONCAT(status, ' ', start_phase, ' ', config_generation) AS value, uptime"
    " FROM ndbinfo.nodes"
    " UNION ALL"
    " SELECT 'status', VARIABLE_NAME, VARIABLE_VALUE, NULL FROM performance_schema.global_status"
    " WHERE VARIABLE_NAME IN (" + ", ".join(f"'{name}'" for name in STATUS_SIGNALS) + ") UNION ALL"
    " SELECT 'tables', CAST(COUNT(*) AS CHAR), CAST(MAX(CREATE_TIME) AS CHAR), NULL"
    " FROM information_schema.TABLES WHERE ENGINE = 'ndbcluster'"
)

# The distributed objects (tables, indexes, blob tables) of one data node's copy of
# table_distribution_status, counted and summed (collectors._one_copy.OBJECT_SUMS): creating
# or dropping one, or adding partitions, changes them. table_distribution reads the same sums
# with its rows, so where it runs this statement is read once, before the first reads.
OBJECTS_SQL = (
    f"SELECT node_id, {OBJECT_SUMS} FROM ndbinfo.table_distribution_status GROUP BY node_id"
)
OBJECTS = "objects"

# One data node's links to every other node: a plain LIMIT ends the ndbinfo scan once the
# first data node (in node order) has sent its rows, so the data nodes produce a few batches
# instead of a row per pair of nodes. The first read asks for the most a node can report (a
# row per other node id); the next ones for as many as the first node reported, and one more
# to see a node added to the configuration. Where transporter_details exists (8.0.37+), which
# the transporters collector reads, it is the table read, ndb$transporters never.
LINKS_LIMIT = 255
LINKS = "links"


def links_sql(limit: int = LINKS_LIMIT, details: bool = False) -> str:
    table = "ndb$transporter_details" if details else "ndb$transporters"
    return (
        "SELECT node_id, remote_node_id, connection_status, connect_count"
        f" FROM ndbinfo.{table} LIMIT {limit}"
    )


LINKS_SQL = links_sql()
# A transition (settled() false) is read again at this many following scrapes, then after
# TRANSITION_BACKOFF seconds, twice that, and so on up to the maximum age.
TRANSITION_SCRAPES = 3
TRANSITION_BACKOFF = 15.0
EVERY_SCRAPE = "every scrape"


@dataclass(frozen=True)
class Signals:
    """Signal name -> a value that changes when the state it stands for may have changed;
    ``None`` when they could not be read (then every signal counts as changed)."""

    values: Mapping[str, tuple] | None
    # No answer in time: the SQL node is slow or the connection was lost. The rows read
    # before are served rather than read again on top of the load (up to the maximum age).
    late: bool = False
    # Data node id -> (uptime, earliest start, latest start): the node started between the
    # statement's sending less its uptime (whole seconds, so one more) and its answer less its
    # uptime, on the exporter's monotonic clock.
    uptimes: Mapping[str, tuple[float, float, float]] = field(default_factory=dict)

    def get(self, name: str) -> tuple | None:
        return None if self.values is None else self.values.get(name)

    def restarted_since(self, earlier: Signals) -> bool:
        """Whether a data node seen in both restarted in between, even if no read saw it down
        or starting: its uptime went back, or it started after the latest start the earlier
        read allows. However slow the reads, a node that did not restart never passes."""
        for node, (uptime, earliest, _) in self.uptimes.items():
            before = earlier.uptimes.get(node)
            if before is not None and (uptime < before[0] or earliest > before[2]):
                return True
        return False


UNKNOWN = Signals(None)
LATE = Signals(None, late=True)
# Errors raised by the client library itself (2000 and up: lost connection, read timeout),
# rather than answered by the SQL node (an ndbinfo error, a missing privilege).
CLIENT_ERRORS = 2000


def signals_after(exc: BaseException) -> Signals:
    """The signals to act on when reading them raised ``exc``."""
    errno = getattr(exc, "errno", None)
    if isinstance(exc, TimeoutError) or errno is None or errno >= CLIENT_ERRORS:
        return LATE
    return UNKNOWN


def parse_signals(
    rows: list[Row],
    objects: list[Row] | None = None,
    sent: float = 0.0,
    answered: float = 0.0,
    links: list[Row] | None = None,
) -> Signals:
    """The signals in the rows of SIGNAL_SQL (and OBJECTS_SQL, LINKS_SQL), sent and answered
    at these monotonic times."""
    values: dict[str, list] = {"nodes": [], "config": [], "ddl": []}
    uptimes: dict[str, tuple[float, float, float]] = {}
    for row in rows:
        kind, name, value = text(row["kind"]), text(row["name"]), text(row["value"])
        if kind == "node":
            values["nodes"].append((name, value))
            values["config"].append((name, value.rpartition(" ")[2]))
            uptime = number(row.get("uptime"))
            if uptime is not None:
                uptimes[name] = (uptime, sent - uptime - 1, answered - uptime)
        elif kind == "status":
            values[STATUS_SIGNALS[name]].append((name, value))
        elif kind == "tables":
            values["ddl"].append((name, value))
    parsed = {name: tuple(sorted(found)) for name, found in values.items()}
    if objects is not None:
        parsed[OBJECTS] = objects_fingerprint(objects)
    if links is not None:
        first = text(links[0]["node_id"]) if links else ""
        parsed[LINKS] = tuple(
            sorted(
                tuple(text(v) for v in row.values())
                for row in links
                if text(row["node_id"]) == first
            )
        )
    return Signals(parsed, uptimes=uptimes)


def follows_links(collectors: Iterable[Collector]) -> bool:
    """Whether one of ``collectors`` follows the links signal (then the scrape reads it)."""
    return any(c.slow is not None and LINKS in c.slow.signals for c in collectors)


def _links(connection: PooledConnection, limit: int) -> list[Row] | None:
    """The first ``limit`` rows of ndb$transporters; None when the SQL node refuses the
    statement (the links signal is then unknown and its followers are read at every scrape)."""
    try:
        details = "transporter_details" in connection.info.objects
        return connection.rows(links_sql(limit, details))
    except errors.DatabaseError as exc:
        if exc.errno is None or exc.errno >= CLIENT_ERRORS:
            raise
        return None


@dataclass
class _Read:
    signals: Signals
    at: float  # monotonic
    wall: float  # time.time(), exported
    settled: bool
    unsettled: int = 0  # reads in a row that found a transition
    idle: bool = True  # False: the rows change all the time, read at every scrape


@dataclass
class Refresher:
    """When one target's slowly changing collectors are read: the last read of each, the last
    objects signal and how many rows of LINKS_SQL to read. Part of the target's state
    (``scrape.target_state``), used from the event loop only."""

    target: str  # "host:port", for the log
    max_age: float  # --exporter.refresh-max-age
    clock: Callable[[], float] = time.monotonic
    wall_clock: Callable[[], float] = time.time
    _reads: dict[str, _Read] = field(default_factory=dict, init=False)
    _objects: tuple | None = field(default=None, init=False)  # the last objects signal read
    _objects_at: float | None = field(default=None, init=False)  # monotonic
    _links_limit: int = field(default=LINKS_LIMIT, init=False)  # rows of LINKS_SQL to read

    def signals_job(self, collectors: Iterable[Collector]) -> Callable[[PooledConnection], Signals]:
        """A pool job reading the signals, the objects signal when it is due (``objects_due``)
        and the links signal when one of ``collectors`` follows it. A statement the SQL node
        refuses (no data node, no privilege) raises, and the caller takes the signals as
        UNKNOWN, so that the collectors run as they would without them."""
        collectors = list(collectors)
        with_objects = self.objects_due(collectors)
        links_limit = self.links_limit(collectors)

        def job(connection: PooledConnection) -> Signals:
            sent = time.monotonic()
            rows = connection.rows(SIGNAL_SQL)
            answered = time.monotonic()
            objects = connection.rows(OBJECTS_SQL) if with_objects else None
            links = None if links_limit is None else _links(connection, links_limit)
            return parse_signals(rows, objects, sent, answered, links)

        return job

    def objects_due(self, collectors: Iterable[Collector]) -> bool:
        """Whether this scrape reads the objects signal: one of ``collectors`` follows it,
        and it was never read, or has reached the maximum age and none of ``collectors``
        gives it with its rows (table_distribution, itself read at the maximum age)."""
        if self.max_age <= 0:
            return False  # every collector is read at every scrape
        collectors = list(collectors)
        if not any(c.slow is not None and OBJECTS in c.slow.signals for c in collectors):
            return False
        if self._objects_at is None:
            return True
        if any(c.slow is not None and c.slow.fingerprint is not None for c in collectors):
            return False
        return self.clock() - self._objects_at >= self.max_age

    def links_limit(self, collectors: Iterable[Collector]) -> int | None:
        """The rows of LINKS_SQL this scrape reads, None when no collector follows it."""
        return self._links_limit if follows_links(collectors) else None

    def plan(self, collectors: Iterable[Collector], signals: Signals) -> RefreshPlan:
        """This scrape's refresh of ``collectors`` (the slowly changing ones it runs), once
        its ``signals`` arrived (read by ``signals_job``, or what a failure to read them
        leaves, ``signals_after``)."""
        objects_read = signals.values is not None and OBJECTS in signals.values
        observed = self.observe(signals)
        return RefreshPlan(self, observed, tuple(self.due(collectors, observed, objects_read)))

    def observe(self, signals: Signals) -> Signals:
        """The signals of this scrape, with the objects signal last read when this scrape
        did not read it."""
        if signals.values is None:
            return signals
        if LINKS in signals.values:
            self._links_limit = min(LINKS_LIMIT, len(signals.values[LINKS]) + 1)
        if OBJECTS in signals.values:
            self._objects, self._objects_at = signals.values[OBJECTS], self.clock()
            return signals
        if self._objects is None:
            return signals
        return replace(signals, values={**signals.values, OBJECTS: self._objects})

    def due(
        self, collectors: Iterable[Collector], signals: Signals, objects_read: bool
    ) -> list[Collector]:
        """The collectors whose rows this scrape reads: every one read at every scrape, and the
        slowly changing ones a signal, a transition or their age calls for, with at most one
        read for age alone (none when ``objects_read``, itself a read for age)."""
        due: list[Collector] = []
        aged: list[tuple[float, Collector]] = []
        for collector in collectors:
            reason = self._reason(collector, signals)
            if reason == "maximum age":
                aged.append((self._reads[collector.name].at, collector))
                continue
            if reason and reason != EVERY_SCRAPE:
                self._log(collector, reason)
            if reason:
                due.append(collector)
        if aged and not objects_read:
            _, oldest = min(aged, key=lambda pair: pair[0])
            self._log(oldest, "maximum age")
            due.append(oldest)
        return due

    def _log(self, collector: Collector, reason: str) -> None:
        log.debug(
            "reading a slowly changing collector",
            extra={"fields": {"target": self.target, "collector": collector.name, "why": reason}},
        )

    def _reason(self, collector: Collector, signals: Signals) -> str:
        """Why the collector's rows are to be read now ("" when its last ones are served)."""
        slow = collector.slow
        last = self._reads.get(collector.name)
        if slow is None or self.max_age <= 0:
            return EVERY_SCRAPE
        if last is None:
            return "no rows yet"
        if not last.idle:
            return EVERY_SCRAPE
        # A signal comes first: a node stopping or restarting during a transition (primaries
        # being handed back) must not wait for the transition's backoff.
        changed = "" if signals.late else self._changed(slow.signals, last, signals)
        if changed:
            return changed
        if not last.settled:
            return "in transition" if self._transition_due(last) else ""
        return "maximum age" if slow.aged and self._old(last, slow.max_age) else ""

    @staticmethod
    def _changed(followed: Iterable[str], last: _Read, signals: Signals) -> str:
        """Which followed signal differs from the one seen at the last read ("" when none)."""
        for name in sorted(followed):
            now = signals.get(name)
            if now is None and name == OBJECTS and signals.values is not None:
                continue  # not read yet on this target: the other signals decide
            if now is None or now != last.signals.get(name):
                return f"{name} changed" if now is not None else "signals unknown"
            if name == "nodes" and signals.restarted_since(last.signals):
                return "a data node restarted"
        return ""

    def _transition_due(self, last: _Read) -> bool:
        """A transition is read again at the next scrapes, then less and less often, up to
        the maximum age: a state that lasts (primaries never handed back) must not cost a
        scan of the distribution at every scrape."""
        if last.unsettled <= TRANSITION_SCRAPES:
            return True
        wait = TRANSITION_BACKOFF * 2 ** (last.unsettled - TRANSITION_SCRAPES - 1)
        return self.clock() - last.at >= min(wait, self.max_age)

    def _old(self, last: _Read, own_max_age: float) -> bool:
        return self.clock() - last.at >= max(self.max_age, own_max_age)

    def record_read(self, collector: Collector, signals: Signals, rows: list[Row]) -> None:
        """Record a successful read of ``collector``'s rows, taken after ``signals`` (late
        ones: the signals of the previous read stand, so that a change is still seen)."""
        if collector.slow is None:
            return
        previous = self._reads.get(collector.name)
        if signals.late and previous is not None:
            signals = previous.signals
        settled = collector.slow.settled is None or collector.slow.settled(rows)
        unsettled = 0 if settled else (previous.unsettled if previous else 0) + 1
        idle = collector.slow.idle is None or collector.slow.idle(rows)
        self._reads[collector.name] = _Read(
            signals, self.clock(), self.wall_clock(), settled, unsettled, idle
        )
        if collector.slow.fingerprint is not None:
            # the followers read again at the next scrape when it changed
            self._objects, self._objects_at = collector.slow.fingerprint(rows), self.clock()

    def has_read(self, collector: Collector) -> bool:
        return collector.name in self._reads

    def last_read(self, collector: Collector) -> float | None:
        """Wall-clock time of the last read of the rows served, None for other collectors."""
        last = self._reads.get(collector.name)
        return None if last is None else last.wall


@dataclass(frozen=True)
class RefreshPlan:
    """One scrape's refresh of a target's slowly changing collectors, decided once when the
    signals arrived: which are read (``due``), which serve the families of their last read,
    and the signals each read is recorded with."""

    refresher: Refresher
    signals: Signals  # with the objects signal last read when this scrape did not read it
    due: tuple[Collector, ...]

    def serves(self, collector: Collector) -> bool:
        """Whether a slowly changing collector serves its last families: no statement runs."""
        return all(due.name != collector.name for due in self.due)

    def serves_after_failure(self, collector: Collector) -> bool:
        """Whether a failed read serves the last families instead: the signals did not arrive
        in time (a slow SQL node) and the collector was read before."""
        return self.signals.late and self.refresher.has_read(collector)

    def record(self, collector: Collector, rows: list[Row]) -> None:
        """Record a successful read (of any collector: only slowly changing ones are kept)."""
        self.refresher.record_read(collector, self.signals, rows)

    def last_read(self, collector: Collector) -> float | None:
        return self.refresher.last_read(collector)
