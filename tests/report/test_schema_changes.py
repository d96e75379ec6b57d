"""The report's "Schema changes under way" table: each copying ALTER TABLE and REORGANIZE
PARTITION with its share done, in the text, the Markdown and the JSON."""

from __future__ import annotations

import json
from dataclasses import replace

import jsonschema
from ndbinfo_exporter.report import document, render

from tests.health.scrape_data import cluster, gauge
from tests.report.recorded import reported
from tests.report.report_cli import SCHEMA

TITLE = "Schema changes under way"
SHOP_COPY = {"database": "shop", "table": "#sql-3a42_2c"}


def report(*families) -> document.Report:
    result = cluster()
    return reported(replace(result, families=[*result.families, *families]))


def test_a_copy_and_a_reorganization_with_their_share_done():
    built = report(
        gauge("ndb_table_copy_rows", SHOP_COPY, 250),
        gauge("ndb_table_copy_bytes", SHOP_COPY, 6291456),
        gauge("ndb_table_copy_progress_ratio", {"database": "shop", "table": "orders"}, 0.25),
        gauge("ndb_table_reorganize_progress_ratio", {"database": "app", "table": "t1"}, 0.4),
    )
    markdown = render.markdown(built)
    assert "| copy | shop | orders | #sql-3a42_2c | 25.0 % | 250 | 6.0 MiB |" in markdown
    assert "| reorganize | app | t1 | - | 40.0 % | - | - |" in markdown
    assert TITLE in render.text(built)
    data = json.loads(built.model_dump_json())
    jsonschema.validate(data, json.loads(SCHEMA.read_text()))
    assert data["schema_changes"] == [
        {
            "kind": "copy",
            "database": "shop",
            "table": "orders",
            "copy_table": "#sql-3a42_2c",
            "progress": 0.25,
            "rows": 250,
            "bytes": 6291456,
        },
        {
            "kind": "reorganize",
            "database": "app",
            "table": "t1",
            "copy_table": None,
            "progress": 0.4,
            "rows": None,
            "bytes": None,
        },
    ]


def test_no_table_while_no_schema_change_runs():
    built = report()
    assert TITLE not in render.text(built)
    assert built.schema_changes == []
