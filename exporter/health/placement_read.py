"""The one read of the fragment placement, for the view and for ``report``: the statement of
``placement`` run through the first running data node's copy, its rows folded as they come
(about 100,000 at 48 data nodes, never held at once)."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Generator, Iterator
from typing import TypeVar

from ndbinfo_exporter import logs
from ndbinfo_exporter.health import placement as placement_model
from ndbinfo_exporter.health.placement import Placement
from ndbinfo_exporter.health.samples import Samples
from ndbinfo_exporter.scrape.ndb_visibility import OK
from ndbinfo_exporter.scrape.pool import ConnectionPool
from ndbinfo_exporter.scrape.scraper import ScrapeResult
from ndbinfo_exporter.targets import TargetConfig
from ndbinfo_exporter.values import Row

T = TypeVar("T")
# Runs a statement and folds its rows: (sql, timeout, reduce) -> what reduce returns.
Fold = Callable[[str, float, Callable[[Iterator[Row]], Placement]], Awaitable[Placement]]


class PlacementUnavailable(Exception):
    """No placement can be read now; the message says why in one line."""


async def read_placement(
    fold: Fold, result: ScrapeResult, timeout: float, read_at: float
) -> Placement:
    """The placement as ``result``'s SQL node sees it, read through ``fold``; a SQL node that
    cannot show it, or a failed read, is PlacementUnavailable."""
    node = running_node(result)
    try:
        return await fold(
            placement_model.sql_for(node),
            timeout,
            lambda rows: placement_model.build(rows, node, read_at),
        )
    except Exception as exc:  # the readers go on without the placement, saying why
        message = "timed out" if isinstance(exc, TimeoutError) else logs.redact(str(exc))
        raise PlacementUnavailable(f"placement query failed: {message}") from exc


def running_node(result: ScrapeResult) -> int:
    """The first STARTED data node, whose copy of the distribution is read."""
    info = result.target_info
    if info is not None and info.ndb_visibility != OK:
        raise PlacementUnavailable(f"NDB is not visible ({info.ndb_visibility}): no placement map")
    missing = [o for o in placement_model.OBJECTS if info is not None and o not in info.objects]
    if missing:
        raise PlacementUnavailable(
            f"this NDB version has no ndbinfo.{missing[0]}: no placement map"
        )
    status = [family for family in result.families if family.name == "ndb_data_node_status"]
    running = sorted(
        int(labels["node_id"])
        for labels, value in Samples(status).select("ndb_data_node_status", state="STARTED")
        if value
    )
    if not running:
        raise PlacementUnavailable("no data node is running: no placement to read")
    return running[0]


async def fold_on(
    pool: ConnectionPool,
    target: TargetConfig,
    sql: str,
    timeout: float,
    reduce: Callable[[Iterator[Row]], T],
) -> T:
    """A statement on ``pool`` whose rows ``reduce`` folds as they are read (on a pool
    thread): a large answer is never held whole."""
    return await pool.run(target, lambda connection: _folded(connection.each(sql), reduce), timeout)


def _folded(rows: Generator[Row, None, None], reduce: Callable[[Iterator[Row]], T]) -> T:
    """``reduce`` over ``rows``, whose cursor is closed (its rest read) even when it fails."""
    with contextlib.closing(rows):
        return reduce(rows)
