"""The compose stack's Prometheus reads the cluster once: the SQL-node collectors from every
SQL node, the cluster-wide collectors from two SQL nodes in a slower job."""

from __future__ import annotations

from pathlib import Path

import yaml
from ndbinfo_exporter.collectors.registry import all_collectors

CONFIG = Path(__file__).parents[2] / "provisioning" / "prometheus" / "prometheus.yml"
SQL_NODE_COLLECTORS = {"status", "metadata_sync", "replica_status", "apply_status", "binlog"}


def jobs() -> dict[str, dict]:
    config = yaml.safe_load(CONFIG.read_text())
    return {job["job_name"]: job for job in config["scrape_configs"]}


def seconds(duration: str) -> int:
    return int(duration.removesuffix("s"))


def test_every_default_collector_is_scraped_by_exactly_one_job():
    sql_node, cluster = jobs()["ndb"], jobs()["ndb-cluster"]
    assert set(sql_node["params"]["collect[]"]) == SQL_NODE_COLLECTORS
    default = {c.name for c in all_collectors() if c.default_enabled}
    assert set(cluster["params"]["collect[]"]) == default - SQL_NODE_COLLECTORS


def test_the_cluster_job_scrapes_two_sql_nodes_more_slowly():
    config = yaml.safe_load(CONFIG.read_text())
    sql_node, cluster = jobs()["ndb"], jobs()["ndb-cluster"]
    assert seconds(cluster["scrape_interval"]) > seconds(config["global"]["scrape_interval"])
    targets = [t for static in cluster["static_configs"] for t in static["targets"]]
    assert len(targets) == 2
    every = {t for static in sql_node["static_configs"] for t in static["targets"]}
    assert set(targets) <= every
    labels = [static["labels"] for static in cluster["static_configs"]]
    assert all(set(label) == {"cluster", "instance"} for label in labels)
