"""The latency histograms arrive as a row per data node with the ranges' counts as lists
(GROUP_CONCAT), and give the histograms the per-range rows would give."""

from __future__ import annotations

import json

from ndbinfo_exporter.collectors import pgman_latency
from ndbinfo_exporter.collectors._histograms import split_ranges

from tests.support.collector_fixtures import FIXTURES, context

RECORDED = json.loads((FIXTURES / "pgman_latency" / "ndbsim-8.4-healthy.json").read_text())


def histograms(rows: list[dict]) -> dict:
    (family,) = pgman_latency.COLLECTOR.collect(rows, context(RECORDED, pgman_latency.COLLECTOR))
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for s in family.samples}


def test_a_row_of_lists_is_a_row_per_range():
    row = {
        "upper_bound": "0,16,32",
        "page_reads": "1,,3",
        "page_writes": "0,0,0",
        "log_waits": "4,5,6",
    }
    ranges = split_ranges(row, pgman_latency.COUNTS)
    assert [r["upper_bound"] for r in ranges] == ["0", "16", "32"]
    assert [r["page_reads"] for r in ranges] == ["1", None, "3"]


def test_a_count_missing_in_one_range_drops_that_operation_only():
    rows = [dict(row) for row in RECORDED["rows"]]
    complete = histograms(rows)
    reads = rows[0]["page_reads"].split(",")
    rows[0]["page_reads"] = ",".join(["", *reads[1:]])
    partial = histograms(rows)
    node_1_reads = {
        k for k in complete if ("node_id", "1") in k[1] and ("operation", "page_read") in k[1]
    }
    assert node_1_reads and not node_1_reads & set(partial)
    assert {k: v for k, v in complete.items() if k not in node_1_reads} == partial


def test_recorded_histograms_are_not_idle_and_zeros_are():
    idle = pgman_latency.COLLECTOR.slow.idle
    assert not idle(RECORDED["rows"])
    zeros = [
        {**row, **{c: ",".join("0" for _ in row[c].split(",")) for c in pgman_latency.COUNTS}}
        for row in RECORDED["rows"]
    ]
    assert idle(zeros)
