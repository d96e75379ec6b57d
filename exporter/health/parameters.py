"""Data node parameters that differ from their default or between data nodes."""

from __future__ import annotations

from ndbinfo_exporter.health.models import ConfigParam, ConfigView, NodeValue
from ndbinfo_exporter.health.samples import Samples
from ndbinfo_exporter.scrape.scraper import ScrapeResult


def config_params(samples: Samples) -> list[ConfigParam]:
    defaults = samples.by("ndb_config_default_value", "param")
    non_default: dict[str, list[int]] = {}
    for labels, value in samples.select("ndb_config_value"):
        param = labels["param"]
        if param in defaults and value != defaults[param]:
            non_default.setdefault(param, []).append(int(labels["node_id"]))
    inconsistent = {
        labels["param"] for labels, value in samples.select("ndb_config_inconsistent") if value
    }
    params = []
    for param in sorted(set(non_default) | inconsistent):
        values = sorted(
            (
                NodeValue(node_id=int(labels["node_id"]), value=value)
                for labels, value in samples.select("ndb_config_value", param=param)
            ),
            key=lambda v: v.node_id,
        )
        params.append(
            ConfigParam(
                param=param,
                default=defaults.get(param),
                values=values,
                non_default_nodes=sorted(non_default.get(param, [])),
                inconsistent=param in inconsistent,
            )
        )
    return params


COLLECTOR = "config"


def config_view(result: ScrapeResult, samples: Samples) -> ConfigView:
    params = config_params(samples)
    unknown = None
    if COLLECTOR in result.collector_errors:
        unknown = f"the {COLLECTOR} collector failed: {result.collector_errors[COLLECTOR]}"
    elif not samples.has("ndb_config_inconsistent_params"):
        unknown = f"the {COLLECTOR} collector gave no data"
    return ConfigView(
        target=result.target,
        up=result.up,
        error=result.error,
        scraped_at=result.finished_at,
        unknown=unknown,
        params=params,
        non_default_count=sum(1 for p in params if p.non_default_nodes),
        inconsistent_count=sum(1 for p in params if p.inconsistent),
    )
