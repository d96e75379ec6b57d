"""The report's "Restarts under way" table: each restarting data node's step and the estimate
of its restart, in the text, the Markdown and the JSON."""

from __future__ import annotations

import json
from dataclasses import replace

import jsonschema
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.report import document, nagios, render
from ndbinfo_exporter.report.options import parse_options

from tests.health.scrape_data import cluster, gauge
from tests.report.recorded import reading
from tests.report.report_cli import SCHEMA

TITLE = "Restarts under way"


def report(*families) -> document.Report:
    result = cluster()
    found = reading(replace(result, families=[*result.families, *families]))
    options = parse_options("report", [], all_collectors())
    return document.build(found, options, nagios.judge(found, nagios.select(()), options))


def test_a_restarting_node_with_its_step_share_done_and_time_left():
    built = report(
        gauge("ndb_restart_status", {"node_id": "3", "status": "Execute REDO logs ongoing"}),
        gauge("ndb_restart_progress_ratio", {"node_id": "3"}, 0.6),
        gauge("ndb_restart_remaining_seconds", {"node_id": "3"}, 150),
    )
    assert "| 3 | Execute REDO logs ongoing | 60.0 % | 0h 2m 30s |" in render.markdown(built)
    assert TITLE in render.text(built)
    data = json.loads(built.model_dump_json())
    jsonschema.validate(data, json.loads(SCHEMA.read_text()))
    restarts = {n["node_id"]: n["restart"] for n in data["data_nodes"]}
    assert restarts == {
        1: None,
        2: None,
        3: {"status": "Execute REDO logs ongoing", "progress": 0.6, "remaining_seconds": 150.0},
        4: None,
    }


def test_no_table_while_no_data_node_restarts():
    built = report(gauge("ndb_restart_status", {"node_id": "3", "status": "Restart completed"}))
    assert TITLE not in render.text(built)
    assert all(n.restart is None for n in built.data_nodes)
