"""The compose stack's Prometheus reads the cluster once: the SQL-node collectors from every
SQL node, the cluster-wide collectors from two SQL nodes in a slower job."""

from __future__ import annotations

from collections import Counter

from ndbinfo_exporter.collectors.registry import all_collectors

from tests.stack.prometheus_model import config, jobs, targets

SQL_NODE_COLLECTORS = {
    "status",
    "metadata_sync",
    "replica_status",
    "applier_workers",
    "apply_status",
    "binlog",
    "binlog_index",
    "binlog_files",
}


def seconds(duration: str) -> int:
    return int(duration.removesuffix("s"))


def test_every_default_collector_is_scraped_by_exactly_one_job():
    sql_node, cluster = jobs()["ndb"], jobs()["ndb-cluster"]
    assert set(sql_node["params"]["collect[]"]) == SQL_NODE_COLLECTORS
    default = {c.name for c in all_collectors() if c.default_enabled}
    # and the management server's families, once per cluster
    assert set(cluster["params"]["collect[]"]) == default - SQL_NODE_COLLECTORS | {"mgmd"}


def test_the_cluster_job_scrapes_two_sql_nodes_of_each_cluster_more_slowly():
    sql_node, cluster = jobs()["ndb"], jobs()["ndb-cluster"]
    assert seconds(cluster["scrape_interval"]) > seconds(config()["global"]["scrape_interval"])
    every, chosen = targets(sql_node), targets(cluster)
    assert all(target in every for target in chosen)
    per_cluster = Counter(t.labels["cluster"] for t in every)
    assert Counter(t.labels["cluster"] for t in chosen) == {
        name: min(2, count) for name, count in per_cluster.items()
    }
    # A replica cluster's targets also name the cluster they replicate from (source_cluster).
    assert all(set(t.labels) - {"source_cluster"} == {"cluster", "instance"} for t in chosen)
    sources = {t.labels["source_cluster"] for t in every if "source_cluster" in t.labels}
    assert sources <= {t.labels["cluster"] for t in every if "source_cluster" not in t.labels}
