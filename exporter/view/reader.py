"""The view's reads of a SQL node: its scrapes, its statements and their folding, on
connections of its own.

The view's connections (one pool per target, opened when a viewer first looks) are apart from
those of the scrapes Prometheus asks for, so that a viewer never takes a connection a scrape
needs. The scrape core offers the view three things (docs/architecture.md): the latest full
scrape of a target (``Scraper.last``), a scrape on the caller's own connections that joins one
in flight (``Scraper.scrape(..., pools=)``), and the connection pools themselves
(``scrape.pool.Pools``), on which the view runs its own statements. For a target whose
cluster's management servers the exporter reads, the view shows what the scrape layer's
management server reader keeps (``scrape.mgmd.reader.MgmdReader``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from ndbinfo_exporter.collectors.base import Row
from ndbinfo_exporter.health.placement_read import fold_on
from ndbinfo_exporter.scrape.mgmd.reader import ManagementState, MgmdReader
from ndbinfo_exporter.scrape.pool import ConnectionPool, Pools
from ndbinfo_exporter.scrape.scraper import Scraper, ScrapeResult
from ndbinfo_exporter.targets import TargetConfig

T = TypeVar("T")


class ViewReader:
    """What the view reads, for every target it shows."""

    def __init__(
        self,
        scraper: Scraper,
        max_connections: int,
        query_timeout: float,
        managers: dict[str, Callable[[], MgmdReader]] | None = None,
    ):
        self._scraper = scraper
        self._pools = Pools(max_connections, query_timeout)
        self._query_timeout = query_timeout
        self._managers = managers or {}  # target name -> its cluster's management server reader

    async def management(
        self, target: TargetConfig, timeout: float, max_age: float
    ) -> ManagementState | None:
        """What the management server reader keeps of the target's cluster (its `get status`
        read again when older than ``max_age``); None when no management server is read for
        this target."""
        manager = self._managers.get(target.name)
        if manager is None:
            return None
        return await manager().current(timeout, max_age)

    def last(self, target_name: str) -> ScrapeResult | None:
        """The latest full scrape of the target, Prometheus' or the view's."""
        return self._scraper.last(target_name)

    async def scrape(self, target: TargetConfig, timeout: float) -> ScrapeResult:
        """A full scrape for the view: one in flight for Prometheus is joined, otherwise the
        view's own connections scrape."""
        return await self._scraper.scrape(target, timeout, pools=self._pools)

    def _pool(self, target: TargetConfig) -> ConnectionPool:
        pool, _ = self._pools.get(target.name)
        return pool

    async def query(self, target: TargetConfig, sql: str, timeout: float) -> list[Row]:
        """A statement of the view, its rows whole."""
        return await self._pool(target).run(
            target, lambda connection: connection.rows(sql), min(timeout, self._query_timeout)
        )

    async def fold(
        self,
        target: TargetConfig,
        sql: str,
        timeout: float,
        reduce: Callable[[Iterator[Row]], T],
    ) -> T:
        """A statement whose rows ``reduce`` folds as they are read (on a pool thread): a
        large answer is never held whole."""
        return await fold_on(
            self._pool(target), target, sql, min(timeout, self._query_timeout), reduce
        )

    def close(self) -> None:
        self._pools.close()
