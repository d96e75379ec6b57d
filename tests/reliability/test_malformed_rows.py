"""Rows with NULL or non-numeric values: NULL is no sample, a bad row is skipped and counted,
the rest of the collector's series stay."""

from __future__ import annotations

import copy
import json

import pytest
from ndbinfo_exporter.collectors.base import Collector, collect_rows, gauge, number
from ndbinfo_exporter.targets import TargetConfig
from prometheus_client.parser import text_string_to_metric_families

from tests.support.collector_fixtures import FIXTURES, collectors_by_name, context, exposition
from tests.support.fake_sql_node import Answer, FakeSqlNode, RunningFakeSqlNode
from tests.support.scraping import PASSWORD, by_collector, make_scraper, samples


def load(name: str) -> dict:
    return json.loads((FIXTURES / name / "ndbsim-8.4-healthy.json").read_text())


def series(families) -> dict[tuple, float]:
    text = exposition(families)
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_one_bad_value_skips_one_row_not_the_collector():
    collector = collectors_by_name()["transporter_links"]
    fixture = load("transporter_links")
    good, skipped_none = collect_rows(collector, fixture["rows"], context(fixture, collector))
    assert skipped_none == 0
    broken = copy.deepcopy(fixture)
    broken["rows"][0]["bytes_sent"] = "not-a-number"
    families, skipped = collect_rows(collector, broken["rows"], context(broken, collector))
    assert skipped == 1
    before, after = series(good), series(families)
    row = broken["rows"][0]
    lost = {
        key
        for key in before
        if ("node_id", str(row["node_id"])) in key[1]
        and ("remote_node_id", str(row["remote_node_id"])) in key[1]
    }
    assert lost  # the bad row's series, and only those, are gone
    assert set(after) == set(before) - lost


@pytest.mark.parametrize(
    ("collector_name", "column", "name"),
    [
        ("membership", "arbitrator", "ndb_arbitrator_node_id"),
        ("logspaces", "used", "ndb_log_space_used_bytes"),
        ("diskpagebuffer", "pages_read", "ndb_disk_page_buffer_pages_read_total"),
    ],
)
def test_null_is_no_sample_not_zero(collector_name, column, name):
    """A NULL column gives no sample for that row (it was exported as 0)."""
    collector = collectors_by_name()[collector_name]
    assert name in {m.name for m in collector.metrics}
    fixture = load(collector_name)
    healthy = series(collector.collect(fixture["rows"], context(fixture, collector)))
    fixture["rows"][0][column] = None
    families, skipped = collect_rows(collector, fixture["rows"], context(fixture, collector))
    assert skipped == 0
    after = series(families)
    lost = set(healthy) - set(after)
    assert len(lost) == 1
    assert next(iter(lost))[0].startswith(name)
    assert set(after) < set(healthy)


async def test_scraper_counts_skipped_rows():
    sql = "SELECT node_id, value FROM ndbinfo.nodes"
    rows = [(1, "10"), (2, "garbage"), (3, "30")]
    node = FakeSqlNode(password=PASSWORD, answers={sql: Answer(["node_id", "value"], rows)})

    spec = gauge("test_value", "A value.", ("node_id",))

    def collect(rows, context):
        family = spec.family()
        for row in rows:
            family.add_metric([str(row["node_id"])], number(row["value"]))
        yield family

    collector = Collector("values", "test", True, {"nodes": ("node_id",)}, (7, 5, 0), sql, collect)
    with RunningFakeSqlNode(node) as running:
        target = TargetConfig("127.0.0.1", running.port, "exporter", PASSWORD)
        scraper = make_scraper([collector])
        try:
            first = await scraper.scrape(target, 5)
            second = await scraper.scrape(target, 5)
        finally:
            scraper.close()
    assert by_collector(first, "ndb_exporter_collector_success") == {"values": 1}
    assert by_collector(first, "ndb_exporter_rows_skipped_total") == {"values": 1}
    assert by_collector(second, "ndb_exporter_rows_skipped_total") == {"values": 2}
    assert samples(first, "test_value") == {(("node_id", "1"),): 10, (("node_id", "3"),): 30}
