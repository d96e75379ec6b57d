"""The report's Backups section: the backup running at the end of the run, how far it had got
against the last completed one and the time left at its pace, in the text, the Markdown and
the JSON."""

from __future__ import annotations

import dataclasses
import json

import jsonschema
from ndbinfo_exporter.collectors.registry import all_collectors
from ndbinfo_exporter.report import document, nagios, render
from ndbinfo_exporter.report.options import parse_options
from ndbinfo_exporter.scrape.mgmd.backup_progress import BackupProgress, NodeBackupStatus
from ndbinfo_exporter.scrape.mgmd.events import CompletedBackup, StartedBackup

from tests.health.management_state import management_state
from tests.health.scrape_data import cluster
from tests.report.recorded import reading
from tests.report.report_cli import SCHEMA

LAST = CompletedBackup(7, 500.0, 4 * 1024**3, 4000)


def report(**state) -> document.Report:
    management = dataclasses.replace(management_state(), **state)
    options = parse_options("report", [], all_collectors())
    found = reading(cluster(), management=management)
    return document.build(found, options, nagios.judge(found, nagios.select(()), options))


def test_the_running_backup_with_its_share_done_and_the_time_left():
    progress = BackupProgress(8, 960.0, (NodeBackupStatus(1, 1024**3, 1000),))
    built = report(
        running_backup=StartedBackup(8, 49, 900.0), backup_progress=progress, last_backup=LAST
    )
    shown = render.text(built)
    expected = "backup 8: 1.0 GiB, 1000 records, 25.0 % of the last completed, about 0h 3m 0s left"
    assert expected in shown
    assert f"- running: {expected}\n" in render.markdown(built)
    data = json.loads(built.model_dump_json())
    jsonschema.validate(data, json.loads(SCHEMA.read_text()))
    assert data["management"]["running_backup"] == {
        "backup_id": 8,
        "started_at": 900.0,
        "bytes": 1024**3,
        "records": 1000,
        "progress": 0.25,
        "remaining_seconds": 180.0,
    }


def test_before_the_first_report_and_without_a_running_backup():
    waiting = report(running_backup=StartedBackup(8, 49, 900.0), last_backup=LAST)
    assert "backup 8: no report from the data nodes yet" in render.text(waiting)
    idle = report(last_backup=LAST)
    assert idle.management.running_backup is None
    assert "running" in render.text(idle) and "backup 7: 4.0 GiB" in render.text(idle)
