"""The end-to-end alert stack: ndbsim -> exporter -> Prometheus loaded with the NDB rules, one
per test module that uses its fixtures (test_e2e_alerts.py, test_e2e_alerts_load.py), so
that the modules run side by side.

On a healthy simulated cluster no alert expression is true; every injected fault makes its
alert's expression true, as Prometheus' rule evaluation over the scraped series finds it: the
alert is pending or firing in /api/v1/alerts (the `for` durations are covered by the promtool
unit tests). One Prometheus server of each build
(live_stack.PROMETHEUS_BUILDS) scrapes the same exporters, and every check holds on each.

Two simulated SQL nodes of one cluster (label cluster="e2e") are scraped:
- A, at a low speed so that its ndbinfo answers stay fast, takes the node, memory, log,
  arbitration, connection, transporter overload, stuck start and moved primaries faults;
- B, whose data node 2 runs with a different MaxNoOfConcurrentOperations, runs at a high
  speed so that 300 global checkpoints pass within seconds for the LCP stall.
Stopping a data node of A also makes A see fewer ready data nodes than B
(NdbSqlNodeDisconnected). Alerts on cluster-wide data carry no `instance` (they are the same
whichever SQL nodes report them), so each SQL node's target also gets a `sim` label ("a", "b")
that tells the two simulated clusters apart.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import pytest
from ndb_harness import Exporter, Ndbsim, running_exporter, running_ndbsim
from ndbinfo_exporter.collectors.registry import all_collectors

from tests.rules.rules_model import alert_rules
from tests.support.live_stack import (
    Prometheus,
    running_prometheus_builds,
    wait_until,
    wait_until_quiet,
)

CLUSTER = "e2e"
SIM_ARGS = ("--data-nodes", "4")  # node groups 0 = {1, 2} and 1 = {3, 4}
# A: 8 tables, one of them a disk data table, so that A has a tablespace (ts_1); B: 4, so that
# its scrapes stay short at its high speed
TABLES_A, TABLES_B = "8", "4"
MGM_NODE = 49
OTHER_SQL_NODE = 51  # the second mysqld of ndbsim's cluster (50 is the one A's exporter reads)
SPEED_A = 5
SPEED_B = 60  # 300 GCIs of 2 cluster seconds in 10 s
DRIFT = ("MaxNoOfConcurrentOperations", "65536", 2)
STUCK_NODE, STUCK_PHASE = 4, 4  # node 4: its restart does not add to node 2's reconnects
RESTART_SECONDS = 12  # cluster seconds of ndbsim's node restart
OVERLOADED_LINK = ("3", "4")
# ndbsim runs 5 (A) and 60 (B) times faster than wall time: the exporter's maximum age of the
# slowly changing collectors' rows is scaled down from its two minutes in the same way.
REFRESH_MAX_AGE = "--exporter.refresh-max-age=20"
# A scrape of a simulated SQL node takes up to about two seconds on a busy 2-core machine,
# where the suite's other stacks share the CPU.
SCRAPE_INTERVAL = "3s"
FAULT_SECONDS = 45.0
RECOVERY_SECONDS = 60.0  # collector timeouts on a busy machine delay the healthy state

# Only the collectors the alert rules read, to keep each scrape of ndbsim short.
COLLECTORS_A = (
    "status",
    "nodes",
    "processes",
    "membership",
    "memoryusage",
    "logspaces",
    "lcp",
    "replicas",
    "fragments",
    "config",
    "transporters",
    "counters",
    "tc_latency",
    "transactions",
    "locks",
    "disk_data",
    "certificates",
    "backup",
    "cpu",
    "diskpagebuffer",
    "resources",
    "logbuffers",
    "disk_write_speed",
)
COLLECTORS_B = ("status", "lcp", "config", "counters")

# Alerts that stay true for their window (15 minutes, an hour) after a data node restarted.
RESTART_ALERTS = {"NdbDataNodeRestarted", "NdbDataNodeRestartLoop"}
# And those that remember, for their window, peers that reconnected (each restart of a data
# or SQL node is a reconnect of the data nodes' links to it), a backup that failed or an
# arbitration lost: the tests that make these happen leave them true on a cluster healthy
# again.
LINGERING_ALERTS = RESTART_ALERTS | {
    "NdbTransporterFlapping",
    "NdbBackupFailed",
    "NdbArbitrationLost",
}

ALERTS = {rule["alert"] for rule in alert_rules()}


def collector_flags(enabled: tuple[str, ...]) -> list[str]:
    disabled = [f"--no-collector.{c.name}" for c in all_collectors() if c.name not in enabled]
    return [*disabled, REFRESH_MAX_AGE]


@dataclass
class Stack:
    servers: dict[str, Prometheus]
    sim_a: Ndbsim
    sim_b: Ndbsim
    exporter_a: Exporter
    exporter_b: Exporter

    def matches(self, alert: str, exporter: Exporter, **labels: str) -> list[dict]:
        """The alert's labels where it is true for the simulated cluster of `exporter` (and for
        its SQL node, where the alert names one), on every server; nothing if it is not true on
        one of them."""
        found = []
        for prometheus in self.servers.values():
            on_server = self.matches_on(prometheus, alert, exporter, **labels)
            if not on_server:
                return []
            found += on_server
        return found

    def matches_on(
        self, prometheus: Prometheus, alert: str, exporter: Exporter, **labels: str
    ) -> list[dict]:
        return [a for a in self.true_on(prometheus, exporter, **labels) if a["alertname"] == alert]

    def true_on(self, prometheus: Prometheus, exporter: Exporter, **labels: str) -> list[dict]:
        """The labels of the alerts true on `prometheus` for the simulated cluster of
        `exporter` (and for its SQL node, where an alert names one) that have `labels`."""
        sim = "a" if exporter is self.exporter_a else "b"
        found = []
        for metric in prometheus.alerts():
            if metric.get("instance", exporter.address) != exporter.address:
                continue
            # a series of one SQL node's own counters (recorded per `instance`) has no `sim`
            if metric.get("sim", sim if "instance" in metric else None) == sim and all(
                metric.get(key) == value for key, value in labels.items()
            ):
                found.append(metric)
        return found

    def true_alerts(self, exporter: Exporter) -> dict[str, set[str]]:
        """Server -> the alerts true for `exporter`."""
        return {
            name: {metric["alertname"] for metric in self.true_on(prometheus, exporter)}
            for name, prometheus in self.servers.items()
        }

    def quiet(self, alert: str, exporter: Exporter) -> bool:
        """`alert` is true for `exporter` on no server."""
        return not any(
            self.matches_on(prometheus, alert, exporter) for prometheus in self.servers.values()
        )

    def wait_for_alert(self, alert: str, exporter: Exporter, **labels: str) -> list[dict]:
        return wait_until(
            lambda: self.matches(alert, exporter, **labels),
            FAULT_SECONDS,
            f"{alert} {labels or ''} to be true via {exporter.address} on {list(self.servers)}",
            interval=1.0,
        )

    def wait_for_query(self, expr: str, timeout: float, what: str) -> dict[str, list[dict]]:
        """Server -> the result of `expr`, once it returns data on every server."""
        return {
            name: wait_until(
                lambda p=prometheus: p.query(expr), timeout, f"{what} on {name}", interval=1.0
            )
            for name, prometheus in self.servers.items()
        }

    def wait_healthy_a(self) -> None:
        """No alert true for A but those that remember a restart (LINGERING_ALERTS)."""
        wait_until_quiet(
            lambda: {
                k: v - LINGERING_ALERTS
                for k, v in self.true_alerts(self.exporter_a).items()
                if v - LINGERING_ALERTS
            },
            RECOVERY_SECONDS,
            "SQL node A to be healthy",
        )


def _scraped(prometheus: Prometheus, exporter: Exporter, metric: str) -> bool:
    return bool(
        prometheus.query(f'count_over_time({metric}{{instance="{exporter.address}"}}[1m]) >= 3')
    )


@pytest.fixture(scope="module")
def stack(tmp_path_factory) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp("e2e-alerts")
    param, value, node = DRIFT
    with ExitStack() as running:
        sim_a = running.enter_context(
            running_ndbsim(*SIM_ARGS, "--tables", TABLES_A, speed=SPEED_A)
        )
        sim_b = running.enter_context(
            running_ndbsim(
                *SIM_ARGS,
                "--tables",
                TABLES_B,
                "--config",
                f"{param}={value}@{node}",
                speed=SPEED_B,
            )
        )
        exporter_a = running.enter_context(
            running_exporter(
                [
                    *collector_flags(COLLECTORS_A),
                    f"--mgmd.address=127.0.0.1:{sim_a.mgm_port}",  # A's management server
                ],
                mysqld=sim_a.account(),
                log_dir=workdir,
                name="exporter-a",
            )
        )
        exporter_b = running.enter_context(
            running_exporter(
                collector_flags(COLLECTORS_B),
                mysqld=sim_b.account(),
                log_dir=workdir,
                name="exporter-b",
            )
        )
        targets = {
            exporter_a.address: {"cluster": CLUSTER, "sim": "a"},
            exporter_b.address: {"cluster": CLUSTER, "sim": "b"},
        }
        servers = running.enter_context(
            running_prometheus_builds(targets, workdir, SCRAPE_INTERVAL)
        )
        # Rates need a few samples: wait until both SQL nodes were scraped several times.
        for (name, prometheus), (exporter, metric) in itertools.product(
            servers.items(),
            (
                (exporter_a, "ndb_nodegroup_running_data_nodes"),
                (exporter_a, "ndb_sql_api_transactions_committed_total"),
                (exporter_b, "ndb_lcp_completed_gci"),
                (exporter_b, "ndb_sql_api_transactions_committed_total"),
            ),
        ):
            wait_until(
                lambda p=prometheus, e=exporter, m=metric: _scraped(p, e, m),
                60.0,
                f"{metric} scraped from {exporter.address} by {name}",
            )
        yield Stack(servers, sim_a, sim_b, exporter_a, exporter_b)


@pytest.fixture
def healthy(stack: Stack) -> Iterator[Stack]:
    """A healthy cluster A before the scenario, back to healthy after it."""
    stack.sim_a.reset()
    stack.wait_healthy_a()
    yield stack
    stack.sim_a.reset()
