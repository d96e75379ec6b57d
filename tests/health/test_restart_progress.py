"""A restarting data node's step and estimate, read back from the restart_info collector's
series into the cluster view's data nodes."""

from __future__ import annotations

from dataclasses import replace

from ndbinfo_exporter.health.models import RestartProgress
from ndbinfo_exporter.health.restart_progress import restarts
from ndbinfo_exporter.health.samples import Samples

from tests.health.scrape_data import cluster, gauge, view_of


def restart_series(node: str, status: str, ratio: float | None = None) -> list:
    found = [gauge("ndb_restart_status", {"node_id": node, "status": status})]
    if ratio is not None:
        found += [
            gauge("ndb_restart_progress_ratio", {"node_id": node}, ratio),
            gauge("ndb_restart_remaining_seconds", {"node_id": node}, 90),
        ]
    return found


def test_estimated_and_starting_nodes_have_a_restart():
    samples = Samples(
        restart_series("3", "Restore fragments ongoing", 0.4)
        + restart_series("4", "Allocated node id")
        + restart_series("2", "Restart completed")
    )
    found = restarts(samples, starting=[4, 1])
    assert found == {
        3: RestartProgress(status="Restore fragments ongoing", progress=0.4, remaining_seconds=90),
        4: RestartProgress(status="Allocated node id"),
    }


def test_the_cluster_view_gives_each_data_node_its_restart():
    result = cluster()
    result = replace(
        result, families=[*result.families, *restart_series("3", "Build indexes ongoing", 0.7)]
    )
    nodes = {n.node_id: n for g in view_of(result).topology.node_groups for n in g.nodes}
    assert nodes[3].restart == RestartProgress(
        status="Build indexes ongoing", progress=0.7, remaining_seconds=90
    )
    assert [n for n, node in nodes.items() if node.restart is not None] == [3]
