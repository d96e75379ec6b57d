"""One scrape of one SQL node: every enabled collector, concurrently, within a deadline."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import platform
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from mysql.connector import errorcode, errors
from ndbinfo_exporter import __version__, logs, settings
from ndbinfo_exporter.collectors.base import Collector, Context, Row, TargetInfo, collect_rows
from ndbinfo_exporter.scrape.exposition import Exposition, render
from ndbinfo_exporter.scrape.ndb_visibility import OK, visibility_family
from ndbinfo_exporter.scrape.pool import ConnectionPool, PooledConnection, Pools
from ndbinfo_exporter.scrape.privileges import missing_privilege
from ndbinfo_exporter.scrape.refresh import UNKNOWN, Refresher, RefreshPlan, Signals, signals_after
from ndbinfo_exporter.scrape.sql_node import detect
from ndbinfo_exporter.scrape.target_state import Rendered, TargetState
from ndbinfo_exporter.targets import TargetConfig
from ndbinfo_exporter.values import version_text
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

log = logging.getLogger(__name__)
T = TypeVar("T")
NO_EXPOSITION = Exposition()
Render = Callable[[Sequence[Metric]], Exposition]
# The client library's errors for a connection that broke or could not be made: the SQL node
# may have gone away while the collectors read.
CONNECTION_LOST = frozenset(
    {
        errorcode.CR_CONNECTION_ERROR,
        errorcode.CR_CONN_HOST_ERROR,
        errorcode.CR_SERVER_GONE_ERROR,
        errorcode.CR_SERVER_LOST,
        errorcode.CR_SERVER_LOST_EXTENDED,
    }
)


@dataclass(frozen=True)
class ScrapeResult:
    target: str  # "host:port" (never credentials)
    up: bool
    families: list[Metric]  # everything exported by this scrape, incl. ndb_up and ndb_exporter_*
    target_info: TargetInfo | None
    error: str | None  # one line, never credentials
    finished_at: float  # time.time()
    # ``families`` rendered piece by piece while the scrape ran (empty from a scraper that
    # renders none).
    exposition: Exposition
    # Collector name -> why it failed in this scrape (one line, never credentials).
    collector_errors: dict[str, str] = field(default_factory=dict)

    def kept(self) -> ScrapeResult:
        """The result as it is kept after its answer (``Scraper.last``): without its rendered
        exposition, which only the scrape's own answer serves."""
        return replace(self, exposition=NO_EXPOSITION)


@dataclass(frozen=True)
class _Outcome:
    collector: Collector
    success: bool
    duration: float
    families: list[Metric]
    exposition: Exposition | None = None
    error: str | None = None
    connection_lost: bool = False


def _unrendered(families: Sequence[Metric]) -> Exposition:
    """The exposition of a scraper whose callers read the families only: none."""
    return NO_EXPOSITION


def rows_digest(rows: list[Row]) -> bytes:
    """A digest of the rows' values: the next rows are told equal by it, without keeping these
    (a configuration's rows weigh hundreds of kB per target)."""
    values = repr([tuple(row.values()) for row in rows]).encode()
    return hashlib.blake2b(values, digest_size=16).digest()


def _collect_and_render(
    collector: Collector,
    rows: list[Row],
    context: Context,
    previous: Rendered | None,
    render: Render,
) -> Rendered:
    """Rows equal to the previous scrape's (configuration, dictionary, layout) reuse its
    families and text."""
    digest = rows_digest(rows)
    if (
        previous is not None
        and previous.digest == digest
        and previous.target_info == context.target
    ):
        return previous
    families, skipped = collect_rows(collector, rows, context)
    return Rendered(digest, context.target, families, render(families), skipped)


def collector_rows(
    connection: PooledConnection, collector: Collector, context: Context
) -> list[Row]:
    """Blocking: the rows of the collector's statement for this target; none when the
    statement fails because what it reads does not exist yet (``absent_errors``)."""
    params = collector.params(context) if collector.params else None
    try:
        return connection.rows(collector.statement(context.target), params)
    except errors.DatabaseError as exc:
        if exc.errno in collector.absent_errors:
            return []
        raise


def _fetch_and_render(
    collector: Collector, context: Context, previous: Rendered | None, render: Render
):
    """A pool job that renders on the thread that fetched the rows, as soon as they arrive,
    so that rendering overlaps with the other collectors' queries. A failing ``collect`` is
    returned rather than raised, so that the pool does not take it for a broken connection."""

    def job(connection: PooledConnection) -> tuple[list[Row], Rendered | Exception]:
        rows = collector_rows(connection, collector, context)
        try:
            return rows, _collect_and_render(collector, rows, context, previous, render)
        except Exception as exc:
            return rows, exc

    return job


def _failed(result: object) -> bool:
    """A job's result that is not rows with their families."""
    return not (isinstance(result, tuple) and isinstance(result[1], Rendered))


def _alive(connection: PooledConnection) -> TargetInfo:
    """One statement, so that a pooled connection to a node that went away (or that no longer
    answers statements) is noticed and replaced before the collectors run. While NDB is not
    visible through the connection, the detection runs again instead: a grant or the ndbinfo
    plugin can come back without the connection breaking."""
    if connection.info.ndb_visibility == OK:
        connection.rows("SELECT 1")
    else:
        connection.info = detect(connection.raw)
    return connection.info


async def _answers(target: TargetConfig, pool: ConnectionPool, timeout: float) -> bool:
    """Whether the SQL node still answers a statement, on a connection that works."""
    try:
        await pool.run(target, _alive, timeout)
    except Exception:
        return False
    return True


def _up(value: int) -> GaugeMetricFamily:
    return _gauge("ndb_up", "1 if the SQL node answered this scrape.", value)


def build_info() -> GaugeMetricFamily:
    family = GaugeMetricFamily(
        "ndb_exporter_build_info",
        "The exporter's version and the Python version it runs on.",
        labels=["version", "python_version"],
    )
    family.add_metric([__version__, platform.python_version()], 1)
    return family


def _one_line_error(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return logs.redact(text)


class Scraper:
    """Scrapes targets with one connection pool per target; concurrent scrapes of the same
    target share one in-flight collection. What the scrapes keep of a target is its
    ``TargetState``, which goes when the target's pool is closed to make room for another."""

    def __init__(
        self,
        collectors: Sequence[Collector],
        options: Mapping[str, Mapping[str, Any]],
        max_connections: int,
        query_timeout: float,
        refresh_max_age: float = settings.default("refresh_max_age"),
        renders: bool = True,
        reuse_age: float = settings.default("scrape_reuse_age"),
    ):
        """``renders``: whether the results carry their exposition; False for callers that
        read the families only (``check`` and ``report``), which then render none.
        ``reuse_age``: a scrape on the scraper's connections within this many seconds of a
        finished one of the same target and selection is answered with it (0: never)."""
        self.collectors = list(collectors)
        self._render: Render = render if renders else _unrendered
        self._refresh_max_age = refresh_max_age
        self._reuse_age = reuse_age
        self._options = options
        self._query_timeout = query_timeout
        self._pools = Pools(max_connections, query_timeout)
        self._states: dict[str, TargetState] = {}  # by target name, beside its pool
        # Scrapes in flight, by credential set (TargetConfig.key), collect[] selection and
        # the caller's own pools: requests, not kept state; each goes when its scrape ends.
        self._in_flight: dict[tuple, asyncio.Task[ScrapeResult]] = {}

    def pool(self, target: TargetConfig) -> ConnectionPool:
        """The target's pool (PoolsBusy when too many targets are being scraped at once).
        The state of a target whose pool is closed to make room goes with the pool."""
        pool, evicted = self._pools.get(target.name)
        if evicted is not None:
            self._states.pop(evicted, None)
        return pool

    def _state(self, name: str) -> TargetState:
        state = self._states.get(name)
        if state is None:
            state = self._states[name] = TargetState.new(name, self._refresh_max_age)
        return state

    def close(self) -> None:
        self._pools.close()

    def selection(self, names: Sequence[str]) -> frozenset[str] | None:
        """The collectors named by collect[] URL parameters (None: all enabled ones); a
        ValueError with a one-line message for a name that is not an enabled collector."""
        if not names:
            return None
        enabled = {c.name for c in self.collectors}
        for name in names:
            if name not in enabled:
                raise ValueError(f"collect[]: {name!r} is not an enabled collector")
        return frozenset(names)

    def last(self, target_name: str) -> ScrapeResult | None:
        """The latest full scrape of the target (every enabled collector), by any caller."""
        state = self._states.get(target_name)
        return None if state is None else state.last

    async def scrape(
        self,
        target: TargetConfig,
        timeout: float,
        only: frozenset[str] | None = None,
        pools: Pools | None = None,
    ) -> ScrapeResult:
        """One scrape of every enabled collector, or of those named in ``only`` (collect[]);
        the latest full scrape is kept (``last``). A caller that brings connections of its own
        (``pools``) joins a scrape in flight on the scraper's, or else scrapes on its own
        connections, where only callers with the same ``pools`` join it: such a caller never
        takes a connection the scrapes on the scraper's need, nor makes them wait."""
        if pools is None and (recent := self._recent(target, only)) is not None:
            return recent
        key = (target.key, only, id(pools) if pools is not None else None)
        task = self._in_flight.get(key)
        if task is None and pools is not None:
            task = self._in_flight.get((target.key, only, None))
        if task is None:
            task = asyncio.ensure_future(self._collect(target, timeout, only, pools))
            self._in_flight[key] = task
            task.add_done_callback(lambda done: self._forget(key, done))
            if pools is None and self._reuse_age > 0:
                task.add_done_callback(lambda done: self._keep_recent(target, only, done))
            return await asyncio.shield(task)
        return await self._join(target, task, timeout)

    def _recent(self, target: TargetConfig, only: frozenset[str] | None) -> ScrapeResult | None:
        """The target's scrape of this selection finished less than the reuse age ago."""
        if self._reuse_age <= 0 or (state := self._states.get(target.name)) is None:
            return None
        at, result = state.recent.get((target.key, only), (0.0, None))
        if result is None or asyncio.get_running_loop().time() - at >= self._reuse_age:
            return None
        return result

    def _keep_recent(
        self, target: TargetConfig, only: frozenset[str] | None, task: asyncio.Task[ScrapeResult]
    ) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        now = asyncio.get_running_loop().time()
        self._state(target.name).recent[(target.key, only)] = (now, task.result())

    async def _join(
        self, target: TargetConfig, task: asyncio.Task[ScrapeResult], timeout: float
    ) -> ScrapeResult:
        """Share a scrape already in flight, but only until this request's own deadline: a
        scrape with a shorter timeout than the one it joins answers ``ndb_up 0`` in time
        rather than late."""
        try:
            return await asyncio.wait_for(asyncio.shield(task), max(0.0, timeout))
        except TimeoutError:
            error = f"timed out after {timeout:.1f}s waiting for the scrape in flight"
            log.warning("scrape failed", extra={"fields": {"target": target.name, "err": error}})
            return _down(target, error, self._render)

    def _forget(self, key: tuple, task: asyncio.Task[ScrapeResult]) -> None:
        if self._in_flight.get(key) is task:
            del self._in_flight[key]

    async def _collect(
        self,
        target: TargetConfig,
        timeout: float,
        only: frozenset[str] | None,
        pools: Pools | None,
    ) -> ScrapeResult:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            pool = self.pool(target) if pools is None else pools.get(target.name)[0]
            # Connecting and the liveness check, each bounded by the query timeout.
            info = await pool.run(target, _alive, min(timeout, self._query_timeout))
        except Exception as exc:
            error = (
                "timed out connecting" if isinstance(exc, TimeoutError) else _one_line_error(exc)
            )
            return self._gone(target, error)
        state = self._state(target.name)
        state.visibility.observe(info.ndb_visibility)

        selected = [c for c in self.collectors if only is None or c.name in only]
        runnable = [c.for_target(info) for c in selected if c.available(info)]
        skipped = [c for c in selected if not c.available(info)]
        every = [c for c in runnable if c.slow is None]
        slow = [c for c in runnable if c.slow is not None]

        def remaining() -> float:
            return min(self._query_timeout, deadline - loop.time())

        # The change signals first, on the first free connection, while the collectors read
        # at every scrape take the others; then the slowly changing ones that are due.
        timeout = remaining()
        signals_read = asyncio.ensure_future(
            self._signals(target, pool, state.refresh, slow, timeout)
        )
        every_read = asyncio.ensure_future(
            pool.run_each(target, [self._job(state, c, info) for c in every], remaining())
        )
        plan = state.refresh.plan(slow, await signals_read)
        slow_outcomes = await self._read_slow(target, state, pool, info, plan, remaining())
        outcomes = [
            _outcome(state, plan, collector, result, seconds, timeout)
            for collector, (result, seconds) in zip(every, await every_read, strict=True)
        ]
        outcomes.extend(
            _served(state, c) if plan.serves(c) else slow_outcomes[c.name] for c in slow
        )
        lost = [o.error for o in outcomes if o.connection_lost]
        if lost and not await _answers(target, pool, remaining()):
            return self._gone(target, f"went away during the scrape: {lost[0]}")
        result = self._result(state, plan, info, outcomes, skipped, runnable)
        if only is None:
            state.last = result.kept()
        return result

    def _result(
        self,
        state: TargetState,
        plan: RefreshPlan,
        info: TargetInfo,
        outcomes: Sequence[_Outcome],
        skipped: Sequence[Collector],
        runnable: Sequence[Collector],
    ) -> ScrapeResult:
        """The scrape's families: the scrape's own, then each collector's."""
        families: list[Metric] = [
            _up(1),
            build_info(),
            _version_info(info),
            visibility_family(info.ndb_visibility),
        ]
        families.extend(_collector_families(outcomes, skipped))
        families.append(_rows_skipped_family(state, outcomes))
        families.extend(_refreshed(plan, runnable))
        parts = [self._render(families)]
        for outcome in outcomes:
            families.extend(outcome.families)
            if outcome.exposition is not None:
                parts.append(outcome.exposition)
        return ScrapeResult(
            target=state.name,
            up=True,
            families=families,
            target_info=info,
            error=None,
            finished_at=time.time(),
            exposition=Exposition.join(parts),
            collector_errors={o.collector.name: o.error for o in outcomes if o.error},
        )

    def _gone(self, target: TargetConfig, error: str) -> ScrapeResult:
        """The answer for an SQL node that did not answer, or went away during the scrape:
        ``ndb_up 0`` rather than collectors failing on a node that is up."""
        log.warning("scrape failed", extra={"fields": {"target": target.name, "err": error}})
        result = _down(target, error, self._render)
        self._state(target.name).last = result.kept()
        return result

    def _job(self, state: TargetState, collector: Collector, info: TargetInfo):
        before = state.collector(collector.name)  # what the scrapes before kept
        context = Context(
            target=info, options=self._options.get(collector.name, {}), kept=before.kept
        )
        return _fetch_and_render(collector, context, before.rendered, self._render)

    async def _signals(
        self,
        target: TargetConfig,
        pool: ConnectionPool,
        refresh: Refresher,
        slow: Sequence[Collector],
        timeout: float,
    ) -> Signals:
        """The change signals (with the objects and links signals when due), or none to read
        when no slowly changing collector runs. A failure never hides state: the signals are
        then unknown, or late when the SQL node did not answer in time."""
        if not slow:
            return UNKNOWN
        job = refresh.signals_job(slow)
        try:
            return await pool.run(target, job, timeout)
        except Exception as exc:
            log.debug("change signals not read", extra={"fields": {"err": _one_line_error(exc)}})
            return signals_after(exc)

    async def _read_slow(
        self,
        target: TargetConfig,
        state: TargetState,
        pool: ConnectionPool,
        info: TargetInfo,
        plan: RefreshPlan,
        timeout: float,
    ) -> dict[str, _Outcome]:
        """Read the due slowly changing collectors; one already being read by a concurrent
        scrape of the target (another collect[] selection) is not read twice: its read is
        shared (``TargetState.reading``)."""
        shared = {c.name: state.reading[c.name] for c in plan.due if c.name in state.reading}
        mine = [c for c in plan.due if c.name not in shared]
        futures = {c.name: asyncio.get_running_loop().create_future() for c in mine}
        state.reading.update(futures)
        outcomes: dict[str, _Outcome] = {}
        try:
            results = await pool.run_each(
                target, [self._job(state, c, info) for c in mine], timeout
            )
            for collector, (result, seconds) in zip(mine, results, strict=True):
                if _failed(result) and plan.serves_after_failure(collector):
                    outcome = _served(state, collector)
                else:
                    outcome = _outcome(state, plan, collector, result, seconds, timeout)
                outcomes[collector.name] = outcome
                futures[collector.name].set_result(outcome)
        finally:
            for name, future in futures.items():
                if not future.done():
                    future.cancel()
                if state.reading.get(name) is future:
                    del state.reading[name]
        for name, future in shared.items():
            outcomes[name] = await _shared(state, plan, name, future, timeout)
        return outcomes


async def _shared(
    state: TargetState, plan: RefreshPlan, name: str, read: asyncio.Future, timeout: float
) -> _Outcome:
    """The outcome of a concurrent scrape's read of a due collector, awaited until this
    scrape's own deadline."""
    try:
        return await asyncio.wait_for(asyncio.shield(read), timeout)
    except (TimeoutError, asyncio.CancelledError):
        collector = next(c for c in plan.due if c.name == name)
        return _outcome(state, plan, collector, TimeoutError(), timeout, timeout)


def _served(state: TargetState, collector: Collector) -> _Outcome:
    """The last families of a collector whose state has not changed: no statement ran."""
    rendered = state.collectors[collector.name].rendered
    return _Outcome(collector, True, 0.0, rendered.families, rendered.exposition)


def _outcome(
    state: TargetState,
    plan: RefreshPlan,
    collector: Collector,
    result: tuple[list[Row], Rendered | Exception] | Exception,
    seconds: float,
    timeout: float,
) -> _Outcome:
    """The outcome of a collector's job; a successful read is kept in the target's state and
    recorded through the scrape's refresh plan."""
    rows, rendered = result if isinstance(result, tuple) else (None, result)
    if not isinstance(rendered, Rendered):
        return _failure(state, collector, rendered, seconds, timeout)
    state.collector(collector.name).rendered = rendered
    if rendered.skipped:
        _count_skipped(state, collector, rendered.skipped)
    plan.record(collector, rows)
    state.privileges.observe(collector.name, None)
    return _Outcome(collector, True, seconds, rendered.families, rendered.exposition)


def _failure(
    state: TargetState, collector: Collector, exc: Exception, seconds: float, timeout: float
) -> _Outcome:
    """A collector that failed: a missing privilege is said once, when it starts; any other
    failure at every scrape."""
    error = (
        f"timed out after {timeout:.1f}s" if isinstance(exc, TimeoutError) else _one_line_error(exc)
    )
    missing = missing_privilege(exc, collector)
    if missing is not None:
        state.privileges.observe(collector.name, missing)
    else:
        log.warning(
            "collector failed",
            extra={"fields": {"target": state.name, "collector": collector.name, "err": error}},
            exc_info=exc if log.isEnabledFor(logging.DEBUG) else None,
        )
    lost = getattr(exc, "errno", None) in CONNECTION_LOST
    return _Outcome(collector, False, seconds, [], error=error, connection_lost=lost)


def _count_skipped(state: TargetState, collector: Collector, rows: int) -> None:
    state.collector(collector.name).rows_skipped += rows
    log.warning(
        "rows skipped: a value is not a number",
        extra={"fields": {"target": state.name, "collector": collector.name, "rows": rows}},
    )


def _rows_skipped_family(state: TargetState, outcomes: Sequence[_Outcome]) -> CounterMetricFamily:
    family = CounterMetricFamily(
        "ndb_exporter_rows_skipped",
        "Rows a collector left out because a value in them was not a number.",
        labels=["collector"],
    )
    for outcome in outcomes:
        name = outcome.collector.name
        family.add_metric([name], state.collector(name).rows_skipped)
    return family


def _refreshed(plan: RefreshPlan, collectors: Sequence[Collector]) -> list[Metric]:
    family = GaugeMetricFamily(
        "ndb_exporter_collector_last_refresh_timestamp_seconds",
        "When the rows served for a slowly changing collector were read (Unix time); they"
        " are read again on a change signal or after --exporter.refresh-max-age.",
        labels=["collector"],
    )
    for collector in collectors:
        at = plan.last_read(collector)
        if at is not None:
            family.add_metric([collector.name], at)
    return [family] if family.samples else []


def _down(target: TargetConfig, error: str, render: Render) -> ScrapeResult:
    down = [_up(0), build_info()]
    return ScrapeResult(
        target=target.name,
        up=False,
        families=down,
        target_info=None,
        error=error,
        finished_at=time.time(),
        exposition=render(down),
    )


def _gauge(name: str, help_text: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, help_text, value=value)


def _version_info(info: TargetInfo) -> GaugeMetricFamily:
    family = GaugeMetricFamily(
        "ndb_version_info",
        "The SQL node's @@version; its flavour (mysql: MySQL NDB Cluster, rondb: RonDB) and"
        " that flavour's release; the MySQL NDB version (on RonDB the MySQL NDB release it is"
        " built on), which collectors and rules go by.",
        labels=["version", "ndb_version", "flavour", "flavour_version"],
    )
    ndb = version_text(info.ndb_version)
    own = ndb if info.rondb_version is None else version_text(info.rondb_version)
    family.add_metric([info.version, ndb, info.flavour, own], 1)
    return family


def _collector_families(outcomes: Sequence[_Outcome], skipped: Sequence[Collector]) -> list[Metric]:
    success = GaugeMetricFamily(
        "ndb_exporter_collector_success",
        "1 if the collector succeeded in this scrape.",
        labels=["collector"],
    )
    duration = GaugeMetricFamily(
        "ndb_exporter_collector_duration_seconds",
        "Seconds the collector's statement and rendering took in this scrape; for one that ran "
        "out of time, the seconds until it was given up.",
        labels=["collector"],
    )
    skip = GaugeMetricFamily(
        "ndb_exporter_collector_skipped",
        "1 if the SQL node lacks the collector's ndbinfo objects or NDB version.",
        labels=["collector"],
    )
    for outcome in outcomes:
        success.add_metric([outcome.collector.name], 1 if outcome.success else 0)
        duration.add_metric([outcome.collector.name], outcome.duration)
        skip.add_metric([outcome.collector.name], 0)
    for collector in skipped:
        skip.add_metric([collector.name], 1)
    return [success, duration, skip]
