"""The schema changes under way, read back from the schema_changes collector's series into
the cluster view."""

from __future__ import annotations

import json
from dataclasses import replace

from ndbinfo_exporter.health.models import SchemaChange
from ndbinfo_exporter.health.samples import Samples
from ndbinfo_exporter.health.schema_change_progress import schema_changes

from tests.health.scrape_data import cluster, gauge, view_of
from tests.support.collector_fixtures import FIXTURES, collectors_by_name, families

RECORDED = FIXTURES / "schema_changes" / "ndbsim-8.4-copy-and-reorganize.json"


def copy_series(database: str, copy: str, rows: float, source: str | None = None) -> list:
    found = [
        gauge("ndb_table_copy_rows", {"database": database, "table": copy}, rows),
        gauge("ndb_table_copy_bytes", {"database": database, "table": copy}, 4096),
    ]
    if source is not None:
        labels = {"database": database, "table": source}
        found.append(gauge("ndb_table_copy_progress_ratio", labels, 0.25))
    return found


def test_recorded_copy_and_reorganization():
    """ndbsim's copy-alter and reorganize faults: the copy's table cannot be told (two tables
    of its database have its row size), the reorganization's share can."""
    recorded = families(collectors_by_name()["schema_changes"], json.loads(RECORDED.read_text()))
    copy, reorganize = schema_changes(Samples(recorded))
    assert copy == SchemaChange(
        kind="copy", database="shop", copy_table="#sql-3a42_2c", rows=17056, bytes=6291456
    )
    assert (reorganize.kind, reorganize.database, reorganize.table) == (
        "reorganize",
        "shop",
        "shipments",
    )
    assert 0.3 < reorganize.progress < 0.31
    assert (reorganize.copy_table, reorganize.rows, reorganize.bytes) == (None, None, None)


def test_a_copy_and_its_share_are_joined_when_their_database_has_one_of_each():
    found = schema_changes(Samples(copy_series("shop", "#sql-1", 250, source="orders")))
    assert found == [
        SchemaChange(
            kind="copy",
            database="shop",
            table="orders",
            copy_table="#sql-1",
            progress=0.25,
            rows=250,
            bytes=4096,
        )
    ]


def test_copies_of_one_database_are_not_joined_to_a_share_they_cannot_be_told_from():
    series = copy_series("shop", "#sql-1", 250, source="orders") + copy_series("shop", "#sql-2", 9)
    found = schema_changes(Samples(series))
    assert [(c.table, c.copy_table, c.progress, c.rows) for c in found] == [
        (None, "#sql-1", None, 250),
        (None, "#sql-2", None, 9),
        ("orders", None, 0.25, None),
    ]


def test_the_cluster_view_lists_the_schema_changes_only_while_one_runs():
    assert view_of(cluster()).schema_changes == []
    result = cluster()
    moving = gauge("ndb_table_reorganize_progress_ratio", {"database": "app", "table": "t1"}, 0.5)
    result = replace(result, families=[*result.families, moving])
    assert view_of(result).schema_changes == [
        SchemaChange(kind="reorganize", database="app", table="t1", progress=0.5)
    ]
