"""Scraping a MySQL-protocol server in-process: a test collector, a Scraper with the default
settings, and the samples of a scrape's result."""

from __future__ import annotations

from ndbinfo_exporter.collectors.base import Collector
from ndbinfo_exporter.scrape.scraper import Scraper, ScrapeResult
from ndbinfo_exporter.settings import Settings
from prometheus_client.core import GaugeMetricFamily

PASSWORD = "pw-Zx81-never-shown"


def gauge_collector(name: str, sql: str, reads=None, min_version=(7, 5, 0), **kwargs) -> Collector:
    def collect(rows, context):
        family = GaugeMetricFamily(f"test_{name}_rows", "Rows seen.", labels=["node_id"])
        for row in rows:
            family.add_metric([str(row["node_id"])], 1)
        return [family]

    return Collector(
        name=name,
        help=f"{name} test collector",
        default_enabled=True,
        reads=reads if reads is not None else {"nodes": ("node_id",)},
        min_version=min_version,
        sql=sql,
        collect=collect,
        **kwargs,
    )


def samples(result: ScrapeResult, metric: str) -> dict[tuple, float]:
    out = {}
    for family in result.families:
        for sample in family.samples:
            if sample.name == metric:
                out[tuple(sorted(sample.labels.items()))] = sample.value
    return out


def by_collector(result: ScrapeResult, metric: str) -> dict[str, float]:
    return {dict(k)["collector"]: v for k, v in samples(result, metric).items()}


def make_scraper(
    collectors, max_connections=3, query_timeout=10.0, options=None, renders=True, reuse_age=0.0
):
    return Scraper(
        collectors,
        options or {},
        max_connections=max_connections,
        query_timeout=query_timeout,
        refresh_max_age=Settings().refresh_max_age,
        renders=renders,
        reuse_age=reuse_age,
    )
