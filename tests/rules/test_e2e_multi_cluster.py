"""End to end: two pairs of clusters linked by NDB replication in one Prometheus, both
sources' binlog servers on server_id 1 (two `ndbsim --replica`, each source SQL node with
ndbsim's default server_id 1) -> an exporter per SQL node -> Prometheus servers (one of each
build) loaded with every NDB rule.

The targets are labelled as the README's scrape configs label them: `cluster` on every target,
and on a replica cluster's targets `source_cluster`, the cluster it replicates from. Each
replica's epoch lag is its own pair's, every rule's series names the cluster it belongs to,
and no rule evaluation fails (Prometheus' rule health).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import httpx
import pytest
from ndb_harness import Ndbsim, running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors

from tests.rules.rules_model import alert_rules, recording_rules
from tests.support.live_stack import (
    Prometheus,
    running_prometheus_builds,
    wait_until,
    wait_until_quiet,
)

pytestmark = pytest.mark.integration

# source cluster -> its replica cluster
PAIRS = {"east": "east-dr", "west": "west-dr"}
CLUSTERS = frozenset(PAIRS) | frozenset(PAIRS.values())
COLLECTORS = ("status", "binlog", "replica_status", "apply_status")
SCRAPE_INTERVAL = "3s"
FAULT_SECONDS = 60.0
RECOVERY_SECONDS = 90.0
# GCIs the pair advances between the simulator's answer and Prometheus' last scrape (speed 5:
# 2.5 GCIs a second, a scrape every 3 s, rules every second), with room for a busy machine
LAG_TOLERANCE = 25


def collector_flags() -> list[str]:
    return [f"--no-collector.{c.name}" for c in all_collectors() if c.name not in COLLECTORS]


@dataclass
class Stack:
    sims: dict[str, Ndbsim]  # source cluster -> its ndbsim --replica
    servers: dict[str, Prometheus]

    def lags(self, prometheus: Prometheus) -> dict[tuple[str, str, str], float]:
        """cluster:ndb_replica_applied_gci:lag by (cluster, source_cluster, server_id)."""
        return {
            (
                s["metric"]["cluster"],
                s["metric"].get("source_cluster", ""),
                s["metric"]["server_id"],
            ): float(s["value"][1])
            for s in prometheus.query("cluster:ndb_replica_applied_gci:lag")
        }

    def true_alerts(self) -> dict[str, list[dict]]:
        """Per server, the labels of every alert that is true."""
        return {name: prometheus.alerts() for name, prometheus in self.servers.items()}

    def wait_healthy(self) -> None:
        wait_until_quiet(
            lambda: {k: v for k, v in self.true_alerts().items() if v},
            RECOVERY_SECONDS,
            "both pairs to be healthy",
        )


def sim_lag(sim: Ndbsim) -> int:
    """GCIs the replica cluster is behind its source's binary log, as ndbsim's link says."""
    link = sim.replication()
    return (link["written_epoch"] >> 32) - (link["applied_epoch"] >> 32)


def rule_health(prometheus: Prometheus) -> list[dict]:
    response = httpx.get(f"{prometheus.url}/api/v1/rules", timeout=10.0)
    body = response.json()
    assert body.get("status") == "success", body
    return [rule for group in body["data"]["groups"] for rule in group["rules"]]


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp("e2e-multi-cluster")
    with ExitStack() as running:
        sims: dict[str, Ndbsim] = {}
        targets: dict[str, dict[str, str]] = {}
        for source, replica in PAIRS.items():
            sim = running.enter_context(running_ndbsim("--tables", "4", replica=True, speed=5))
            sims[source] = sim
            for endpoint, labels in (
                ("mysql", {"cluster": source}),
                ("replica", {"cluster": replica, "source_cluster": source}),
            ):
                exporter = running.enter_context(
                    running_exporter(
                        collector_flags(),
                        mysqld=sim.account(endpoint),
                        log_dir=workdir,
                        name=f"exporter-{labels['cluster']}",
                    )
                )
                targets[exporter.address] = labels
        servers = running.enter_context(
            running_prometheus_builds(targets, workdir, SCRAPE_INTERVAL)
        )
        for name, prometheus in servers.items():
            wait_until(
                lambda p=prometheus: (
                    {key[0] for key in Stack(sims, servers).lags(p)} == set(PAIRS.values())
                ),
                90.0,
                f"the lag of both replica clusters on {name}",
            )
        yield Stack(sims, servers)


@pytest.fixture
def healthy(stack: Stack) -> Iterator[Stack]:
    for sim in stack.sims.values():
        sim.reset()
    stack.wait_healthy()
    yield stack
    for sim in stack.sims.values():
        sim.reset()


def assert_lags_right(stack: Stack, prometheus: Prometheus) -> dict[str, float]:
    """Each replica cluster has one lag, toward server 1 of its own source, equal to what its
    ndbsim says within LAG_TOLERANCE; the lags by replica cluster."""
    before = {source: sim_lag(sim) for source, sim in stack.sims.items()}
    lags = stack.lags(prometheus)
    after = {source: sim_lag(sim) for source, sim in stack.sims.items()}
    assert set(lags) == {(replica, source, "1") for source, replica in PAIRS.items()}
    for source, replica in PAIRS.items():
        low = min(before[source], after[source]) - LAG_TOLERANCE
        high = max(before[source], after[source]) + LAG_TOLERANCE
        assert low <= lags[(replica, source, "1")] <= high, (replica, lags, before, after)
    return {replica: value for (replica, _, _), value in lags.items()}


def assert_rules_healthy(prometheus: Prometheus) -> None:
    rules = rule_health(prometheus)
    assert len(rules) == len(alert_rules()) + len(recording_rules())
    failing = [(r["name"], r["health"], r["lastError"]) for r in rules if r.get("lastError")]
    assert not failing
    assert {r["health"] for r in rules} == {"ok"}


def test_each_replica_lag_is_its_own_pair_and_no_rule_fails(healthy: Stack):
    for prometheus in healthy.servers.values():
        lags = assert_lags_right(healthy, prometheus)
        assert all(value <= 150 for value in lags.values()), lags
        assert_rules_healthy(prometheus)


def test_every_recording_rule_names_one_cluster(healthy: Stack):
    for prometheus in healthy.servers.values():
        for rule in recording_rules():
            for sample in prometheus.query(rule["record"]):
                assert sample["metric"].get("cluster") in CLUSTERS, (rule["record"], sample)


def test_one_pair_behind_fires_its_lag_alone(healthy: Stack):
    """east-dr falls 900 s behind east: the lag alert's expression is true for east-dr toward
    east only, west-dr's lag stays small, and no rule evaluation fails."""
    healthy.sims["east"].fault("replica-behind", seconds=900)

    def east_lag_high() -> dict[str, list[dict]]:
        found = {
            name: [a for a in alerts if a["alertname"] == "NdbReplicationLagHigh"]
            for name, alerts in healthy.true_alerts().items()
        }
        return found if all(found.values()) else {}

    def in_epochs(found: dict[str, list[dict]]) -> bool:
        return all(any("server_id" in a for a in alerts) for alerts in found.values())

    found = wait_until(
        lambda: (lambda f: f if f and in_epochs(f) else {})(east_lag_high()),
        FAULT_SECONDS,
        "NdbReplicationLagHigh on east-dr in seconds and in GCIs",
        interval=1.0,
    )
    for alerts in found.values():
        assert {a["cluster"] for a in alerts} == {"east-dr"}
        assert {a.get("source_cluster") for a in alerts if "server_id" in a} == {"east"}
    for name, alerts in healthy.true_alerts().items():
        assert {a["cluster"] for a in alerts} == {"east-dr"}, (name, alerts)
    for prometheus in healthy.servers.values():
        lags = assert_lags_right(healthy, prometheus)
        assert lags["east-dr"] > 150 and lags["west-dr"] <= 150, lags
        assert_rules_healthy(prometheus)
