"""What the scraper keeps of one target between scrapes, in one object: the latest full
result, each collector's last families and counts, the reads in flight of slowly changing
collectors, when those were read (``refresh.Refresher``) and what was last logged about the
target (``ndb_visibility.VisibilityLog``, ``privileges.PrivilegeLog``).

The scraper holds a ``TargetState`` per target name, beside that target's connection pool:
when ``pool.Pools`` closes the pool to make room for another target, the state is dropped
whole, so that nothing of a target outlives its pool.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ndbinfo_exporter.collectors.base import TargetInfo
from ndbinfo_exporter.scrape.exposition import Exposition
from ndbinfo_exporter.scrape.ndb_visibility import VisibilityLog
from ndbinfo_exporter.scrape.privileges import PrivilegeLog
from ndbinfo_exporter.scrape.refresh import Refresher
from prometheus_client.core import Metric

if TYPE_CHECKING:
    from ndbinfo_exporter.scrape.scraper import ScrapeResult


@dataclass(frozen=True)
class Rendered:
    """A collector's families from one read of its rows, and their exposition text."""

    digest: bytes  # of the rows' values (``scraper.rows_digest``), to tell the next rows equal
    target_info: TargetInfo
    families: list[Metric]
    exposition: Exposition
    skipped: int = 0  # rows left out because a value was not a number


@dataclass
class CollectorState:
    """What the scrapes keep of one collector of the target."""

    # The last successful read: served while a slowly changing collector is not read, and
    # reused as it is when the next rows are equal.
    rendered: Rendered | None = None
    rows_skipped: int = 0  # ndb_exporter_rows_skipped, since the target's state began
    kept: dict[Any, Any] = field(default_factory=dict)  # Context.kept


@dataclass
class TargetState:
    """Everything the scraper keeps of one target (``name``, "host:port"). Used from the
    event loop only."""

    name: str
    refresh: Refresher
    visibility: VisibilityLog
    privileges: PrivilegeLog
    last: ScrapeResult | None = None  # the latest full scrape, without its exposition
    collectors: dict[str, CollectorState] = field(default_factory=dict)
    # Collector name -> the outcome of a read of a slowly changing collector in flight,
    # shared by concurrent scrapes of the target (other collect[] selections).
    reading: dict[str, asyncio.Future] = field(default_factory=dict)
    # (credential set, collect[] selection) -> (event loop time it finished, the scrape): the
    # latest scrape of each, answered again within --exporter.scrape-reuse-age.
    recent: dict[tuple, tuple[float, ScrapeResult]] = field(default_factory=dict)

    @classmethod
    def new(cls, name: str, refresh_max_age: float) -> TargetState:
        return cls(name, Refresher(name, refresh_max_age), VisibilityLog(name), PrivilegeLog(name))

    def collector(self, name: str) -> CollectorState:
        return self.collectors.setdefault(name, CollectorState())
