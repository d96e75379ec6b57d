"""The report's "Forced stops" section: each data node's last forced stop the management
server's cluster log reported during the run, in the text, the Markdown and the JSON."""

from __future__ import annotations

import json

import jsonschema
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.report import document, nagios, render
from ndbinfo_exporter.report.options import parse_options
from ndbinfo_exporter.scrape.mgmd.events import ForcedStop

from tests.health.management_state import management_state
from tests.health.scrape_data import cluster
from tests.report.recorded import reading
from tests.report.report_cli import SCHEMA

TITLE = "Forced stops (cluster log, during this run)"


def report(*stops: ForcedStop) -> document.Report:
    state = management_state(forced_stops=stops)
    options = parse_options("report", [], all_collectors())
    found = reading(cluster(), management=state)
    return document.build(found, options, nagios.judge(found, nagios.select(()), options))


def test_the_report_lists_each_forced_stop_with_its_cause():
    built = report(
        ForcedStop(2, 30.0, 2303, 0, 5, 0),
        ForcedStop(3, 0.0, 2341, 0, 255, 0),
        ForcedStop(4, 60.0, 0, 9, 255, 1),
    )
    shown = render.text(built)
    assert TITLE in shown
    assert "error 2303: System error, node killed during node restart by other node" in shown
    assert "error 2341: Internal program error (failed ndbrequire)" in shown
    assert "Internal error, programming error or missing error message, please report a bug." in (
        shown
    )
    assert "1970-01-01 00:00:00" in shown and "signal 9" in shown
    assert "(angel restarts it)" in shown
    table = render.markdown(built).split(f"## {TITLE}\n\n")[1].split("\n\n")[0].splitlines()
    assert len(table) == 2 + 3 and table[3].startswith("| 3 | 1970-01-01 00:00:00 | error 2341")
    assert table[2].startswith("| 2 | 1970-01-01 00:00:30 | error 2303") and "| 5 |" in table[2]
    data = json.loads(built.model_dump_json())
    jsonschema.validate(data, json.loads(SCHEMA.read_text()))
    stops = data["management"]["forced_stops"]
    assert [(s["node_id"], s["error"], s["classification"]) for s in stops] == [
        (2, 2303, "internal_error"),
        (3, 2341, "internal_error"),
        (4, 0, None),
    ]
    assert stops[0]["start_phase"] == 5 and stops[1]["start_phase"] is None


def test_without_a_forced_stop_the_section_says_so():
    built = report()
    assert built.management.forced_stops == []
    assert f"{TITLE}\n  No data node stopped by force." in render.text(built)
