"""Where the view's data comes from: one model per scrape result, shared by every viewer.

However many pages and API clients are open, the view refreshes a target at most once per
refresh interval, and never makes a viewer wait for it: a model older than the interval is
answered at once, with its age, while one refresh per target runs in the background (a scrape
result younger than the interval, from Prometheus or an earlier refresh, is reused; otherwise
the view scrapes on its own connections). Only a target never scraped yet waits for its first
scrape, bounded by the scrape timeout. The fragment placement is read again only when the
scrape read the distribution again (a change signal: `scrape.refresh`), or at the maximum age
when the distribution's collectors are off. Models only move forward: each is built from a
result at least as new as the one before.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable

from ndbinfo_exporter import logs
from ndbinfo_exporter.health import placement as placement_model
from ndbinfo_exporter.health.cluster import node_groups_seen
from ndbinfo_exporter.health.models import TableFragments
from ndbinfo_exporter.health.placement import Placement
from ndbinfo_exporter.health.placement_read import PlacementUnavailable, read_placement
from ndbinfo_exporter.health.samples import Samples
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState
from ndbinfo_exporter.scrape.scraper import Scraper, ScrapeResult
from ndbinfo_exporter.targets import TargetConfig
from ndbinfo_exporter.view.body import Body
from ndbinfo_exporter.view.reader import ViewReader
from ndbinfo_exporter.view.view_model import Unavailable, ViewModel, build, previous_of

log = logging.getLogger(__name__)

VIEW_INTERVAL_SECONDS = 10.0
# A viewer whose request started a refresh waits for it this long, then gets the model there is.
REFRESH_GRACE = 0.5
# The collectors whose reads say the distribution was read again.
DISTRIBUTION = ("fragments", "replicas")
LAST_REFRESH = "ndb_exporter_collector_last_refresh_timestamp_seconds"
DETAILS_KEPT = 32


def distribution_version(samples: Samples) -> tuple[float, ...] | None:
    """When the scrape last read the distribution; None when its collectors are off."""
    reads = samples.by(LAST_REFRESH, "collector")
    if not all(name in reads for name in DISTRIBUTION):
        return None
    return tuple(reads[name] for name in DISTRIBUTION)


class ViewSource:
    """The view's data for one target, read through ``reader`` (given a bare Scraper, a
    reader of one connection of its own, closed with the source)."""

    def __init__(
        self,
        reader: ViewReader | Scraper,
        target: TargetConfig,
        timeout: float,
        max_age: float,
        interval: float = VIEW_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.time,
    ):
        if isinstance(reader, Scraper):
            reader = ViewReader(reader, max_connections=1, query_timeout=timeout)
            weakref.finalize(self, reader.close)
        self._reader = reader
        self._target = target
        self._timeout = timeout
        self._max_age = max_age
        self.interval = interval
        self.clock = clock
        self._groups: dict[int, int] = {}  # node group of every data node seen running
        self._placement: Placement | None = None
        self._placement_version: tuple | None = None
        self._placement_error: tuple[float, str] | None = None
        self._model: ViewModel | None = None
        self._management: ManagementState | None = None
        self._refresh: asyncio.Task[None] | None = None
        self._details: OrderedDict[tuple[float, int], Body] = OrderedDict()
        self._detail_reads: dict[tuple[float, int], asyncio.Future[Body]] = {}

    @property
    def target_name(self) -> str:
        return self._target.name

    @property
    def latest(self) -> ViewModel | None:
        """The newest model there is, without a refresh; None before the first scrape."""
        return self._model

    @property
    def refreshing(self) -> bool:
        """A refresh of this target runs now."""
        return self._refresh is not None

    def age(self, model: ViewModel) -> float:
        """Seconds since the scrape ``model`` shows finished."""
        return max(0.0, self.clock() - model.result.finished_at)

    def _fresh(self, at: float) -> bool:
        return self.clock() - at < self.interval

    async def model(self, placement: bool = False) -> ViewModel:
        """The newest model, after one bounded wait.

        A model younger than the refresh interval is answered at once. An older one starts a
        refresh in the background (one per target) and is answered with its age after
        REFRESH_GRACE at most (at once while a refresh runs already). A reader the model
        there is does not serve waits for the refresh, up to twice the scrape timeout (its
        scrape, then its placement): a target without a model yet, and a reader of the
        placement while the first one is being read (``placement``)."""
        current = self._model
        if (
            current is not None
            and self._fresh(current.result.finished_at)
            and (not placement or self._placement_tried(current))
        ):
            return current
        started = self._refresh is None
        refresh = self._start_refresh()
        if not self._serves(current, placement):
            await asyncio.wait({refresh}, timeout=2 * self._timeout)
        elif started:
            await asyncio.wait({refresh}, timeout=REFRESH_GRACE)
        if self._model is not None:
            return self._model
        if refresh.done() and not refresh.cancelled() and refresh.exception() is not None:
            raise refresh.exception()  # type: ignore[misc]
        raise Unavailable(f"the first scrape of {self.target_name} has not finished yet")

    def _serves(self, model: ViewModel | None, placement: bool) -> bool:
        """Whether ``model`` can be answered to a reader while a refresh runs."""
        return model is not None and (not placement or self._placement_tried(model))

    def _placement_tried(self, model: ViewModel) -> bool:
        """The placement was read for ``model``, or failed, or is not read (the SQL node is
        down)."""
        return (
            model.placement is not None or model.placement_error is not None or not model.result.up
        )

    def _start_refresh(self) -> asyncio.Task[None]:
        if self._refresh is None:
            self._refresh = asyncio.ensure_future(self._refreshed())
            self._refresh.add_done_callback(self._refresh_done)
        return self._refresh

    def _refresh_done(self, task: asyncio.Task[None]) -> None:
        self._refresh = None
        failure = None if task.cancelled() else task.exception()
        if failure is not None and self._model is not None:  # else the waiting viewer gets it
            log.error("cluster view refresh of %s failed", self.target_name, exc_info=failure)

    async def _refreshed(self) -> None:
        """One refresh: the newest scrape result, the placement when the distribution was read
        again, and the model built once from both."""
        result = self._reader.last(self.target_name)
        if result is None or not self._fresh(result.finished_at):
            scraped = await self._reader.scrape(self._target, self._timeout)
            result = scraped.kept()
        current = self._model
        if current is not None and result.finished_at < current.result.finished_at:
            result = current.result  # a model never goes back in time
        if current is None:  # the first viewers wait for the scrape, not for the placement too
            current = self._model = await self._build(result, None)
        if result.up:
            await self._follow_placement(result)
        self._management = await self._reader.management(self._target, self._timeout, self.interval)
        if (
            current is not None
            and current.result is result
            and current.placement is self._placement
            and current.placement_error == self._error_text()
            and current.management == self._management
        ):
            return
        self._model = await self._build(result, current)

    async def _build(self, result: ScrapeResult, current: ViewModel | None) -> ViewModel:
        return await asyncio.to_thread(
            build,
            result,
            previous_of(current, result),
            self._remember_groups(result),
            self._placement,
            self._error_text(),
            self._management,
        )

    def _remember_groups(self, result: ScrapeResult) -> dict[int, int]:
        if result.up:
            families = _families(result, "ndb_data_node_nodegroup")
            self._groups.update(node_groups_seen(Samples(families)))
        return dict(self._groups)

    def _error_text(self) -> str | None:
        return None if self._placement_error is None else self._placement_error[1]

    async def _follow_placement(self, result: ScrapeResult) -> None:
        """Read the placement again when the scrape read the distribution again (or, with
        the distribution's collectors off, at the maximum age); after a failure, once per
        interval."""
        version = distribution_version(Samples(_families(result, LAST_REFRESH)))
        current = self._placement is not None and (
            self._placement_version == version
            if version is not None
            else self.clock() - self._placement.refreshed_at < self._max_age
        )
        failed_lately = self._placement_error is not None and self._fresh(self._placement_error[0])
        if current or failed_lately:
            return
        try:
            self._placement = await read_placement(
                functools.partial(self._reader.fold, self._target),
                result,
                self._timeout,
                self.clock(),
            )
            self._placement_version = version
            self._placement_error = None
            self._details.clear()
        except PlacementUnavailable as exc:
            self._placement_error = (self.clock(), str(exc))

    async def fragments(self, table_id: int) -> Body:
        """The fragments of one table, read when a viewer opens it and kept until the
        placement is read again."""
        model = await self.model(placement=True)
        placement = model.require_placement()
        table = next((t for t in placement.tables if t.table_id == table_id), None)
        if table is None:
            raise LookupError(f"no user table with id {table_id}")
        key = (placement.refreshed_at, table_id)
        body = self._details.get(key)
        if body is not None:
            return body
        read = self._detail_reads.get(key)
        if read is None:  # viewers opening the table at once share one read
            read = self._detail_reads[key] = asyncio.ensure_future(
                self._read_fragments(placement, table, model.result.target)
            )
            read.add_done_callback(lambda _: self._detail_reads.pop(key, None))
        body = await asyncio.shield(read)
        self._details[key] = body
        if len(self._details) > DETAILS_KEPT:
            self._details.popitem(last=False)
        return body

    async def _read_fragments(
        self, placement: Placement, table: placement_model.TablePlacement, target: str
    ) -> Body:
        try:
            rows = await self._reader.query(
                self._target,
                placement_model.detail_sql(placement.source_node, table.table_id),
                self._timeout,
            )
        except Exception as exc:
            message = "timed out" if isinstance(exc, TimeoutError) else logs.redact(str(exc))
            raise Unavailable(f"fragment query failed: {message}") from exc
        detail: TableFragments = placement_model.table_fragments(placement, table, rows, target)
        return Body.of(detail)


def _families(result: ScrapeResult, name: str) -> list:
    return [family for family in result.families if family.name == name]
