"""The exporter's text exposition is byte-for-byte prometheus_client's."""

import json

import pytest
from collector_fixtures import collectors_by_name, exposition, families, fixture_paths
from ndbinfo_exporter.exposition import text_exposition
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily


@pytest.mark.parametrize("fixture", fixture_paths(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_same_text_as_prometheus_client(fixture):
    collector = collectors_by_name()[fixture.parent.name]
    metric_families = families(collector, json.loads(fixture.read_text()))
    assert text_exposition(metric_families).decode() == exposition(metric_families)


def test_escaping_and_special_values_match_prometheus_client():
    gauge = GaugeMetricFamily("t_gauge", 'help with \\ and\nnewline "quoted"', labels=["b", "a"])
    gauge.add_metric(['back\\slash "quote"\nnewline', "ü"], float("nan"))
    gauge.add_metric(["x", "y"], float("inf"))
    gauge.add_metric(["x", "z"], -0.0)
    gauge.add_metric(["x", "w"], 1e21)
    counter = CounterMetricFamily("t_events", "Events.", labels=["kind"])
    counter.add_metric(["a"], 12345678901234567)
    plain = GaugeMetricFamily("t_plain", "No labels.", value=3)
    metric_families = [gauge, counter, plain]
    assert text_exposition(metric_families).decode() == exposition(metric_families)


def test_other_families_are_left_to_prometheus_client():
    info = InfoMetricFamily("t_build", "Build.", value={"version": "1"})
    created = CounterMetricFamily("t_c", "With created.", value=1, created=1700000000.0)
    assert text_exposition([info, created]).decode() == exposition([info, created])
