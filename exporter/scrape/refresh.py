"""Refresh on change: when a slowly changing collector's rows are read again.

Fragment placement, replicas, distribution status, the dictionary and the configuration
cost the data nodes a scan of whole tables (hundreds of thousands of rows at thousands of
tables) but change only when a node stops or starts, a table is created or altered, an LCP
completes or the configuration is reloaded. Before the collectors run, one cheap statement
reads the signals of those changes (``SIGNAL_SQL``: ndbinfo.nodes, a few status variables
and the SQL node's own count of NDB tables); a collector declared ``SlowChanging`` is read
again only when a signal it follows differs from the one seen at its last read, when its
last rows describe a transition, when the cluster has advanced its ``max_gcis`` global
checkpoints, or when the maximum age has passed. Between reads the scrape serves its last
families. Signals the SQL node answers with an error count as changed, so a failure never
hides state; signals that do not arrive in time (a slow SQL node) leave the last rows served.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ndbinfo_exporter.collectors.base import Collector, Row, text
from ndbinfo_exporter.scrape.pool import PooledConnection

log = logging.getLogger(__name__)

STATUS_SIGNALS = {
    "Ndb_number_of_ready_data_nodes": "nodes",
    "Ndb_config_generation": "config",
    "Ndb_metadata_detected_count": "ddl",
    "Ndb_metadata_synced_count": "ddl",
}
EPOCH = "Ndb_last_commit_epoch_server"

# One statement, one round trip: ndbinfo.nodes (a row per running data node), a few status
# variables and the NDB tables the SQL node's data dictionary knows (no data node row).
SIGNAL_SQL = (
    "SELECT 'node' AS kind, CAST(node_id AS CHAR) AS name,"
    " CONCAT(status, ' ', start_phase, ' ', config_generation) AS value"
    " FROM ndbinfo.nodes"
    " UNION ALL"
    " SELECT 'status', VARIABLE_NAME, VARIABLE_VALUE FROM performance_schema.global_status"
    " WHERE VARIABLE_NAME IN ("
    + ", ".join(f"'{name}'" for name in (*STATUS_SIGNALS, EPOCH))
    + ") UNION ALL"
    " SELECT 'tables', CAST(COUNT(*) AS CHAR), CAST(MAX(CREATE_TIME) AS CHAR)"
    " FROM information_schema.TABLES WHERE ENGINE = 'ndbcluster'"
)


@dataclass(frozen=True)
class Signals:
    """Signal name -> a value that changes when the state it stands for may have changed;
    ``None`` when they could not be read (then every signal counts as changed)."""

    values: Mapping[str, tuple] | None
    gci: int | None = None
    # No answer in time: the SQL node is slow or the connection was lost. The rows read
    # before are served rather than read again on top of the load (up to the maximum age).
    late: bool = False

    def get(self, name: str) -> tuple | None:
        return None if self.values is None else self.values.get(name)


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


def parse_signals(rows: list[Row]) -> Signals:
    values: dict[str, list] = {"nodes": [], "config": [], "ddl": []}
    gci = None
    for row in rows:
        kind, name, value = text(row["kind"]), text(row["name"]), text(row["value"])
        if kind == "node":
            values["nodes"].append((name, value))
            values["config"].append((name, value.rpartition(" ")[2]))
        elif kind == "status" and name == EPOCH:
            gci = int(value) >> 32 if value.isdigit() else None
        elif kind == "status":
            values[STATUS_SIGNALS[name]].append((name, value))
        elif kind == "tables":
            values["ddl"].append((name, value))
    return Signals({name: tuple(sorted(found)) for name, found in values.items()}, gci)


def read_signals(connection: PooledConnection) -> Signals:
    """A pool job. A statement the SQL node refuses (no data node, no privilege) raises, and
    the caller takes the signals as UNKNOWN, so that the collectors run as they would
    without them."""
    return parse_signals(connection.rows(SIGNAL_SQL))


@dataclass
class _Read:
    signals: Signals
    at: float  # monotonic
    wall: float  # time.time(), exported
    settled: bool


@dataclass
class Refresher:
    """The last read of each slowly changing collector, per target."""

    max_age: float  # --exporter.refresh-max-age
    clock: Callable[[], float] = time.monotonic
    wall_clock: Callable[[], float] = time.time
    _reads: dict[tuple[str, str], _Read] = field(default_factory=dict)

    def due(self, target: str, collector: Collector, signals: Signals) -> bool:
        reason = self._reason(target, collector, signals)
        if reason and collector.slow is not None:
            log.debug(
                "reading a slowly changing collector",
                extra={"fields": {"target": target, "collector": collector.name, "why": reason}},
            )
        return bool(reason)

    def _reason(self, target: str, collector: Collector, signals: Signals) -> str:
        """Why the collector's rows are to be read now ("" when its last ones are served)."""
        slow = collector.slow
        last = self._reads.get((target, collector.name))
        if slow is None:
            return "every scrape"
        if last is None:
            return "no rows yet"
        if not last.settled:
            return "in transition"
        if self.clock() - last.at >= self.max_age:
            return "maximum age"
        if signals.late:
            return ""
        for name in sorted(slow.signals):
            now = signals.get(name)
            if now is None or now != last.signals.get(name):
                return f"{name} changed" if now is not None else "signals unknown"
        if slow.max_gcis is not None and signals.gci is not None and last.signals.gci is not None:
            return "global checkpoints" if signals.gci - last.signals.gci >= slow.max_gcis else ""
        return "global checkpoints" if slow.max_gcis is not None and signals.gci else ""

    def read(self, target: str, collector: Collector, signals: Signals, rows: list[Row]) -> None:
        """Record a successful read of ``collector``'s rows, taken after ``signals`` (late
        ones: the signals of the previous read stand, so that a change is still seen)."""
        if collector.slow is None:
            return
        previous = self._reads.get((target, collector.name))
        if signals.late and previous is not None:
            signals = previous.signals
        settled = collector.slow.settled is None or collector.slow.settled(rows)
        self._reads[target, collector.name] = _Read(
            signals, self.clock(), self.wall_clock(), settled
        )

    def has_read(self, target: str, collector: Collector) -> bool:
        return (target, collector.name) in self._reads

    def last_read(self, target: str, collector: Collector) -> float | None:
        """Wall-clock time of the last read of the rows served, None for other collectors."""
        last = self._reads.get((target, collector.name))
        return None if last is None else last.wall
