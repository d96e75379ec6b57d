"""Where the view's data comes from: one model per scrape result, shared by every viewer.

However many pages and API clients are open, the view starts at most one scrape per refresh
interval (a scrape result younger than the interval, from Prometheus or an earlier viewer,
is reused) and builds from it, once and off the event loop, every model the API serves:
the cluster, the findings and the configuration, serialized with their ETags. A viewer's
refresh is then a look-up. The fragment placement is read again only when the scrape read
the distribution again (a change signal: `scrape.refresh`), or at the maximum age when the
distribution's collectors are off; its pages are computed from what is cached.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from ndbinfo_exporter import logs
from ndbinfo_exporter.scrape.ndb_visibility import OK
from ndbinfo_exporter.scrape.scraper import Scraper, ScrapeResult
from ndbinfo_exporter.targets import TargetConfig
from ndbinfo_exporter.view import findings
from ndbinfo_exporter.view import placement as placement_model
from ndbinfo_exporter.view.cluster import cluster_view, node_groups_seen
from ndbinfo_exporter.view.models import ClusterView, FindingsView, TableFragments
from ndbinfo_exporter.view.parameters import config_view
from ndbinfo_exporter.view.placement import Placement
from ndbinfo_exporter.view.samples import Samples

VIEW_INTERVAL_SECONDS = 10.0
# A new placement being read is waited for this long before the previous one is served.
PLACEMENT_GRACE = 1.0
# The collectors whose reads say the distribution was read again.
DISTRIBUTION = ("fragments", "replicas")
LAST_REFRESH = "ndb_exporter_collector_last_refresh_timestamp_seconds"
PAGES_KEPT = 64
DETAILS_KEPT = 32


class Unavailable(Exception):
    """The data cannot be produced now; the message says why in one line."""


@dataclass(frozen=True)
class Body:
    """A serialized JSON answer and its entity tag."""

    content: bytes
    etag: str

    @classmethod
    def of(cls, model) -> Body:
        content = model.model_dump_json().encode()
        return cls(content, '"' + hashlib.blake2b(content, digest_size=12).hexdigest() + '"')


@dataclass
class ViewModel:
    """Everything the API serves for one scrape result and one placement."""

    result: ScrapeResult
    previous: ScrapeResult | None  # the result before, for counter increases
    samples: Samples
    cluster: ClusterView
    placement: Placement | None
    placement_error: str | None
    bodies: dict[str, Body]
    pages: OrderedDict[tuple, tuple[Body, int]] = field(default_factory=OrderedDict)

    def placement_read(self) -> Placement:
        """The placement, or Unavailable saying why there is none."""
        if self.placement is None:
            raise Unavailable(self.placement_error or "no placement has been read yet")
        return self.placement

    def page(
        self, db: str | None, table: str | None, node: int | None, page: int, page_size: int
    ) -> tuple[Body, int]:
        """A placement page and the number of pages, computed once per model and query."""
        key = (db, table, node, page, page_size)
        found = self.pages.get(key)
        if found is None:
            topology = self.cluster.topology
            nodes = {
                n.node_id: (g.nodegroup, n.running) for g in topology.node_groups for n in g.nodes
            }
            nodes.update({n.node_id: (None, n.running) for n in topology.unassigned_data_nodes})
            view = placement_model.page_view(
                self.placement_read(),
                self.result.target,
                nodes,
                db=db,
                table=table,
                node=node,
                page=page,
                page_size=page_size,
            )
            found = self.pages[key] = (Body.of(view), view.pages)
            if len(self.pages) > PAGES_KEPT:
                self.pages.popitem(last=False)
        return found


def _build(
    result: ScrapeResult,
    previous: ScrapeResult | None,
    groups: dict[int, int],
    placement: Placement | None,
    placement_error: str | None,
) -> ViewModel:
    """Runs on a worker thread: everything O(series) happens here, once per model."""
    samples = Samples(result.families)
    before = Samples(previous.families) if previous is not None else None
    groups = {**groups, **_groups_from(placement, groups)}
    cluster = cluster_view(result, samples, before, previous, groups)
    bodies = {"cluster": Body.of(cluster)}
    if result.up:
        config = config_view(result, samples)
        checked = findings.evaluate(
            findings.Inputs(
                cluster=cluster,
                samples=samples,
                config=config,
                placement=placement,
                previous=before,
            )
        )
        bodies["config"] = Body.of(config)
        bodies["findings"] = Body.of(
            FindingsView(
                target=result.target,
                up=result.up,
                error=result.error,
                scraped_at=result.finished_at,
                findings=checked,
                problems=sum(1 for f in checked if f.status == "problem"),
                unknown=sum(1 for f in checked if f.status == "unknown"),
            )
        )
    return ViewModel(result, previous, samples, cluster, placement, placement_error, bodies)


def _groups_from(placement: Placement | None, known: dict[int, int]) -> dict[int, int]:
    """Node groups of data nodes not seen running, from the placement's replica sets."""
    found: dict[int, int] = {}
    if placement is None:
        return found
    for nodes in placement.node_groups:
        groups = {known[n] for n in nodes if n in known}
        if len(groups) == 1:
            group = groups.pop()
            found.update({node: group for node in nodes if node not in known})
    return found


def distribution_version(samples: Samples) -> tuple[float, ...] | None:
    """When the scrape last read the distribution; None when its collectors are off."""
    reads = samples.by(LAST_REFRESH, "collector")
    if not all(name in reads for name in DISTRIBUTION):
        return None
    return tuple(reads[name] for name in DISTRIBUTION)


class ViewSource:
    """The view's data for one target."""

    def __init__(
        self,
        scraper: Scraper,
        target: TargetConfig,
        timeout: float,
        max_age: float,
        interval: float = VIEW_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.time,
    ):
        self._scraper = scraper
        self._target = target
        self._timeout = timeout
        self._max_age = max_age
        self.interval = interval
        self.clock = clock
        self._scrape_lock = asyncio.Lock()
        self._build_lock = asyncio.Lock()
        self._groups: dict[int, int] = {}  # node group of every data node seen running
        self._placement: Placement | None = None
        self._placement_version: tuple | None = None
        self._placement_error: tuple[float, str] | None = None
        self._placement_read: asyncio.Task[None] | None = None
        self._model: ViewModel | None = None
        self._details: OrderedDict[tuple[float, int], Body] = OrderedDict()
        self._detail_reads: dict[tuple[float, int], asyncio.Future[Body]] = {}

    @property
    def target_name(self) -> str:
        return self._target.name

    def _fresh(self, at: float) -> bool:
        return self.clock() - at < self.interval

    async def result(self) -> ScrapeResult:
        """A scrape result younger than the refresh interval, collecting one if needed."""
        last = self._scraper.last(self.target_name)
        if last is None or not self._fresh(last.finished_at):
            async with self._scrape_lock:
                last = self._scraper.last(self.target_name)
                if last is None or not self._fresh(last.finished_at):
                    last = await self._scraper.scrape(self._target, self._timeout, for_view=True)
        return last

    async def model(self) -> ViewModel:
        """The model of the newest scrape result, built once for all viewers and kept for the
        refresh interval, however often Prometheus scrapes."""
        current = self._model
        if current is not None and self._fresh(current.result.finished_at):
            result = current.result
        else:
            result = await self.result()
        async with self._build_lock:
            if result.up:
                await self._follow_placement(result)
            model = self._model
            if (
                model is not None
                and model.result is result
                and model.placement is self._placement
                and model.placement_error == self._error_text()
            ):
                return model
            self._model = await asyncio.to_thread(
                _build,
                result,
                _previous(model, result),
                self._remember_groups(result),
                self._placement,
                self._error_text(),
            )
            return self._model

    def _remember_groups(self, result: ScrapeResult) -> dict[int, int]:
        if result.up:
            families = _families(result, "ndb_data_node_nodegroup")
            self._groups.update(node_groups_seen(Samples(families)))
        return dict(self._groups)

    def _error_text(self) -> str | None:
        return None if self._placement_error is None else self._placement_error[1]

    async def _follow_placement(self, result: ScrapeResult) -> None:
        """Start reading the placement when the scrape read the distribution again (or, with
        the distribution's collectors off, at the maximum age), and wait for the read a
        moment, so that a change shows in the same answer when it can."""
        version = distribution_version(Samples(_families(result, LAST_REFRESH)))
        current = self._placement is not None and (
            self._placement_version == version
            if version is not None
            else self.clock() - self._placement.refreshed_at < self._max_age
        )
        failed_lately = self._placement_error is not None and self._fresh(self._placement_error[0])
        if not current and not failed_lately and self._placement_read is None:
            self._placement_read = asyncio.ensure_future(self._read_placement(result, version))
        task = self._placement_read
        if task is not None:
            wait = PLACEMENT_GRACE if self._placement is not None else self._timeout
            await asyncio.wait({task}, timeout=wait)

    async def _read_placement(self, result: ScrapeResult, version: tuple | None) -> None:
        try:
            self._placement = await self._placement_from(result)
            self._placement_version = version
            self._placement_error = None
            self._details.clear()
        except Unavailable as exc:
            self._placement_error = (self.clock(), str(exc))
        finally:
            self._placement_read = None

    async def _placement_from(self, result: ScrapeResult) -> Placement:
        node = _running_node(result)
        try:
            rows = await self._scraper.query(
                self._target, placement_model.sql_for(node), self._timeout
            )
        except Exception as exc:  # a failed query is reported to the viewer, not raised
            message = "timed out" if isinstance(exc, TimeoutError) else logs.redact(str(exc))
            raise Unavailable(f"placement query failed: {message}") from exc
        return await asyncio.to_thread(placement_model.build, rows, node, self.clock())

    async def fragments(self, table_id: int) -> Body:
        """The fragments of one table, read when a viewer opens it and kept until the
        placement is read again."""
        model = await self.model()
        placement = model.placement_read()
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
            rows = await self._scraper.query(
                self._target,
                placement_model.detail_sql(placement.source_node, table.table_id),
                self._timeout,
            )
        except Exception as exc:
            message = "timed out" if isinstance(exc, TimeoutError) else logs.redact(str(exc))
            raise Unavailable(f"fragment query failed: {message}") from exc
        detail: TableFragments = placement_model.table_fragments(placement, table, rows, target)
        return Body.of(detail)


def _running_node(result: ScrapeResult) -> int:
    info = result.target_info
    if info is not None and info.ndb_visibility != OK:
        raise Unavailable(f"NDB is not visible ({info.ndb_visibility}): no placement map")
    missing = [o for o in placement_model.OBJECTS if info is not None and o not in info.objects]
    if missing:
        raise Unavailable(f"this NDB version has no ndbinfo.{missing[0]}: no placement map")
    running = sorted(
        int(labels["node_id"])
        for labels, value in Samples(_families(result, "ndb_data_node_status")).select(
            "ndb_data_node_status", state="STARTED"
        )
        if value
    )
    if not running:
        raise Unavailable("no data node is running: no placement to read")
    return running[0]


def _families(result: ScrapeResult, name: str) -> list:
    return [family for family in result.families if family.name == name]


def _previous(model: ViewModel | None, result: ScrapeResult) -> ScrapeResult | None:
    """The scrape result before ``result``: the last model's, when it was another result of
    a reachable SQL node; otherwise the one that model had."""
    if model is None:
        return None
    if model.result is not result and model.result.up:
        return model.result
    return model.previous
