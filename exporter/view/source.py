"""Where the view's data comes from: the scraper's results, and one placement query per interval.

However many pages and API clients are open, the view starts at most one scrape and one
placement query per refresh interval: a scrape result younger than the interval (from a
Prometheus scrape or an earlier viewer) is reused, and concurrent requests wait for the
same collection behind a lock.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from ndbinfo_exporter import logs
from ndbinfo_exporter.view import placement as placement_model
from ndbinfo_exporter.view.placement import Placement
from ndbinfo_exporter.view.samples import Samples

REFRESH_SECONDS = 10.0


class Unavailable(Exception):
    """The data cannot be produced now; the message says why in one line."""


class ViewSource:
    def __init__(
        self,
        scraper: Any,
        target: Any,
        timeout: float,
        interval: float = REFRESH_SECONDS,
        clock: Callable[[], float] = time.time,
    ):
        self._scraper = scraper
        self._target = target
        self._timeout = timeout
        self.interval = interval
        self.clock = clock
        self._scrape_lock = asyncio.Lock()
        self._placement_lock = asyncio.Lock()
        self._history: list[Any] = []  # the last two distinct scrape results, oldest first
        self._placement: Placement | None = None
        self._placement_error: tuple[float, str] | None = None
        self._groups: dict[int, int] = {}  # node group of every data node seen so far

    @property
    def target_name(self) -> str:
        return self._target.name

    def _fresh(self, at: float) -> bool:
        return self.clock() - at < self.interval

    async def result(self) -> Any:
        """A scrape result younger than the refresh interval, collecting one if needed."""
        last = self._scraper.last(self.target_name)
        if last is None or not self._fresh(last.finished_at):
            async with self._scrape_lock:
                last = self._scraper.last(self.target_name)
                if last is None or not self._fresh(last.finished_at):
                    last = await self._scraper.scrape(self._target, self._timeout)
        self._remember(last)
        return last

    def _remember(self, result: Any) -> None:
        if self._history and self._history[-1].finished_at >= result.finished_at:
            return
        if result.up:
            self._history = [*self._history[-1:], result]
            for labels, value in Samples(result.families).select("ndb_data_node_nodegroup"):
                if value:
                    self._groups[int(labels["node_id"])] = int(labels["nodegroup"])

    def previous(self, result: Any) -> Any | None:
        """The scrape result before ``result``, for counter increases."""
        earlier = [r for r in self._history if r.finished_at < result.finished_at]
        return earlier[-1] if earlier else None

    def known_groups(self) -> dict[int, int]:
        """Node groups of data nodes seen running, completed from the placement's replica sets."""
        groups = dict(self._groups)
        if self._placement is not None:
            for nodes in self._placement.node_sets():
                known = {groups[n] for n in nodes if n in groups}
                if len(known) == 1:
                    group = known.pop()
                    for node in nodes:
                        groups.setdefault(node, group)
        return groups

    async def placement(self, result: Any) -> Placement:
        """The fragment placement, read at most once per interval."""
        if self._placement is not None and self._fresh(self._placement.refreshed_at):
            return self._placement
        async with self._placement_lock:
            if self._placement is not None and self._fresh(self._placement.refreshed_at):
                return self._placement
            if self._placement_error is not None and self._fresh(self._placement_error[0]):
                raise Unavailable(self._placement_error[1])
            try:
                self._placement = await self._read_placement(result)
                self._placement_error = None
            except Unavailable as exc:
                self._placement_error = (self.clock(), str(exc))
                raise
            return self._placement

    async def _read_placement(self, result: Any) -> Placement:
        if not result.up:
            raise Unavailable(f"SQL node {result.target} is unreachable: {result.error}")
        info = result.target_info
        missing = [o for o in placement_model.OBJECTS if info is not None and o not in info.objects]
        if missing:
            raise Unavailable(f"this NDB version has no ndbinfo.{missing[0]}: no placement map")
        running = sorted(
            int(labels["node_id"])
            for labels, value in Samples(result.families).select(
                "ndb_data_node_status", state="STARTED"
            )
            if value
        )
        if not running:
            raise Unavailable("no data node is running: no placement to read")
        try:
            rows = await self._scraper.query(
                self._target, placement_model.sql_for(running[0]), self._timeout
            )
        except Exception as exc:  # a failed query is reported to the viewer, not raised
            message = "timed out" if isinstance(exc, TimeoutError) else logs.redact(str(exc))
            raise Unavailable(f"placement query failed: {message}") from exc
        return placement_model.build(rows, running[0], self.clock())
