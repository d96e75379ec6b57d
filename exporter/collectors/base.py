"""What a collector declares, and what it is handed when it runs.

A collector module defines one ``COLLECTOR = Collector(...)`` (or ``COLLECTORS``, a tuple
of several that share their code): its name, one-line help, whether it is on by default,
the ndbinfo objects and columns its SQL reads with the minimum NDB version, the SQL itself
(one statement: at most one query per collector per scrape; a function of the target when
mysqld's words for it changed between versions) and a ``collect`` function that turns the
fetched rows into metric families.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ndbinfo_exporter.values import BadValue, Row, Version, leading_version, number
from ndbinfo_exporter.values import text as text  # the collectors read text through here
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

# ER_NO_SUCH_TABLE: the absent_errors of a collector reading a table a server may lack.
NO_SUCH_TABLE = frozenset({1146})


@dataclass(frozen=True)
class Option:
    """A collector-specific flag, exposed as ``--collector.<collector>.<name>``."""

    name: str
    help: str
    default: Any
    type: Callable[[str], Any] = str


def boolean(value: str) -> bool:
    """The type of an on/off Option: true/false, yes/no or 1/0."""
    lowered = value.strip().lower()
    if lowered not in ("true", "false", "yes", "no", "1", "0"):
        raise ValueError(f"expected true or false, got {value!r}")
    return lowered in ("true", "yes", "1")


@dataclass(frozen=True)
class TargetInfo:
    """What the exporter learned about a SQL node once per connection."""

    version: str  # @@version, e.g. "8.4.3-cluster" or "5.7.16-ndb-7.5.4-cluster-gpl"
    # The MySQL NDB version, e.g. (8, 4, 3); on RonDB the MySQL NDB release it is built on.
    ndb_version: Version
    objects: frozenset[str]  # ndbinfo tables and views present, e.g. {"nodes", "ndb$nodes", ...}
    # "ok", or why NDB is not visible: "engine_absent", "ndbinfo_absent", "privilege_missing"
    # (ndbinfo_exporter.scrape.ndb_visibility).
    ndb_visibility: str = "ok"
    server_id: int | None = None  # @@server_id
    rondb_version: Version | None = (
        None  # RonDB's own release, e.g. (22, 10, 12); None for MySQL NDB
    )

    @property
    def flavour(self) -> str:
        """ "rondb" or "mysql" (MySQL NDB Cluster)."""
        return "mysql" if self.rondb_version is None else "rondb"

    @property
    def server_version(self) -> Version:
        """mysqld's own version, which names its statements: (5, 7, 16) for NDB 7.5.4,
        (8, 4, 3) for NDB 8.4.3, its MySQL NDB base on RonDB (whose @@version starts with
        RonDB's release); (0, 0, 0) when @@version does not start with one."""
        if self.rondb_version is not None:
            return self.ndb_version
        return leading_version(self.version) or (0, 0, 0)


@dataclass(frozen=True)
class Context:
    target: TargetInfo
    options: Mapping[str, Any] = field(default_factory=dict)
    # What the collector keeps between the scrapes of one target (the scraper hands the same
    # dict at every scrape): the last counts of counters that restart, to export them
    # monotonic.
    kept: dict[Any, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MetricSpec:
    """One metric family a collector exports: declared once, used to build the family
    at every scrape and to generate the metrics reference."""

    name: str
    type: str  # "gauge", "counter" or "histogram"
    help: str
    labels: tuple[str, ...] = ()

    def family(self) -> GaugeMetricFamily | CounterMetricFamily | HistogramMetricFamily:
        if self.type == "histogram":
            return HistogramMetricFamily(self.name, self.help, labels=self.labels)
        if self.type == "counter":
            return CounterMetricFamily(self.name, self.help, labels=self.labels)
        return GaugeMetricFamily(self.name, self.help, labels=self.labels)


def gauge(name: str, help: str, labels: tuple[str, ...] = ()) -> MetricSpec:
    return MetricSpec(name, "gauge", help, labels)


def counter(name: str, help: str, labels: tuple[str, ...] = ()) -> MetricSpec:
    return MetricSpec(name, "counter", help, labels)


def histogram(name: str, help: str, labels: tuple[str, ...] = ()) -> MetricSpec:
    return MetricSpec(name, "histogram", help, labels)


@dataclass(frozen=True)
class SlowChanging:
    """Declares that a collector's rows describe slowly changing state (distribution,
    dictionary, configuration): the scrape serves its last families and re-reads them only
    when one of ``signals`` changed since that read ("nodes": a data node's status, start
    phase or configuration generation, or the ready data nodes; "ddl": the SQL node's count
    and newest creation time of NDB tables, or its metadata change counters; "config": the
    configuration generation; "objects": the distributed objects (tables, indexes, blob
    tables) and their partitions and fragments, read at the maximum age; "links": one data node's links to every other node, their state and
    connect count), when ``settled`` says the last rows describe a transition, or, for a
    collector ``aged``, when its rows reach the maximum age (``--exporter.refresh-max-age``).

    A collector whose every change shows in its signals is not ``aged``: its rows are read
    only when a signal or a transition calls for it, and the "objects" signal, re-read at the
    maximum age, is the safety net that bounds how late a missed change is seen."""

    signals: frozenset[str]
    # False while the rows describe a transition (dead replicas, primaries away, a copy):
    # then they are re-read every scrape until it is over.
    settled: Callable[[list[Row]], bool] | None = None
    aged: bool = True
    # Seconds: the maximum age of rows whose change is a matter of days (a certificate's
    # expiry), when longer than --exporter.refresh-max-age.
    max_age: float = 0.0
    # For rows that count activity: True when the last ones counted nothing yet. Rows that
    # are not idle change all the time and are read at every scrape.
    idle: Callable[[list[Row]], bool] | None = None
    # For rows that also give the "objects" signal (table_distribution's): the signal in
    # them. Where such a collector runs, the signal is taken from its reads and costs no read
    # of its own after the first.
    fingerprint: Callable[[list[Row]], tuple] | None = None


@dataclass(frozen=True)
class Collector:
    name: str
    help: str
    default_enabled: bool
    # ndbinfo object -> columns the SQL reads; empty for SHOW STATUS style collectors.
    reads: Mapping[str, tuple[str, ...]]
    min_version: Version
    # The statement, or a function choosing it by the target (``statement`` calls it).
    sql: str | Callable[[TargetInfo], str]
    collect: Callable[[list[Row], Context], Iterable[Metric]]
    # Values for %s placeholders in ``sql``, computed from the collector's options.
    params: Callable[[Context], tuple[Any, ...]] | None = None
    options: tuple[Option, ...] = ()
    # The metric families ``collect`` yields (for the generated reference and the tests).
    metrics: tuple[MetricSpec, ...] = ()
    # SQL-node tables or SHOW statements the SQL reads besides ndbinfo
    # ("information_schema.FILES" or "SHOW ENGINE NDBCLUSTER STATUS" -> columns); they exist
    # from ``min_version`` on, while the ndbcluster engine runs.
    server_reads: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Set for rows that change only with the cluster's state (see SlowChanging).
    slow: SlowChanging | None = None
    # MySQL error numbers that mean what the statement reads does not exist yet on this SQL
    # node: the collector then exports no series instead of failing.
    absent_errors: frozenset[int] = frozenset()
    # The same collector reading a newer ndbinfo object that holds what this one reads and
    # more (transporter_details for transporters): run instead where the target has it.
    newer: Collector | None = None
    # The flavour whose ndbinfo alone has what it reads ("rondb"), None for every flavour.
    flavour: str | None = None

    def for_target(self, target: TargetInfo) -> Collector:
        """This collector, or its ``newer`` form where the target has what that one reads."""
        if self.newer is not None and self.newer.available(target):
            return self.newer.for_target(target)
        return self

    def statement(self, target: TargetInfo) -> str:
        return self.sql(target) if callable(self.sql) else self.sql

    def available(self, target: TargetInfo) -> bool:
        """True when the target has every object this collector reads, at a high enough
        version and flavour, and the ndbcluster engine when the collector reads tables or SHOW
        statements of the SQL node (``server_reads``)."""
        return (
            target.ndb_version >= self.min_version
            and self.flavour in (None, target.flavour)
            and all(obj in target.objects for obj in self.reads)
            and not (self.server_reads and target.ndb_visibility == "engine_absent")
        )


def add_value(family: Metric, labels: list[str], value: float | None) -> None:
    """One sample, or none when the value is NULL."""
    if value is not None:
        family.add_metric(labels, value)


def collect_rows(
    collector: Collector, rows: list[Row], context: Context
) -> tuple[list[Metric], int]:
    """The collector's families and the number of rows left out: a row with a value that is
    not a number is skipped, not the whole collector. The rows are tried one by one only when
    the whole set fails."""
    try:
        return list(collector.collect(rows, context)), 0
    except BadValue:
        pass
    good = [row for row in rows if _row_is_good(collector, row, context)]
    return list(collector.collect(good, context)), len(rows) - len(good)


def _row_is_good(collector: Collector, row: Row, context: Context) -> bool:
    try:
        list(collector.collect([row], context))
    except BadValue:
        return False
    except Exception:  # another failure is the collector's, not the row's
        return True
    return True


def ident(value: Any) -> str:
    """Label text for an integer id column (node ids, thread numbers): "3", never "3.0"."""
    number_value = number(value)
    return "" if number_value is None else str(int(number_value))


def add_states(family: Metric, labels: list[str], current: str, known: tuple[str, ...]) -> None:
    """One series per known state, 1 for ``current`` and 0 for the others; a value outside
    ``known`` (a newer NDB, or ndbinfo's own "<unknown>") gets its own series set to 1."""
    for state in known:
        family.add_metric([*labels, state], 1.0 if state == current else 0.0)
    if current not in known:
        family.add_metric([*labels, current], 1.0)
