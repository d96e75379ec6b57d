"""Turn a recorded fixture (rows + target info) into the collector's exposition text."""

from __future__ import annotations

import json
from pathlib import Path

from ndbinfo_exporter.collectors.base import Collector, Context, TargetInfo
from ndbinfo_exporter.collectors.registry import all_collectors
from prometheus_client import CollectorRegistry, generate_latest

TESTS = Path(__file__).parents[1]
FIXTURES = TESTS / "fixtures"
GOLDEN = TESTS / "golden"


def collectors_by_name() -> dict[str, Collector]:
    return {collector.name: collector for collector in all_collectors()}


def fixture_paths() -> list[Path]:
    return sorted(FIXTURES.glob("*/*.json"))


def golden_path(fixture: Path) -> Path:
    return GOLDEN / fixture.parent.name / f"{fixture.stem}.prom"


def context(fixture: dict, collector: Collector) -> Context:
    target = fixture["target"]
    info = TargetInfo(
        version=target["version"],
        ndb_version=tuple(target["ndb_version"]),
        objects=frozenset(target.get("objects") or collector.reads),
        server_id=target.get("server_id"),
    )
    options = {option.name: option.default for option in collector.options}
    options.update(fixture.get("options") or {})
    return Context(target=info, options=options)


def families(collector: Collector, fixture: dict) -> list:
    found = context(fixture, collector)
    return list(collector.for_target(found.target).collect(fixture["rows"], found))


class _Fixed:
    def __init__(self, metric_families: list):
        self._families = metric_families

    def collect(self):
        yield from self._families


def exposition(metric_families: list) -> str:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Fixed(metric_families))
    return generate_latest(registry).decode()


def render(path: Path) -> str:
    fixture = json.loads(path.read_text())
    return exposition(families(collectors_by_name()[path.parent.name], fixture))
