"""The exporter's exposition is byte-for-byte prometheus_client's, in every negotiated format."""

import json

import pytest
from ndbinfo_exporter.scrape.exposition import Exposition, encode, registry_of, render
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily
from prometheus_client.exposition import choose_encoder

from tests.support.collector_fixtures import collectors_by_name, families, fixture_paths

# Accept headers: what Prometheus 2 and 3 send by default, curl's, and the other formats.
ACCEPT_HEADERS = [
    "",
    "*/*",
    "text/plain",
    "text/plain;version=0.0.4",
    "text/plain;version=1.0.0;escaping=allow-utf-8",
    "text/plain;version=1.0.0;escaping=underscores",
    "text/plain;version=1.0.0;escaping=values",
    "text/plain;version=1.0.0;escaping=dots",
    "application/openmetrics-text",
    "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
    "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
    "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.6,"
    "application/openmetrics-text;version=0.0.1;q=0.5,text/plain;version=1.0.0;"
    "escaping=allow-utf-8;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2",
    "application/openmetrics-text;version=1.0.0;escaping=dots",
    "application/openmetrics-text;version=2.0.0",
]


def library(metric_families: list, accept: str) -> tuple[bytes, str]:
    encoder, content_type = choose_encoder(accept)
    return encoder(registry_of(metric_families)), content_type


def same_as_library(metric_families: list) -> None:
    rendered = render(metric_families)
    for accept in ACCEPT_HEADERS:
        assert encode(rendered, metric_families, accept) == library(metric_families, accept), accept


@pytest.mark.parametrize("fixture", fixture_paths(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_same_exposition_as_prometheus_client(fixture):
    collector = collectors_by_name()[fixture.parent.name]
    same_as_library(families(collector, json.loads(fixture.read_text())))


def test_escaping_and_special_values_match_prometheus_client():
    gauge = GaugeMetricFamily("t_gauge", 'help with \\ and\nnewline "quoted"', labels=["b", "a"])
    gauge.add_metric(['back\\slash "quote"\nnewline', "ü"], float("nan"))
    gauge.add_metric(["x", "y"], float("inf"))
    gauge.add_metric(["x", "z"], -0.0)
    gauge.add_metric(["x", "w"], 1e21)
    counter = CounterMetricFamily("t_events", 'Events "counted".', labels=["kind"])
    counter.add_metric(["a"], 12345678901234567)
    plain = GaugeMetricFamily("t_plain", "No labels.", value=3)
    same_as_library([gauge, counter, plain])


def test_other_families_are_left_to_prometheus_client():
    info = InfoMetricFamily("t_build", "Build.", value={"version": "1"})
    created = CounterMetricFamily("t_c", "With created.", value=1, created=1700000000.0)
    same_as_library([info, created])


def test_pieces_join_into_one_exposition():
    first = GaugeMetricFamily("t_first", "First.", value=1)
    second = CounterMetricFamily("t_second", "Second.", value=2)
    joined = Exposition.join([render([first]), render([second])])
    for accept in ACCEPT_HEADERS:
        assert encode(joined, [first, second], accept) == library([first, second], accept)
