"""One read of a SQL node (two with ``--interval``) and the cluster view's models built from it.

The models come from ``view.source.ViewSource``, as the view's API serves them: the same
scrape of every enabled collector, the same placement read, the same ``Check``s. Its refresh
interval is the time between the two reads, so the second read is a new scrape whose
counters are compared with the first's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from ndbinfo_exporter.collectors.base import Collector
from ndbinfo_exporter.scrape.scraper import Scraper, ScrapeResult
from ndbinfo_exporter.settings import Settings
from ndbinfo_exporter.targets import TargetConfig
from ndbinfo_exporter.view.models import ClusterView, ConfigView, FindingsView
from ndbinfo_exporter.view.source import VIEW_INTERVAL_SECONDS, ViewSource


@dataclass(frozen=True)
class Reading:
    result: ScrapeResult
    cluster: ClusterView
    config: ConfigView | None  # None when the SQL node did not answer
    findings: FindingsView | None
    interval: float | None  # seconds between the two reads, None for one read


def scraper_for(settings: Settings, collectors: Sequence[Collector]) -> Scraper:
    enabled = settings.enabled(collectors)
    return Scraper(
        enabled,
        {c.name: settings.options_for(c) for c in enabled},
        max_connections=1,
        query_timeout=settings.query_timeout,
        refresh_max_age=settings.refresh_max_age,
    )


async def read(
    scraper: Scraper, target: TargetConfig, settings: Settings, interval: float | None
) -> Reading:
    """The view's models for one read of ``target``, or for the second of two reads
    ``interval`` seconds apart. A fresh enough scrape already in ``scraper`` is reused."""
    source = ViewSource(
        scraper,
        target,
        settings.query_timeout,
        settings.refresh_max_age,
        interval=interval or VIEW_INTERVAL_SECONDS,
    )
    model = await source.refreshed()
    if interval is not None and model.result.up:
        await asyncio.sleep(interval)
        model = await source.refreshed()
    bodies = model.bodies
    return Reading(
        result=model.result,
        cluster=model.cluster,
        config=ConfigView.model_validate_json(bodies["config"].content)
        if "config" in bodies
        else None,
        findings=FindingsView.model_validate_json(bodies["findings"].content)
        if "findings" in bodies
        else None,
        interval=interval if model.previous is not None else None,
    )
