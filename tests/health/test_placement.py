"""The fragment placement: its statements, its aggregation and its pages."""

from __future__ import annotations

from dataclasses import replace

import pytest
from ndbinfo_exporter.health import placement
from ndbinfo_exporter.health.placement_read import PlacementUnavailable, read_placement

from tests.health.scrape_data import cluster, placement_rows, replica_rows

INFO = cluster().target_info


def test_placement_counts_dead_replicas_and_primaries_per_node():
    data = placement.build(placement_rows(stopped=(2,)), 1, 0.0)
    table = data.tables[0]
    assert (table.db, table.table, table.fragments) == ("app", "t0", 4)
    shares = {node: (s.primaries, s.backups, s.dead) for node, s in table.shares.items()}
    assert shares == {1: (2, 0, 0), 2: (0, 0, 2), 3: (1, 1, 0), 4: (1, 1, 0)}
    assert table.dead_replicas == 2
    assert sorted(map(sorted, data.node_groups)) == [[1, 2], [3, 4]]


def test_fragments_of_one_table_mark_dead_replicas_and_primaries():
    rows = [r for r in replica_rows(stopped=(2,)) if r["table_id"] == 11]
    fragments = placement.fragments(rows)
    assert (fragments[0].primary, fragments[0].backups, fragments[0].dead) == (1, [], [2])
    assert (fragments[2].primary, fragments[2].preferred_primary, fragments[2].dead) == (1, 2, [2])
    assert [f.fragment_id for f in fragments] == [0, 1, 2, 3]


def test_placement_filter_paging_and_summary():
    data = placement.build(placement_rows(tables=30, dbs=("app", "shop")), 1, 0.0)
    nodes = {1: (0, True), 2: (0, True), 3: (1, True), 4: (1, True)}

    def page_view(page=1, page_size=50, **match):
        chosen = placement.select(data, nodes, **match)
        return placement.page_view(chosen, "t", page=page, page_size=page_size)

    page = page_view(db="shop", page=2, page_size=20)
    assert (page.total_tables, page.matched_tables, page.pages, len(page.tables)) == (60, 30, 2, 10)
    assert [d.db for d in page.databases] == ["shop"]
    assert sum(n.primaries for n in page.nodes) == 30 * 4
    assert {n.node_id: n.replicas for n in page.nodes} == {1: 60, 2: 60, 3: 60, 4: 60}
    named = page_view(table="T2")
    assert {t.table for t in named.tables} == {
        "t2",
        "t20",
        "t21",
        "t22",
        "t23",
        "t24",
        "t25",
        "t26",
        "t27",
        "t28",
        "t29",
    }
    assert page_view(node=7).matched_tables == 0


def test_placement_sql_reads_one_node_and_only_schema_columns():
    sql = placement.sql_for(3)
    assert "f.node_id = 3 AND r.node_id = 3" in sql
    assert "o.type = 2" in sql
    assert "GROUP BY f.table_id, r.replica_node_id" in sql
    assert "AND f.table_id = 17" in placement.detail_sql(3, 17)


async def _rows_of(sql, timeout, reduce):
    return reduce(iter(placement_rows()))


def _failing(error):
    async def fold(sql, timeout, reduce):
        raise error

    return fold


async def test_the_placement_is_read_through_the_first_running_data_node():
    asked = []

    async def fold(sql, timeout, reduce):
        asked.append((sql, timeout))
        return await _rows_of(sql, timeout, reduce)

    read = await read_placement(fold, cluster(stopped=(1,)), 3.0, 50.0)
    assert asked == [(placement.sql_for(2), 3.0)]
    assert (read.source_node, read.refreshed_at, len(read.tables)) == (2, 50.0, 3)


@pytest.mark.parametrize(
    ("result", "error", "reason"),
    [
        (
            replace(cluster(), target_info=replace(INFO, ndb_visibility="engine_absent")),
            None,
            "NDB is not visible (engine_absent): no placement map",
        ),
        (
            replace(cluster(), target_info=replace(INFO, objects=frozenset({"nodes"}))),
            None,
            "this NDB version has no ndbinfo.table_fragments: no placement map",
        ),
        (replace(cluster(), families=[]), None, "no data node is running: no placement to read"),
        (cluster(), TimeoutError(), "placement query failed: timed out"),
        (cluster(), RuntimeError("Access denied"), "placement query failed: Access denied"),
    ],
)
async def test_a_placement_that_cannot_be_read_says_why_in_one_line(result, error, reason):
    fold = _failing(error) if error is not None else _rows_of
    with pytest.raises(PlacementUnavailable) as raised:
        await read_placement(fold, result, 3.0, 50.0)
    assert str(raised.value) == reason
