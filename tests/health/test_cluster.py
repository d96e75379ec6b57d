"""The cluster and configuration models from ScrapeResult-shaped data."""

from __future__ import annotations

import pytest

from tests.health.scrape_data import cluster, config_of, later, view_of


def test_topology_lists_node_groups_and_other_nodes():
    view = view_of(cluster(), None, {})
    groups = view.topology.node_groups
    assert [(g.nodegroup, [n.node_id for n in g.nodes], g.running) for g in groups] == [
        (0, [1, 2], 2),
        (1, [3, 4], 2),
    ]
    assert all(n.state == "STARTED" for g in groups for n in g.nodes)
    assert [(n.node_id, n.connected) for n in view.topology.management_nodes] == [(49, True)]
    assert [(n.node_id, n.connected, n.process_name) for n in view.topology.api_nodes] == [
        (51, True, "mysqld"),
        (52, False, None),
    ]
    assert view.sql_node.system_name == "demo_cluster"
    assert view.sql_node.version == "8.4.3-cluster"


def test_stopped_node_keeps_its_node_group_when_known():
    view = view_of(cluster(stopped=(2,)), None, {2: 0})
    node2 = view.topology.node_groups[0].nodes[1]
    assert (node2.node_id, node2.state, node2.running) == (2, "STOPPED", False)
    assert view.topology.node_groups[0].running == 1
    assert view.topology.unassigned_data_nodes == []


def test_stopped_node_without_known_group_is_unassigned():
    view = view_of(cluster(stopped=(2,)), None, {})
    assert [n.node_id for n in view.topology.unassigned_data_nodes] == [2]


def test_lcp_age_in_gcis_and_seconds():
    lcp = view_of(cluster(lcp_completed_gci=5000, current_gci=5010), None, {}).lcp
    assert (lcp.lcp_id, lcp.completed_gci, lcp.current_gci, lcp.age_gcis) == (42, 5000, 5010, 10)
    assert lcp.age_seconds == pytest.approx(20.0)  # TimeBetweenGlobalCheckpoints 2000 ms
    assert lcp.replicas_lcp_ongoing == 8


def test_resources_per_node():
    resources = view_of(cluster(data_memory={1: 0.5}), None, {}).resources
    first = resources[0]
    assert first.node_id == 1
    assert first.data_memory_ratio == pytest.approx(0.5)
    assert first.redo_ratio == pytest.approx((10 + 20 + 30 + 40) / (4 * 256))
    assert first.redo_worst_part_ratio == pytest.approx(40 / 256)


def test_sql_efficiency_uses_two_scrapes_when_there_are_two():
    first = cluster()
    second = later(
        first,
        15,
        ndb_sql_api_scans_total=1100,
        ndb_sql_api_pruned_scans_total=820,
        ndb_sql_api_round_trips_total=3500,
        ndb_sql_api_transactions_committed_total=1050,
    )
    efficiency = view_of(second, first, {}).sql_efficiency
    assert efficiency.basis == "two scrapes"
    assert efficiency.window_seconds == 15
    assert efficiency.pruned_scan_ratio == pytest.approx(20 / 100)
    assert efficiency.round_trips_per_commit == pytest.approx(500 / 50)


def test_sql_efficiency_since_start_with_one_scrape_or_after_a_restart():
    first = cluster()
    assert view_of(first, None, {}).sql_efficiency.basis == "since SQL node start"
    restarted = later(first, 15, ndb_sql_api_scans_total=10)
    efficiency = view_of(restarted, first, {}).sql_efficiency
    assert efficiency.basis == "since SQL node start"
    assert efficiency.scans == 10


def test_config_lists_non_default_and_inconsistent_parameters():
    view = config_of(cluster(inconsistent={"MaxNoOfConcurrentOperations": {1: 32768, 2: 65536}}))
    params = {p.param: p for p in view.params}
    assert params["DataMemory"].non_default_nodes == [1, 2, 3, 4]
    assert not params["DataMemory"].inconsistent
    assert params["MaxNoOfConcurrentOperations"].inconsistent
    assert "TimeBetweenGlobalCheckpoints" not in params
    assert view.inconsistent_count == 1
