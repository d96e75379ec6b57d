"""End to end: `ndbsim --replica` (a source cluster and a replica cluster linked by NDB
replication) -> an exporter per SQL node -> Prometheus servers (one of each build) loaded
with the NDB rules.

The source's SQL node (the binlog server) is labelled cluster="primary", the replica's
cluster="dr" and source_cluster="primary", as a scrape config tells the two clusters apart and
names the replica's source. On the healthy pair no alert
expression is true; each fault of the replication link makes its alert's expression true
(the `for` durations are covered by the promtool tests in
provisioning/prometheus/rules/tests/replication.yml), and the pair is healthy again after a
reset.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
from ndb_harness import Exporter, Ndbsim, running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors

from tests.support.live_stack import (
    Prometheus,
    running_prometheus_builds,
    wait_until,
    wait_until_quiet,
)

pytestmark = pytest.mark.integration

SOURCE, REPLICA = "primary", "dr"
# Only the collectors of the replication rules, each a statement answered by the SQL node
# alone: the scrapes stay short on a busy machine (without config, NdbSubscriberEpochLagHigh
# takes the default epoch timing and MaxBufferedEpochs).
COLLECTORS = ("status", "binlog", "replica_status", "apply_status")
SCRAPE_INTERVAL = "3s"
FAULT_SECONDS = 45.0
RECOVERY_SECONDS = 60.0


def collector_flags() -> list[str]:
    return [f"--no-collector.{c.name}" for c in all_collectors() if c.name not in COLLECTORS]


@dataclass
class Pair:
    sim: Ndbsim
    servers: dict[str, Prometheus]
    source: Exporter
    replica: Exporter

    def true_on(self, prometheus: Prometheus, alert: str) -> list[dict]:
        """The labels of `alert` where it is true on `prometheus` for the pair (either
        cluster)."""
        return [a for a in self.pair_alerts(prometheus) if a["alertname"] == alert]

    def pair_alerts(self, prometheus: Prometheus) -> list[dict]:
        return [a for a in prometheus.alerts() if a.get("cluster") in (SOURCE, REPLICA)]

    def true_alerts(self) -> dict[str, set[str]]:
        return {
            name: {a["alertname"] for a in self.pair_alerts(prometheus)}
            for name, prometheus in self.servers.items()
        }

    def wait_for_alert(self, alert: str, **labels: str) -> list[dict]:
        """The alert's true series with `labels`, once it is true on every server."""

        def matching() -> list[dict]:
            found = []
            for prometheus in self.servers.values():
                on_server = [
                    metric
                    for metric in self.true_on(prometheus, alert)
                    if all(metric.get(key) == value for key, value in labels.items())
                ]
                if not on_server:
                    return []
                found += on_server
            return found

        return wait_until(
            matching, FAULT_SECONDS, f"{alert} {labels or ''} to be true", interval=1.0
        )

    def wait_healthy(self) -> None:
        wait_until_quiet(
            lambda: {k: v for k, v in self.true_alerts().items() if v},
            RECOVERY_SECONDS,
            "the pair to be healthy",
        )


def _scraped(prometheus: Prometheus, metric: str, cluster: str) -> bool:
    return bool(prometheus.query(f'count_over_time({metric}{{cluster="{cluster}"}}[1m]) >= 3'))


@pytest.fixture(scope="module")
def pair(tmp_path_factory) -> Iterator[Pair]:
    workdir = tmp_path_factory.mktemp("e2e-replication")
    with ExitStack() as running:
        sim = running.enter_context(running_ndbsim("--tables", "4", replica=True, speed=5))
        source = running.enter_context(
            running_exporter(
                collector_flags(), mysqld=sim.account(), log_dir=workdir, name="exporter-source"
            )
        )
        replica = running.enter_context(
            running_exporter(
                collector_flags(),
                mysqld=sim.account("replica"),
                log_dir=workdir,
                name="exporter-replica",
            )
        )
        targets = {
            source.address: {"cluster": SOURCE},
            replica.address: {"cluster": REPLICA, "source_cluster": SOURCE},
        }
        servers = running.enter_context(
            running_prometheus_builds(targets, workdir, SCRAPE_INTERVAL)
        )
        for name, prometheus in servers.items():
            for metric, cluster in (
                ("ndb_binlog_written_gci", SOURCE),
                ("ndb_sql_last_commit_epoch", SOURCE),
                ("ndb_replica_applied_gci", REPLICA),
                ("ndb_replica_sql_thread_state", REPLICA),
            ):
                wait_until(
                    lambda p=prometheus, m=metric, c=cluster: _scraped(p, m, c),
                    60.0,
                    f"{metric} of cluster {cluster} scraped by {name}",
                )
        yield Pair(sim, servers, source, replica)


@pytest.fixture
def healthy(pair: Pair) -> Iterator[Pair]:
    pair.sim.reset()
    pair.wait_healthy()
    yield pair
    pair.sim.reset()


def test_healthy_pair_has_no_true_alert_expression(pair: Pair):
    pair.wait_healthy()
    for prometheus in pair.servers.values():
        # the replica has applied what the source wrote: the epoch lag is there, and small
        lags = prometheus.query("cluster:ndb_replica_applied_gci:lag")
        assert [(s["metric"]["cluster"], s["metric"]["server_id"]) for s in lags] == [
            (REPLICA, "1")
        ]
        assert float(lags[0]["value"][1]) <= 150


@pytest.mark.parametrize(
    ("fault", "thread", "state"),
    [("replica-sql-error", "sql", "no"), ("replica-io-disconnect", "io", "connecting")],
)
def test_stopped_thread_makes_replication_stopped_true(healthy: Pair, fault, thread, state):
    healthy.sim.fault(fault)
    found = healthy.wait_for_alert("NdbReplicationStopped", thread=thread)
    assert {(m["cluster"], m["state"]) for m in found} == {(REPLICA, state)}
    assert not any(
        healthy.true_on(prometheus, "NdbBinlogGap") for prometheus in healthy.servers.values()
    )


def test_replica_behind_makes_replication_lag_high_true_in_seconds_and_epochs(healthy: Pair):
    """Both forms: Seconds_Behind_Source per SQL node and channel (no server_id), and the
    replica cluster's epoch lag per source server_id."""
    healthy.sim.fault("replica-behind", seconds=900)

    def both_forms() -> bool:
        return all(
            {"server_id" in m for m in healthy.true_on(prometheus, "NdbReplicationLagHigh")}
            == {True, False}
            for prometheus in healthy.servers.values()
        )

    wait_until(both_forms, FAULT_SECONDS, "the lag in seconds and in GCIs", interval=1.0)
    found = healthy.wait_for_alert("NdbReplicationLagHigh")
    assert {m["cluster"] for m in found} == {REPLICA}
    assert {m["server_id"] for m in found if "server_id" in m} == {"1"}


def test_injector_behind_makes_injector_and_event_buffer_alerts_true(healthy: Pair):
    healthy.sim.fault("injector-behind")
    for alert in ("NdbBinlogInjectorBehind", "NdbEventBufferHigh"):
        found = healthy.wait_for_alert(alert)
        assert {(m["cluster"], m["server_id"]) for m in found} == {(SOURCE, "1")}


def test_subscriber_lag_makes_subscriber_epoch_lag_high_true(healthy: Pair):
    """10 GCIs late are 200 epochs at the default timing, past half of MaxBufferedEpochs."""
    healthy.sim.fault("subscriber-lag")
    found = healthy.wait_for_alert("NdbSubscriberEpochLagHigh")
    assert {(m["cluster"], m["server_id"]) for m in found} == {(SOURCE, "1")}


def test_lost_events_make_binlog_gap_true(healthy: Pair):
    healthy.sim.fault("injector-behind", gap=True)
    found = healthy.wait_for_alert("NdbBinlogGap")
    assert {m["cluster"] for m in found} == {REPLICA}
    assert healthy.wait_for_alert("NdbReplicationStopped", thread="sql")


def test_conflicts_make_replication_conflicts_true(pair: Pair):
    """Last: the alert counts conflicts of the last 10 minutes, so it stays true for 10
    minutes after the conflicts stop, longer than this module runs."""
    pair.sim.reset()
    pair.wait_healthy()
    pair.sim.fault("conflicts")
    try:
        found = pair.wait_for_alert("NdbReplicationConflicts")
    finally:
        pair.sim.reset()
    assert {m["cluster"] for m in found} == {REPLICA}
